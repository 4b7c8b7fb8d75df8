/* cudart_memory — see cudart_memory.h. */
#include "cudart_memory.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_async.h"
#include "cudart_errors.h"
#include "cudart_graph_memory.h"
#include "cudart_capture.h"
#include "cudart_provenance.h"
#include "cudart_registry.h"
#include "cudart_report.h"
#include "cudart_stream.h"
#include "devmem.h"
#include "emu_device.h"

/* Emulated global memory: 4 GiB, a modest GPU's worth. */
#define RT_TOTAL_GLOBAL ((size_t)4 << 30)

/* What the real runtime returns for each misuse: measured with
 * tests/emu/programs/api_errors.cu on an H200 with CUDA 13.0 (driver 580). */
static const cudaError_t rt_misuse_codes[RT_MISUSE_COUNT] = {
	[RT_MISUSE_FREE_NOT_DEVICE] = cudaErrorInvalidValue,
	[RT_MISUSE_FREE_TWICE] = cudaErrorInvalidValue,
	[RT_MISUSE_FREE_INTERIOR] = cudaErrorInvalidValue,
	[RT_MISUSE_FREEHOST_NOT_HOST] = cudaErrorInvalidValue,
	[RT_MISUSE_COPY_HOST_AS_DEV] = cudaErrorInvalidValue,
	[RT_MISUSE_COPY_DEV_AS_HOST] = cudaSuccess, /* unified addressing copies anyway */
	[RT_MISUSE_COPY_DEAD] = cudaErrorInvalidValue,
	[RT_MISUSE_COPY_NULL] = cudaErrorInvalidValue,
	[RT_MISUSE_COPY_KIND] = cudaErrorInvalidMemcpyDirection,
	[RT_MISUSE_SYMBOL_RANGE] = cudaErrorInvalidValue,
	[RT_MISUSE_MALLOC_TOO_BIG] = cudaErrorMemoryAllocation,
};

cudaError_t rt_memory_misuse_code(enum rt_mem_misuse m)
{
	return m < RT_MISUSE_COUNT ? rt_misuse_codes[m] : cudaErrorUnknown;
}

static atomic_size_t rt_in_use;

/* Allocations the program made, so cudaDeviceReset can free them. */
static pthread_mutex_t rt_allocs_lock = PTHREAD_MUTEX_INITIALIZER;
static devaddr_t *rt_allocs;
static size_t rt_nallocs, rt_allocs_cap;

size_t rt_memory_in_use(void)
{
	return atomic_load(&rt_in_use);
}

size_t rt_memory_total(void)
{
	return RT_TOTAL_GLOBAL;
}

static void rt_allocs_add(devaddr_t a)
{
	pthread_mutex_lock(&rt_allocs_lock);
	if (rt_nallocs == rt_allocs_cap) {
		size_t cap = rt_allocs_cap ? rt_allocs_cap * 2 : 64;
		devaddr_t *grown = realloc(rt_allocs, cap * sizeof *grown);
		if (!grown)
			goto out_unlock; /* only cudaDeviceReset would miss it */
		rt_allocs = grown;
		rt_allocs_cap = cap;
	}
	rt_allocs[rt_nallocs++] = a;
out_unlock:
	pthread_mutex_unlock(&rt_allocs_lock);
}

static void rt_allocs_remove(devaddr_t a)
{
	pthread_mutex_lock(&rt_allocs_lock);
	for (size_t i = 0; i < rt_nallocs; i++)
		if (rt_allocs[i] == a) {
			rt_allocs[i] = rt_allocs[--rt_nallocs];
			break;
		}
	pthread_mutex_unlock(&rt_allocs_lock);
}

static const char *rt_kind_word(enum devmem_kind k)
{
	switch (k) {
	case DEVMEM_GLOBAL: return "cudaMalloc";
	case DEVMEM_MANAGED: return "cudaMallocManaged";
	case DEVMEM_HOST: return "cudaMallocHost";
	case DEVMEM_SYMBOL: return "__device__ variable";
	}
	return "device";
}

/* ---- allocation --------------------------------------------------------------- */


cudaError_t rt_memory_alloc(const char *call, void **out, size_t size, enum devmem_kind kind)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!out)
		return rt_error_set(cudaErrorInvalidValue);
	if (size == 0) {
		*out = NULL; /* what a GPU gives (measured); cudaFree(NULL) is fine */
		return cudaSuccess;
	}
	if (kind != DEVMEM_HOST && size > RT_TOTAL_GLOBAL - rt_memory_in_use()) {
		*out = NULL;
		rt_report_api(call, "%zu bytes requested but the emulated device has %zu of %zu "
			      "bytes free", size, RT_TOTAL_GLOBAL - rt_memory_in_use(),
			      RT_TOTAL_GLOBAL);
		return rt_error_set(rt_misuse_codes[RT_MISUSE_MALLOC_TOO_BIG]);
	}
	devaddr_t a;
	if (devmem_alloc(size, kind, call, &a) != 0) {
		*out = NULL;
		return rt_error_set(cudaErrorMemoryAllocation);
	}
	/* cudaMalloc does not clear memory. A GPU's fresh memory often reads as zeros, so a
	 * sum or histogram accumulated without a cudaMemset first may pass there by luck;
	 * here it never does (grader/compare.c names the pattern when it shows). */
	if (kind == DEVMEM_GLOBAL)
		memset(devmem_host(a, size), EMU_FRESH_BYTE, size);
	if (kind != DEVMEM_HOST)
		atomic_fetch_add(&rt_in_use, size);
	rt_allocs_add(a);
	rt_report_track_alloc(a, size);
	*out = (void *)(uintptr_t)a;
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	rt_report_init();
	return rt_memory_alloc("cudaMalloc", devPtr, size, DEVMEM_GLOBAL);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
		return rt_error_set(cudaErrorInvalidValue);
	return rt_memory_alloc("cudaMallocManaged", devPtr, size, DEVMEM_MANAGED);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	return rt_memory_alloc("cudaMallocHost", ptr, size, DEVMEM_HOST);
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	if (flags & ~0x7u)
		return rt_error_set(cudaErrorInvalidValue);
	return rt_memory_alloc("cudaHostAlloc", pHost, size, DEVMEM_HOST);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
	if (!pitch)
		return rt_error_set(cudaErrorInvalidValue);
	size_t p = (width + 511) & ~(size_t)511; /* texturePitchAlignment-style rows */
	cudaError_t e = rt_memory_alloc("cudaMallocPitch", devPtr, p * height, DEVMEM_GLOBAL);
	if (e == cudaSuccess)
		*pitch = p;
	return e;
}

cudaError_t rt_memory_release(void *ptr, const struct devmem_info *info)
{
	devaddr_t a = (devaddr_t)(uintptr_t)ptr;
	rt_prov_free(ptr);
	if (devmem_free(a) != 0)
		return cudaErrorInvalidValue;
	if (info->kind != DEVMEM_HOST)
		atomic_fetch_sub(&rt_in_use, info->size);
	rt_allocs_remove(a);
	rt_report_untrack_alloc(a);
	return cudaSuccess;
}

void rt_memory_track(devaddr_t a, size_t size)
{
	atomic_fetch_add(&rt_in_use, size);
	rt_allocs_add(a);
	rt_report_track_alloc(a, size);
}

/* Frees an allocation of one of the kinds allowed; says what was wrong otherwise. */
static cudaError_t rt_free_now(const char *call, void *ptr, int host_kind)
{
	devaddr_t a = (devaddr_t)(uintptr_t)ptr;
	struct devmem_info info;
	if (devmem_find(a, &info) == 0 && info.base == a &&
	    (host_kind ? info.kind == DEVMEM_HOST
		       : (info.kind == DEVMEM_GLOBAL || info.kind == DEVMEM_MANAGED))) {
		rt_memory_graph_freed(a);
		return rt_memory_release(ptr, &info);
	}
	enum rt_mem_misuse m;
	if (devmem_find(a, &info) == 0 && info.base != a) {
		m = RT_MISUSE_FREE_INTERIOR;
		rt_report_api(call, "%p points %" PRIu64 " bytes into a %zu-byte %s allocation, "
			      "not at its start: pass the pointer the allocation returned",
			      ptr, (uint64_t)(a - info.base), info.size, rt_kind_word(info.kind));
	} else if (devmem_find(a, &info) == 0) {
		m = host_kind ? RT_MISUSE_FREEHOST_NOT_HOST : RT_MISUSE_FREE_NOT_DEVICE;
		rt_report_api(call, "%p comes from %s, which %s frees", ptr,
			      rt_kind_word(info.kind), host_kind ? "cudaFree" : "cudaFreeHost");
	} else if (devmem_nearest(a, &info) == 0 && info.base == a && !info.live) {
		m = RT_MISUSE_FREE_TWICE;
		rt_report_api(call, "%p was already freed (double free of a %zu-byte %s "
			      "allocation)", ptr, info.size, rt_kind_word(info.kind));
	} else {
		m = host_kind ? RT_MISUSE_FREEHOST_NOT_HOST : RT_MISUSE_FREE_NOT_DEVICE;
		rt_report_api(call, "%p is not memory from %s (a host pointer or a stray "
			      "address)", ptr, host_kind ? "cudaMallocHost" : "cudaMalloc");
	}
	return rt_misuse_codes[m];
}

struct rt_free_req {
	const char *call;
	void *ptr;
	int host_kind;
	cudaError_t e;
};

static void rt_free_run(void *arg)
{
	struct rt_free_req *r = arg;
	if (rt_error_device() == cudaSuccess) /* nothing is freed after a kernel's fault */
		r->e = rt_free_now(r->call, r->ptr, r->host_kind);
}

/* cudaFree waits for the device, as on a GPU; the free is the device thread's work
 * (rt_async_run): it scans the written flags (rt_prov_free). */
static cudaError_t rt_free(const char *call, void *ptr, int host_kind)
{
	struct rt_free_req r = {call, ptr, host_kind, cudaSuccess};
	if (ptr)
		rt_async_run(rt_free_run, &r);
	else
		rt_async_idle();
	cudaError_t e = rt_error_enter(); /* a fault in the work before it: nothing freed */
	return e ? e : rt_error_set(r.e);
}

cudaError_t cudaFree(void *devPtr)
{
	return rt_free("cudaFree", devPtr, 0);
}

cudaError_t cudaFreeHost(void *ptr)
{
	return rt_free("cudaFreeHost", ptr, 1);
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	struct devmem_info info;
	if (!pDevice || flags != 0 || devmem_find((devaddr_t)(uintptr_t)pHost, &info) != 0 ||
	    info.kind != DEVMEM_HOST)
		return rt_error_set(cudaErrorInvalidValue);
	*pDevice = pHost; /* unified addressing: the same address on both sides */
	return cudaSuccess;
}

void rt_memory_reset(void)
{
	pthread_mutex_lock(&rt_allocs_lock);
	for (size_t i = 0; i < rt_nallocs; i++) {
		devmem_free(rt_allocs[i]);
		rt_report_untrack_alloc(rt_allocs[i]);
	}
	rt_nallocs = 0;
	atomic_store(&rt_in_use, 0);
	pthread_mutex_unlock(&rt_allocs_lock);
}

/* ---- pointer classification --------------------------------------------------- */

enum rt_side { RT_SIDE_DEVICE, RT_SIDE_HOST };

static const char *rt_kind_name(enum cudaMemcpyKind k)
{
	static const char *const names[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice",
					    "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice",
					    "cudaMemcpyDefault"};
	return (unsigned)k < 5 ? names[k] : "?";
}

/* Resolves [p, p+n) on the side the copy's kind says, to a host-addressable pointer;
 * kind names what asks (a cudaMemcpyKind's name, or the call).
 * Memory from cudaMallocHost/cudaMallocManaged is valid on both sides (unified
 * addressing). On misuse, reports it naming argument arg and returns the code. */
static cudaError_t rt_resolve(const char *call, const char *arg, const void *p, size_t n,
			      enum rt_side side, const char *kind, void **out)
{
	devaddr_t a = (devaddr_t)(uintptr_t)p;
	struct devmem_info info;
	if (!p) {
		rt_report_api(call, "%s is NULL", arg);
		return rt_misuse_codes[RT_MISUSE_COPY_NULL];
	}
	int known = devmem_find(a, &info) == 0;
	if (known && (info.kind == DEVMEM_HOST || info.kind == DEVMEM_MANAGED)) {
		if (!devmem_host(a, n))
			goto past_end;
		*out = (void *)p;
		return cudaSuccess;
	}
	if (side == RT_SIDE_HOST) {
		if (!known && !devmem_in_device_range(a)) {
			*out = (void *)p;
			return cudaSuccess;
		}
		/* A GPU copies anyway (the pointer says where it lives); only warn. */
		if (rt_misuse_codes[RT_MISUSE_COPY_DEV_AS_HOST] != cudaSuccess) {
			rt_report_api(call, "%s %p is a device pointer, but %s needs a host "
				      "pointer there", arg, p, kind);
			return rt_misuse_codes[RT_MISUSE_COPY_DEV_AS_HOST];
		}
		rt_report_warning(call, "%s %p is a device pointer, but %s says host memory; "
				  "the copy is done as on a GPU (unified addressing), but check "
				  "the kind", arg, p, kind);
	}
	if (known) {
		*out = devmem_host(a, n);
		if (*out)
			return cudaSuccess;
		goto past_end;
	}
	if (rt_memory_graph_reserved(a, n) && (*out = devmem_backing(a, n)))
		return cudaSuccess; /* a graph's node: its allocation node maps it when it runs */
	if (devmem_in_device_range(a) && devmem_nearest(a, &info) == 0) {
		if (!info.live && a >= info.base && a < info.base + info.size)
			rt_report_api(call, "%s %p points into a %zu-byte %s allocation that was "
				      "already freed", arg, p, info.size, rt_kind_word(info.kind));
		else
			rt_report_api(call, "%s %p is not inside any live device allocation "
				      "(nearest: a %zu-byte %s allocation at 0x%" PRIx64 ")",
				      arg, p, info.size, rt_kind_word(info.kind), info.base);
		return rt_misuse_codes[RT_MISUSE_COPY_DEAD];
	}
	rt_report_api(call, "%s %p is a host pointer, but %s needs a device pointer there "
		      "(one from cudaMalloc)", arg, p, kind);
	return rt_misuse_codes[RT_MISUSE_COPY_HOST_AS_DEV];
past_end:
	rt_report_api(call, "%s range [%p, +%zu bytes) runs %" PRIu64 " bytes past the end of a "
		      "%zu-byte %s allocation", arg, p, n,
		      (uint64_t)(a + n - (info.base + info.size)), info.size,
		      rt_kind_word(info.kind));
	return rt_misuse_codes[RT_MISUSE_COPY_DEAD];
}

/* For cudaMemcpyDefault: a pointer the runtime knows is device-side. */
static enum rt_side rt_side_of(const void *p)
{
	devaddr_t a = (devaddr_t)(uintptr_t)p;
	struct devmem_info info;
	return devmem_find(a, &info) == 0 || devmem_in_device_range(a) ? RT_SIDE_DEVICE
									 : RT_SIDE_HOST;
}

/* Which side of the copy each pointer must be on, from the kind. */
static void rt_copy_sides(enum cudaMemcpyKind kind, const void *dst, const void *src,
			  enum rt_side *dside, enum rt_side *sside)
{
	switch (kind) {
	case cudaMemcpyHostToHost: *dside = RT_SIDE_HOST, *sside = RT_SIDE_HOST; break;
	case cudaMemcpyHostToDevice: *dside = RT_SIDE_DEVICE, *sside = RT_SIDE_HOST; break;
	case cudaMemcpyDeviceToHost: *dside = RT_SIDE_HOST, *sside = RT_SIDE_DEVICE; break;
	case cudaMemcpyDeviceToDevice: *dside = RT_SIDE_DEVICE, *sside = RT_SIDE_DEVICE; break;
	default: *dside = rt_side_of(dst), *sside = rt_side_of(src); break;
	}
}

/* Checks both ranges of a copy (dn bytes at dst, sn at src) and resolves them to
 * host-addressable pointers. No sticky check: callers did it. */
static cudaError_t rt_copy_resolve(const char *call, void *dst, size_t dn, const void *src,
				   size_t sn, enum cudaMemcpyKind kind, void **d, void **s)
{
	if ((unsigned)kind > cudaMemcpyDefault) {
		rt_report_api(call, "%d is not a cudaMemcpyKind", (int)kind);
		return rt_misuse_codes[RT_MISUSE_COPY_KIND];
	}
	enum rt_side dside, sside;
	rt_copy_sides(kind, dst, src, &dside, &sside);
	cudaError_t e = rt_resolve(call, "dst", dst, dn, dside, rt_kind_name(kind), d);
	if (!e)
		e = rt_resolve(call, "src", src, sn, sside, rt_kind_name(kind), s);
	return e;
}

/* Memory the device reaches without staging: device, managed or cudaMallocHost's. */
static int rt_pinned(const void *p)
{
	struct devmem_info info;
	return devmem_find((devaddr_t)(uintptr_t)p, &info) == 0;
}

/* The checked copy every memcpy flavour ends in (see rt_stream_memory). An
 * asynchronous one that involves pageable host memory is done at once, after the queued
 * work, as the real runtime may do. */
static cudaError_t rt_copy(const char *call, void *dst, const void *src, size_t n,
			   enum cudaMemcpyKind kind, cudaStream_t stream, int async)
{
	if ((unsigned)kind > cudaMemcpyDefault) {
		rt_report_api(call, "%d is not a cudaMemcpyKind", (int)kind);
		return rt_misuse_codes[RT_MISUSE_COPY_KIND];
	}
	if (n == 0)
		return cudaSuccess;
	void *d, *s;
	cudaError_t e = rt_copy_resolve(call, dst, n, src, n, kind, &d, &s);
	if (e)
		return e;
	struct rt_mem_req r = {.d = d, .s = s, .n = n, .dst = dst, .src = src};
	return rt_stream_memory(stream, async && rt_pinned(dst) && rt_pinned(src), &r);
}

static cudaError_t rt_memcpy_api(const char *call, void *dst, const void *src, size_t n,
				 enum cudaMemcpyKind kind, cudaStream_t stream, int async)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	return rt_error_set(rt_copy(call, dst, src, n, kind, stream, async));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return rt_memcpy_api("cudaMemcpy", dst, src, count, kind, 0, 0);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
			    enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return rt_memcpy_api("cudaMemcpyAsync", dst, src, count, kind, stream, 1);
}

/* Synchronous, after the queued work (rt_stream_memory). */
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
			 size_t width, size_t height, enum cudaMemcpyKind kind)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (width > dpitch || width > spitch)
		return rt_error_set(cudaErrorInvalidPitchValue);
	if (!width || !height)
		return cudaSuccess;
	/* both whole spans first: a bad call copies nothing, as on a GPU */
	char *d, *s;
	e = rt_copy_resolve("cudaMemcpy2D", dst, dpitch * (height - 1) + width, src,
			    spitch * (height - 1) + width, kind, (void **)&d, (void **)&s);
	if (e)
		return rt_error_set(e);
	struct rt_mem_req r = {.d = d, .s = s, .n = width, .rows = height, .dpitch = dpitch,
			       .spitch = spitch, .dst = dst, .src = src};
	return rt_stream_memory(0, 0, &r);
}

static cudaError_t rt_memset_api(const char *call, void *p, int value, size_t n,
				 cudaStream_t stream, int async)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (n == 0)
		return cudaSuccess;
	void *d;
	e = rt_resolve(call, "devPtr", p, n, RT_SIDE_DEVICE, call, &d);
	if (e)
		return rt_error_set(e);
	struct rt_mem_req r = {.d = d, .n = n, .value = (unsigned)value, .dst = p};
	return rt_error_set(rt_stream_memory(stream, async, &r));
}

/* Done at once (after the queued work): a GPU may run it asynchronously, but a program
 * cannot tell the difference without a race of its own. */
cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	return rt_memset_api("cudaMemset", devPtr, value, count, 0, 0);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	return rt_memset_api("cudaMemsetAsync", devPtr, value, count, stream, 1);
}

/* ---- symbols ------------------------------------------------------------------- */

/* The device address of [offset, offset+count) of a registered variable. */
static cudaError_t rt_symbol_range(const char *call, const void *symbol, size_t count,
				   size_t offset, void **out)
{
	devaddr_t addr;
	size_t size;
	cudaError_t e = rt_registry_symbol(symbol, &addr, &size);
	if (e) {
		if (e == cudaErrorInvalidSymbol)
			rt_report_api(call, "%p is not a __device__ or __constant__ variable of "
				      "this program (pass the variable itself, not its address "
				      "or a cudaMalloc pointer)", symbol);
		return e;
	}
	if (offset > size || count > size - offset) {
		rt_report_api(call, "offset %zu + count %zu runs past the end of the %zu-byte "
			      "variable", offset, count, size);
		return rt_misuse_codes[RT_MISUSE_SYMBOL_RANGE];
	}
	*out = (void *)(uintptr_t)(addr + offset);
	return cudaSuccess;
}

/* A copy into (TO) or out of a __device__ variable: HOST is the other side. The kinds
 * each direction accepts are the runtime's: nothing may come from, or go to, the host
 * on the symbol's side. */
static cudaError_t rt_symbol_copy(const char *call, const void *symbol, void *host,
				  size_t count, size_t offset, enum cudaMemcpyKind kind,
				  cudaStream_t stream, int async, bool to)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (kind != (to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost) &&
	    kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) {
		rt_report_api(call, "%s cannot copy %s a symbol", rt_kind_name(kind),
			      to ? "into" : "out of");
		return rt_error_set(cudaErrorInvalidMemcpyDirection);
	}
	void *dev;
	e = rt_symbol_range(call, symbol, count, offset, &dev);
	if (!e)
		e = to ? rt_copy(call, dev, host, count, kind, stream, async)
		       : rt_copy(call, host, dev, count, kind, stream, async);
	return rt_error_set(e);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
			       size_t offset, enum cudaMemcpyKind kind)
{
	/* src is only read: the copy goes into the symbol */
	return rt_symbol_copy("cudaMemcpyToSymbol", symbol, (void *)src, count, offset, kind, 0,
			      0, true);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
				    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return rt_symbol_copy("cudaMemcpyToSymbolAsync", symbol, (void *)src, count, offset,
			      kind, stream, 1, true);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
				 enum cudaMemcpyKind kind)
{
	return rt_symbol_copy("cudaMemcpyFromSymbol", symbol, dst, count, offset, kind, 0, 0, false);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
				      size_t offset, enum cudaMemcpyKind kind,
				      cudaStream_t stream)
{
	return rt_symbol_copy("cudaMemcpyFromSymbolAsync", symbol, dst, count, offset, kind,
			      stream, 1, false);
}

/* ---- stream-ordered free, 2D sets ------------------------------------------------- */

/* Stream-ordered free: cudaFree's on a valid stream (it waits for the queued work), or a
 * free node on a stream a capture follows (cudart_capture.h). Pools hold nothing beyond
 * their live allocations (cudart_pool.h), so nothing else is to do. */
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (rt_graph_capturing(stream))
		return rt_error_set(rt_graph_capture_free(stream, devPtr));
	return rt_free("cudaFreeAsync", devPtr, 0);
}


/* At once, after the queued work, as cudaMemset. */
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (width > pitch)
		return rt_error_set(cudaErrorInvalidPitchValue);
	if (!width || !height)
		return cudaSuccess;
	/* the whole span first: a bad call changes nothing, as on a GPU */
	char *d;
	e = rt_resolve("cudaMemset2D", "devPtr", devPtr, pitch * (height - 1) + width,
		       RT_SIDE_DEVICE, "cudaMemset2D", (void **)&d);
	if (e)
		return rt_error_set(e);
	struct rt_mem_req r = {.d = d, .n = width, .value = (unsigned)value, .rows = height,
			       .dpitch = pitch, .dst = devPtr};
	return rt_stream_memory(0, 0, &r);
}

/* ---- queries ------------------------------------------------------------------- */

cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!free || !total)
		return rt_error_set(cudaErrorInvalidValue);
	*total = RT_TOTAL_GLOBAL;
	*free = RT_TOTAL_GLOBAL - rt_memory_in_use();
	return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!attributes)
		return rt_error_set(cudaErrorInvalidValue);
	memset(attributes, 0, sizeof *attributes);
	struct devmem_info info;
	if (devmem_find((devaddr_t)(uintptr_t)ptr, &info) != 0) {
		/* CUDA 11+: plain host memory is "unregistered", not an error */
		attributes->type = cudaMemoryTypeUnregistered;
		attributes->device = -2; /* CU_DEVICE_INVALID */
		attributes->hostPointer = (void *)ptr;
		return cudaSuccess;
	}
	attributes->device = 0;
	attributes->devicePointer = (void *)ptr;
	switch (info.kind) {
	case DEVMEM_HOST:
		attributes->type = cudaMemoryTypeHost;
		attributes->hostPointer = (void *)ptr;
		break;
	case DEVMEM_MANAGED:
		attributes->type = cudaMemoryTypeManaged;
		attributes->hostPointer = (void *)ptr;
		break;
	default:
		attributes->type = cudaMemoryTypeDevice;
		break;
	}
	return cudaSuccess;
}

/* The linear end of a copy whose other end is a CUDA array (cudart_array.c). */
cudaError_t rt_memory_resolve(const char *call, const char *arg, const void *p, size_t n,
			      enum cudaMemcpyKind kind, int is_src, void **out)
{
	if ((unsigned)kind > cudaMemcpyDefault) {
		rt_report_api(call, "%d is not a cudaMemcpyKind", (int)kind);
		return rt_misuse_codes[RT_MISUSE_COPY_KIND];
	}
	enum rt_side dside, sside;
	rt_copy_sides(kind, p, p, &dside, &sside);
	return rt_resolve(call, arg, p, n, is_src ? sside : dside, rt_kind_name(kind), out);
}

/* Programs built with --default-stream per-thread call these names. */
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
	__attribute__((alias("cudaMemcpy")));
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
				 enum cudaMemcpyKind kind, cudaStream_t stream)
	__attribute__((alias("cudaMemcpyAsync")));
cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height)
	__attribute__((alias("cudaMemset2D")));
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream)
	__attribute__((alias("cudaFreeAsync")));
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
			      size_t width, size_t height, enum cudaMemcpyKind kind)
	__attribute__((alias("cudaMemcpy2D")));
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
	__attribute__((alias("cudaMemset")));
cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
	__attribute__((alias("cudaMemsetAsync")));
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
				    size_t offset, enum cudaMemcpyKind kind)
	__attribute__((alias("cudaMemcpyToSymbol")));
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
				      size_t offset, enum cudaMemcpyKind kind)
	__attribute__((alias("cudaMemcpyFromSymbol")));
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
					 size_t offset, enum cudaMemcpyKind kind,
					 cudaStream_t stream)
	__attribute__((alias("cudaMemcpyToSymbolAsync")));
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
					   size_t offset, enum cudaMemcpyKind kind,
					   cudaStream_t stream)
	__attribute__((alias("cudaMemcpyFromSymbolAsync")));
