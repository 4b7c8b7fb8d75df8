/* report: the results of grading, as Gradescope's results.json models them (a score and
 * a list of tests), plus what a student needs to act on them: compiler diagnostics and
 * the seed. Written as text for people and as JSON for autograders. */
#ifndef PMPPLAB_REPORT_H
#define PMPPLAB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

enum test_status { TEST_PASSED, TEST_FAILED };

struct report_test {
	char *name;       /* "build", "correctness: small (n=1000)", "memcheck" */
	double score, max_score;
	enum test_status status;
	char *output;     /* what happened and what to do; may be NULL */
};

struct ncu_profile;

struct report {
	char *lab;          /* lab id */
	char *submission;   /* path graded */
	char *backend;      /* "gpu" or "emu" */
	uint64_t seed;
	bool sandboxed;     /* every build and run of the submission was in the sandbox */
	struct report_test *tests;
	unsigned n_tests;
	struct diag_list build; /* compiler diagnostics (errors and warnings) */
	/* nvcc's wall time for the program and (emulator) its PTX, compiled in parallel;
	 * 0 when the build cache answered */
	double build_ms_host, build_ms_ptx;
	bool build_host_reused; /* emu: the fast build, only the PTX compiled (build.h) */
	bool build_nvrtc;       /* emu: the PTX by NVRTC (build.h, BUILD_PTX_NVRTC) */
	/* --profile on a GPU: each kernel's counters from ncu, or NULL (not measured) */
	struct ncu_profile *profile;
	/* Kernels the program launched: the most over the datasets that ran to the end, from
	 * the emulator's launch events; on a GPU, CUPTI's count per call in the performance
	 * check's timed runs; -1 when nothing counted them. 0 flags a program that builds
	 * but computes without the GPU (the class report lists it). */
	int launches;
	/* The performance check's median kernel time per call, student and solution (ms, GPU
	 * only); 0 when not measured. */
	double kernel_ms, solution_ms;
};

struct report *report_new(const char *lab, const char *submission, const char *backend,
			  uint64_t seed);
void report_free(struct report *r);
/* Adds a test; output is printf-style and may be NULL. Returns the test. */
struct report_test *report_add(struct report *r, const char *name, double max_score,
			       bool passed, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
double report_score(const struct report *r);
double report_max_score(const struct report *r);
bool report_passed(const struct report *r);

/* Human text. */
void report_write_text(FILE *f, const struct report *r, bool color);
/* Gradescope results.json for one or more labs (scores summed). Returns 0 or -errno. */
int report_write_json(FILE *f, struct report *const *reports, unsigned n);
/* The same document as a jansson object (the batch adds its keys to extra_data), or
 * NULL when out of memory. The caller owns the reference. */
struct json_t *report_json(struct report *const *reports, unsigned n);

#endif
