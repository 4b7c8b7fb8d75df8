/* exec_crosslane.h — the instructions across a warp's lanes: shfl, vote, match, redux, activemask
 * (exec_crosslane.c).
 */
#ifndef PMPPLAB_EMU_EXEC_CROSSLANE_H
#define PMPPLAB_EMU_EXEC_CROSSLANE_H

#include "exec_internal.h"

#pragma GCC visibility push(hidden)

/* shfl, vote, match, redux or activemask for the lanes of M of the register file R. */
void crosslane_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m);

#pragma GCC visibility pop

#endif
