/* runner: runs a program as a child process with a wall-clock limit, resource limits and
 * captured, capped output, inside the sandbox when the caller gives a view (sandbox.h:
 * every build and run of code pmpplab did not write). The child gets its own process
 * group (and, sandboxed, its own PID namespace), so a timeout kills everything it
 * started, and dies with its parent. */
#ifndef PMPPLAB_RUNNER_H
#define PMPPLAB_RUNNER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "sandbox.h"

enum runner_status {
	RUNNER_EXITED,    /* exit_code is valid */
	RUNNER_SIGNALED,  /* killed by term_signal (a crash: SIGSEGV, SIGABRT...) */
	RUNNER_TIMEOUT,   /* still running after timeout_ms: killed */
	RUNNER_FLOOD,     /* wrote more than flood_cap bytes: killed at once */
	RUNNER_NO_SANDBOX, /* the sandbox could not be set up: err says what bwrap said */
};

struct runner_opts {
	char *const *argv;       /* argv[0] is the program path */
	char *const *env;        /* extra "NAME=value" entries, NULL-terminated; may be NULL */
	const char *cwd;         /* may be NULL; sandboxed: the view's cwd counts */
	unsigned timeout_ms;     /* 0 = no limit */
	size_t output_cap;       /* bytes kept per stream; 0 = 64 KiB */
	size_t flood_cap;        /* more bytes than this on stdout + stderr: stopped, 0 = none */
	bool pass_through;       /* stdout/stderr go to ours instead of being captured */
	const struct sandbox_view *sandbox; /* NULL: code of pmpplab or the lab, unsandboxed */
};

struct runner_result {
	enum runner_status status;
	int exit_code;
	int term_signal;
	double wall_ms;
	char *out, *err;         /* NUL-terminated captured output (NULL when pass_through) */
	size_t out_len, err_len;
	bool out_truncated, err_truncated;
	size_t written;          /* bytes the child wrote on stdout + stderr (read so far) */
	bool sandboxed;          /* it ran inside the sandbox */
};

/* Returns 0 with *res filled, or -errno when the child could not be started (then
 * nothing is filled; -ENOENT: no bwrap or setpriv, see runner_sandbox_check). Release
 * res with runner_result_release. A sandboxed program killed by a signal is reported
 * as RUNNER_SIGNALED (bwrap passes it on as exit status 128 + the signal). */
int runner_run(const struct runner_opts *opts, struct runner_result *res);
void runner_result_release(struct runner_result *res);
/* "exited with status 3", "crashed: segmentation fault (SIGSEGV)", "timed out after 10 s",
 * "flooded its output: ..." */
void runner_describe(const struct runner_result *res, unsigned timeout_ms, char *buf, size_t len);

/* The calling thread's cancel flag (NULL: none): while it is true, runner_run starts
 * nothing (-ECANCELED) and stops the child it runs within 50 ms (its status is then
 * RUNNER_SIGNALED, SIGKILL). The TUI stops a grading this way when the student saves
 * again (grade_opts.cancel). */
void runner_set_cancel(const atomic_bool *flag);
const atomic_bool *runner_cancel_flag(void);

/* Whether a sandbox (of the GPU kind too when GPU) can be set up here: 0 (also when the
 * sandbox is off), or -EPERM with what to do in WHY. Tried once per process and kind. */
int runner_sandbox_check(bool gpu, char *why, size_t len);

#endif
