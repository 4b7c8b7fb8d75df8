/* watch: notices when the student saves their file (the open lab's; on the list, every
 * lab's). inotify watches each file's FOLDER, not the file, because many editors (vim,
 * gedit, VS Code) save by writing a new file and renaming it over the old one, which
 * would end a watch on the file itself. A save is "due" at once when its last event
 * ends it (the writer closed the file, or a whole file was renamed over it: issue 16, no
 * wait before the verdict); after any other event (a file created, not yet written; a
 * change recorded by hand) once WATCH_DEBOUNCE_MS pass without another, so that burst
 * gives one regrade. An editor whose save ends in two such events (rare: a close, then a
 * rename) gives two, and the TUI's second run replaces the first. No curses, no threads. */
#ifndef PMPPLAB_UI_WATCH_H
#define PMPPLAB_UI_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#define WATCH_DEBOUNCE_MS 100

struct watch;

/* An empty watch (watch_add gives it files). Returns NULL with errno set on failure.
 * Free with watch_free (NULL is fine). */
struct watch *watch_new(void);
/* Watches PATH's folder for changes to PATH. Returns the file's index (the count of
 * earlier watch_add calls, failed ones included, so indices follow the caller's order),
 * or -errno when its folder cannot be watched or PATH is "" (that index then never
 * fires). */
int watch_add(struct watch *w, const char *path);
void watch_free(struct watch *w);
/* The inotify descriptor to poll for input. */
int watch_fd(const struct watch *w);
/* Reads pending inotify events (non-blocking); records NOW_MS as the latest change of
 * each file they concern (due at once where the event ends a save). Returns true when
 * there was one. */
bool watch_read(struct watch *w, uint64_t now_ms);
/* Records a change of file INDEX at NOW_MS by hand (tests, or a save the UI made):
 * debounced. */
void watch_touch(struct watch *w, unsigned index, uint64_t now_ms);
/* Milliseconds until a recorded change is due, 0 when due now, -1 when none pending. */
int watch_timeout(const struct watch *w, uint64_t now_ms);
/* The index of a file whose recorded change is due, once (it is cleared), or -1. */
int watch_take(struct watch *w, uint64_t now_ms);
/* Monotonic milliseconds. */
uint64_t watch_now_ms(void);

#endif
