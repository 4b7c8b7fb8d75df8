/* inspect_occ: the occupancy view of the panels (issue 7): each kernel's registers and
 * shared memory for the chosen device, NVIDIA's occupancy calculator on them, the curve
 * over block sizes and the what-if keys. Reads and changes a struct inspect only. */
#ifndef PMPPLAB_INSPECT_OCC_H
#define PMPPLAB_INSPECT_OCC_H

#include <stdbool.h>

#include "inspect.h"
#include "sline.h"

/* Appends the view, WIDTH x HEIGHT cells at most, to OUT. */
void inspect_occ_render(struct inspect *in, int width, int height, struct sline_list *out);
/* The view's keys (device, kernel, what-ifs); true when KEY changed something. */
bool inspect_occ_key(struct inspect *in, int key);

#endif
