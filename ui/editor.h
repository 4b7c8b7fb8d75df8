/* editor: which editor opens the student's file, and with what arguments. $VISUAL,
 * else $EDITOR (each may carry arguments, "code --wait"), else nano, else vi. Editors
 * known to take "+LINE" get it, so the cursor lands on the first compiler error.
 * Building the command line is pure; running it (curses suspended) is app.c's job (app_edit). */
#ifndef PMPPLAB_UI_EDITOR_H
#define PMPPLAB_UI_EDITOR_H

#include <stdbool.h>

/* Tells whether a program is on PATH; editor_on_path in pmpplab, a fake in tests. */
typedef bool (*editor_exists_fn)(const char *prog);

/* A NULL-terminated argv that opens FILE at LINE (0 = no line). VISUAL and EDITOR are
 * the variables' values (NULL or empty = unset). Returns NULL when no editor can be
 * found. Free with editor_argv_free. */
char **editor_argv(const char *visual, const char *editor, editor_exists_fn exists,
		   const char *file, unsigned line);
void editor_argv_free(char **argv);
/* True when PROG (a name or a path) is an executable on PATH. */
bool editor_on_path(const char *prog);

#endif
