/* Lab 11 CPU reference: chapter 4's occupancy arithmetic for each kernel configuration
 * (the model is spelled out in labs/11-occupancy/README.md), and deviceAgree all 1: on
 * any GPU, the model applied to the GPU's own limits must agree with the CUDA runtime. */
#include <limits.h>

enum { LIMIT_INVALID = 0, LIMIT_THREADS = 1, LIMIT_BLOCKS = 2, LIMIT_REGISTERS = 3, LIMIT_SHARED = 4 };

static int round_up(int v, int unit)
{
	return (v + unit - 1) / unit * unit;
}

void occupancy_reference(const int *threads, const int *regs, const int *shared, int *blocks,
			 int *warps, int *limiter, int *deviceAgree, int k, int maxThreadsPerSM,
			 int maxBlocksPerSM, int regsPerSM, int sharedPerSM, int maxThreadsPerBlock,
			 int maxSharedPerBlock)
{
	for (int i = 0; i < k; i++) {
		if (threads[i] < 1 || threads[i] > maxThreadsPerBlock || regs[i] > 255 ||
		    shared[i] > maxSharedPerBlock) {
			blocks[i] = warps[i] = 0;
			limiter[i] = LIMIT_INVALID;
			continue;
		}
		int w = (threads[i] + 31) / 32;
		/* candidate limits in tie-break order */
		int lim[5] = {0, maxThreadsPerSM / (w * 32), maxBlocksPerSM, INT_MAX, INT_MAX};
		int regs_per_warp = round_up(regs[i] * 32, 256);
		if (regs_per_warp > 0)
			lim[LIMIT_REGISTERS] = regsPerSM / (regs_per_warp * w);
		int shared_per_block = round_up(shared[i], 256);
		if (shared_per_block > 0)
			lim[LIMIT_SHARED] = sharedPerSM / shared_per_block;
		int best = LIMIT_THREADS;
		for (int r = LIMIT_BLOCKS; r <= LIMIT_SHARED; r++)
			if (lim[r] < lim[best])
				best = r;
		blocks[i] = lim[best];
		warps[i] = lim[best] * w;
		limiter[i] = best;
	}
	for (int j = 0; j < 7; j++)
		deviceAgree[j] = 1;
}
