/* subrun: how a grading runs the submission's program, whatever runs it (a dataset,
 * memcheck and the emulator twin, the barrier schedules, the performance runs, ncu): in
 * the sandbox (sandbox.h), seeing its program, its input and the files it writes, and
 * nothing of the grading folder's expected outputs (kept apart, in a folder only the
 * grader reads).
 *
 * Fail fast (issue 17): once a run of the submission timed out or flooded its output
 * before any run of it had finished (a hang or a flood from the start), or crashed twice
 * the same way, the grading's later runs would only repeat it: they are skipped
 * (subrun_run returns -ECANCELED) and subrun_stopped() says why, once, for the report.
 * A timeout or flood after other runs finished (a large dataset, a slow machine) skips
 * only the later runs on the same input. */
#ifndef PMPPLAB_SUBRUN_H
#define PMPPLAB_SUBRUN_H

#include <stdbool.h>

#include "build.h"
#include "runner.h"

/* One grading's runs. Zero-initialise, set box. */
struct subrun {
	const char *box;     /* the folder of the inputs and the program's outputs */
	char stop[640];      /* why every later run is skipped; "" while they run */
	char slow[640];      /* why later runs on the input SLOW_INPUT are skipped */
	char slow_input[256];
	char crash[160];     /* what the last run was, when it crashed */
	int crash_signal;
	bool finished;       /* a run of the submission ended by itself */
};

struct subrun_call {
	const struct build_result *b; /* the program: its folder is shown read-only, and the
				       * emulator's runtime when it is an emulator build */
	const char *const *argv;      /* the command (the program, or a tool running it) */
	char *const *env;             /* extra NAME=value; may be NULL */
	const char *reads[2];         /* inputs it reads (the request file) */
	const char *writes[4];        /* files it writes (result, events, a tool's log):
				       * made empty first, the only ones it can write */
	unsigned timeout_ms;
	size_t output_cap;            /* bytes of stdout/stderr kept; 0: 64 KiB */
	const char *what;             /* "dataset tiny", "memcheck": for the messages */
	bool lab_code;                /* the lab's solution (perf): not the submission */
	bool deferred;                /* made beside others (a dataset's,
				       * grade_datasets.c): the caller checks
				       * subrun_stopped before it and calls
				       * subrun_account after it, in the runs' order */
};

/* Runs C (S may be NULL: no fail-fast). Returns 0 with *res (release it), -ECANCELED when an earlier run stopped the
 * grading's runs (nothing run, *res empty), or another negative code when it could not
 * be started. */
int subrun_run(struct subrun *s, const struct subrun_call *c, struct runner_result *res);
/* Counts the deferred run C (ended as RES) for fail fast, as subrun_run does the others:
 * call it in the order the runs would have been made one after another. */
void subrun_account(struct subrun *s, const struct subrun_call *c, const struct runner_result *res);
/* Why a run on INPUT (a request file; NULL: any run) would be skipped, or NULL. */
const char *subrun_stopped(const struct subrun *s, const char *input);

/* The first LINES lines of TEXT (a flood's start), in BUF. */
void subrun_head(const char *text, unsigned lines, char *buf, size_t len);

#endif
