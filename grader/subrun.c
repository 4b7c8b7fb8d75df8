/* subrun: see subrun.h. */
#include "subrun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "livetrace.h"
#include "paths.h"
#include "sandbox.h"

/* Output past this is a flood: stopped at once and named as such. */
#define FLOOD_BYTES (1u << 20)

const char *subrun_stopped(const struct subrun *s, const char *input)
{
	if (!s)
		return NULL;
	if (s->stop[0])
		return s->stop;
	return input && s->slow[0] && strcmp(input, s->slow_input) == 0 ? s->slow : NULL;
}

void subrun_head(const char *text, unsigned lines, char *buf, size_t len)
{
	const char *p = text ? text : "";
	size_t n = 0;
	while (p[n] && lines)
		if (p[n++] == '\n')
			lines--;
	snprintf(buf, len, "%.*s", (int)n, p);
}

/* After a run of the submission: whether the later ones would only repeat it. */
static void account(struct subrun *s, const struct subrun_call *c, const struct runner_result *r)
{
	bool hung = r->status == RUNNER_TIMEOUT, flood = r->status == RUNNER_FLOOD;
	if (hung || flood) {
		/* from the start: every run would; after others finished: the same input would */
		char *why = s->finished ? s->slow : s->stop;
		if (hung)
			snprintf(why, sizeof(s->stop), "the program timed out (after %.1f s) on %s",
				 c->timeout_ms / 1000.0, c->what);
		else
			snprintf(why, sizeof(s->stop), "the program flooded its output (more than %.1f MiB) on %s",
				 r->written / 1048576.0, c->what);
		snprintf(s->slow_input, sizeof(s->slow_input), "%s", c->reads[0] ? c->reads[0] : "");
	} else if (r->status == RUNNER_SIGNALED && r->term_signal == s->crash_signal) {
		const char *abbrev = sigabbrev_np(r->term_signal);
		snprintf(s->stop, sizeof(s->stop), "the program crashed the same way (SIG%s) on %s and on %s",
			 abbrev ? abbrev : "?", s->crash, c->what);
	} else if (r->status == RUNNER_SIGNALED) {
		s->crash_signal = r->term_signal;
		snprintf(s->crash, sizeof(s->crash), "%s", c->what);
	} else {
		s->crash_signal = 0;
	}
	s->finished |= r->status == RUNNER_EXITED;
}

void subrun_account(struct subrun *s, const struct subrun_call *c, const struct runner_result *res)
{
	if (s && !c->lab_code)
		account(s, c, res);
}

/* The files it writes start empty: nothing of an earlier run reads as its output. */
static int fresh(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int subrun_run(struct subrun *s, const struct subrun_call *c, struct runner_result *res)
{
	memset(res, 0, sizeof(*res));
	if (!c->deferred && subrun_stopped(s, c->reads[0]) && !c->lab_code)
		return -ECANCELED;
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", c->b->program);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	char *emulib = c->b->ptx ? paths_emu_libdir() : NULL;
	struct sandbox_view v = { .profile = SANDBOX_RUN, .gpu = !c->b->ptx,
				  .timeout_ms = c->timeout_ms };
	sandbox_view_ro(&v, dir);
	sandbox_view_ro(&v, emulib);
	int rc = 0;
	for (unsigned i = 0; i < 2; i++)
		sandbox_view_ro(&v, c->reads[i]);
	for (unsigned i = 0; i < 4 && rc == 0; i++)
		if (c->writes[i]) {
			sandbox_view_rw(&v, c->writes[i]);
			rc = fresh(c->writes[i]);
		}
	struct runner_opts o = {
		.argv = (char *const *)c->argv,
		.env = c->env,
		.cwd = s ? s->box : NULL,
		.timeout_ms = c->timeout_ms,
		.output_cap = c->output_cap,
		.flood_cap = FLOOD_BYTES,
		.sandbox = &v,
	};
	if (rc == 0) {
		livetrace_note_run(c->env, c->reads[0], c->what); /* whose trace the panels show */
		rc = runner_run(&o, res);
	}
	if (rc == 0 && s && !c->lab_code && !c->deferred)
		account(s, c, res);
	free(emulib);
	return rc;
}
