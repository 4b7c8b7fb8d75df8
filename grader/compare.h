/* compare: an output buffer against the reference's, with the spec's tolerance, and a
 * description of the mismatch that points at the likely mistake (never written, a tail
 * left unwritten, only a quarter copied...; for an output with a shape, by row and
 * column: only the edge band wrong, only the last columns or rows, a transpose). */
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
	uint64_t blank;       /* wrong elements that are the fill pattern, 0 or what a
	                         fresh cudaMalloc'd buffer holds on the emulator (0xCD bytes) */
	uint64_t fresh;       /* wrong elements that are that 0xCD value */
	uint64_t added_to_fresh; /* wrong elements that are that 0xCD value plus the right one:
	                            a sum or count started from memory nothing cleared */
	uint64_t first_wrong, last_wrong;
	struct compare_mismatch shown[COMPARE_SHOWN];
	unsigned n_shown;
	double max_abs_err;   /* over all elements */
	/* With a shape (shape.n >= 2), over its last two dimensions (rows x cols planes): */
	struct spec_shape shape;
	uint64_t edge_max;    /* the largest distance of a wrong element from its plane's edge */
	uint64_t row_min, col_min, plane_min; /* the smallest row, column, plane of one */
	uint64_t transposed;  /* wrong elements holding the expected value of the mirrored
	                         position (square planes only) */
	uint64_t last_rows, last_cols; /* when every wrong element lies in the last rows or
	                                  columns, which are (nearly) all wrong: how many */
};

/* The default tolerance for a dtype when the spec gives none: exact for integers. */
struct spec_tolerance compare_default_tolerance(enum spec_dtype t);
/* Compares COUNT elements; SHAPE (NULL or n = 0: none) is the output's dimensions. */
void compare_buffers(enum spec_dtype t, const struct spec_tolerance *tol, const void *expected,
		     const void *actual, uint64_t count, const struct spec_shape *shape,
		     struct compare_result *out);
/* True when one element is within tolerance (NaN equals NaN only when exact bits match). */
bool compare_close(double expected, double actual, const struct spec_tolerance *tol);
/* A few lines for the report: how many are wrong, the first few, and likely causes. The
 * buffer's NAME and element TYPE appear in the wording. Returns malloc'd text. */
char *compare_describe(const struct compare_result *r, const char *name, enum spec_dtype t);

#endif
