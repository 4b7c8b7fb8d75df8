/* cudart_device — the one emulated device: its properties and attributes, device
 * selection, synchronisation, reset and versions.
 *
 * The device has the limits of a real GPU model (emu_device.h: an H100 unless
 * PMPPLAB_EMU_DEVICE picks another) and is named honestly, "pmpplab emulated H100
 * (sm_90)". Its memory is the emulator's own.
 */
#ifndef PMPPLAB_EMU_CUDART_DEVICE_H
#define PMPPLAB_EMU_CUDART_DEVICE_H

#include <stddef.h>

#include "cudart_abi.h"
#include "emu_device.h"

#pragma GCC visibility push(hidden)

/* The emulated device's properties (built once; never NULL). */
const struct cudaDeviceProp *rt_device_props(void);
/* The GPU model they come from. */
const struct emu_device *rt_device_model(void);

#pragma GCC visibility pop

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaDeviceSetCacheConfig(int cacheConfig);
cudaError_t cudaDeviceGetCacheConfig(int *cacheConfig);
cudaError_t cudaDeviceSetLimit(int limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *value, int limit);
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
cudaError_t cudaDeviceSetSharedMemConfig(int config);
cudaError_t cudaDeviceGetSharedMemConfig(int *config);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaRuntimeGetVersion(int *version);

#endif
