/* cudart_launch — kernel launches: the <<<>>> configuration stack nvcc's code pushes and
 * pops, launch validation (codes from a table, to match the real runtime), running the
 * grid on the interpreter, turning a fault into the sticky error a GPU would give, and
 * the per-kernel queries (attributes, occupancy).
 */
#ifndef PMPPLAB_EMU_CUDART_LAUNCH_H
#define PMPPLAB_EMU_CUDART_LAUNCH_H

#include <stddef.h>

#include "cudart_abi.h"
#include "cudart_async.h"
#include "exec.h"

#pragma GCC visibility push(hidden)

/* Launch-configuration problems, checked in this order; the code each returns is in
 * one table (cudart_launch.c) so it can follow what the device says
 * (tests/emu/programs/api_errors.cu prints them on both backends). */
enum rt_cfg_problem {
	RT_CFG_OK = 0,
	RT_CFG_ZERO_DIM,       /* a grid or block dimension is 0 */
	RT_CFG_BLOCK_DIM,      /* a block dimension over maxThreadsDim */
	RT_CFG_BLOCK_THREADS,  /* x*y*z over maxThreadsPerBlock */
	RT_CFG_GRID_DIM,       /* a grid dimension over maxGridSize */
	RT_CFG_SHMEM,          /* static + dynamic shared memory over the limit */
	RT_CFG_COUNT
};

/* Classifies a configuration; static_shmem is the kernel's, max_dyn its opt-in
 * (0: default). */
enum rt_cfg_problem rt_launch_check(dim3 grid, dim3 block, size_t static_shmem,
				    size_t dyn_shmem, size_t max_dyn);
cudaError_t rt_launch_cfg_code(enum rt_cfg_problem p);

/* The cudaError_t a kernel fault becomes (sticky). */
cudaError_t rt_launch_fault_code(const struct emu_fault *f);

/* Validates a launch of the kernel func and makes the operation that runs it, for a
 * graph's kernel node (the arguments are copied). The error is not recorded. */
cudaError_t rt_launch_work(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
			   struct rt_work *out);

/* Active blocks per multiprocessor (the occupancy calculator). */
int rt_launch_occupancy(unsigned nregs, size_t static_shmem, int block_size, size_t dyn_shmem);

#pragma GCC visibility pop

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
				     cudaStream_t stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
				       void *stream);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
			       size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
				    void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
			     size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
				  size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
					void **args, size_t sharedMem, cudaStream_t stream);
/* Attributes: cooperative (checked like cudaLaunchCooperativeKernel), the programmatic
 * event (recorded after the launch, which has then completed), the launch completion
 * event (cudaErrorNotSupported, as CUDA 13.0 answers on an H100), cluster dimensions
 * over one block (refused: cudaErrorNotSupported, with a message); the others change
 * nothing on the emulator and are ignored (an unknown one with a warning, once). */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, int config);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value);
cudaError_t cudaFuncSetCacheConfig(const void *func, int cacheConfig);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
							  int blockSize, size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
								   const void *func,
								   int blockSize,
								   size_t dynamicSMemSize,
								   unsigned int flags);

#endif
