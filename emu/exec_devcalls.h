/* exec_devcalls.h — the device runtime calls that PTX makes through .param buffers: vprintf,
 * cudaGraphSetConditional, malloc, free, __assertfail (exec_devcalls.c).
 */
#ifndef PMPPLAB_EMU_EXEC_DEVCALLS_H
#define PMPPLAB_EMU_EXEC_DEVCALLS_H

#include "exec_internal.h"

#pragma GCC visibility push(hidden)

/* vprintf, setconditional, malloc, free or __assertfail for the lanes of M of warp w
 * in frame FR. 0 or a fault's code (always one for __assertfail). */
int devcall_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t m,
		 struct frame *fr);

#pragma GCC visibility pop

#endif
