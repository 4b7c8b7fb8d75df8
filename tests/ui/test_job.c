/* job: grading runs on another thread; its progress and result arrive through the pipe
 * in order, and the UI thread stays free while it runs. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "job.h"
#include "runner.h"

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_t grader_thread;

/* A grader that reports build, two datasets and done, after the test opens the gate. */
static int fake_grade(const struct lab_spec *spec, const struct grade_opts *opts,
		      struct report **out, struct diag_list *diags)
{
	(void)spec;
	grader_thread = pthread_self();
	pthread_mutex_lock(&gate);
	pthread_mutex_unlock(&gate);
	struct grade_progress p = {GRADE_STAGE_BUILD, 0, 1, opts->submission, NULL};
	opts->progress(opts->userdata, &p);
	p = (struct grade_progress){GRADE_STAGE_DATASET, 0, 2, "small", NULL};
	opts->progress(opts->userdata, &p);
	p = (struct grade_progress){GRADE_STAGE_DATASET, 1, 2, "odd", NULL};
	opts->progress(opts->userdata, &p);
	p = (struct grade_progress){GRADE_STAGE_DONE, 0, 0, NULL, NULL};
	opts->progress(opts->userdata, &p);
	if (opts->quick) {
		diag_add(diags, DIAG_ERROR, "x.cu", 3, 0, "no nvcc");
		return -ENOENT;
	}
	*out = report_new("01-vecadd", opts->submission, "emu", 42);
	report_add(*out, "build", 0, true, NULL);
	report_add(*out, "correctness: small", 2, false, "3 elements wrong");
	return 0;
}

static int next_event(struct job *j, struct job_event *ev)
{
	struct pollfd p = {job_fd(j), POLLIN, 0};
	if (poll(&p, 1, 2000) <= 0)
		return 0;
	return job_next(j, ev);
}

static void test_events_in_order(void **state)
{
	(void)state;
	struct job *j = job_new(fake_grade);
	assert_non_null(j);
	struct grade_opts opts = {.backend = BACKEND_EMU, .submission = "/ws/01/vecadd.cu"};
	pthread_mutex_lock(&gate);
	assert_int_equal(job_start(j, NULL, &opts), 0);
	assert_true(job_busy(j));
	/* While the grader waits, a second start is refused and nothing is readable. */
	assert_int_equal(job_start(j, NULL, &opts), -EBUSY);
	struct job_event ev;
	assert_int_equal(job_next(j, &ev), 0);
	pthread_mutex_unlock(&gate);

	assert_int_equal(next_event(j, &ev), 1);
	assert_int_equal(ev.kind, JOB_PROGRESS);
	assert_int_equal(ev.progress.stage, GRADE_STAGE_BUILD);
	assert_string_equal(ev.progress.what, "/ws/01/vecadd.cu");
	assert_int_equal(next_event(j, &ev), 1);
	assert_int_equal(ev.progress.stage, GRADE_STAGE_DATASET);
	assert_int_equal(ev.progress.index, 0);
	assert_int_equal(ev.progress.count, 2);
	assert_string_equal(ev.progress.what, "small");
	double before = ev.at_ms;
	assert_int_equal(next_event(j, &ev), 1);
	assert_string_equal(ev.progress.what, "odd");
	assert_true(ev.at_ms >= before); /* stamped on the grading thread, in order */
	assert_int_equal(next_event(j, &ev), 1);
	assert_int_equal(ev.progress.stage, GRADE_STAGE_DONE);
	assert_null(ev.progress.what);
	assert_int_equal(next_event(j, &ev), 1);
	assert_int_equal(ev.kind, JOB_DONE);
	assert_int_equal(ev.rc, 0);
	assert_false(pthread_equal(grader_thread, pthread_self()));
	assert_non_null(ev.report);
	assert_int_equal(ev.report->n_tests, 2);
	assert_string_equal(ev.report->submission, "/ws/01/vecadd.cu");
	assert_false(ev.quick);
	assert_true(ev.elapsed_ms >= ev.at_ms - 0.001 && ev.at_ms >= before);
	assert_false(job_busy(j));
	report_free(ev.report);
	diag_list_release(&ev.diags);

	/* A failing configuration comes back as rc and diagnostics. */
	opts.quick = true;
	assert_int_equal(job_start(j, NULL, &opts), 0);
	do
		assert_int_equal(next_event(j, &ev), 1);
	while (ev.kind != JOB_DONE);
	assert_int_equal(ev.rc, -ENOENT);
	assert_true(ev.quick);
	assert_null(ev.report);
	assert_int_equal(ev.diags.n, 1);
	assert_string_equal(ev.diags.items[0].message, "no nvcc");
	diag_list_release(&ev.diags);
	job_free(j);
}

static char tmpdir[64];

/* A grader like grade_lab: a temporary folder, a child per step (each would run for a
 * minute), each test final before the next step, the cancel flag honoured through the
 * runner, and the folder removed on the way out, whatever the steps did. */
static int slow_grade(const struct lab_spec *spec, const struct grade_opts *opts,
		      struct report **out, struct diag_list *diags)
{
	(void)spec;
	(void)diags;
	if (!mkdtemp(tmpdir))
		return -errno;
	runner_set_cancel(opts->cancel);
	struct report_test first = {.name = "build", .status = TEST_PASSED};
	char *file;
	if (asprintf(&file, "%s/big.bin", tmpdir) > 0) {
		FILE *f = fopen(file, "w");
		if (f)
			fclose(f);
		free(file);
	}
	for (unsigned i = 0; i < 3 && !atomic_load(opts->cancel); i++) {
		struct grade_progress p = {GRADE_STAGE_RESULT, i, 0, NULL, &first};
		if (i == 0)
			opts->progress(opts->userdata, &p);
		p = (struct grade_progress){GRADE_STAGE_DATASET, i, 3, "large", NULL};
		opts->progress(opts->userdata, &p);
		char *argv[] = {"/bin/sh", "-c", "sleep 60 & sleep 60", NULL};
		struct runner_opts ro = {.argv = argv, .timeout_ms = 120000};
		struct runner_result res;
		if (runner_run(&ro, &res) == 0)
			runner_result_release(&res);
	}
	fs_remove_tree(tmpdir);
	runner_set_cancel(NULL);
	if (atomic_load(opts->cancel))
		return -ECANCELED;
	*out = report_new("01-vecadd", opts->submission, "emu", 1);
	return 0;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Quitting during a run: job_cancel ends it within its bound, and the grader's own
 * clean-up still runs, so nothing is left in /tmp. */
static void test_cancel_cleans_up(void **state)
{
	(void)state;
	struct job *j = job_new(slow_grade);
	assert_non_null(j);
	assert_int_equal(job_cancel(j, 100), 0); /* idle: nothing to do */
	strcpy(tmpdir, "/tmp/pmpplab-job-test-XXXXXX");
	struct grade_opts opts = {.backend = BACKEND_EMU, .submission = "/ws/01/vecadd.cu"};
	assert_int_equal(job_start(j, NULL, &opts), 0);
	struct job_event ev;
	assert_int_equal(next_event(j, &ev), 1); /* the build's test, final */
	assert_int_equal(ev.progress.stage, GRADE_STAGE_RESULT);
	assert_string_equal(ev.test->name, "build");
	job_test_free(ev.test);
	assert_int_equal(next_event(j, &ev), 1); /* the first step runs */
	assert_int_equal(ev.kind, JOB_PROGRESS);
	usleep(200 * 1000);
	struct stat st;
	assert_int_equal(stat(tmpdir, &st), 0);
	double t0 = now_s();
	assert_int_equal(job_cancel(j, 10000), 0);
	assert_true(now_s() - t0 < 5);
	assert_false(job_busy(j));
	assert_int_not_equal(stat(tmpdir, &st), 0); /* removed by the grader's clean-up */
	job_free(j);
}

/* A new save stops the run: job_stop returns at once, the run ends within the runner's
 * 50 ms tick with -ECANCELED, and the job takes the next run. */
static void test_stop_for_a_new_run(void **state)
{
	(void)state;
	struct job *j = job_new(slow_grade);
	assert_non_null(j);
	strcpy(tmpdir, "/tmp/pmpplab-job-test-XXXXXX");
	struct grade_opts opts = {.backend = BACKEND_EMU, .submission = "/ws/01/vecadd.cu"};
	assert_int_equal(job_start(j, NULL, &opts), 0);
	struct job_event ev;
	do {
		assert_int_equal(next_event(j, &ev), 1);
		job_test_free(ev.test);
	} while (ev.progress.stage != GRADE_STAGE_DATASET);
	usleep(100 * 1000); /* the step's child runs */
	double t0 = now_s();
	job_stop(j);
	assert_true(now_s() - t0 < 0.05); /* does not wait */
	do
		assert_int_equal(next_event(j, &ev), 1);
	while (ev.kind != JOB_DONE);
	assert_true(now_s() - t0 < 2);
	assert_int_equal(ev.rc, -ECANCELED);
	assert_null(ev.report);
	diag_list_release(&ev.diags);
	strcpy(tmpdir, "/tmp/pmpplab-job-test-XXXXXX");
	assert_int_equal(job_start(j, NULL, &opts), 0); /* a fresh run goes on */
	do {
		assert_int_equal(next_event(j, &ev), 1);
		job_test_free(ev.test);
		assert_int_equal(ev.kind, JOB_PROGRESS);
	} while (ev.progress.stage != GRADE_STAGE_DATASET);
	assert_int_equal(job_cancel(j, 10000), 0);
	job_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_in_order),
		cmocka_unit_test(test_cancel_cleans_up),
		cmocka_unit_test(test_stop_for_a_new_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
