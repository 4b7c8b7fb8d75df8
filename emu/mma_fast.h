/* mma_fast.h — the tensor-core products on whole matrices, the fast way where the inputs
 * allow it (mma_fast.c); mma_model.c computes the rest with the H100's model. */
#ifndef PMPPLAB_EMU_MMA_FAST_H
#define PMPPLAB_EMU_MMA_FAST_H

#include <stdint.h>

#include "ptx_internal.h"

#define MMA_MAXD 32 /* the largest matrix side (m32n8k16's M, m8n32k16's N) */

/* A matrix of one product, each element in its type's own size (ptx_mtype_bits; tf32 in
 * 32 bits) at row r, column c, rows MMA_MAXD elements apart. */
union mma_mat {
	uint8_t u8[MMA_MAXD][MMA_MAXD];
	uint16_t u16[MMA_MAXD][MMA_MAXD];
	uint32_t u32[MMA_MAXD][MMA_MAXD];
	uint64_t u64[MMA_MAXD][MMA_MAXD];
};
/* m16n16k16 f16/bf16 inputs as mma_fast converted them, by their bits (mma_fast.c's own):
 * NVIDIA's GEMM samples multiply each A fragment by four B fragments in a row and each B
 * by two A, so the same 512 bytes come again. t: the type + 1 (0: empty). */
struct mma_conv16 {
	_Alignas(32) uint16_t raw[16][16];
	float f[16][16];
	int emax, lmin, ok;
	unsigned t;
};
enum { MMA_CONV_A = 1, MMA_CONV_B = 4 };

/* A is m x k, B k x n, C and D m x n; done[r][c]: mma_fast computed d[r][c]. */
struct mma_mats {
	_Alignas(32) union mma_mat a, b, c, d;
	uint8_t done[MMA_MAXD][MMA_MAXD];
	struct mma_conv16 conv_a[MMA_CONV_A], conv_b[MMA_CONV_B];
	unsigned conv_b_next;
};

/* D = A B + C for instruction mm, bit for bit what mma_model.c's model gives, and returns
 * how many elements it left (when some, x->done[r][c] says which it computed): none for integers
 * and f64 (but NaN results of f64); f16, bf16 and tf32 with f32 accumulators where no
 * product or C has bits below the model's fixed point, so that its sum is exact
 * (integers, as in NVIDIA's GEMM samples, and most values near them). */
unsigned mma_fast(const struct ptx_mma *mm, struct mma_mats *x);

/* m8n8k4 f64 (wmma and mma.sync: one layout) on the warp's registers themselves, R the
 * warp's register file (slot s, lane l at R[s * 32 + l]): D = A B + C as the model's fused
 * multiply-adds in k order, four elements of D to a vector FMA. Returns 1, or 0 (nothing
 * written) when the CPU has no FMA vectors or a result is a NaN, whose bits the model
 * decides: the caller then takes the general way. */
int mma_fast_dmma(uint64_t *R, const struct ptx_mma *mm);

#endif
