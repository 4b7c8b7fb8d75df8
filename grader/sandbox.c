/* sandbox: bwrap command lines, limits, uids and scratch folders; see sandbox.h. */
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "paths.h"

extern char **environ;

#define GIB ((rlim_t)1 << 30)
#define MIB ((rlim_t)1 << 20)
/* Root: commands run as SLOT_BASE + slot, a slot per concurrent command (locked in
 * SLOT_FILE); PMPPLAB_SANDBOX_UID moves the range. 60000-61183 is allocated by Debian
 * on demand only, below systemd's dynamic users. */
#define SLOT_BASE 60500
#define SLOT_COUNT 512
#define SLOT_FILE "/tmp/pmpplab-sandbox-uids.lock"

static atomic_bool enabled = true;
static pthread_mutex_t hidden_lock = PTHREAD_MUTEX_INITIALIZER;
static char *hidden[8];
static unsigned n_hidden;

void sandbox_set_enabled(bool on)
{
	enabled = on;
}

bool sandbox_enabled(void)
{
	return enabled;
}

void sandbox_hide(const char *path)
{
	char real[PATH_MAX];
	if (!path || !realpath(path, real))
		return;
	pthread_mutex_lock(&hidden_lock);
	bool known = false;
	for (unsigned i = 0; i < n_hidden; i++)
		known |= strcmp(hidden[i], real) == 0;
	if (!known && n_hidden < sizeof(hidden) / sizeof(hidden[0]))
		hidden[n_hidden++] = strdup(real);
	pthread_mutex_unlock(&hidden_lock);
}

void sandbox_view_ro(struct sandbox_view *v, const char *path)
{
	if (path && v->n_ro < SANDBOX_MAX_PATHS)
		v->ro[v->n_ro++] = path;
}

void sandbox_view_rw(struct sandbox_view *v, const char *path)
{
	if (path && v->n_rw < SANDBOX_MAX_PATHS)
		v->rw[v->n_rw++] = path;
}

/* ---- growing argument lists -------------------------------------------------------- */

struct vec {
	char **v;
	size_t n, cap;
	bool failed;
};

static void vec_push(struct vec *a, char *s)
{
	if (!s || a->failed) {
		a->failed = true;
		return;
	}
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		char **nv = realloc(a->v, cap * sizeof(char *));
		if (!nv) {
			a->failed = true;
			return;
		}
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* A string the command owns (freed on release). */
static char *own(struct sandbox_cmd *c, char *s)
{
	if (!s)
		return NULL;
	if (c->n_owned == c->cap_owned) {
		size_t cap = c->cap_owned ? 2 * c->cap_owned : 32;
		char **nv = realloc(c->owned, cap * sizeof(char *));
		if (!nv) {
			free(s);
			return NULL;
		}
		c->owned = nv;
		c->cap_owned = cap;
	}
	return c->owned[c->n_owned++] = s;
}

static char *ownf(struct sandbox_cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *ownf(struct sandbox_cmd *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : own(c, s);
}

static void push2(struct vec *a, const char *opt, char *arg)
{
	vec_push(a, (char *)opt);
	vec_push(a, arg);
}

static void push3(struct vec *a, const char *opt, char *x, char *y)
{
	vec_push(a, (char *)opt);
	vec_push(a, x);
	vec_push(a, y);
}

/* ---- the environment ---------------------------------------------------------------- */

/* What of ours a sandboxed command sees: no tokens or keys of the grader's session. */
static bool env_passes(const char *e)
{
	static const char *const names[] = { "PATH=", "LANG=", "LANGUAGE=", "TERM=", "TZ=",
					     "LD_LIBRARY_PATH=" };
	static const char *const prefixes[] = { "LC_", "CUDA_", "NVIDIA_", "PMPPLAB_" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(e, names[i], strlen(names[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(e, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

static bool env_overridden(const char *e, char *const *extra)
{
	size_t klen = strcspn(e, "=");
	for (size_t j = 0; extra && extra[j]; j++)
		if (strncmp(extra[j], e, klen + 1) == 0)
			return true;
	return false;
}

/* Ours (filtered when sandboxed, with HOME and TMPDIR on the scratch) + EXTRA, which wins. */
static void build_env(struct vec *env, char *const *extra, bool sandboxed)
{
	static char *const scratch_env[] = { "HOME=/tmp", "TMPDIR=/tmp", NULL };
	for (size_t i = 0; environ[i]; i++)
		if ((!sandboxed || env_passes(environ[i])) && !env_overridden(environ[i], extra) &&
		    !(sandboxed && env_overridden(environ[i], scratch_env)))
			vec_push(env, environ[i]);
	for (size_t j = 0; sandboxed && scratch_env[j]; j++)
		if (!env_overridden(scratch_env[j], extra))
			vec_push(env, scratch_env[j]);
	for (size_t j = 0; extra && extra[j]; j++)
		vec_push(env, extra[j]);
}

static const char *env_value(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

/* ---- limits ------------------------------------------------------------------------- */

static void limit(struct sandbox_cmd *c, int resource, rlim_t value)
{
	if (c->n_limits < sizeof(c->limits) / sizeof(c->limits[0]))
		c->limits[c->n_limits++] = (struct sandbox_limit){ resource, value };
}

/* Tasks (threads) the real uid U runs now: without a uid of its own, the sandbox's
 * process limit has to count on top of the user's other programs. */
static rlim_t user_tasks(uid_t u)
{
	DIR *d = opendir("/proc");
	rlim_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[64], line[128];
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		unsigned long uid = ~0UL, threads = 0;
		while (f && fgets(line, sizeof(line), f)) {
			sscanf(line, "Uid: %lu", &uid);
			sscanf(line, "Threads: %lu", &threads);
		}
		if (f)
			fclose(f);
		if (uid == u)
			n += threads;
	}
	if (d)
		closedir(d);
	return n;
}

/* The limits of a view: see sandbox.h. NULL view: what every child always had. */
static void set_limits(struct sandbox_cmd *c, const struct sandbox_view *v)
{
	limit(c, RLIMIT_CORE, 0);
	limit(c, RLIMIT_NOFILE, 1024);
	if (!v || !c->sandboxed) {
		limit(c, RLIMIT_FSIZE, 4 * GIB);
		return;
	}
	limit(c, RLIMIT_FSIZE, GIB);
	limit(c, RLIMIT_NPROC, geteuid() == 0 ? 256 : user_tasks(getuid()) + 256);
	if (v->profile == SANDBOX_BUILD)
		limit(c, RLIMIT_DATA, 8 * GIB);
	else if (v->gpu)
		limit(c, RLIMIT_DATA, 32 * GIB); /* the CUDA runtime reserves far more address space */
	else
		limit(c, RLIMIT_AS, 8 * GIB);
	if (v->timeout_ms) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		limit(c, RLIMIT_CPU, (rlim_t)(v->timeout_ms / 1000 + 10) * (rlim_t)(cpus > 0 ? cpus : 1));
	}
}

/* ---- the uid of a command (root) ---------------------------------------------------- */

static uid_t slot_base(void)
{
	const char *e = getenv("PMPPLAB_SANDBOX_UID");
	long b = e && *e ? strtol(e, NULL, 10) : SLOT_BASE;
	return b > 0 && b < 0x7fff0000 ? (uid_t)b : SLOT_BASE;
}

/* A uid no other running command has: a byte lock per slot in one root-owned file. */
static uid_t slot_acquire(int *fd_out)
{
	static atomic_uint next;
	unsigned start = (unsigned)getpid() * 131u + atomic_fetch_add(&next, 1);
	*fd_out = -1;
	int fd = open(SLOT_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	for (unsigned i = 0; fd >= 0 && i < SLOT_COUNT; i++) {
		unsigned slot = (start + i) % SLOT_COUNT;
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = slot, .l_len = 1 };
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
			*fd_out = fd;
			return slot_base() + slot;
		}
	}
	if (fd >= 0)
		close(fd);
	return slot_base() + start % SLOT_COUNT; /* no lock file: shared by chance only */
}

/* ---- the bwrap command line --------------------------------------------------------- */

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Folders that hold the read-only system, or that bwrap mounts itself (the scratch
 * /tmp itself, not what is below it). */
static bool system_path(const char *p)
{
	static const char *const dirs[] = { "/usr", "/etc", "/proc", "/dev", "/sys" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (under(p, dirs[i]))
			return true;
	return strcmp(p, "/tmp") == 0;
}

/* The read-only system: /usr, the /lib and /bin links (or folders), a few of /etc. */
static void system_binds(struct sandbox_cmd *c, struct vec *a, const struct sandbox_view *v)
{
	static const char *const tops[] = { "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32" };
	static const char *const etc[] = { "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
					   "/etc/alternatives", "/etc/passwd", "/etc/group",
					   "/etc/nsswitch.conf", "/etc/localtime" };
	push3(a, "--ro-bind", "/usr", "/usr");
	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t n = readlink(tops[i], target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			push3(a, "--symlink", ownf(c, "%s", target), (char *)tops[i]);
		} else if (stat(tops[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			push3(a, "--ro-bind", (char *)tops[i], (char *)tops[i]);
		}
	}
	/* bwrap would make the folders above a file with mode 0700: readable by root only */
	push2(a, "--perms", "0755");
	push2(a, "--dir", "/etc");
	for (size_t i = 0; i < sizeof(etc) / sizeof(etc[0]); i++)
		push3(a, "--ro-bind-try", (char *)etc[i], (char *)etc[i]);
	push2(a, "--proc", "/proc");
	push2(a, "--dev", "/dev");
	bool build = v->profile == SANDBOX_BUILD;
	push2(a, "--perms", "1777");
	push2(a, "--size", ownf(c, "%llu", (unsigned long long)(build ? 2 * GIB : 256 * MIB)));
	push2(a, "--tmpfs", "/tmp");
	push2(a, "--perms", "1777");
	push2(a, "--size", ownf(c, "%llu", (unsigned long long)(64 * MIB)));
	push2(a, "--tmpfs", "/dev/shm");
	if (!v->gpu) {
		static const char *const sys[] = { "/sys", "/sys/devices", "/sys/devices/system" };
		for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
			push2(a, "--perms", "0755");
			push2(a, "--dir", (char *)sys[i]);
		}
		push3(a, "--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu");
		return;
	}
	/* The CUDA driver: its device files, and /sys for the PCI topology and NUMA nodes. */
	push3(a, "--ro-bind", "/sys", "/sys");
	DIR *d = opendir("/dev");
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, "nvidia", 6) == 0) {
			char *p = ownf(c, "/dev/%s", e->d_name);
			push3(a, "--dev-bind", p, p);
		}
	if (d)
		closedir(d);
}

/* Masks: an installed lab collection under /usr is visible through the system binds. */
static void mask_binds(struct sandbox_cmd *c, struct vec *a)
{
	char *root = paths_data_root();
	char *harness = paths_harness_dir();
	char real[PATH_MAX];
	bool masked_harness = false;
	pthread_mutex_lock(&hidden_lock);
	for (unsigned i = 0; i <= n_hidden; i++) {
		const char *p = i < n_hidden ? hidden[i] : root;
		if (!p || !realpath(p, real) || !under(real, "/usr"))
			continue;
		push2(a, "--tmpfs", ownf(c, "%s", real));
		masked_harness |= harness && under(harness, real);
	}
	pthread_mutex_unlock(&hidden_lock);
	if (masked_harness && realpath(harness, real))
		push3(a, "--ro-bind", ownf(c, "%s", real), ownf(c, "%s", real));
	free(root);
	free(harness);
}

/* --dir for every folder above DEST that is not part of the system: bwrap would make
 * it with the mode of the folder outside (a 0700 /root would hide everything). */
static void parent_dirs(struct sandbox_cmd *c, struct vec *a, struct vec *made, const char *dest)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", dest);
	for (char *s = strchr(buf + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		bool seen = system_path(buf);
		for (size_t i = 0; i < made->n && !seen; i++)
			seen = strcmp(made->v[i], buf) == 0;
		if (!seen) {
			char *d = ownf(c, "%s", buf);
			vec_push(made, d);
			push2(a, "--perms", "0755");
			push2(a, "--dir", d);
		}
		*s = '/';
	}
}

struct bind {
	const char *opt;
	char *src, *dst;
};

/* Toolkit and libraries (16), the setpriv (1), the view (2 x 16 + the trace), the copy. */
#define MAX_BINDS (3 * SANDBOX_MAX_PATHS + 256 + 2)

static int bind_cmp(const void *x, const void *y)
{
	return strcmp(((const struct bind *)x)->dst, ((const struct bind *)y)->dst);
}

/* nftw has no user data: its callbacks' state, one walk at a time. */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;

/* Root: the command's uid must read what it is shown; files we made are often 0600. */
static void make_readable(const char *path, uid_t uid)
{
	struct stat st;
	if (geteuid() != 0 || uid == 0 || stat(path, &st) != 0 || st.st_uid != geteuid())
		return;
	mode_t add = S_IROTH | ((st.st_mode & S_IXUSR) || S_ISDIR(st.st_mode) ? S_IXOTH : 0);
	if ((st.st_mode & add) != add)
		chmod(path, (st.st_mode & 07777) | add);
}

static uid_t chown_uid;
static gid_t chown_gid;

static int chown_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return lchown(path, chown_uid, chown_gid) != 0 ? -1 : 0;
}

/* A file or folder the command writes: a file is made when missing; root gives it (a
 * folder with what is in it) to the command's uid. sandbox_reclaim gives it back. */
static int make_writable(const char *path, uid_t uid)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || fstat(fd, &st) != 0)
			return fd < 0 ? -errno : (close(fd), -EIO);
		close(fd);
	}
	if (geteuid() != 0 || uid == 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return chown(path, uid, uid) != 0 ? -errno : 0;
	pthread_mutex_lock(&walk_lock);
	chown_uid = uid;
	chown_gid = uid;
	int rc = nftw(path, chown_one, 16, FTW_PHYS) != 0 ? -EPERM : 0;
	pthread_mutex_unlock(&walk_lock);
	return rc;
}

/* Every file of the copied folder, bound read-only at its place under copy_at. */
static struct sandbox_cmd *walk_cmd;
static struct bind *walk_binds;
static size_t walk_n, walk_cap;
static const struct sandbox_view *walk_view;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || walk_n == walk_cap)
		return 0;
	const char *rel = path + strlen(walk_view->copy_from);
	walk_binds[walk_n++] = (struct bind){ "--ro-bind", ownf(walk_cmd, "%s", path),
					      ownf(walk_cmd, "%s%s", walk_view->copy_at, rel) };
	make_readable(path, walk_cmd->uid);
	return 0;
}

static size_t copy_binds(struct sandbox_cmd *c, const struct sandbox_view *v, struct bind *b,
			 size_t cap)
{
	if (!v->copy_from || !v->copy_at)
		return 0;
	pthread_mutex_lock(&walk_lock);
	walk_cmd = c;
	walk_binds = b;
	walk_n = 0;
	walk_cap = cap;
	walk_view = v;
	nftw(v->copy_from, walk_one, 16, FTW_PHYS);
	size_t n = walk_n;
	pthread_mutex_unlock(&walk_lock);
	return n;
}

/* Toolkits outside /usr (/opt/cuda), and folders on LD_LIBRARY_PATH (a GPU machine's
 * copied libraries), read-only. Returns the new count. */
static size_t tool_binds(struct sandbox_cmd *c, struct bind *b, size_t n, char *const *env)
{
	char *nvcc = paths_nvcc();
	char real[PATH_MAX];
	if (nvcc && realpath(nvcc, real)) {
		for (int up = 0; up < 2; up++)
			*strrchr(real, '/') = '\0'; /* .../bin/nvcc -> the toolkit */
		if (*real && !system_path(real)) {
			char *p = ownf(c, "%s", real);
			b[n++] = (struct bind){ "--ro-bind", p, p };
		}
	}
	free(nvcc);
	/* NVIDIA's packages put Nsight Compute there (the toolkit's bin/ncu is a launcher
	 * that looks for it): without it a profile inside the sandbox says "Nsight Compute
	 * is not installed" (seen on the H100 machine) */
	struct stat st;
	if (stat("/opt/nvidia", &st) == 0 && S_ISDIR(st.st_mode))
		b[n++] = (struct bind){ "--ro-bind", "/opt/nvidia", "/opt/nvidia" };
	const char *ld = env_value(env, "LD_LIBRARY_PATH");
	char *copy = ld ? strdup(ld) : NULL, *save = NULL;
	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && n < 16; d = strtok_r(NULL, ":", &save))
		if (*d == '/' && !system_path(d) && realpath(d, real))
			b[n++] = (struct bind){ "--ro-bind", ownf(c, "%s", real), ownf(c, "%s", d) };
	free(copy);
	return n;
}

/* What the command sees besides the system: the toolkit's and libraries' folders, the
 * caller's paths; the folders above each made first, each bind after its parents. */
static int view_binds(struct sandbox_cmd *c, struct vec *a, const struct sandbox_view *v,
		      char *const *env, char *setpriv)
{
	struct bind *b = calloc(MAX_BINDS, sizeof(*b));
	if (!b)
		return -ENOMEM;
	size_t n = tool_binds(c, b, 0, env);
	if (setpriv && !system_path(setpriv))
		b[n++] = (struct bind){ "--ro-bind", setpriv, setpriv };
	int rc = 0;
	for (unsigned i = 0; i < v->n_ro; i++) {
		make_readable(v->ro[i], c->uid);
		b[n++] = (struct bind){ "--ro-bind", (char *)v->ro[i], (char *)v->ro[i] };
	}
	const char *trace = v->profile == SANDBOX_RUN ? env_value(env, "PMPPLAB_TRACE") : NULL;
	for (unsigned i = 0; i <= v->n_rw && rc == 0; i++) {
		const char *p = i < v->n_rw ? v->rw[i] : trace && *trace ? trace : NULL;
		if (p && (rc = make_writable(p, c->uid)) == 0)
			b[n++] = (struct bind){ "--bind", (char *)p, (char *)p };
	}
	n += copy_binds(c, v, b + n, MAX_BINDS - n);
	qsort(b, n, sizeof(*b), bind_cmp);
	struct vec made = { 0 };
	for (size_t i = 0; i < n; i++)
		parent_dirs(c, a, &made, b[i].dst);
	for (size_t i = 0; i < n; i++)
		push3(a, b[i].opt, b[i].src, b[i].dst);
	free(made.v);
	free(b);
	return rc;
}

/* A seccomp filter (bwrap --seccomp): no new user namespace inside the sandbox, where a
 * process would get every capability over what it then mounts (bwrap's own
 * --disable-userns needs a user namespace, which root's sandbox has not). clone3 says
 * ENOSYS, so that the C library falls back to clone, whose flags a filter can read.
 * x86-64 only; elsewhere the filter lets everything through. */
static const struct sock_filter no_userns[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 7),        /* else allow */
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 7, 0),               /* x32: ENOSYS */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 6, 0),               /* ENOSYS */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 1, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 2),                /* else allow */
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
};

/* The filter in a memory file for bwrap to read; -1 when none can be made. */
static int seccomp_fd(void)
{
	int fd = memfd_create("pmpplab-seccomp", MFD_CLOEXEC);
	if (fd >= 0 && (write(fd, no_userns, sizeof(no_userns)) != (ssize_t)sizeof(no_userns) ||
			lseek(fd, 0, SEEK_SET) != 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static char *which_owned(struct sandbox_cmd *c, const char *name)
{
	char *p = paths_which(name);
	if (!p) {
		char alt[64];
		snprintf(alt, sizeof(alt), "/usr/bin/%s", name);
		p = access(alt, X_OK) == 0 ? strdup(alt) : NULL;
	}
	return p ? own(c, p) : NULL;
}

static int bwrap_argv(struct sandbox_cmd *c, struct vec *a, const struct sandbox_view *v,
		      char *const *argv, char *const *env, int status_fd)
{
	char *bwrap = which_owned(c, "bwrap");
	bool root = geteuid() == 0;
	char *setpriv = root ? which_owned(c, "setpriv") : NULL;
	if (!bwrap || (root && !setpriv))
		return -ENOENT;
	vec_push(a, bwrap);
	const char *ns[] = { "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
			     "--unshare-cgroup-try", "--die-with-parent", "--new-session" };
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		vec_push(a, (char *)ns[i]);
	if (!root) {
		vec_push(a, "--unshare-user");
		vec_push(a, "--disable-userns");
	}
	push2(a, "--hostname", "pmpplab-sandbox");
	if (status_fd >= 0) {
		c->pass[c->n_pass] = status_fd;
		push2(a, "--json-status-fd", ownf(c, "%u", 3 + c->n_pass++));
	}
	if ((c->own_fd = seccomp_fd()) < 0)
		return -errno;
	c->pass[c->n_pass] = c->own_fd;
	push2(a, "--seccomp", ownf(c, "%u", 3 + c->n_pass++));
	system_binds(c, a, v);
	mask_binds(c, a);
	int rc = view_binds(c, a, v, env, setpriv);
	push2(a, "--chdir", (char *)(v->cwd ? v->cwd : "/tmp"));
	vec_push(a, "--");
	if (root) {
		char *id = ownf(c, "%u", (unsigned)c->uid);
		vec_push(a, setpriv);
		push2(a, "--reuid", id);
		push2(a, "--regid", id);
		vec_push(a, "--clear-groups");
		push2(a, "--bounding-set", "-all");
		push2(a, "--inh-caps", "-all");
		vec_push(a, "--no-new-privs");
		vec_push(a, "--");
	}
	for (size_t i = 0; argv[i]; i++)
		vec_push(a, argv[i]);
	return a->failed ? -ENOMEM : rc;
}

int sandbox_command(const struct sandbox_view *v, char *const *argv, char *const *extra_env,
		    int status_fd, struct sandbox_cmd *out)
{
	memset(out, 0, sizeof(*out));
	out->slot_fd = out->own_fd = -1;
	out->uid = geteuid();
	out->sandboxed = v && sandbox_enabled();
	struct vec env = { 0 }, args = { 0 };
	build_env(&env, extra_env, out->sandboxed);
	int rc = env.failed ? -ENOMEM : 0;
	if (rc == 0 && out->sandboxed) {
		if (geteuid() == 0)
			out->uid = slot_acquire(&out->slot_fd);
		rc = bwrap_argv(out, &args, v, argv, env.v, status_fd);
	} else {
		for (size_t i = 0; rc == 0 && argv[i]; i++)
			vec_push(&args, argv[i]);
		rc = args.failed ? -ENOMEM : 0;
	}
	out->argv = args.v;
	out->env = env.v;
	set_limits(out, v);
	if (rc < 0)
		sandbox_cmd_release(out);
	return rc;
}

int sandbox_child_setup(const struct sandbox_cmd *c)
{
	/* First out of the way (an fd may already sit on 3..5), then into place. */
	int moved[3];
	for (unsigned i = 0; i < c->n_pass; i++)
		if ((moved[i] = fcntl(c->pass[i], F_DUPFD, 10)) < 0)
			return -1;
	for (unsigned i = 0; i < c->n_pass; i++)
		if (dup2(moved[i], (int)(3 + i)) < 0)
			return -1;
	close_range(3 + c->n_pass, ~0U, 0);
	for (unsigned i = 0; i < c->n_limits; i++) {
		struct rlimit r = { c->limits[i].value, c->limits[i].value };
		setrlimit(c->limits[i].resource, &r);
	}
	umask(022);
	return 0;
}

void sandbox_cmd_release(struct sandbox_cmd *c)
{
	for (size_t i = 0; i < c->n_owned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->argv);
	free(c->env);
	if (c->slot_fd >= 0)
		close(c->slot_fd);
	if (c->own_fd >= 0)
		close(c->own_fd);
	memset(c, 0, sizeof(*c));
	c->slot_fd = c->own_fd = -1;
}

bool sandbox_started(const char *status_text)
{
	return status_text && strstr(status_text, "\"child-pid\"");
}

void sandbox_explain(const char *err, char *out, size_t len)
{
	char said[512];
	snprintf(said, sizeof(said), "%s", err && *err ? err : "(nothing)");
	for (size_t n = strlen(said); n && (said[n - 1] == '\n' || said[n - 1] == ' '); n--)
		said[n - 1] = '\0';
	if (geteuid() == 0)
		snprintf(out, len,
			 "the sandbox (bubblewrap) could not be set up: %s\n"
			 "Run as root, bwrap needs the capability to create namespaces and mounts: in a "
			 "container, start it with --cap-add SYS_ADMIN --security-opt seccomp=unconfined "
			 "--security-opt apparmor=unconfined (or --privileged), or grade as an unprivileged "
			 "user. To grade without a sandbox, knowing that the submission then runs with "
			 "your rights, pass --sandbox=off.",
			 said);
	else
		snprintf(out, len,
			 "the sandbox (bubblewrap) could not be set up: %s\n"
			 "bwrap needs unprivileged user namespaces. Allow them (as root): "
			 "sysctl -w user.max_user_namespaces=15000; on Debian before 11 also "
			 "sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu 23.10 and later "
			 "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile "
			 "that allows userns for bwrap). To grade without a sandbox, knowing that the "
			 "submission then runs with your rights, pass --sandbox=off.",
			 said);
}

/* ---- giving files back ------------------------------------------------------------- */

void sandbox_reclaim(const char *path)
{
	if (geteuid() != 0)
		return;
	pthread_mutex_lock(&walk_lock);
	chown_uid = geteuid();
	chown_gid = getegid();
	nftw(path, chown_one, 16, FTW_PHYS);
	pthread_mutex_unlock(&walk_lock);
}
