/* glue: the small generated source that turns a lab's entry point into a program: it
 * includes the student's (or reference's) file, renaming any main() it has, and defines
 * pl_entry() to call the entry function with the lab's buffers and params in the spec's
 * argument order. */
#ifndef PMPPLAB_GLUE_H
#define PMPPLAB_GLUE_H

#include "spec.h"

/* Returns the source text (malloc'd), or NULL on ENOMEM. SOURCE is an absolute path;
 * FUNCTION the function to call. */
char *glue_generate(const struct lab_spec *spec, const char *source, const char *function);

#endif
