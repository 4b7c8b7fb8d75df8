/* cudart_pool — stream-ordered allocation (cudaMallocAsync, cudaMallocFromPoolAsync) and
 * memory pools (cudaMemPoolCreate and the calls on a pool, the device's default and
 * current pool). An allocation is cudaMalloc's (cudart_memory.h), made at once, or an
 * allocation node on a stream a capture follows (cudart_capture.h); a pool holds no
 * memory of its own, so cudaFreeAsync is cudart_memory.h's.
 */
#ifndef PMPPLAB_EMU_CUDART_POOL_H
#define PMPPLAB_EMU_CUDART_POOL_H

#include <stddef.h>

#include "cudart_abi.h"

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
				    cudaStream_t stream);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const void *descList, size_t count);
cudaError_t cudaMemPoolGetAccess(int *flags, cudaMemPool_t memPool, struct cudaMemLocation *location);

#endif
