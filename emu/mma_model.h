/* mma_model.h — the tensor cores' sums of products (mma_model.c): mma_fast.c's ways where
 * they apply, the H100's model for the rest. */
#ifndef PMPPLAB_EMU_MMA_MODEL_H
#define PMPPLAB_EMU_MMA_MODEL_H

#include "ptx_internal.h"

struct mma_mats;
/* x->d = x->a x->b + x->c of mma (mma_fast.h); with `model`, the model for every element
 * (the tests compare the two). */
void mma_products(const struct ptx_mma *mm, struct mma_mats *x, int model);

#endif
