/* grade_internal: what grade.c shares with the files that make up the rest of one
 * grading: grade_datasets.c (each dataset's runs and their judging, side by side on the
 * emulator) and grade_checks.c (memcheck, performance, optimisations, barriers and the
 * --profile entry). One grading's state and the helpers every step uses; grade.h is the
 * API, this header is private to grade*.c. */
#ifndef PMPPLAB_GRADE_INTERNAL_H
#define PMPPLAB_GRADE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "build.h"
#include "grade.h"
#include "report.h"
#include "runner.h"
#include "spec.h"
#include "subrun.h"
#include "uninitcheck.h"

/* Everything one grading run carries between its steps. */
struct grading {
	const struct lab_spec *spec;
	const struct grade_opts *opts;
	enum backend_kind backend;
	struct report *report;
	struct diag_list *diags;
	struct build_result prog, ref_build;
	struct build_result emu;  /* gpu: the submission built for the emulator too */
	int emu_rc;               /* 1 not built yet, 0 built, < 0 could not build */
	struct twin_run {         /* gpu: its race-checked run, for memcheck and barriers */
		const struct spec_dataset *d; /* NULL: not run yet */
		int rc;
		char result[192], events[208];
		struct runner_result res;
	} twin;
	struct kept_run {         /* emu: the run of memcheck's dataset, which is memcheck's */
		const struct spec_dataset *d; /* NULL: none kept */
		struct runner_result res;
	} kept;
	const struct spec_dataset *counted; /* emu: the dataset whose run counted (perf) */
	struct kept_twin {        /* gpu: the twin's provenance run of memcheck's dataset */
		const struct spec_dataset *d; /* NULL: none kept */
		struct runner_result res;
		char result[176], events[192];
	} prov;
	char tmp[64];             /* the grading's folder (scratch.h), holding: */
	char box[80];             /*   the inputs and what the program writes: all it sees */
	char ref[80];             /*   the expected outputs: the grader's only */
	struct subrun runs;       /* every run of the submission (sandbox, fail fast) */
	const char *source;
	unsigned reported;        /* tests of the report sent to opts->progress */
	struct uninitcheck_findings uninit; /* registers read unwritten (after the build) */
	bool uninit_told;         /* a failing test has their whole text already */
};

/* ---- grade.c: the steps' shared helpers ---- */

/* Tells opts->progress (when set) that the run is at STAGE, after the tests the last
 * step added (GRADE_STAGE_RESULT each). */
void grading_progress(struct grading *g, enum grade_stage stage, unsigned index, unsigned count,
		      const char *what);

/* Runs ARGV (B's program, under a tool or not) as a run of the submission (subrun.h):
 * see grade.c for the environment it gets. */
int grading_run_env(struct grading *g, const struct build_result *b, const char **argv,
		    const char *request, const char *result, const char *log,
		    unsigned timeout_ms, const char *what, const char *const *extra,
		    bool deferred, struct runner_result *res);
int grading_run_argv(struct grading *g, const struct build_result *b, const char **argv,
		     const char *request, const char *result, const char *log,
		     unsigned timeout_ms, const char *what, struct runner_result *res);
int grading_run_program(struct grading *g, const struct build_result *b, const char *request,
			const char *result, unsigned timeout_ms, struct runner_result *res,
			const char *wrapper_tool, const char *what);
/* grading_run_program for a run memcheck reads: an emulator build also reports reads of
 * device memory nothing wrote (memcheck_emu_env). */
int grading_run_memchecked(struct grading *g, const struct build_result *b, const char *request,
			   const char *result, unsigned timeout_ms, struct runner_result *res,
			   const char *wrapper_tool, const char *what);

/* True, with a "not run" test LABEL in the report, when fail fast stopped the runs of
 * REQUEST (subrun.h). */
bool grading_skipped(struct grading *g, const char *request, const char *label, double points);

/* Whether opts->cancel asks the run to stop. */
bool grading_stopped(const struct grading *g);

/* gpu: the submission built for the emulator too (built at the first call), or NULL. */
const struct build_result *grading_emu_twin(struct grading *g);

/* Appends the registers read unwritten (uninitcheck.h), when there are any, to the
 * output of the report's last test: why its numbers are wrong. */
void grading_uninit_note(struct grading *g);

/* The lab's time limit for one run of the program, in milliseconds. */
unsigned grade_timeout_ms(const struct lab_spec *s);

/* The last LINES lines of TEXT ("" for NULL): a crash's message is at the end. */
const char *grade_tail_lines(const char *text, unsigned lines);

/* The dataset check C runs on (its first, for a memcheck of several). */
const struct spec_dataset *grade_check_dataset(const struct lab_spec *s,
						const struct spec_check *c);

/* ---- grade_datasets.c: the datasets' tests ---- */

/* The datasets ORDER[0..N) (indices into the spec's), run and judged into the report,
 * side by side on the emulator. -ECANCELED when the run was stopped. */
int grade_datasets(struct grading *g, const unsigned *order, unsigned n);

/* "correctness: NAME (n=..., ...)": dataset D's test name (malloc'd; NULL: no memory). */
char *grade_dataset_label(const struct spec_dataset *d);

/* Whether the correctness test of dataset D is in the report and passed. */
bool grade_dataset_passed(const struct report *r, const struct spec_dataset *d);

/* The kernels the run that wrote RESULT launched; -1 when it does not say. */
long grade_result_launches(const char *result);

/* ---- grade_checks.c: the checks after the datasets ---- */

/* Each adds check C's test to the report; the int ones return a negative code for a
 * configuration error, which ends the grading. */
void grade_memcheck(struct grading *g, const struct spec_check *c);
int grade_performance(struct grading *g, const struct spec_check *c);
int grade_optimisations(struct grading *g, const struct spec_check *c);
int grade_barriers(struct grading *g, const struct spec_check *c);
/* --profile: ncu's counters per kernel, a 0-point entry in the report. */
void grade_profile(struct grading *g);

#endif
