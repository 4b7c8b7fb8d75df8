/* runner: fork/exec with pipes and poll; see runner.h. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* In the child, after fork: process group, stdio, the command's fds and limits, exec.
 * Never returns. Nothing else of ours (the terminal, the UI's pipes) reaches the child:
 * a child holding the terminal would keep it open after pmpplab quits. */
static void child_exec(const struct runner_opts *o, const struct sandbox_cmd *cmd, int out_fd,
		       int err_fd)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	if (out_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
	if (sandbox_child_setup(cmd) < 0)
		_exit(127);
	if (!cmd->sandboxed && o->cwd && chdir(o->cwd) != 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	execve(cmd->argv[0], cmd->argv, cmd->env);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", cmd->argv[0], strerror(errno));
	_exit(127);
}

static void drain(struct capture *c, size_t *written)
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
	*written += (size_t)r;
	size_t keep = (size_t)r;
	if (c->len + keep > c->cap) {
		keep = c->cap - c->len;
		c->truncated = true;
	}
	memcpy(c->buf + c->len, tmp, keep);
	c->len += keep;
}

static void stop(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

static _Thread_local const atomic_bool *runner_cancel;

void runner_set_cancel(const atomic_bool *flag)
{
	runner_cancel = flag;
}

const atomic_bool *runner_cancel_flag(void)
{
	return runner_cancel;
}

static bool cancelled(void)
{
	return runner_cancel && atomic_load(runner_cancel);
}

/* Reads both pipes until they close and the child is reaped, or the deadline passes, or
 * the child wrote more than FLOOD bytes (0: no cap). LINGER: see below. */
static int supervise(pid_t pid, struct capture *cap, unsigned timeout_ms, size_t flood,
		     bool linger, struct runner_result *res)
{
	double start = now_ms();
	int status = 0;
	bool reaped = false, timed_out = false, flooded = false, stopped = false;
	while (!reaped) {
		if (!stopped && cancelled()) { /* runner_set_cancel: reported as killed */
			stop(pid);
			stopped = true;
		}
		struct pollfd fds[2];
		int nfds = 0;
		for (int i = 0; i < 2; i++)
			if (cap[i].fd >= 0)
				fds[nfds++] = (struct pollfd){ .fd = cap[i].fd, .events = POLLIN };
		int wait_ms = 50;
		if (timeout_ms) {
			double left = timeout_ms - (now_ms() - start);
			if (left <= 0 && !timed_out && !flooded) {
				stop(pid);
				timed_out = true;
			}
			wait_ms = left > 0 && left < 50 ? (int)left + 1 : 50;
		}
		if (nfds && poll(fds, (nfds_t)nfds, wait_ms) > 0) {
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < nfds; j++)
					if (cap[i].fd == fds[j].fd && fds[j].revents)
						drain(&cap[i], &res->written);
			if (flood && res->written > flood && !flooded && !timed_out) {
				stop(pid);
				flooded = true;
			}
		} else if (!nfds) {
			usleep((useconds_t)wait_ms * 1000);
		}
		/* Reap only when the pipes are closed or idle: grandchildren may hold them. */
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid) {
			reaped = true;
			kill(-pid, SIGKILL); /* anything it left behind */
			/* What is left in the pipes; sandboxed, until they close (5 s at most):
			 * the namespace's last processes, killed with its init, hold them until
			 * they are gone, and the next command may get the same uid. */
			double until = now_ms() + (linger ? 5000 : 0);
			for (int i = 0; i < 2; i++)
				while (cap[i].fd >= 0) {
					int left = (int)(until - now_ms());
					if (poll(&(struct pollfd){ cap[i].fd, POLLIN, 0 }, 1, left > 0 ? left : 0) <= 0)
						break;
					drain(&cap[i], &res->written);
				}
		}
	}
	res->wall_ms = now_ms() - start;
	for (int i = 0; i < 2; i++)
		if (cap[i].fd >= 0) {
			close(cap[i].fd);
			cap[i].fd = -1;
		}
	if (flooded) {
		res->status = RUNNER_FLOOD;
	} else if (timed_out) {
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

static void close_pair(int p[2])
{
	for (int k = 0; k < 2; k++)
		if (p[k] >= 0) {
			close(p[k]);
			p[k] = -1;
		}
}

/* Sandboxed: bwrap's status line says whether the sandbox was set up; a signal that
 * ended the program comes back as exit status 128 + the signal. */
static void sandbox_outcome(int status_fd, struct runner_result *res)
{
	char text[512];
	ssize_t n = read(status_fd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	if (!sandbox_started(text) && res->status == RUNNER_EXITED && res->exit_code != 0) {
		res->status = RUNNER_NO_SANDBOX;
		return;
	}
	if (res->status == RUNNER_EXITED && res->exit_code > 128 && res->exit_code <= 128 + 64) {
		res->status = RUNNER_SIGNALED;
		res->term_signal = res->exit_code - 128;
	}
}

int runner_run(const struct runner_opts *o, struct runner_result *res)
{
	if (cancelled())
		return -ECANCELED;
	memset(res, 0, sizeof(*res));
	size_t cap_bytes = o->output_cap ? o->output_cap : 64 * 1024;
	struct capture cap[2] = { { -1, NULL, 0, cap_bytes, false }, { -1, NULL, 0, cap_bytes, false } };
	int pipes[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	struct sandbox_cmd cmd;
	int rc = 0;
	bool sandboxed = o->sandbox && sandbox_enabled();
	if (sandboxed && pipe2(pipes[2], O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	for (int i = 0; i < 2 && !o->pass_through && rc == 0; i++) {
		cap[i].buf = malloc(cap_bytes + 1);
		if (!cap[i].buf || pipe2(pipes[i], O_CLOEXEC) != 0)
			rc = cap[i].buf ? -errno : -ENOMEM;
	}
	if (rc == 0)
		rc = sandbox_command(o->sandbox, o->argv, o->env, pipes[2][1], &cmd);
	pid_t pid = -1;
	if (rc == 0) {
		fflush(NULL);
		pid = fork();
		if (pid == 0)
			child_exec(o, &cmd, pipes[0][1], pipes[1][1]);
		if (pid < 0) {
			rc = -errno;
			sandbox_cmd_release(&cmd);
		}
	}
	for (int i = 0; i < 3; i++) {
		if (pipes[i][1] >= 0)
			close(pipes[i][1]);
		pipes[i][1] = -1;
	}
	if (rc < 0) {
		for (int i = 0; i < 3; i++)
			close_pair(pipes[i]);
		free(cap[0].buf);
		free(cap[1].buf);
		return rc;
	}
	setpgid(pid, pid); /* also here, so kill(-pid) works even before the child runs */
	for (int i = 0; i < 2; i++)
		cap[i].fd = pipes[i][0];
	supervise(pid, cap, o->timeout_ms, o->flood_cap, sandboxed, res);
	sandbox_cmd_release(&cmd); /* only now: it holds the command's uid slot */
	res->sandboxed = sandboxed;
	if (sandboxed)
		sandbox_outcome(pipes[2][0], res);
	close_pair(pipes[2]);
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
	case RUNNER_FLOOD:
		snprintf(buf, len, "flooded its output: it wrote more than %.1f MiB to stdout and stderr in %.2f s and was stopped",
			 res->written / 1048576.0, res->wall_ms / 1000.0);
		break;
	case RUNNER_NO_SANDBOX:
		snprintf(buf, len, "could not be started: the sandbox could not be set up");
		break;
	}
}

/* One probe per kind (run and gpu run), remembered. */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static int probe_rc[2] = { 1, 1 };
static char probe_why[2][1024];

int runner_sandbox_check(bool gpu, char *why, size_t len)
{
	if (!sandbox_enabled())
		return 0;
	pthread_mutex_lock(&probe_lock);
	if (probe_rc[gpu] == 1) {
		char *argv[] = { "/bin/true", NULL };
		struct sandbox_view v = { .profile = SANDBOX_RUN, .gpu = gpu, .timeout_ms = 30000 };
		struct runner_opts o = { .argv = argv, .timeout_ms = 30000, .sandbox = &v };
		struct runner_result res;
		int rc = runner_run(&o, &res);
		if (rc == -ENOENT)
			snprintf(probe_why[gpu], sizeof(probe_why[gpu]),
				 "bubblewrap (bwrap%s) is not installed, and every build and run of a submission happens inside it: install it (apt-get install bubblewrap; dnf install bubblewrap), or pass --sandbox=off to grade without a sandbox, knowing that the submission then runs with your rights",
				 geteuid() == 0 ? ", with setpriv of util-linux" : "");
		else if (rc < 0)
			snprintf(probe_why[gpu], sizeof(probe_why[gpu]), "the sandbox could not be started: %s",
				 strerror(-rc));
		else if (res.status != RUNNER_EXITED || res.exit_code != 0)
			sandbox_explain(res.err, probe_why[gpu], sizeof(probe_why[gpu]));
		probe_rc[gpu] = rc < 0 || res.status != RUNNER_EXITED || res.exit_code != 0 ? -EPERM : 0;
		if (rc == 0)
			runner_result_release(&res);
	}
	int rc = probe_rc[gpu];
	if (rc < 0)
		snprintf(why, len, "%s", probe_why[gpu]);
	pthread_mutex_unlock(&probe_lock);
	return rc;
}
