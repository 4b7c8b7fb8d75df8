/* killpoint — an LD_PRELOAD library that SIGKILLs pmpplab at its Nth file-system change
 * (tests/crash/kill_points.sh). Counted, in the process whose executable is named
 * $PMPPLAB_KILL_EXE (default pmpplab), every call that changes a file or folder: opening
 * for writing, creating, write/pwrite to a regular file, fwrite, fsync, rename, link,
 * unlink, mkdir, rmdir, truncate. With $PMPPLAB_KILL_AT=N the process kills itself just
 * before the Nth such call; $PMPPLAB_KILL_LOG names a file that gets one line per call
 * ("N call path"). The variable LD_PRELOAD is removed at load, so nvcc, the student's
 * program and every other child run unhooked. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* Both names of each call are defined below (open and open64...): the build's
 * _FILE_OFFSET_BITS=64 would turn the first into the second. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int active;
static long kill_at = -1;
static long count;
static int log_fd = -1;

__attribute__((constructor)) static void killpoint_init(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *want = getenv("PMPPLAB_KILL_EXE");
	unsetenv("LD_PRELOAD");
	if (n <= 0)
		return;
	exe[n] = 0;
	const char *base = strrchr(exe, '/');
	active = strcmp(base ? base + 1 : exe, want ? want : "pmpplab") == 0;
	if (!active)
		return;
	const char *at = getenv("PMPPLAB_KILL_AT"), *log = getenv("PMPPLAB_KILL_LOG");
	kill_at = at ? atol(at) : -1;
	if (log)
		log_fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* One change about to happen: logged, and the process killed when it is the chosen one. */
static void point(const char *call, const char *path)
{
	if (!active)
		return;
	long k = __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
	if (log_fd >= 0) {
		char line[4200];
		int len = snprintf(line, sizeof(line), "%ld %s %s%s\n", k, call, path ? path : "?",
				   k == kill_at ? " KILLED" : "");
		syscall(SYS_write, log_fd, line, (size_t)(len < (int)sizeof(line) ? len : (int)sizeof(line) - 1));
	}
	if (k == kill_at)
		syscall(SYS_kill, getpid(), SIGKILL);
}

static const char *fd_path(int fd, char *buf, size_t len)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = syscall(SYS_readlink, link, buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static int regular(int fd)
{
	struct stat st;
	return syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode);
}

#define REAL(name, ret, ...) \
	static ret (*real)(__VA_ARGS__); \
	if (!real) \
		real = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

static int writes(int flags)
{
	return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
}

int open(const char *path, int flags, ...)
{
	REAL("open", int, const char *, int, ...);
	va_list ap;
	va_start(ap, flags);
	mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	if (writes(flags))
		point("open", path);
	return real(path, flags, mode);
}
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
	REAL("openat", int, int, const char *, int, ...);
	va_list ap;
	va_start(ap, flags);
	mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	if (writes(flags))
		point("openat", path);
	return real(dirfd, path, flags, mode);
}
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

FILE *fopen(const char *path, const char *mode)
{
	REAL("fopen", FILE *, const char *, const char *);
	if (strpbrk(mode, "wa+"))
		point("fopen", path);
	return real(path, mode);
}
FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL("write", ssize_t, int, const void *, size_t);
	if (active && regular(fd)) {
		char p[4096];
		point("write", fd_path(fd, p, sizeof(p)));
	}
	return real(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL("pwrite", ssize_t, int, const void *, size_t, off_t);
	if (active && regular(fd)) {
		char p[4096];
		point("pwrite", fd_path(fd, p, sizeof(p)));
	}
	return real(fd, buf, n, off);
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) __attribute__((alias("pwrite")));

size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	REAL("fwrite", size_t, const void *, size_t, size_t, FILE *);
	if (active && regular(fileno(f))) {
		char p[4096];
		point("fwrite", fd_path(fileno(f), p, sizeof(p)));
	}
	return real(buf, size, n, f);
}

int fsync(int fd)
{
	REAL("fsync", int, int);
	char p[4096];
	point("fsync", active ? fd_path(fd, p, sizeof(p)) : NULL);
	return real(fd);
}

int rename(const char *from, const char *to)
{
	REAL("rename", int, const char *, const char *);
	point("rename", to);
	return real(from, to);
}

int link(const char *from, const char *to)
{
	REAL("link", int, const char *, const char *);
	point("link", to);
	return real(from, to);
}

int unlink(const char *path)
{
	REAL("unlink", int, const char *);
	point("unlink", path);
	return real(path);
}

int remove(const char *path)
{
	REAL("remove", int, const char *);
	point("remove", path);
	return real(path);
}

int mkdir(const char *path, mode_t mode)
{
	REAL("mkdir", int, const char *, mode_t);
	point("mkdir", path);
	return real(path, mode);
}

int rmdir(const char *path)
{
	REAL("rmdir", int, const char *);
	point("rmdir", path);
	return real(path);
}

int truncate(const char *path, off_t len)
{
	REAL("truncate", int, const char *, off_t);
	point("truncate", path);
	return real(path, len);
}

int ftruncate(int fd, off_t len)
{
	REAL("ftruncate", int, int, off_t);
	char p[4096];
	point("ftruncate", active ? fd_path(fd, p, sizeof(p)) : NULL);
	return real(fd, len);
}
