/* grade: the run of one lab (docs/ARCHITECTURE.md, "The run of one lab"): build the
 * submission, generate inputs, run it in a child per dataset, compute the expected output
 * with the CPU reference in another child, compare, and collect the results as a report. */
#ifndef PMPPLAB_GRADE_H
#define PMPPLAB_GRADE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "build.h"
#include "diag.h"
#include "report.h"
#include "spec.h"

/* What a grading run is doing now, for live progress (the TUI). */
enum grade_stage {
	GRADE_STAGE_BUILD,      /* building the submission */
	GRADE_STAGE_REFERENCE,  /* computing expected outputs */
	GRADE_STAGE_DATASET,    /* running dataset `index` of `count` */
	GRADE_STAGE_CHECK,      /* running an extra check (memcheck...) */
	GRADE_STAGE_DONE,
	GRADE_STAGE_RESULT,     /* test `index` of the report is final: `test` (issue 16:
				 * the TUI shows results as they come) */
};

struct grade_progress {
	enum grade_stage stage;
	unsigned index, count;  /* for GRADE_STAGE_DATASET */
	const char *what;       /* dataset or check name, or NULL */
	const struct report_test *test; /* GRADE_STAGE_RESULT: valid during the call only */
};

typedef void (*grade_progress_fn)(void *userdata, const struct grade_progress *p);

struct grade_opts {
	enum backend_kind backend;  /* BACKEND_AUTO resolves with backend_detect() */
	const char *submission;     /* the .cu to grade; NULL = the lab's starter */
	uint64_t seed;              /* 0 = a fresh one (reported) */
	bool quick;                 /* skip datasets marked perf */
	bool profile;               /* gpu: also measure each kernel with ncu (ncu.h) */
	enum build_ptx ptx;         /* emu: who makes the PTX (build.h); BUILD_PTX_NVCC = 0 */
	grade_progress_fn progress; /* may be NULL */
	void *userdata;
	const atomic_bool *cancel;  /* may be NULL; set (from another thread) to stop the run:
				     * the child running is stopped and nothing more starts
				     * (runner_set_cancel) */
};

/* Grades one lab. Returns 0 with *out set (even when tests failed: the report says so),
 * or a negative code for a configuration error (no nvcc, unreadable submission...),
 * with the reason in diags; -ECANCELED when opts->cancel stopped it. Free the report
 * with report_free. Each test goes to opts->progress (GRADE_STAGE_RESULT) when it is
 * final, before the next step starts. */
int grade_lab(const struct lab_spec *spec, const struct grade_opts *opts,
	      struct report **out, struct diag_list *diags);

#endif
