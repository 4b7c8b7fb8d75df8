/* incl: what a submission may include (issue 14): the CUDA and system headers and the
 * files of its own folder, nothing else (not the lab's solution or reference, nothing
 * else of the lab collection or the machine). The sandbox (sandbox.h) shows the build a
 * copy of the folder's sources and the system; the check here reads the dependency list
 * the compiler wrote (-MD -MF: every file it opened, whatever macros hid the #include
 * behind), so it holds also with --sandbox=off. */
#ifndef PMPPLAB_INCL_H
#define PMPPLAB_INCL_H

#include <stddef.h>

#include "fsutil.h"

/* Adds the names and contents of DIR's source files (what incl_copy_folder copies) to
 * H, so that a build is redone when a header beside the submission changes. */
void incl_hash_folder(struct fs_hash *h, const char *dir);
/* Copies DIR's source files (.cu .cuh .h .hpp .c .cpp ... : regular files, not links,
 * three folders deep, at most 256 files and 16 MiB) into TO (created), keeping their
 * relative paths. Returns 0 or -errno. */
int incl_copy_folder(const char *dir, const char *to);

/* What a build may read. Folders are realpaths. */
struct incl_rules {
	const char *own;              /* the submission's folder: anything in it */
	const char *const *system;    /* the toolkit, /usr/include..., the harness, the build */
	unsigned n_system;
	const char *const *hidden;    /* the lab collection, its kernels: never (unless own) */
	unsigned n_hidden;
};

/* Reads DEPS (a make rule: "target: dep dep \ ...", relative paths against CWD) and
 * returns the first dependency the rules refuse, malloc'd; NULL when all are allowed,
 * or when DEPS cannot be read (then *ERR = -errno, else 0). */
char *incl_refused(const char *deps, const char *cwd, const struct incl_rules *r, int *err);

/* In PRE (the preprocessor's output, with line markers), the file and line of the
 * #include that opened BAD. Returns 0 with *file (malloc'd) and *line, or -ENOENT. */
int incl_locate(const char *pre, const char *bad, char **file, unsigned *line);

#endif
