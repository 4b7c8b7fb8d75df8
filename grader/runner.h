/* runner: runs a program as a child process with a wall-clock limit, resource limits and
 * captured, capped output. The child gets its own process group, so a timeout kills
 * everything it started, and dies with its parent. */
#ifndef PMPPLAB_RUNNER_H
#define PMPPLAB_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

enum runner_status {
	RUNNER_EXITED,    /* exit_code is valid */
	RUNNER_SIGNALED,  /* killed by term_signal (a crash: SIGSEGV, SIGABRT...) */
	RUNNER_TIMEOUT,   /* still running after timeout_ms: killed */
};

struct runner_opts {
	char *const *argv;       /* argv[0] is the program path */
	char *const *env;        /* extra "NAME=value" entries, NULL-terminated; may be NULL */
	const char *cwd;         /* may be NULL */
	unsigned timeout_ms;     /* 0 = no limit */
	size_t output_cap;       /* bytes kept per stream; 0 = 64 KiB */
	bool pass_through;       /* stdout/stderr go to ours instead of being captured */
};

struct runner_result {
	enum runner_status status;
	int exit_code;
	int term_signal;
	double wall_ms;
	char *out, *err;         /* NUL-terminated captured output (NULL when pass_through) */
	size_t out_len, err_len;
	bool out_truncated, err_truncated;
};

/* Returns 0 with *res filled, or -errno when the child could not be started (then
 * nothing is filled). Release res with runner_result_release. */
int runner_run(const struct runner_opts *opts, struct runner_result *res);
void runner_result_release(struct runner_result *res);
/* "exited with status 3", "crashed: segmentation fault (SIGSEGV)", "timed out after 10 s" */
void runner_describe(const struct runner_result *res, unsigned timeout_ms, char *buf, size_t len);

#endif
