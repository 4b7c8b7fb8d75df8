/* sandbox: the one way code pmpplab did not write is compiled and run (issue 13).
 *
 * A command is wrapped in bubblewrap (bwrap): new PID, network, IPC and UTS namespaces,
 * --die-with-parent and --new-session, the system read-only (/usr, the /lib links, a few
 * files of /etc), a size-limited scratch /tmp (and /dev/shm), and nothing else of the
 * machine but the paths the caller names, read-only or writable, at their own path. An
 * installed copy of the labs and kernels is masked. Run as root, the command runs as an
 * unprivileged uid of its own (one per concurrent command, from a range; setpriv inside
 * the sandbox switches to it with no capabilities), so the process limit bites and
 * nothing runs with the grader's rights; run as another user, bwrap makes an
 * unprivileged user namespace. Resource limits (address space on the emulator, data
 * size on a GPU, whose runtime maps huge address ranges; processes, CPU time, open
 * files, file size) are set in the child before it execs bwrap.
 *
 * Turned off (sandbox_set_enabled(false): --sandbox=off, for instructors who know what
 * they run), a command runs as it is, with the old limits, and every report says "not
 * sandboxed". The reference and other code of the lab itself runs unsandboxed always
 * (view NULL): it is the instructor's.
 *
 * Use: fill a sandbox_view, sandbox_command() before fork (it allocates), and in the
 * forked child sandbox_child_setup() then execve(cmd.argv[0], cmd.argv, cmd.env).
 * runner.c does this for every child pmpplab starts; a resident process started some
 * other way (the NVRTC compiler) does the same three steps. */
#ifndef PMPPLAB_SANDBOX_H
#define PMPPLAB_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#define SANDBOX_MAX_PATHS 16

enum sandbox_profile {
	SANDBOX_BUILD, /* a compiler: a large scratch, a data-size limit */
	SANDBOX_RUN,   /* a student program, or a tool (compute-sanitizer, ncu) running one */
};

/* What a sandboxed command sees besides the read-only system. Paths must be absolute;
 * the strings must live until sandbox_command returns. */
struct sandbox_view {
	enum sandbox_profile profile;
	bool gpu;                            /* the GPU's device files and /sys */
	const char *ro[SANDBOX_MAX_PATHS];   /* files or folders shown read-only */
	unsigned n_ro;
	const char *rw[SANDBOX_MAX_PATHS];   /* files (created empty when missing) or folders
					      * shown writable: the command's only way out */
	unsigned n_rw;
	const char *copy_from, *copy_at;     /* a folder shown read-only at another path (the
					      * copy of a student's sources, at their folder) */
	const char *cwd;                     /* inside; NULL: the scratch /tmp */
	unsigned timeout_ms;                 /* the wall-clock limit (sets the CPU-time one);
					      * 0: none */
};

/* Adds PATH to the view (ignored past SANDBOX_MAX_PATHS, or when NULL). */
void sandbox_view_ro(struct sandbox_view *v, const char *path);
void sandbox_view_rw(struct sandbox_view *v, const char *path);

struct sandbox_limit {
	int resource;
	rlim_t value;
};

/* A command ready to exec in a forked child. */
struct sandbox_cmd {
	char **argv;                     /* argv[0] is the program to execve */
	char **env;                      /* its whole environment */
	struct sandbox_limit limits[10]; /* set by sandbox_child_setup */
	unsigned n_limits;
	int pass[3];                     /* fds the child gets as 3, 4, 5 (-1: none) */
	unsigned n_pass;
	int slot_fd;                     /* holds the uid slot (root); closed on release */
	int own_fd;                      /* the seccomp filter bwrap reads; closed on release */
	uid_t uid;                       /* the uid the command runs as */
	bool sandboxed;                  /* false: the sandbox is off, or no view */
	char **owned;                    /* strings to free */
	size_t n_owned, cap_owned;
};

/* Process-wide: whether commands with a view run in the sandbox (default true). */
void sandbox_set_enabled(bool on);
bool sandbox_enabled(void);

/* Paths the sandbox must never show, even inside a read-only system folder (an
 * installed lab collection with its kernels): masked with an empty tmpfs. pmpplab's
 * installed data folder is always masked (its harness is shown again). */
void sandbox_hide(const char *path);

/* Builds the command that runs ARGV (argv[0] a full path) with our environment plus
 * EXTRA_ENV ("NAME=value", NULL-terminated, may be NULL) in view V (NULL: unsandboxed,
 * base limits only). STATUS_FD >= 0: a pipe's write end on which bwrap reports that the
 * sandbox started (sandbox_started() reads it); -1 none. Root: writable paths are
 * given to the command's uid, read-only ones of ours made readable by it.
 * Returns 0, or -errno (-ENOENT: bwrap or setpriv is not installed). */
int sandbox_command(const struct sandbox_view *v, char *const *argv, char *const *extra_env,
		    int status_fd, struct sandbox_cmd *out);
/* In the forked child, before execve: the fds, the limits, umask 022. Async-signal-safe;
 * returns -1 (errno set) when an fd could not be placed. */
int sandbox_child_setup(const struct sandbox_cmd *c);
void sandbox_cmd_release(struct sandbox_cmd *c);

/* Whether the bytes bwrap wrote on the status fd say the sandbox was set up. */
bool sandbox_started(const char *status_text);
/* Turns what bwrap said when it could not set up a sandbox into a message that says
 * what to do (install bubblewrap, allow user namespaces, or --sandbox=off). */
void sandbox_explain(const char *bwrap_stderr, char *out, size_t len);

/* Root: gives the tree at PATH back to the grader's uid (after a build the command's
 * uid wrote). Else nothing. */
void sandbox_reclaim(const char *path);

#endif
