/* watch: debounced inotify on the student file's folder. See watch.h. */
#include "watch.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "xmem.h"

struct watch {
	int fd;
	char *name;       /* the file's base name */
	bool pending;
	uint64_t last_ms; /* time of the latest change */
};

struct watch *watch_new(const char *path)
{
	char *d = xstrdup(path), *b = xstrdup(path);
	struct watch *w = xcalloc(1, sizeof(*w));
	w->name = xstrdup(basename(b));
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		goto fail;
	/* CLOSE_WRITE: saved in place; MOVED_TO/CREATE: saved by rename or recreated. */
	if (inotify_add_watch(w->fd, dirname(d), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0)
		goto fail;
	free(d);
	free(b);
	return w;
fail:;
	int err = errno;
	free(d);
	free(b);
	watch_free(w);
	errno = err;
	return NULL;
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w->name);
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
			if (ev->len && strcmp(ev->name, w->name) == 0)
				hit = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	if (hit)
		watch_touch(w, now_ms);
	return hit;
}

void watch_touch(struct watch *w, uint64_t now_ms)
{
	w->pending = true;
	w->last_ms = now_ms;
}

int watch_timeout(const struct watch *w, uint64_t now_ms)
{
	if (!w->pending)
		return -1;
	uint64_t due = w->last_ms + WATCH_DEBOUNCE_MS;
	return now_ms >= due ? 0 : (int)(due - now_ms);
}

bool watch_take(struct watch *w, uint64_t now_ms)
{
	if (watch_timeout(w, now_ms) != 0)
		return false;
	w->pending = false;
	return true;
}

uint64_t watch_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
