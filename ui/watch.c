/* watch: debounced inotify on the student files' folders. See watch.h. */
#include "watch.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "xmem.h"

struct watch_file {
	int wd;           /* its folder's watch (several files may share one); -1: none */
	char *name;       /* the file's base name */
	bool pending;
	bool complete;    /* the latest event ended a save: due at once */
	uint64_t last_ms; /* time of the latest change */
};

struct watch {
	int fd;
	struct watch_file *files;
	unsigned n, cap;
};

struct watch *watch_new(void)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		int err = errno;
		free(w);
		errno = err;
		return NULL;
	}
	return w;
}

int watch_add(struct watch *w, const char *path)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 8;
		w->files = xrealloc(w->files, w->cap * sizeof(*w->files));
	}
	char *d = xstrdup(path), *b = xstrdup(path);
	struct watch_file *f = &w->files[w->n];
	*f = (struct watch_file){ .name = xstrdup(basename(b)) };
	/* CLOSE_WRITE: saved in place; MOVED_TO/CREATE: saved by rename or recreated. */
	f->wd = *path ? inotify_add_watch(w->fd, dirname(d), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
		      : -1;
	int rc = f->wd >= 0 ? (int)w->n : *path ? -errno : -ENOENT;
	free(d);
	free(b);
	w->n++;
	return rc;
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	for (unsigned i = 0; i < w->n; i++)
		free(w->files[i].name);
	free(w->files);
	free(w);
}

int watch_fd(const struct watch *w)
{
	return w->fd;
}

bool watch_read(struct watch *w, uint64_t now_ms)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool hit = false;
	for (;;) {
		ssize_t n = read(w->fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			for (unsigned i = 0; ev->len && i < w->n; i++)
				if (w->files[i].wd == ev->wd && strcmp(ev->name, w->files[i].name) == 0) {
					watch_touch(w, i, now_ms);
					/* the writer closed it, or a whole file was renamed over it */
					w->files[i].complete = ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO);
					hit = true;
				}
			p += sizeof(*ev) + ev->len;
		}
	}
	return hit;
}

void watch_touch(struct watch *w, unsigned index, uint64_t now_ms)
{
	if (index >= w->n)
		return;
	w->files[index].pending = true;
	w->files[index].complete = false;
	w->files[index].last_ms = now_ms;
}

static int file_timeout(const struct watch_file *f, uint64_t now_ms)
{
	if (!f->pending)
		return -1;
	if (f->complete)
		return 0;
	uint64_t due = f->last_ms + WATCH_DEBOUNCE_MS;
	return now_ms >= due ? 0 : (int)(due - now_ms);
}

int watch_timeout(const struct watch *w, uint64_t now_ms)
{
	int best = -1;
	for (unsigned i = 0; i < w->n; i++) {
		int t = file_timeout(&w->files[i], now_ms);
		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

int watch_take(struct watch *w, uint64_t now_ms)
{
	for (unsigned i = 0; i < w->n; i++)
		if (file_timeout(&w->files[i], now_ms) == 0) {
			w->files[i].pending = false;
			return (int)i;
		}
	return -1;
}

uint64_t watch_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
