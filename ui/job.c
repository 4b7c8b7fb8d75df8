/* job: grading in a background thread, reported through a pipe. See job.h. */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xmem.h"

/* One message through the pipe; small enough (< PIPE_BUF) to be written atomically. */
struct job_msg {
	enum job_event_kind kind;
	enum grade_stage stage;
	unsigned index, count;
	bool has_what;
	char what[96];
	double at_ms;              /* since the run started */
	struct job_result *result; /* JOB_DONE */
	struct report_test *test;  /* GRADE_STAGE_RESULT: a copy for the UI thread */
};

struct job_result {
	int rc;
	struct report *report;
	struct diag_list diags;
	bool quick;
	double elapsed_ms;
};

struct job {
	job_grade_fn grade;
	int rfd, wfd;
	bool busy;
	pthread_t thread;
	atomic_bool cancel; /* grade_opts.cancel: job_stop sets it */
	struct timespec t0; /* when the run started */
	const struct lab_spec *spec;
	struct grade_opts opts;
	char *submission;
};

struct job *job_new(job_grade_fn grade)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return NULL;
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	struct job *j = xcalloc(1, sizeof(*j));
	j->grade = grade;
	j->rfd = fds[0];
	j->wfd = fds[1];
	return j;
}

void job_free(struct job *j)
{
	if (!j)
		return;
	if (j->busy) {
		/* The thread still writes to the pipe and reads the job: let both live
		 * until the process ends rather than block the user's quit. */
		pthread_detach(j->thread);
		return;
	}
	close(j->rfd);
	close(j->wfd);
	free(j->submission);
	free(j);
}

int job_fd(const struct job *j)
{
	return j->rfd;
}

bool job_busy(const struct job *j)
{
	return j->busy;
}

static void job_send(struct job *j, const struct job_msg *m)
{
	const char *p = (const char *)m;
	size_t left = sizeof(*m);
	while (left) {
		ssize_t n = write(j->wfd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		left -= (size_t)n;
	}
}

static double job_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* grade_lab's progress callback, on the job's thread: copy and post, nothing more. */
static void job_progress(void *userdata, const struct grade_progress *p)
{
	struct job *j = userdata;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	struct job_msg m = {.kind = JOB_PROGRESS, .stage = p->stage, .index = p->index,
			    .count = p->count, .at_ms = job_ms(&j->t0, &now)};
	if (p->what) {
		m.has_what = true;
		strncpy(m.what, p->what, sizeof(m.what) - 1);
	}
	if (p->stage == GRADE_STAGE_RESULT && p->test) {
		m.test = xcalloc(1, sizeof(*m.test));
		*m.test = *p->test;
		m.test->name = xstrdup(p->test->name ? p->test->name : "");
		m.test->output = p->test->output ? xstrdup(p->test->output) : NULL;
	}
	job_send(j, &m);
}

static void *job_thread(void *arg)
{
	struct job *j = arg;
	struct job_result *res = xcalloc(1, sizeof(*res));
	struct timespec t1;
	diag_list_init(&res->diags);
	res->quick = j->opts.quick;
	clock_gettime(CLOCK_MONOTONIC, &j->t0);
	res->rc = j->grade(j->spec, &j->opts, &res->report, &res->diags);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->elapsed_ms = job_ms(&j->t0, &t1);
	struct job_msg m = {.kind = JOB_DONE, .at_ms = res->elapsed_ms, .result = res};
	job_send(j, &m);
	return NULL;
}

int job_start(struct job *j, const struct lab_spec *spec, const struct grade_opts *opts)
{
	if (j->busy)
		return -EBUSY;
	free(j->submission);
	j->submission = opts->submission ? xstrdup(opts->submission) : NULL;
	j->spec = spec;
	j->opts = *opts;
	j->opts.submission = j->submission;
	j->opts.progress = job_progress;
	j->opts.userdata = j;
	j->opts.cancel = &j->cancel;
	atomic_store(&j->cancel, false);
	int rc = pthread_create(&j->thread, NULL, job_thread, j);
	if (rc != 0)
		return -rc;
	j->busy = true;
	return 0;
}

int job_next(struct job *j, struct job_event *ev)
{
	struct job_msg m;
	ssize_t n;
	do
		n = read(j->rfd, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n != (ssize_t)sizeof(m))
		return n == 0 ? 0 : -EIO; /* messages are written whole, so never partial */
	memset(ev, 0, sizeof(*ev));
	ev->kind = m.kind;
	if (m.kind == JOB_PROGRESS) {
		ev->progress = (struct grade_progress){m.stage, m.index, m.count, NULL, m.test};
		ev->test = m.test;
		ev->at_ms = m.at_ms;
		if (m.has_what) {
			memcpy(ev->what, m.what, sizeof(ev->what));
			ev->progress.what = ev->what;
		}
		return 1;
	}
	pthread_join(j->thread, NULL);
	j->busy = false;
	ev->rc = m.result->rc;
	ev->report = m.result->report;
	ev->diags = m.result->diags;
	ev->quick = m.result->quick;
	ev->elapsed_ms = m.result->elapsed_ms;
	ev->at_ms = m.at_ms;
	free(m.result);
	return 1;
}

void job_test_free(struct report_test *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->output);
	free(t);
}

void job_stop(struct job *j)
{
	if (j && j->busy)
		atomic_store(&j->cancel, true);
}

int job_cancel(struct job *j, unsigned timeout_ms)
{
	if (!j || !j->busy)
		return 0;
	job_stop(j);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct pollfd p = {j->rfd, POLLIN, 0};
		if (poll(&p, 1, 20) > 0) {
			struct job_event ev;
			while (job_next(j, &ev) == 1) {
				job_test_free(ev.test);
				if (ev.kind != JOB_DONE)
					continue;
				report_free(ev.report);
				diag_list_release(&ev.diags);
				return 0;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (job_ms(&t0, &now) < timeout_ms);
	return -ETIMEDOUT;
}
