/* fsutil: small file helpers shared by the grader's modules. */
#ifndef PMPPLAB_FSUTIL_H
#define PMPPLAB_FSUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file (NUL-terminated). Returns NULL and sets errno on failure. */
char *fs_read(const char *path, size_t *len);
/* Writes a temporary file beside PATH (fs_tmp_name), fsyncs it, renames it over PATH and
 * fsyncs the folder: a reader, or the next run after a crash or SIGKILL, sees the old
 * file or the new one, never half of it. 0 or -errno (PATH untouched). */
int fs_write_atomic(const char *path, const void *data, size_t len);
/* Copies SRC to DST, which must not exist (never overwrites: -EEXIST), the same way: DST
 * appears complete or not at all. 0 or -errno. */
int fs_copy_new(const char *src, const char *dst);
/* A fresh temporary name beside PATH: PATH.tmp.PID.N (caller frees; NULL on ENOMEM). */
char *fs_tmp_name(const char *path);
/* fsyncs the folder holding PATH, so that a rename or link in it survives a crash. */
void fs_sync_dir(const char *path);
/* Removes what a killed writer left in DIR: entries named NAME.tmp.PID[.X] (fs_tmp_name,
 * the build cache's folders) whose process no longer exists. Returns how many, or
 * -errno when DIR cannot be read (a missing DIR is 0). PIDs are this machine's: a
 * workspace shared over a network file system keeps other machines' leftovers. */
int fs_sweep_stale(const char *dir);
/* The last component of PATH ("" for NULL): a name to show for a file. */
const char *fs_base_name(const char *path);
/* Removes a folder and everything in it. */
void fs_remove_tree(const char *path);

/* An incremental 128-bit content hash (two FNV-1a 64 lanes): for cache keys, not crypto. */
struct fs_hash { uint64_t a, b; };
void fs_hash_init(struct fs_hash *h);
void fs_hash_add(struct fs_hash *h, const void *data, size_t len);
void fs_hash_str(struct fs_hash *h, const char *s);   /* includes the terminating NUL */
/* Adds a file's path and content (or its absence). */
void fs_hash_file(struct fs_hash *h, const char *path);
/* Adds a file's content (or its absence) alone: for a file whose folder differs from run
 * to run (a grading's inputs, in its private folder). */
void fs_hash_content(struct fs_hash *h, const char *path);
void fs_hash_hex(const struct fs_hash *h, char out[33]);

#endif
