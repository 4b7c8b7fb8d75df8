/* fsutil: see fsutil.h. */
#include "fsutil.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *fs_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 65536;
			char *nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

const char *fs_base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

char *fs_tmp_name(const char *path)
{
	static unsigned seq;
	char *tmp = NULL;
	if (asprintf(&tmp, "%s.tmp.%d.%u", path, (int)getpid(),
		     __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED)) < 0)
		return NULL;
	return tmp;
}

void fs_sync_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Writes DATA to a new temporary file beside PATH and flushes it to disk. Returns its
 * name (caller frees), or NULL with errno set and nothing left behind. */
static char *write_tmp(const char *path, const void *data, size_t len)
{
	char *tmp = fs_tmp_name(path);
	if (!tmp) {
		errno = ENOMEM;
		return NULL;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* umask applies */
	if (fd < 0) {
		free(tmp);
		return NULL;
	}
	const char *p = data;
	size_t left = len;
	int err = 0;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (!err && fsync(fd) != 0)
		err = errno;
	if (close(fd) != 0 && !err)
		err = errno;
	if (err) {
		unlink(tmp);
		free(tmp);
		errno = err;
		return NULL;
	}
	return tmp;
}

int fs_write_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = write_tmp(path, data, len);
	if (!tmp)
		return -errno;
	int err = rename(tmp, path) != 0 ? errno : 0;
	if (err)
		unlink(tmp);
	else
		fs_sync_dir(path);
	free(tmp);
	return -err;
}

int fs_copy_new(const char *src, const char *dst)
{
	size_t len;
	char *data = fs_read(src, &len);
	if (!data)
		return -errno;
	/* complete before it has DST's name: link() fails when DST exists */
	char *tmp = write_tmp(dst, data, len);
	int err = !tmp ? errno : link(tmp, dst) != 0 ? errno : 0;
	if (tmp && (err == EPERM || err == EOPNOTSUPP)) /* a file system without hard links */
		err = access(dst, F_OK) == 0 ? EEXIST : rename(tmp, dst) != 0 ? errno : 0;
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	if (!err)
		fs_sync_dir(dst);
	free(data);
	return -err;
}

/* The writer's pid in NAME when it is one of fs_tmp_name's (or build.c's: NAME.tmp.PID.X)
 * names, else 0. */
static pid_t tmp_owner(const char *name)
{
	const char *t = strstr(name, ".tmp.");
	if (!t || t == name)
		return 0;
	char *end;
	long pid = strtol(t + 5, &end, 10);
	if (pid <= 0 || end == t + 5 || (*end && *end != '.'))
		return 0;
	for (const char *q = *end ? end + 1 : end; *q; q++)
		if (!isxdigit((unsigned char)*q))
			return 0;
	return (pid_t)pid;
}

int fs_sweep_stale(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		pid_t pid = tmp_owner(e->d_name);
		if (!pid || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue; /* not ours, or its writer is alive (or not ours to ask) */
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fs_remove_tree(path);
		n++;
	}
	closedir(d);
	return n;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void fs_remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void fs_hash_init(struct fs_hash *h)
{
	h->a = 0xcbf29ce484222325ULL;
	h->b = 0x84222325cbf29ce4ULL;
}

void fs_hash_add(struct fs_hash *h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h->a = (h->a ^ p[i]) * 0x100000001b3ULL;
		h->b = (h->b ^ p[i]) * 0x100000001b3ULL + (h->b >> 29);
	}
}

void fs_hash_str(struct fs_hash *h, const char *s)
{
	fs_hash_add(h, s, strlen(s) + 1);
}

void fs_hash_file(struct fs_hash *h, const char *path)
{
	fs_hash_str(h, path);
	fs_hash_content(h, path);
}

void fs_hash_content(struct fs_hash *h, const char *path)
{
	size_t len;
	char *data = fs_read(path, &len);
	if (data)
		fs_hash_add(h, data, len);
	else
		fs_hash_str(h, "<missing>");
	free(data);
}

void fs_hash_hex(const struct fs_hash *h, char out[33])
{
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h->a, (unsigned long long)h->b);
}
