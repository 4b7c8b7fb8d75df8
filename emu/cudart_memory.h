/* cudart_memory — the memory half of the runtime API: allocation (device, pinned host,
 * managed), copies and sets (the Async forms run in order, synchronously), symbols.
 * Stream-ordered allocation and memory pools: cudart_pool.h; graph memory:
 * cudart_graph_memory.h; page-locking and managed memory's hints: cudart_memhints.h.
 *
 * Every pointer is classified before use, so a host pointer passed where a device
 * pointer is needed (or the reverse), a freed pointer, or a range running past its
 * allocation fails the way the real runtime fails (the code) and says why on stderr
 * (which argument, what it points at).
 */
#ifndef PMPPLAB_EMU_CUDART_MEMORY_H
#define PMPPLAB_EMU_CUDART_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "cudart_abi.h"
#include "devmem.h"

#pragma GCC visibility push(hidden)

/* The codes returned for each misuse. On a GPU these are facts to verify
 * (tests/emu/programs/api_errors.cu prints them); change them here only. */
enum rt_mem_misuse {
	RT_MISUSE_FREE_NOT_DEVICE,   /* cudaFree of a host/unknown pointer */
	RT_MISUSE_FREE_TWICE,        /* cudaFree of an already freed allocation */
	RT_MISUSE_FREE_INTERIOR,     /* cudaFree of a pointer inside an allocation */
	RT_MISUSE_FREEHOST_NOT_HOST, /* cudaFreeHost of memory not from cudaMallocHost */
	RT_MISUSE_COPY_HOST_AS_DEV,  /* a host pointer where the kind needs a device one */
	RT_MISUSE_COPY_DEV_AS_HOST,  /* a device pointer where the kind needs a host one */
	RT_MISUSE_COPY_DEAD,         /* a freed device pointer, or a range past the end */
	RT_MISUSE_COPY_NULL,         /* NULL with a nonzero count */
	RT_MISUSE_COPY_KIND,         /* not a cudaMemcpyKind */
	RT_MISUSE_SYMBOL_RANGE,      /* offset + count past the end of a symbol */
	RT_MISUSE_MALLOC_TOO_BIG,    /* more than the emulated device has free */
	RT_MISUSE_COUNT
};
cudaError_t rt_memory_misuse_code(enum rt_mem_misuse m);

/* size bytes of KIND (cudaMalloc's, cudaMallocManaged's, cudaMallocHost's) at *out, or
 * the error, set as the context's and said on stderr naming CALL; size 0 is *out NULL. */
cudaError_t rt_memory_alloc(const char *call, void **out, size_t size, enum devmem_kind kind);

/* Bytes of device memory (global + managed) allocated and not freed. */
size_t rt_memory_in_use(void);

/* The emulated device's global memory size (cudaDeviceProp.totalGlobalMem). */
size_t rt_memory_total(void);

/* For the copies to and from CUDA arrays (cudart_array.c): checks and resolves the
 * linear end [p, p+n) of a copy to a host-addressable pointer, on the side kind gives
 * the copy's source (is_src) or destination; reports misuse naming arg. */
cudaError_t rt_memory_resolve(const char *call, const char *arg, const void *p, size_t n,
			      enum cudaMemcpyKind kind, int is_src, void **out);

/* Frees the live allocation ptr (info: its devmem entry): its written flags, the bytes
 * in use, cudaDeviceReset's list and the report's; cudaErrorInvalidValue when devmem
 * cannot free it. */
cudaError_t rt_memory_release(void *ptr, const struct devmem_info *info);

/* Counts the device allocation [a, a+size), made live outside rt_memory_alloc (a graph's
 * allocation node mapping its range, cudart_graph_memory.c), as rt_memory_alloc counts
 * its own: in use, freed by cudaDeviceReset, known to the report. */
void rt_memory_track(devaddr_t a, size_t size);

/* cudaDeviceReset: frees every allocation the program made. */
void rt_memory_reset(void);

#pragma GCC visibility pop

cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
			    enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
			 size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
			       size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
				 enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
				    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
				      size_t offset, enum cudaMemcpyKind kind,
				      cudaStream_t stream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);

#endif
