/* barriers_internal: what barriers.c and barriers_check.c share to add findings; not
 * for the rest of the grader, which reads findings through barriers.h. */
#ifndef PMPPLAB_BARRIERS_INTERNAL_H
#define PMPPLAB_BARRIERS_INTERNAL_H

#include "barriers.h"

/* Adds f unless an equal finding (kind, both positions) is there. Returns 1 if added. */
unsigned barriers_add(struct barriers_findings *fs, const struct barriers_finding *f);

/* Sets f's message (one sentence, cut to fit). */
void barriers_set_msg(struct barriers_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
