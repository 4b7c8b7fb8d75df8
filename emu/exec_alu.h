/* exec_alu.h — the arithmetic, logic, bit-field, conversion and move instructions, each for the
 * lanes of a mask at once (exec_alu.c).
 */
#ifndef PMPPLAB_EMU_EXEC_ALU_H
#define PMPPLAB_EMU_EXEC_ALU_H

#include "exec_internal.h"

#pragma GCC visibility push(hidden)

/* The instruction IN (one of the ops exec_alu.c holds) for the lanes of M of the register
 * file R. */
void alu_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m);

#pragma GCC visibility pop

#endif
