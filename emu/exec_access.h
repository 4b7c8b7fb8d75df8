/* exec_access.h — the memory instructions: ld, st, atom and red (exec_access.c).
 */
#ifndef PMPPLAB_EMU_EXEC_ACCESS_H
#define PMPPLAB_EMU_EXEC_ACCESS_H

#include "exec_internal.h"

#pragma GCC visibility push(hidden)

/* What access_exec returns besides 0 and a fault's code: the warp parked before a load
 * that polls the grid barrier (exec_grid.c); the load runs again when it opens. */
enum { ACCESS_PARKED = 1 };
/* ld, st, atom or red for the lanes of M of warp w (R: its registers). 0, ACCESS_PARKED
 * or a fault's code. */
int access_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
		uint32_t m);

#pragma GCC visibility pop

#endif
