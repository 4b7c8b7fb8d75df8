/* cudart_pool — see cudart_pool.h. */
#include "cudart_pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_capture.h"
#include "cudart_errors.h"
#include "cudart_memory.h"
#include "cudart_stream.h"
#include "devmem.h"

/* The stream-ordered forms are the plain ones on a valid stream (cudaFree waits for the
 * queued work), or a graph's allocation and free nodes on a stream a capture follows.
 * Memory pools: the emulator allocates every block at once and gives it back when it is
 * freed, so a pool holds no memory of its own: its attributes are remembered, its
 * reserved and used memory are the bytes of its live allocations. */
struct CUmemPoolHandle_st {
	struct CUmemPoolHandle_st *next;
	uint64_t attr[9]; /* by enum cudaMemPoolAttr: the settable ones, and the high marks */
};
static struct CUmemPoolHandle_st rt_default_pool = {.attr = {0, 1, 1, 1}};
static struct CUmemPoolHandle_st *rt_pools = &rt_default_pool; /* under rt_pool_lock */
static cudaMemPool_t rt_current_pool = &rt_default_pool;
static pthread_mutex_t rt_pool_lock = PTHREAD_MUTEX_INITIALIZER;
struct rt_pool_alloc {
	devaddr_t a;
	size_t size;
	cudaMemPool_t pool;
};
static struct rt_pool_alloc *rt_pool_allocs; /* every allocation a pool made */
static size_t rt_npool_allocs;

static int rt_pool_valid(cudaMemPool_t pool)
{
	int found = 0;
	pthread_mutex_lock(&rt_pool_lock);
	for (struct CUmemPoolHandle_st *p = rt_pools; p && !found; p = p->next)
		found = p == pool;
	pthread_mutex_unlock(&rt_pool_lock);
	return found;
}

/* Bytes of pool's allocations still live (freed ones are dropped from the list). */
static uint64_t rt_pool_used(cudaMemPool_t pool)
{
	uint64_t used = 0;
	struct devmem_info info;
	pthread_mutex_lock(&rt_pool_lock);
	for (size_t i = 0; i < rt_npool_allocs;) {
		if (devmem_find(rt_pool_allocs[i].a, &info) != 0 || info.base != rt_pool_allocs[i].a) {
			rt_pool_allocs[i] = rt_pool_allocs[--rt_npool_allocs];
			continue;
		}
		if (rt_pool_allocs[i].pool == pool)
			used += rt_pool_allocs[i].size;
		i++;
	}
	uint64_t *high = &pool->attr[cudaMemPoolAttrUsedMemHigh];
	*high = *high > used ? *high : used;
	pool->attr[cudaMemPoolAttrReservedMemHigh] = *high;
	pthread_mutex_unlock(&rt_pool_lock);
	return used;
}

static cudaError_t rt_pool_malloc(const char *call, void **devPtr, size_t size,
				  cudaMemPool_t pool, cudaStream_t stream)
{
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (rt_graph_capturing(stream))
		return rt_error_set(rt_graph_capture_alloc(stream, devPtr, size));
	cudaError_t e = rt_memory_alloc(call, devPtr, size, DEVMEM_GLOBAL);
	if (e || !*devPtr)
		return e;
	pthread_mutex_lock(&rt_pool_lock);
	struct rt_pool_alloc *grown =
		realloc(rt_pool_allocs, (rt_npool_allocs + 1) * sizeof *grown);
	if (grown) { /* without it only the pool's figures miss it */
		rt_pool_allocs = grown;
		rt_pool_allocs[rt_npool_allocs++] =
			(struct rt_pool_alloc){(devaddr_t)(uintptr_t)*devPtr, size, pool};
	}
	pthread_mutex_unlock(&rt_pool_lock);
	rt_pool_used(pool); /* the high-water mark */
	return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
	return rt_pool_malloc("cudaMallocAsync", devPtr, size, rt_current_pool, stream);
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
				    cudaStream_t stream)
{
	if (!rt_pool_valid(memPool))
		return rt_error_set(cudaErrorInvalidValue);
	return rt_pool_malloc("cudaMallocFromPoolAsync", ptr, size, memPool, stream);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
	if (!memPool)
		return rt_error_set(cudaErrorInvalidValue);
	if (device != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	*memPool = &rt_default_pool;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
	if (!memPool)
		return rt_error_set(cudaErrorInvalidValue);
	if (device != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	*memPool = rt_current_pool;
	return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
	if (device != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	if (!rt_pool_valid(memPool))
		return rt_error_set(cudaErrorInvalidValue);
	rt_current_pool = memPool;
	return cudaSuccess;
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
	if (!memPool || !poolProps || poolProps->allocType != cudaMemAllocationTypePinned ||
	    poolProps->location.type != 1 /* cudaMemLocationTypeDevice */ ||
	    poolProps->location.id != 0)
		return rt_error_set(cudaErrorInvalidValue);
	struct CUmemPoolHandle_st *p = calloc(1, sizeof *p);
	if (!p)
		return rt_error_set(cudaErrorMemoryAllocation);
	*p = rt_default_pool;
	memset(p->attr + cudaMemPoolAttrReservedMemCurrent, 0, 4 * sizeof p->attr[0]);
	pthread_mutex_lock(&rt_pool_lock);
	p->next = rt_pools;
	rt_pools = p;
	pthread_mutex_unlock(&rt_pool_lock);
	*memPool = p;
	return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
	if (memPool == &rt_default_pool || !rt_pool_valid(memPool))
		return rt_error_set(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_pool_lock);
	struct CUmemPoolHandle_st **pp = &rt_pools;
	while (*pp != memPool)
		pp = &(*pp)->next;
	*pp = memPool->next;
	pthread_mutex_unlock(&rt_pool_lock);
	if (rt_current_pool == memPool)
		rt_current_pool = &rt_default_pool;
	free(memPool); /* its allocations stay valid until freed, as CUDA's do */
	return cudaSuccess;
}

/* The reuse policies are ints, the sizes uint64_t; reserved = used: no memory is held. */
static cudaError_t rt_pool_attr(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value,
				int set)
{
	if (!rt_pool_valid(pool) || !value || attr < cudaMemPoolReuseFollowEventDependencies ||
	    attr > cudaMemPoolAttrUsedMemHigh)
		return rt_error_set(cudaErrorInvalidValue);
	if (attr <= cudaMemPoolReuseAllowInternalDependencies) {
		if (set)
			pool->attr[attr] = *(int *)value != 0;
		else
			*(int *)value = (int)pool->attr[attr];
		return cudaSuccess;
	}
	uint64_t *v = value, used = rt_pool_used(pool);
	if (set && attr == cudaMemPoolAttrReleaseThreshold)
		pool->attr[attr] = *v;
	else if (set && (attr == cudaMemPoolAttrReservedMemHigh ||
			 attr == cudaMemPoolAttrUsedMemHigh) && *v == 0)
		pool->attr[cudaMemPoolAttrReservedMemHigh] = pool->attr[cudaMemPoolAttrUsedMemHigh] =
			used; /* a reset of the high-water marks */
	else if (set)
		return rt_error_set(cudaErrorInvalidValue);
	else if (attr == cudaMemPoolAttrReservedMemCurrent || attr == cudaMemPoolAttrUsedMemCurrent)
		*v = used;
	else
		*v = pool->attr[attr];
	return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
	return rt_pool_attr(memPool, attr, value, 1);
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
	return rt_pool_attr(memPool, attr, value, 0);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
	(void)minBytesToKeep; /* a pool holds nothing beyond its live allocations */
	return rt_pool_valid(memPool) ? cudaSuccess : rt_error_set(cudaErrorInvalidValue);
}

/* One device: its own access is the only one there is, read-write (3). */
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const void *descList, size_t count)
{
	(void)descList;
	return rt_pool_valid(memPool) && count <= 1 ? cudaSuccess
						    : rt_error_set(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolGetAccess(int *flags, cudaMemPool_t memPool, struct cudaMemLocation *location)
{
	if (!flags || !location || !rt_pool_valid(memPool))
		return rt_error_set(cudaErrorInvalidValue);
	*flags = location->type == 1 && location->id == 0 ? 3 : 0;
	return cudaSuccess;
}

/* Programs built with --default-stream per-thread call these names. */
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t stream)
	__attribute__((alias("cudaMallocAsync")));
cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
					 cudaStream_t stream)
	__attribute__((alias("cudaMallocFromPoolAsync")));
