/* occupancy_shim: the C interface to NVIDIA's occupancy calculator (cuda_occupancy.h, a
 * header-only C++ library in the toolkit). It fills the calculator's structures the way
 * the CUDA runtime fills them from cudaDeviceProp and cudaFuncAttributes, so a result
 * here equals cudaOccupancyMaxActiveBlocksPerMultiprocessor on the device. Built only
 * where the header is found; elsewhere occ_shim_compute says -ENOSYS. */
#include "occupancy.h"

#include <cerrno>
#include <climits>

#ifdef PMPPLAB_HAVE_CUDA_OCCUPANCY
#include <cuda_occupancy.h>

static void occ_props(const struct occ_device *d, cudaOccDeviceProp *p)
{
	p->computeMajor = d->cc_major;
	p->computeMinor = d->cc_minor;
	p->maxThreadsPerBlock = d->max_threads_per_block;
	p->maxThreadsPerMultiprocessor = d->max_threads_per_sm;
	p->regsPerBlock = d->regs_per_block;
	p->regsPerMultiprocessor = d->regs_per_sm;
	p->warpSize = d->warp_size;
	p->sharedMemPerBlock = d->smem_per_block;
	p->sharedMemPerMultiprocessor = d->smem_per_sm;
	p->numSms = d->sm_count;
	p->sharedMemPerBlockOptin = d->smem_per_block_optin;
	p->reservedSharedMemPerBlock = d->reserved_smem_per_block;
}

/* As the runtime converts cudaFuncAttributes: the opt-in limit applies, and the dynamic
 * shared memory a kernel may ask for without cudaFuncSetAttribute is what is left of
 * sharedMemPerBlock after its static shared memory. */
static void occ_attrs(const struct occ_device *d, const struct occ_kernel *k,
		      cudaOccFuncAttributes *a)
{
	a->maxThreadsPerBlock = d->max_threads_per_block;
	a->numRegs = k->regs;
	a->sharedSizeBytes = k->smem_static;
	a->partitionedGCConfig = PARTITIONED_GC_OFF;
	a->shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
	a->maxDynamicSharedSizeBytes =
		d->smem_per_block > k->smem_static ? d->smem_per_block - k->smem_static : 0;
	a->numBlockBarriers = k->barriers > 1 ? k->barriers : 1;
	a->virtualResourceCount = 0;
}

extern "C" int occ_shim_compute(const struct occ_device *d, const struct occ_kernel *k,
				int block_size, struct occ_result *out)
{
	cudaOccDeviceProp props;
	cudaOccFuncAttributes attrs;
	cudaOccDeviceState state;
	cudaOccResult r;
	occ_props(d, &props);
	occ_attrs(d, k, &attrs);
	cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &props, &attrs, &state,
								   block_size, k->smem_dynamic);
	if (e != CUDA_OCC_SUCCESS)
		return -EINVAL;
	out->blocks_per_sm = r.activeBlocksPerMultiprocessor;
	out->limits = r.limitingFactors;
	out->limit_warps = r.blockLimitWarps;
	out->limit_regs = r.blockLimitRegs;
	out->limit_smem = r.blockLimitSharedMem;
	out->limit_blocks = r.blockLimitBlocks;
	out->limit_barriers = r.blockLimitBarriers;
	out->regs_per_block = r.allocatedRegistersPerBlock;
	out->smem_per_block = r.allocatedSharedMemPerBlock;
	return 0;
}

#else

extern "C" int occ_shim_compute(const struct occ_device *d, const struct occ_kernel *k,
				int block_size, struct occ_result *out)
{
	(void)d;
	(void)k;
	(void)block_size;
	(void)out;
	return -ENOSYS;
}

#endif
