/* mma_frag16 — wmma m16n16k16's fragments between registers and matrices by layout. */
#ifndef PMPPLAB_EMU_MMA_FRAG16_H
#define PMPPLAB_EMU_MMA_FRAG16_H

#include <stdint.h>

#include "mma_model.h"

/* wmma m16n16k16 with f16, bf16, s8 or u8 inputs and 32-bit C and D: the fragments
 * moved between the warp's registers R and x's matrices by their layout directly, for
 * mma_products (the general way finds each element's place in a table). */
int mma_frag16_applies(const struct ptx_mma *mm);
void mma_frag16_gather(const uint64_t *R, const struct ptx_mma *mm, struct mma_mats *x);
void mma_frag16_scatter(uint64_t *R, const struct ptx_mma *mm, const struct mma_mats *x);
/* wmma.load of m16n16k16's A by row or B by column (f16, bf16, s8, u8), or of a 32-bit C
 * by row, or wmma.store of a 32-bit D by row, straight between the registers and the
 * matrix at mem (ld elements a row or column, inside one allocation: checked before);
 * 0 (nothing moved) for the rest. */
int mma_frag16_ldst(uint64_t *R, const struct ptx_mma *mm, unsigned char *mem, size_t ld);

#endif
