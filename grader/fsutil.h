/* fsutil: small file helpers shared by the grader's modules. */
#ifndef PMPPLAB_FSUTIL_H
#define PMPPLAB_FSUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file (NUL-terminated). Returns NULL and sets errno on failure. */
char *fs_read(const char *path, size_t *len);
/* Writes via PATH.tmp + rename, so readers never see a half-written file. 0 or -errno. */
int fs_write_atomic(const char *path, const void *data, size_t len);
/* Copies SRC to DST (DST must not exist: never overwrites). 0 or -errno. */
int fs_copy_new(const char *src, const char *dst);
/* The last component of PATH ("" for NULL): a name to show for a file. */
const char *fs_base_name(const char *path);
/* Removes a folder and everything in it. */
void fs_remove_tree(const char *path);

/* An incremental 128-bit content hash (two FNV-1a 64 lanes): for cache keys, not crypto. */
struct fs_hash { uint64_t a, b; };
void fs_hash_init(struct fs_hash *h);
void fs_hash_add(struct fs_hash *h, const void *data, size_t len);
void fs_hash_str(struct fs_hash *h, const char *s);   /* includes the terminating NUL */
/* Adds a file's content (or its absence). */
void fs_hash_file(struct fs_hash *h, const char *path);
void fs_hash_hex(const struct fs_hash *h, char out[33]);

#endif
