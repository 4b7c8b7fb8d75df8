/* cudart_registry — what nvcc's generated host code registers at startup (fat binaries,
 * kernels, __device__/__constant__ variables) and the PTX module(s) they live in.
 *
 * The PTX is loaded lazily, once, at the first launch or symbol use: from the file(s)
 * in $PMPPLAB_EMU_PTX (colon-separated), else extracted from the fat binaries nvcc
 * embedded (the PTX there is usually zstd-compressed; libzstd is used through dlopen
 * when present).
 */
#ifndef PMPPLAB_EMU_CUDART_REGISTRY_H
#define PMPPLAB_EMU_CUDART_REGISTRY_H

#include <stddef.h>

#include "cudart_abi.h"
#include "devmem.h"
#include "ptx.h"

#pragma GCC visibility push(hidden)

/* A registered kernel. cudaKernel_t handles handed to nvcc's code point at these. */
struct rt_function {
	const void *host_fun;  /* the host stub's address: what <<<>>> and cudaLaunchKernel pass */
	const char *mangled;   /* device name, as in the PTX .entry */
	char name[256];        /* source-level name for messages */
	const struct ptx_module *module; /* resolved at first use */
	const struct ptx_kernel *kernel;
	struct rt_fatbin *fatbin; /* the translation unit it was registered from */
	size_t max_dyn_shmem;     /* cudaFuncAttributeMaxDynamicSharedMemorySize; 0: default */
};

/* The kernel registered for host stub hfun, or NULL. */
struct rt_function *rt_registry_function(const void *hfun);

/* Resolves f's PTX kernel (loading the PTX if needed). cudaSuccess, or an error
 * already reported on stderr: cudaErrorNoKernelImageForDevice (no PTX),
 * cudaErrorInvalidPtx (unparsable), cudaErrorInvalidDeviceFunction (not in the PTX). */
cudaError_t rt_registry_resolve(struct rt_function *f);

/* A registered variable by its host shadow's address: its device address and size
 * (loading the PTX if needed). cudaErrorInvalidSymbol when unknown. */
cudaError_t rt_registry_symbol(const void *host_var, devaddr_t *addr, size_t *size);

/* Drops loaded modules (cudaDeviceReset); they are reloaded on next use. */
void rt_registry_unload(void);

/* Extracts the PTX text of a fat binary wrapper (__fatDeviceText) into a malloc'd
 * NUL-terminated buffer. 0, -ENOENT (no PTX in it), -ENOTSUP (compressed and no
 * libzstd), -EINVAL (not a fat binary), -ENOMEM. Exposed for tests. */
int rt_registry_fatbin_ptx(const void *wrapper, char **out, size_t *len);

#pragma GCC visibility pop

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, void *tid, void *bid,
			    void *bDim, void *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
		       const char *deviceName, int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
			      char *deviceAddress, const char *deviceName, int ext, size_t size,
			      int constant, int global);
char __cudaInitModule(void **fatCubinHandle);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);

#endif
