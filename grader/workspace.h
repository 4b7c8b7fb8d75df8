/* workspace: a student's folder made by `pmpplab init DIR`: one sub-folder per lab
 * holding the starter file(s) and the reading, and `.pmpplab/` for pmpplab's own state.
 * Nothing here ever overwrites a file the student may have edited. */
#ifndef PMPPLAB_WORKSPACE_H
#define PMPPLAB_WORKSPACE_H

#include "diag.h"
#include "labs.h"

/* Creates DIR (if needed) with DIR/.pmpplab/ and DIR/<id>/<student file> + README.md for
 * every lab. Files that already exist are kept; temporary files a killed pmpplab left
 * there are removed (fs_sweep_stale). Returns 0 or -errno (diags says which path failed
 * and why). */
int workspace_init(const char *dir, const struct lab_list *labs, struct diag_list *diags);
/* The workspace holding PATH: PATH or the nearest parent with a .pmpplab/ folder.
 * Returns a malloc'd absolute path, or NULL when there is none. */
char *workspace_find(const char *path);
/* DIR/<id>/<student file>: where the student edits this lab. Caller frees. */
char *workspace_student_file(const char *dir, const struct lab_spec *spec);
/* Puts the lab's starter in DIR/<id>/, first keeping an existing file as
 * <file>.bak.<N> (never overwriting a backup). Killed at any point, the student's file
 * is whole: theirs (then maybe also backed up) or the starter (theirs backed up).
 * Returns 0 or -errno. backup (may be NULL) gets the backup's malloc'd path, or NULL
 * when there was no file to keep; caller frees. */
int workspace_reset_lab(const char *dir, const struct lab_spec *spec, char **backup,
			struct diag_list *diags);

#endif
