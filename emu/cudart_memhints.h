/* cudart_memhints — the memory calls that only make a GPU faster: page-locking host
 * memory (cudaHostRegister, cudaHostUnregister) and managed memory's hints
 * (cudaMemPrefetchAsync, cudaMemAdvise). Here they move nothing: they check their
 * arguments and keep the bookkeeping that makes their errors a GPU's.
 */
#ifndef PMPPLAB_EMU_CUDART_MEMHINTS_H
#define PMPPLAB_EMU_CUDART_MEMHINTS_H

#include <stddef.h>

#include "cudart_abi.h"

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
				 unsigned int flags, cudaStream_t stream);
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, int advice,
			  struct cudaMemLocation location);

#endif
