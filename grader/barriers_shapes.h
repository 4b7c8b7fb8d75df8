/* barriers_shapes: the shapes of shared arrays, read from the student's source, so a
 * race finding names an element with the array's own indices (issue 18). */
#ifndef PMPPLAB_BARRIERS_SHAPES_H
#define PMPPLAB_BARRIERS_SHAPES_H

#include "barriers.h"

/* Rewrites the shared elements the findings name flat (Bs[32]) with the indices of the
 * array's declaration in the student's source (Bs[2][0] for __shared__ float
 * Bs[TILE][TILE] with TILE 16, from a #define or a const). source NULL: nothing. */
void barriers_show_shapes(struct barriers_findings *fs, const char *source);

#endif
