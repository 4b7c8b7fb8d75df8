/* watch: notices when the student saves their file. inotify watches the file's FOLDER,
 * not the file, because many editors (vim, gedit, VS Code) save by writing a new file
 * and renaming it over the old one, which would end a watch on the file itself. Events
 * are debounced: a save is "due" once WATCH_DEBOUNCE_MS pass without another event, so
 * an editor's write-rename-chmod burst gives one regrade. No curses, no threads. */
#ifndef PMPPLAB_UI_WATCH_H
#define PMPPLAB_UI_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#define WATCH_DEBOUNCE_MS 100

struct watch;

/* Watches PATH's folder for changes to PATH. Returns NULL with errno set on failure.
 * Free with watch_free (NULL is fine). */
struct watch *watch_new(const char *path);
void watch_free(struct watch *w);
/* The inotify descriptor to poll for input. */
int watch_fd(const struct watch *w);
/* Reads pending inotify events (non-blocking); when one concerns the file, records NOW_MS
 * as the latest change. Returns true when it did. */
bool watch_read(struct watch *w, uint64_t now_ms);
/* Records a change at NOW_MS by hand (tests, or a save the UI made itself). */
void watch_touch(struct watch *w, uint64_t now_ms);
/* Milliseconds until a recorded change is due, 0 when due now, -1 when none pending. */
int watch_timeout(const struct watch *w, uint64_t now_ms);
/* True (once) when a recorded change is due; clears it. */
bool watch_take(struct watch *w, uint64_t now_ms);
/* Monotonic milliseconds. */
uint64_t watch_now_ms(void);

#endif
