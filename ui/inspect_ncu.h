/* inspect_ncu: the memory view of the panels on the GPU backend (issue 7). Runs on a GPU
 * are not traced, so instead of the emulator's per-line figures it shows, per kernel,
 * what Nsight Compute measured during the last grading (grade_opts.profile, ncu.h):
 * achieved occupancy, active lanes, sectors per request, shared-memory passes; or the
 * one line saying why there are none. Reads a struct inspect only. */
#ifndef PMPPLAB_INSPECT_NCU_H
#define PMPPLAB_INSPECT_NCU_H

#include "inspect.h"
#include "sline.h"

/* Appends the view, WIDTH x HEIGHT cells at most, to OUT. */
void inspect_ncu_render(const struct inspect *in, int width, int height, struct sline_list *out);

#endif
