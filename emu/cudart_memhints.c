/* cudart_memhints — see cudart_memhints.h. */
#include "cudart_memhints.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "cudart_async.h"
#include "cudart_errors.h"
#include "cudart_report.h"
#include "cudart_stream.h"
#include "devmem.h"

/* Page-locking only speeds up a GPU's copies: here it is bookkeeping, so that the
 * errors of unregistering twice or registering twice come out as on a GPU. */
static pthread_mutex_t rt_registered_lock = PTHREAD_MUTEX_INITIALIZER;
static void **rt_registered;
static size_t rt_nregistered;

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!ptr || !size || flags > 0xf)
		return rt_error_set(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_registered_lock);
	e = cudaSuccess;
	for (size_t i = 0; i < rt_nregistered; i++)
		if (rt_registered[i] == ptr)
			e = cudaErrorHostMemoryAlreadyRegistered;
	if (!e) {
		void **grown = realloc(rt_registered, (rt_nregistered + 1) * sizeof *grown);
		if (grown) {
			rt_registered = grown;
			rt_registered[rt_nregistered++] = ptr;
		} else {
			e = cudaErrorMemoryAllocation;
		}
	}
	pthread_mutex_unlock(&rt_registered_lock);
	return rt_error_set(e);
}

cudaError_t cudaHostUnregister(void *ptr)
{
	rt_async_idle(); /* queued copies may still use it */
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	e = cudaErrorHostMemoryNotRegistered;
	pthread_mutex_lock(&rt_registered_lock);
	for (size_t i = 0; i < rt_nregistered; i++)
		if (rt_registered[i] == ptr) {
			rt_registered[i] = rt_registered[--rt_nregistered];
			e = cudaSuccess;
			break;
		}
	pthread_mutex_unlock(&rt_registered_lock);
	return rt_error_set(e);
}

/* Managed memory is host memory the interpreter reads directly: nothing to move. */
static cudaError_t rt_managed_hint(const char *call, const void *p, size_t count)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	struct devmem_info info;
	devaddr_t a = (devaddr_t)(uintptr_t)p;
	if (!p || !count || devmem_find(a, &info) != 0 || info.kind != DEVMEM_MANAGED ||
	    !devmem_host(a, count)) {
		rt_report_api(call, "%p is not a range of memory from cudaMallocManaged", p);
		return rt_error_set(cudaErrorInvalidValue);
	}
	return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
				 unsigned int flags, cudaStream_t stream)
{
	(void)location, (void)flags;
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	return rt_managed_hint("cudaMemPrefetchAsync", devPtr, count);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, int advice,
			  struct cudaMemLocation location)
{
	(void)advice, (void)location;
	return rt_managed_hint("cudaMemAdvise", devPtr, count);
}

/* Programs built with --default-stream per-thread call this name. */
cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
				      struct cudaMemLocation location, unsigned int flags,
				      cudaStream_t stream)
	__attribute__((alias("cudaMemPrefetchAsync")));
