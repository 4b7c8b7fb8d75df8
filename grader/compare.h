/* compare: an output buffer against the reference's, with the spec's tolerance, and a
 * description of the mismatch that points at the likely mistake (never written, a tail
 * left unwritten, only a quarter copied...). */
#ifndef PMPPLAB_COMPARE_H
#define PMPPLAB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

#define COMPARE_SHOWN 5

struct compare_mismatch {
	uint64_t index;
	double expected, actual;
	bool unwritten; /* still the harness's 0xFF fill */
};

struct compare_result {
	uint64_t count;       /* elements compared */
	uint64_t wrong;       /* elements outside tolerance */
	uint64_t unwritten;   /* wrong elements that still hold the fill pattern */
	uint64_t blank;       /* wrong elements that are the fill pattern or 0 (a fresh
	                         cudaMalloc'd buffer copied back reads as zeros) */
	uint64_t first_wrong, last_wrong;
	struct compare_mismatch shown[COMPARE_SHOWN];
	unsigned n_shown;
	double max_abs_err;   /* over all elements */
};

/* The default tolerance for a dtype when the spec gives none: exact for integers. */
struct spec_tolerance compare_default_tolerance(enum spec_dtype t);
/* Compares COUNT elements. */
void compare_buffers(enum spec_dtype t, const struct spec_tolerance *tol, const void *expected,
		     const void *actual, uint64_t count, struct compare_result *out);
/* True when one element is within tolerance (NaN equals NaN only when exact bits match). */
bool compare_close(double expected, double actual, const struct spec_tolerance *tol);
/* A few lines for the report: how many are wrong, the first few, and likely causes. The
 * buffer's NAME and element TYPE appear in the wording. Returns malloc'd text. */
char *compare_describe(const struct compare_result *r, const char *name, enum spec_dtype t);

#endif
