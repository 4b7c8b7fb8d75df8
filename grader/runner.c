/* runner: fork/exec with pipes and poll; see runner.h. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct capture {
	int fd;
	char *buf;
	size_t len, cap;
	bool truncated;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Environment = ours + the extra entries (which win). */
static char **build_env(char *const *extra)
{
	size_t n = 0, m = 0;
	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	char **env = calloc(n + m + 1, sizeof(char *));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t klen = strcspn(environ[i], "=");
		bool overridden = false;
		for (size_t j = 0; j < m; j++)
			overridden |= strncmp(extra[j], environ[i], klen + 1) == 0;
		if (!overridden)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = extra[j];
	return env;
}

/* In the child, after fork: limits, process group, stdio, exec. Never returns. */
static void child_exec(const struct runner_opts *o, int out_fd, int err_fd, char **env)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	struct rlimit core = { 0, 0 };
	struct rlimit fsize = { (rlim_t)4 << 30, (rlim_t)4 << 30 };
	struct rlimit files = { 1024, 1024 };
	setrlimit(RLIMIT_CORE, &core);
	setrlimit(RLIMIT_FSIZE, &fsize);
	setrlimit(RLIMIT_NOFILE, &files);
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	if (out_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
	/* Nothing else of ours (the terminal, the UI's pipes) reaches the child: a child
	 * holding the terminal would keep it open after pmpplab quits. */
	close_range(3, ~0U, 0);
	if (o->cwd && chdir(o->cwd) != 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	execve(o->argv[0], o->argv, env);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", o->argv[0], strerror(errno));
	_exit(127);
}

static void drain(struct capture *c)
{
	char tmp[16384];
	ssize_t r = read(c->fd, tmp, sizeof(tmp));
	if (r <= 0) {
		if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(c->fd);
			c->fd = -1;
		}
		return;
	}
	size_t keep = (size_t)r;
	if (c->len + keep > c->cap) {
		keep = c->cap - c->len;
		c->truncated = true;
	}
	memcpy(c->buf + c->len, tmp, keep);
	c->len += keep;
}

/* Reads both pipes until they close and the child is reaped, or the deadline passes. */
static int supervise(pid_t pid, struct capture *cap, unsigned timeout_ms, struct runner_result *res)
{
	double start = now_ms();
	int status = 0;
	bool reaped = false, timed_out = false;
	while (!reaped) {
		struct pollfd fds[2];
		int nfds = 0;
		for (int i = 0; i < 2; i++)
			if (cap[i].fd >= 0)
				fds[nfds++] = (struct pollfd){ .fd = cap[i].fd, .events = POLLIN };
		int wait_ms = 50;
		if (timeout_ms) {
			double left = timeout_ms - (now_ms() - start);
			if (left <= 0 && !timed_out) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				timed_out = true;
			}
			wait_ms = left > 0 && left < 50 ? (int)left + 1 : 50;
		}
		if (nfds && poll(fds, (nfds_t)nfds, wait_ms) > 0) {
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < nfds; j++)
					if (cap[i].fd == fds[j].fd && fds[j].revents)
						drain(&cap[i]);
		} else if (!nfds) {
			usleep((useconds_t)wait_ms * 1000);
		}
		/* Reap only when the pipes are closed or idle: grandchildren may hold them. */
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid) {
			reaped = true;
			kill(-pid, SIGKILL); /* anything it left behind */
			for (int i = 0; i < 2; i++)
				while (cap[i].fd >= 0 && poll(&(struct pollfd){ cap[i].fd, POLLIN, 0 }, 1, 0) > 0)
					drain(&cap[i]);
		}
	}
	res->wall_ms = now_ms() - start;
	if (timed_out) {
		res->status = RUNNER_TIMEOUT;
	} else if (WIFSIGNALED(status)) {
		res->status = RUNNER_SIGNALED;
		res->term_signal = WTERMSIG(status);
	} else {
		res->status = RUNNER_EXITED;
		res->exit_code = WEXITSTATUS(status);
	}
	return 0;
}

int runner_run(const struct runner_opts *o, struct runner_result *res)
{
	memset(res, 0, sizeof(*res));
	size_t cap_bytes = o->output_cap ? o->output_cap : 64 * 1024;
	struct capture cap[2] = { { -1, NULL, 0, cap_bytes, false }, { -1, NULL, 0, cap_bytes, false } };
	int pipes[2][2] = { { -1, -1 }, { -1, -1 } };
	char **env = build_env(o->env);
	if (!env)
		return -ENOMEM;
	for (int i = 0; i < 2 && !o->pass_through; i++) {
		cap[i].buf = malloc(cap_bytes + 1);
		if (!cap[i].buf || pipe2(pipes[i], O_CLOEXEC) != 0) {
			int err = errno ? errno : ENOMEM;
			for (int j = 0; j <= i; j++) {
				free(cap[j].buf);
				if (pipes[j][0] >= 0) {
					close(pipes[j][0]);
					close(pipes[j][1]);
				}
			}
			free(env);
			return -err;
		}
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		for (int i = 0; i < 2; i++) {
			free(cap[i].buf);
			if (pipes[i][0] >= 0) {
				close(pipes[i][0]);
				close(pipes[i][1]);
			}
		}
		free(env);
		return -err;
	}
	if (pid == 0)
		child_exec(o, pipes[0][1], pipes[1][1], env);
	setpgid(pid, pid); /* also here, so kill(-pid) works even before the child runs */
	free(env);
	for (int i = 0; i < 2; i++) {
		if (pipes[i][1] >= 0)
			close(pipes[i][1]);
		cap[i].fd = pipes[i][0];
	}
	supervise(pid, cap, o->timeout_ms, res);
	if (!o->pass_through) {
		cap[0].buf[cap[0].len] = cap[1].buf[cap[1].len] = '\0';
		res->out = cap[0].buf;
		res->out_len = cap[0].len;
		res->out_truncated = cap[0].truncated;
		res->err = cap[1].buf;
		res->err_len = cap[1].len;
		res->err_truncated = cap[1].truncated;
	}
	return 0;
}

void runner_result_release(struct runner_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

void runner_describe(const struct runner_result *res, unsigned timeout_ms, char *buf, size_t len)
{
	switch (res->status) {
	case RUNNER_EXITED:
		snprintf(buf, len, "exited with status %d", res->exit_code);
		break;
	case RUNNER_SIGNALED: {
		int s = res->term_signal;
		const char *what = s == SIGSEGV ? "segmentation fault" :
				   s == SIGBUS ? "bus error" :
				   s == SIGABRT ? "aborted" :
				   s == SIGFPE ? "arithmetic exception" :
				   s == SIGKILL ? "killed" : strsignal(s);
		snprintf(buf, len, "crashed: %s (%s)", what, sigabbrev_np(s) ? sigabbrev_np(s) : "?");
		break;
	}
	case RUNNER_TIMEOUT:
		snprintf(buf, len, "timed out after %.1f s and was stopped", timeout_ms / 1000.0);
		break;
	}
}
