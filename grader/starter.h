/* starter: the student's starter generated from the instructor's one solution file
 * (issue 13). The solution marks what only it holds:
 *
 *       // BEGIN SOLUTION
 *       ...the solution's lines...
 *       // END SOLUTION
 *
 * In the starter the block becomes one "// TODO" line at the marker's indentation
 * ("// BEGIN SOLUTION: launch the kernel" gives "// TODO: launch the kernel"), or, when
 * the block has a "// STARTER" line, the lines between it and END SOLUTION: those are
 * comments in the solution and stay as written in the starter, except that a line
 * "//> code" becomes "code" (a stub the solution must not compile, "//> return 0;").
 * A marker is a line of its own (indentation and trailing blanks aside). The markers
 * are comments, so the marked solution is the lab's solution as it is. */
#ifndef PMPPLAB_STARTER_H
#define PMPPLAB_STARTER_H

#include <stdbool.h>

#include "diag.h"

/* Whether the file at PATH holds a BEGIN SOLUTION marker. */
bool starter_marked(const char *path);

/* The starter generated from the marked solution at PATH. Returns 0 with *out (caller
 * frees), -ENOENT when PATH cannot be read, or -EINVAL when its markers are malformed
 * (each problem in diags as file:line). */
int starter_generate(const char *path, char **out, struct diag_list *diags);

/* Compares GENERATED with the starter file at PATH: 0 when equal, else the first line
 * that differs (1-based); -1 when PATH cannot be read. */
long starter_compare(const char *generated, const char *path);

#endif
