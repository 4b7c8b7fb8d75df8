/* cudart_device — see cudart_device.h. */
#include "cudart_device.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_attr.h" /* the persisting L2 limit */
#include "cudart_async.h"
#include "cudart_errors.h"
#include "cudart_memory.h"
#include "cudart_registry.h"
#include "cudart_report.h"
#include "exec.h" /* the device heap */
#include "cudart_stream.h"
#include "emu_device.h"

#define RT_CUDA_VERSION 13000

static struct cudaDeviceProp rt_props;
static pthread_once_t rt_props_once = PTHREAD_ONCE_INIT;
static void rt_props_init(void);

static const struct emu_device *rt_device;

const struct emu_device *rt_device_model(void)
{
	pthread_once(&rt_props_once, rt_props_init);
	return rt_device;
}

/* The limits of the emulated GPU model (emu_device.h), under an honest name. Memory
 * is the emulator's own (rt_memory_total), not the card's. */
static void rt_props_init(void)
{
	const char *bad = NULL;
	const struct emu_device *d = rt_device = emu_device_current(&bad);
	if (bad)
		rt_report_warning("PMPPLAB_EMU_DEVICE", "'%s' is not an emulated device (%s); "
				  "emulating the %s", bad, emu_device_keys(), d->model);
	struct cudaDeviceProp *p = &rt_props;
	memset(p, 0, sizeof *p);
	emu_device_name(d, p->name, sizeof p->name);
	memcpy(p->uuid.bytes, "pmpplab-emu-cpu0", 16);
	p->totalGlobalMem = rt_memory_total();
	p->sharedMemPerBlock = d->smem_per_block;
	p->regsPerBlock = d->regs_per_block;
	p->warpSize = 32;
	p->memPitch = 2147483647;
	p->maxThreadsPerBlock = 1024;
	p->maxThreadsDim[0] = 1024;
	p->maxThreadsDim[1] = 1024;
	p->maxThreadsDim[2] = 64;
	p->maxGridSize[0] = 2147483647;
	p->maxGridSize[1] = 65535;
	p->maxGridSize[2] = 65535;
	p->totalConstMem = 64 * 1024;
	p->major = d->cc_major;
	p->minor = d->cc_minor;
	p->textureAlignment = 512;
	p->texturePitchAlignment = 32;
	p->multiProcessorCount = d->sm_count;
	p->canMapHostMemory = 1;
	p->surfaceAlignment = 512;
	p->concurrentKernels = 1;
	p->asyncEngineCount = d->async_engines;
	p->unifiedAddressing = 1;
	p->memoryBusWidth = d->bus_width_bits;
	p->l2CacheSize = d->l2_bytes;
	p->persistingL2CacheMaxSize = d->persisting_l2_max;
	/* 128 MiB less 4 KiB where the L2 has persisting lines (sm_80 on), else 0 */
	p->accessPolicyMaxWindowSize = d->persisting_l2_max ? 134213632 : 0;
	p->maxThreadsPerMultiProcessor = d->max_threads_per_sm;
	p->streamPrioritiesSupported = 0; /* one queue: every priority is the same */
	p->globalL1CacheSupported = 1;
	p->localL1CacheSupported = 1;
	p->sharedMemPerMultiprocessor = d->smem_per_sm;
	p->regsPerMultiprocessor = d->regs_per_sm;
	p->managedMemory = 1;
	p->hostNativeAtomicSupported = 0;
	p->concurrentManagedAccess = 1;
	p->computePreemptionSupported = 1;
	p->cooperativeLaunch = 1;
	p->memoryPoolsSupported = 1; /* cudaMallocAsync and the pools: cudart_pool.c */
	p->sharedMemPerBlockOptin = d->smem_per_block_optin;
	p->maxBlocksPerMultiProcessor = d->max_blocks_per_sm;
	p->reservedSharedMemPerBlock = d->smem_reserved_per_block;
	p->deviceNumaId = -1;
	p->hostNumaId = -1;
}

const struct cudaDeviceProp *rt_device_props(void)
{
	pthread_once(&rt_props_once, rt_props_init);
	return &rt_props;
}

cudaError_t cudaGetDeviceCount(int *count)
{
	if (!count)
		return rt_error_set(cudaErrorInvalidValue);
	*count = 1;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
	if (!device)
		return rt_error_set(cudaErrorInvalidValue);
	*device = 0;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	return device == 0 ? cudaSuccess : rt_error_set(cudaErrorInvalidDevice);
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
	(void)deviceFlags, (void)flags;
	return cudaSetDevice(device);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	if (!prop)
		return rt_error_set(cudaErrorInvalidValue);
	if (device != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	*prop = *rt_device_props();
	return cudaSuccess;
}

/* CUDA 12 headers renamed the call; programs built against them reference this. */
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device)
{
	return cudaGetDeviceProperties(prop, device);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	if (!value)
		return rt_error_set(cudaErrorInvalidValue);
	if (device != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	const struct cudaDeviceProp *p = rt_device_props();
	int v;
	switch ((int)attr) {
	case cudaDevAttrMaxThreadsPerBlock: v = p->maxThreadsPerBlock; break;
	case cudaDevAttrMaxBlockDimX: v = p->maxThreadsDim[0]; break;
	case cudaDevAttrMaxBlockDimY: v = p->maxThreadsDim[1]; break;
	case cudaDevAttrMaxBlockDimZ: v = p->maxThreadsDim[2]; break;
	case cudaDevAttrMaxGridDimX: v = p->maxGridSize[0]; break;
	case cudaDevAttrMaxGridDimY: v = p->maxGridSize[1]; break;
	case cudaDevAttrMaxGridDimZ: v = p->maxGridSize[2]; break;
	case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)p->sharedMemPerBlock; break;
	case cudaDevAttrTotalConstantMemory: v = (int)p->totalConstMem; break;
	case cudaDevAttrWarpSize: v = p->warpSize; break;
	case cudaDevAttrMaxPitch: v = (int)p->memPitch; break;
	case cudaDevAttrMaxRegistersPerBlock: v = p->regsPerBlock; break;
	case cudaDevAttrClockRate: v = rt_device_model()->clock_khz; break;
	case cudaDevAttrTextureAlignment: v = (int)p->textureAlignment; break;
	case cudaDevAttrGpuOverlap: v = 1; break;
	case cudaDevAttrMultiProcessorCount: v = p->multiProcessorCount; break;
	case cudaDevAttrKernelExecTimeout: v = 0; break;
	case cudaDevAttrIntegrated: v = p->integrated; break;
	case cudaDevAttrCanMapHostMemory: v = p->canMapHostMemory; break;
	case cudaDevAttrComputeMode: v = 0; break;
	case cudaDevAttrConcurrentKernels: v = p->concurrentKernels; break;
	case cudaDevAttrEccEnabled: v = p->ECCEnabled; break;
	case cudaDevAttrPciBusId: v = p->pciBusID; break;
	case cudaDevAttrPciDeviceId: v = p->pciDeviceID; break;
	case cudaDevAttrMemoryClockRate: v = rt_device_model()->mem_clock_khz; break;
	case cudaDevAttrGlobalMemoryBusWidth: v = p->memoryBusWidth; break;
	case cudaDevAttrL2CacheSize: v = p->l2CacheSize; break;
	case cudaDevAttrMaxThreadsPerMultiProcessor: v = p->maxThreadsPerMultiProcessor; break;
	case cudaDevAttrAsyncEngineCount: v = p->asyncEngineCount; break;
	case cudaDevAttrUnifiedAddressing: v = p->unifiedAddressing; break;
	case cudaDevAttrPciDomainId: v = p->pciDomainID; break;
	case cudaDevAttrComputeCapabilityMajor: v = p->major; break;
	case cudaDevAttrComputeCapabilityMinor: v = p->minor; break;
	case cudaDevAttrStreamPrioritiesSupported: v = p->streamPrioritiesSupported; break;
	case cudaDevAttrGlobalL1CacheSupported: v = p->globalL1CacheSupported; break;
	case cudaDevAttrLocalL1CacheSupported: v = p->localL1CacheSupported; break;
	case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)p->sharedMemPerMultiprocessor; break;
	case cudaDevAttrMaxRegistersPerMultiprocessor: v = p->regsPerMultiprocessor; break;
	case cudaDevAttrManagedMemory: v = p->managedMemory; break;
	case cudaDevAttrIsMultiGpuBoard: v = p->isMultiGpuBoard; break;
	case cudaDevAttrHostNativeAtomicSupported: v = p->hostNativeAtomicSupported; break;
	case cudaDevAttrPageableMemoryAccess: v = p->pageableMemoryAccess; break;
	case cudaDevAttrConcurrentManagedAccess: v = p->concurrentManagedAccess; break;
	case cudaDevAttrComputePreemptionSupported: v = p->computePreemptionSupported; break;
	case cudaDevAttrCooperativeLaunch: v = p->cooperativeLaunch; break;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)p->sharedMemPerBlockOptin; break;
	case cudaDevAttrMaxBlocksPerMultiprocessor: v = p->maxBlocksPerMultiProcessor; break;
	case cudaDevAttrReservedSharedMemoryPerBlock: v = (int)p->reservedSharedMemPerBlock; break;
	case cudaDevAttrMaxPersistingL2CacheSize: v = p->persistingL2CacheMaxSize; break;
	case cudaDevAttrMaxAccessPolicyWindowSize: v = p->accessPolicyMaxWindowSize; break;
	case cudaDevAttrMemoryPoolsSupported: v = p->memoryPoolsSupported; break;
	default:
		/* texture/surface limits, NUMA, interop...: nothing a course asks; an
		 * honest "not here" instead of a made-up value */
		if ((int)attr <= 0 || (int)attr > 150)
			return rt_error_set(cudaErrorInvalidValue);
		v = 0;
		break;
	}
	*value = v;
	return cudaSuccess;
}

/* Kernels ran when launched: synchronising only reports their errors. */
/* Waits for everything queued (cudart_async.h); then a kernel's fault is reported. */
cudaError_t cudaDeviceSynchronize(void)
{
	rt_async_idle();
	return rt_error_enter();
}

/* A fresh context: allocations, streams, events, loaded PTX and the sticky error go,
 * once the queued work is done. */
cudaError_t cudaDeviceReset(void)
{
	rt_async_idle();
	rt_memory_reset();
	rt_stream_reset();
	rt_registry_unload();
	rt_error_reset();
	return cudaSuccess;
}

/* Atomics, as the settings below: host threads may set and read them at once. */
static _Atomic unsigned rt_device_flags;

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	if (flags & ~0x1fu)
		return rt_error_set(cudaErrorInvalidValue);
	rt_device_flags = flags;
	return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
	if (!flags)
		return rt_error_set(cudaErrorInvalidValue);
	*flags = rt_device_flags | 0x8; /* cudaDeviceMapHost is always on */
	return cudaSuccess;
}

static _Atomic int rt_cache_config;

cudaError_t cudaDeviceSetCacheConfig(int cacheConfig)
{
	if (cacheConfig < 0 || cacheConfig > 3)
		return rt_error_set(cudaErrorInvalidValue);
	rt_cache_config = cacheConfig; /* no cache to split; remembered for the getter */
	return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(int *cacheConfig)
{
	if (!cacheConfig)
		return rt_error_set(cudaErrorInvalidValue);
	*cacheConfig = rt_cache_config;
	return cudaSuccess;
}

/* Stack, printf FIFO and malloc heap sizes (cudaLimit 0..2): remembered; the heap's
 * bounds kernels' malloc (exec_memory.c). */
static _Atomic size_t rt_limits[3] = {1024, 1 << 20, 8 << 20};

cudaError_t cudaDeviceSetLimit(int limit, size_t value)
{
	if (limit == 6) /* cudaLimitPersistingL2CacheSize (cudart_attr.c) */
		return rt_attr_set_persisting_l2(value);
	if (limit == 4) { /* cudaLimitDevRuntimePendingLaunchCount (exec_cdp.c) */
		if (!value)
			return rt_error_set(cudaErrorInvalidValue);
		emu_set_launch_pending_limit(value);
		return cudaSuccess;
	}
	if (limit < 0 || limit > 2)
		return rt_error_set(limit <= 6 ? cudaErrorUnsupportedLimit : cudaErrorInvalidValue);
	/* cudaLimitMallocHeapSize: kernels' malloc and new. The runtime API says it must be
	 * set before a kernel that uses malloc or free launches (cudaErrorInvalidValue
	 * after; an H200 does so): the kernels queued so far count. */
	if (limit == 2) {
		rt_async_idle();
		if (emu_set_heap_size(value) != 0) {
			rt_report_error("cudaDeviceSetLimit: the malloc heap's size cannot change once "
					"a kernel has used malloc or free; set "
					"cudaLimitMallocHeapSize before the first such launch");
			return rt_error_set(cudaErrorInvalidValue);
		}
	}
	rt_limits[limit] = value;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, int limit)
{
	if (!value)
		return rt_error_set(cudaErrorInvalidValue);
	if (limit == 6 && rt_device_model()->persisting_l2_max) {
		*value = rt_attr_persisting_l2();
		return cudaSuccess;
	}
	if (limit == 4) {
		*value = emu_launch_pending_limit();
		return cudaSuccess;
	}
	if (limit < 0 || limit > 2)
		return rt_error_set(limit <= 6 ? cudaErrorUnsupportedLimit : cudaErrorInvalidValue);
	*value = rt_limits[limit];
	return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	/* one queue: every priority is the same */
	if (leastPriority)
		*leastPriority = 0;
	if (greatestPriority)
		*greatestPriority = 0;
	return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
	if (!canAccessPeer)
		return rt_error_set(cudaErrorInvalidValue);
	if (device != 0 || peerDevice != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	*canAccessPeer = 0;
	return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
	if (!device || !prop)
		return rt_error_set(cudaErrorInvalidValue);
	*device = 0; /* the only one */
	return cudaSuccess;
}

/* Deprecated bank-size setting: banks are four bytes wide, as on current GPUs. */
cudaError_t cudaDeviceSetSharedMemConfig(int config)
{
	return config >= 0 && config <= 2 ? cudaSuccess : rt_error_set(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceGetSharedMemConfig(int *config)
{
	if (!config)
		return rt_error_set(cudaErrorInvalidValue);
	*config = 1; /* cudaSharedMemBankSizeFourByte */
	return cudaSuccess;
}

/* No profiler to start: nvprof/nsys regions are a no-op here. */
cudaError_t cudaProfilerStart(void)
{
	return cudaSuccess;
}

cudaError_t cudaProfilerStop(void)
{
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version)
{
	if (!version)
		return rt_error_set(cudaErrorInvalidValue);
	*version = RT_CUDA_VERSION;
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
	if (!version)
		return rt_error_set(cudaErrorInvalidValue);
	*version = RT_CUDA_VERSION;
	return cudaSuccess;
}
