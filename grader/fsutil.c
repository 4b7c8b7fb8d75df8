/* fsutil: see fsutil.h. */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

int fs_write_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = NULL;
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		int err = errno;
		free(tmp);
		return -err;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		left -= (size_t)w;
	}
	int err = left ? (errno ? errno : EIO) : 0;
	if (!err && fsync(fd) != 0)
		err = errno;
	if (close(fd) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return -err;
}

int fs_copy_new(const char *src, const char *dst)
{
	size_t len;
	char *data = fs_read(src, &len);
	if (!data)
		return -errno;
	int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		int err = errno;
		free(data);
		return -err;
	}
	ssize_t w = write(fd, data, len);
	int err = w == (ssize_t)len ? 0 : (errno ? errno : EIO);
	close(fd);
	free(data);
	return -err;
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
	size_t len;
	char *data = fs_read(path, &len);
	fs_hash_str(h, path);
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
