/* job: one grading run in a background thread, so the screen stays live while nvcc and
 * the student program run. The thread never touches curses: grade_lab's progress
 * callback (each test as it is final, too) and the final result are written as messages
 * to a pipe, and the UI thread reads them when poll() says the pipe is readable. A run
 * is stopped through grade_opts.cancel: the grader stops the child it runs and starts
 * nothing more. */
#ifndef PMPPLAB_UI_JOB_H
#define PMPPLAB_UI_JOB_H

#include <stdbool.h>

#include "grade.h"

/* The grading function: grade_lab in pmpplab, a fake in tests. */
typedef int (*job_grade_fn)(const struct lab_spec *spec, const struct grade_opts *opts,
			    struct report **out, struct diag_list *diags);

enum job_event_kind { JOB_PROGRESS, JOB_DONE };

struct job_event {
	enum job_event_kind kind;
	/* JOB_PROGRESS: what the grader reported; progress.what points into what[].
	 * GRADE_STAGE_RESULT: the finished test, a copy the caller frees with
	 * job_test_free (progress.test points to it too). */
	struct grade_progress progress;
	char what[96];
	struct report_test *test;
	/* Both kinds: milliseconds since the run started, taken on the grading thread when
	 * the message was sent (so a busy screen does not blur the timings). */
	double at_ms;
	/* JOB_DONE: grade_lab's return code, its report (caller frees with report_free)
	 * and diagnostics (caller releases), and how long the run took. */
	int rc;
	struct report *report;
	struct diag_list diags;
	bool quick;
	double elapsed_ms;
};

struct job;

/* A job runner calling GRADE. Returns NULL with errno set when the pipe cannot be made. */
struct job *job_new(job_grade_fn grade);
/* Frees J. Call job_cancel first: a run still going is detached here (it keeps the job
 * alive until the process ends) and its result dropped. */
void job_free(struct job *j);
/* Asks the run that is going to stop (grade_opts.cancel) and returns at once: it ends
 * soon with rc -ECANCELED, its JOB_DONE still to read. Nothing when the job is idle. */
void job_stop(struct job *j);
/* job_stop, then waits at most TIMEOUT_MS for the run to end (the grader cleans up after
 * itself: its /tmp/pmpplab-run-* folder) and drops its result. Returns 0 when the job
 * is idle (also when nothing was running), -ETIMEDOUT when the run did not end in time. */
int job_cancel(struct job *j, unsigned timeout_ms);
/* Frees a test of a GRADE_STAGE_RESULT event; accepts NULL. */
void job_test_free(struct report_test *t);
/* The read end of the message pipe, for poll(). */
int job_fd(const struct job *j);
/* Starts grading SPEC with OPTS (copied; opts->progress and userdata are replaced).
 * Returns 0, -EBUSY while a run is going, or -errno when the thread cannot start. */
int job_start(struct job *j, const struct lab_spec *spec, const struct grade_opts *opts);
bool job_busy(const struct job *j);
/* Reads the next message without blocking. Returns 1 with *ev filled, 0 when there is
 * none, or -errno. After JOB_DONE the job is idle again. */
int job_next(struct job *j, struct job_event *ev);

#endif
