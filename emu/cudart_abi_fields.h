/* cudart_abi_fields — the CUDA 13 runtime structures' fields and the device attribute
 * values, as X-macro lists only (no types), so that cudart_abi.h declares the structs
 * from them and tests/emu/test_rt_abi_cuda.c checks the same lists against the toolkit's
 * own headers. X(type, name, array-suffix) for fields, X(name, value) for attributes.
 */
#ifndef PMPPLAB_EMU_CUDART_ABI_FIELDS_H
#define PMPPLAB_EMU_CUDART_ABI_FIELDS_H

/* The device attributes cudaDeviceGetAttribute answers (values from driver_types.h);
 * the full list is longer, the others get cudaErrorInvalidValue. */
#define RT_DEVATTRS(X)                                                                    \
	X(cudaDevAttrMaxThreadsPerBlock, 1)                                               \
	X(cudaDevAttrMaxBlockDimX, 2)                                                     \
	X(cudaDevAttrMaxBlockDimY, 3)                                                     \
	X(cudaDevAttrMaxBlockDimZ, 4)                                                     \
	X(cudaDevAttrMaxGridDimX, 5)                                                      \
	X(cudaDevAttrMaxGridDimY, 6)                                                      \
	X(cudaDevAttrMaxGridDimZ, 7)                                                      \
	X(cudaDevAttrMaxSharedMemoryPerBlock, 8)                                          \
	X(cudaDevAttrTotalConstantMemory, 9)                                              \
	X(cudaDevAttrWarpSize, 10)                                                        \
	X(cudaDevAttrMaxPitch, 11)                                                        \
	X(cudaDevAttrMaxRegistersPerBlock, 12)                                            \
	X(cudaDevAttrClockRate, 13)                                                       \
	X(cudaDevAttrTextureAlignment, 14)                                                \
	X(cudaDevAttrGpuOverlap, 15)                                                      \
	X(cudaDevAttrMultiProcessorCount, 16)                                             \
	X(cudaDevAttrKernelExecTimeout, 17)                                               \
	X(cudaDevAttrIntegrated, 18)                                                      \
	X(cudaDevAttrCanMapHostMemory, 19)                                                \
	X(cudaDevAttrComputeMode, 20)                                                     \
	X(cudaDevAttrConcurrentKernels, 31)                                               \
	X(cudaDevAttrEccEnabled, 32)                                                      \
	X(cudaDevAttrPciBusId, 33)                                                        \
	X(cudaDevAttrPciDeviceId, 34)                                                     \
	X(cudaDevAttrMemoryClockRate, 36)                                                 \
	X(cudaDevAttrGlobalMemoryBusWidth, 37)                                            \
	X(cudaDevAttrL2CacheSize, 38)                                                     \
	X(cudaDevAttrMaxThreadsPerMultiProcessor, 39)                                     \
	X(cudaDevAttrAsyncEngineCount, 40)                                                \
	X(cudaDevAttrUnifiedAddressing, 41)                                               \
	X(cudaDevAttrPciDomainId, 50)                                                     \
	X(cudaDevAttrComputeCapabilityMajor, 75)                                          \
	X(cudaDevAttrComputeCapabilityMinor, 76)                                          \
	X(cudaDevAttrStreamPrioritiesSupported, 78)                                       \
	X(cudaDevAttrGlobalL1CacheSupported, 79)                                          \
	X(cudaDevAttrLocalL1CacheSupported, 80)                                           \
	X(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 81)                                \
	X(cudaDevAttrMaxRegistersPerMultiprocessor, 82)                                   \
	X(cudaDevAttrManagedMemory, 83)                                                   \
	X(cudaDevAttrIsMultiGpuBoard, 84)                                                 \
	X(cudaDevAttrHostNativeAtomicSupported, 86)                                       \
	X(cudaDevAttrPageableMemoryAccess, 88)                                            \
	X(cudaDevAttrConcurrentManagedAccess, 89)                                         \
	X(cudaDevAttrComputePreemptionSupported, 90)                                      \
	X(cudaDevAttrCooperativeLaunch, 95)                                               \
	X(cudaDevAttrMaxSharedMemoryPerBlockOptin, 97)                                    \
	X(cudaDevAttrMaxBlocksPerMultiprocessor, 106)                                     \
	X(cudaDevAttrMaxPersistingL2CacheSize, 108)                                       \
	X(cudaDevAttrMaxAccessPolicyWindowSize, 109)                                      \
	X(cudaDevAttrReservedSharedMemoryPerBlock, 111)                                   \
	X(cudaDevAttrMemoryPoolsSupported, 115)

/* Fields of struct cudaDeviceProp in declaration order (CUDA 13 layout: clockRate and
 * friends are gone). X(type, name, array-suffix). */
#define RT_DEVPROP_FIELDS(X)                                                              \
	X(char, name, [256])                                                              \
	X(cudaUUID_t, uuid, )                                                             \
	X(char, luid, [8])                                                                \
	X(unsigned int, luidDeviceNodeMask, )                                             \
	X(size_t, totalGlobalMem, )                                                       \
	X(size_t, sharedMemPerBlock, )                                                    \
	X(int, regsPerBlock, )                                                            \
	X(int, warpSize, )                                                                \
	X(size_t, memPitch, )                                                             \
	X(int, maxThreadsPerBlock, )                                                      \
	X(int, maxThreadsDim, [3])                                                        \
	X(int, maxGridSize, [3])                                                          \
	X(size_t, totalConstMem, )                                                        \
	X(int, major, )                                                                   \
	X(int, minor, )                                                                   \
	X(size_t, textureAlignment, )                                                     \
	X(size_t, texturePitchAlignment, )                                                \
	X(int, multiProcessorCount, )                                                     \
	X(int, integrated, )                                                              \
	X(int, canMapHostMemory, )                                                        \
	X(int, maxTexture1D, )                                                            \
	X(int, maxTexture1DMipmap, )                                                      \
	X(int, maxTexture2D, [2])                                                         \
	X(int, maxTexture2DMipmap, [2])                                                   \
	X(int, maxTexture2DLinear, [3])                                                   \
	X(int, maxTexture2DGather, [2])                                                   \
	X(int, maxTexture3D, [3])                                                         \
	X(int, maxTexture3DAlt, [3])                                                      \
	X(int, maxTextureCubemap, )                                                       \
	X(int, maxTexture1DLayered, [2])                                                  \
	X(int, maxTexture2DLayered, [3])                                                  \
	X(int, maxTextureCubemapLayered, [2])                                             \
	X(int, maxSurface1D, )                                                            \
	X(int, maxSurface2D, [2])                                                         \
	X(int, maxSurface3D, [3])                                                         \
	X(int, maxSurface1DLayered, [2])                                                  \
	X(int, maxSurface2DLayered, [3])                                                  \
	X(int, maxSurfaceCubemap, )                                                       \
	X(int, maxSurfaceCubemapLayered, [2])                                             \
	X(size_t, surfaceAlignment, )                                                     \
	X(int, concurrentKernels, )                                                       \
	X(int, ECCEnabled, )                                                              \
	X(int, pciBusID, )                                                                \
	X(int, pciDeviceID, )                                                             \
	X(int, pciDomainID, )                                                             \
	X(int, tccDriver, )                                                               \
	X(int, asyncEngineCount, )                                                        \
	X(int, unifiedAddressing, )                                                       \
	X(int, memoryBusWidth, )                                                          \
	X(int, l2CacheSize, )                                                             \
	X(int, persistingL2CacheMaxSize, )                                                \
	X(int, maxThreadsPerMultiProcessor, )                                             \
	X(int, streamPrioritiesSupported, )                                               \
	X(int, globalL1CacheSupported, )                                                  \
	X(int, localL1CacheSupported, )                                                   \
	X(size_t, sharedMemPerMultiprocessor, )                                           \
	X(int, regsPerMultiprocessor, )                                                   \
	X(int, managedMemory, )                                                           \
	X(int, isMultiGpuBoard, )                                                         \
	X(int, multiGpuBoardGroupID, )                                                    \
	X(int, hostNativeAtomicSupported, )                                               \
	X(int, pageableMemoryAccess, )                                                    \
	X(int, concurrentManagedAccess, )                                                 \
	X(int, computePreemptionSupported, )                                              \
	X(int, canUseHostPointerForRegisteredMem, )                                       \
	X(int, cooperativeLaunch, )                                                       \
	X(size_t, sharedMemPerBlockOptin, )                                               \
	X(int, pageableMemoryAccessUsesHostPageTables, )                                  \
	X(int, directManagedMemAccessFromHost, )                                          \
	X(int, maxBlocksPerMultiProcessor, )                                              \
	X(int, accessPolicyMaxWindowSize, )                                               \
	X(size_t, reservedSharedMemPerBlock, )                                            \
	X(int, hostRegisterSupported, )                                                   \
	X(int, sparseCudaArraySupported, )                                                \
	X(int, hostRegisterReadOnlySupported, )                                           \
	X(int, timelineSemaphoreInteropSupported, )                                       \
	X(int, memoryPoolsSupported, )                                                    \
	X(int, gpuDirectRDMASupported, )                                                  \
	X(unsigned int, gpuDirectRDMAFlushWritesOptions, )                                \
	X(int, gpuDirectRDMAWritesOrdering, )                                             \
	X(unsigned int, memoryPoolSupportedHandleTypes, )                                 \
	X(int, deferredMappingCudaArraySupported, )                                       \
	X(int, ipcEventSupported, )                                                       \
	X(int, clusterLaunch, )                                                           \
	X(int, unifiedFunctionPointers, )                                                 \
	X(int, deviceNumaConfig, )                                                        \
	X(int, deviceNumaId, )                                                            \
	X(int, mpsEnabled, )                                                              \
	X(int, hostNumaId, )                                                              \
	X(unsigned int, gpuPciDeviceID, )                                                 \
	X(unsigned int, gpuPciSubsystemID, )                                              \
	X(int, hostNumaMultinodeIpcSupported, )                                           \
	X(int, reserved, [56])

#define RT_FUNCATTR_FIELDS(X)                                                             \
	X(size_t, sharedSizeBytes, )                                                      \
	X(size_t, constSizeBytes, )                                                       \
	X(size_t, localSizeBytes, )                                                       \
	X(int, maxThreadsPerBlock, )                                                      \
	X(int, numRegs, )                                                                 \
	X(int, ptxVersion, )                                                              \
	X(int, binaryVersion, )                                                           \
	X(int, cacheModeCA, )                                                             \
	X(int, maxDynamicSharedSizeBytes, )                                               \
	X(int, preferredShmemCarveout, )                                                  \
	X(int, clusterDimMustBeSet, )                                                     \
	X(int, requiredClusterWidth, )                                                    \
	X(int, requiredClusterHeight, )                                                   \
	X(int, requiredClusterDepth, )                                                    \
	X(int, clusterSchedulingPolicyPreference, )                                       \
	X(int, nonPortableClusterSizeAllowed, )                                           \
	X(int, reserved, [16])

#define RT_PTRATTR_FIELDS(X)                                                              \
	X(enum cudaMemoryType, type, )                                                    \
	X(int, device, )                                                                  \
	X(void *, devicePointer, )                                                        \
	X(void *, hostPointer, )                                                          \
	X(long, reserved, [8])

/* cudaLaunchConfig_t, cudaLaunchKernelExC's configuration. */
#define RT_LAUNCHCFG_FIELDS(X)                                                            \
	X(dim3, gridDim, )                                                                \
	X(dim3, blockDim, )                                                               \
	X(size_t, dynamicSmemBytes, )                                                     \
	X(cudaStream_t, stream, )                                                         \
	X(cudaLaunchAttribute *, attrs, )                                                 \
	X(unsigned int, numAttrs, )

/* The launch attributes (enum cudaLaunchAttributeID) cudaLaunchKernelExC looks at. */
#define RT_LAUNCHATTRS(X)                                                                 \
	X(cudaLaunchAttributeIgnore, 0)                                                   \
	X(cudaLaunchAttributeAccessPolicyWindow, 1)                                       \
	X(cudaLaunchAttributeCooperative, 2)                                              \
	X(cudaLaunchAttributeSynchronizationPolicy, 3)                                    \
	X(cudaLaunchAttributeClusterDimension, 4)                                         \
	X(cudaLaunchAttributeClusterSchedulingPolicyPreference, 5)                        \
	X(cudaLaunchAttributeProgrammaticStreamSerialization, 6)                          \
	X(cudaLaunchAttributeProgrammaticEvent, 7)                                        \
	X(cudaLaunchAttributePriority, 8)                                                 \
	X(cudaLaunchAttributeMemSyncDomainMap, 9)                                         \
	X(cudaLaunchAttributeMemSyncDomain, 10)                                           \
	X(cudaLaunchAttributePreferredClusterDimension, 11)                               \
	X(cudaLaunchAttributeLaunchCompletionEvent, 12)                                   \
	X(cudaLaunchAttributeDeviceUpdatableKernelNode, 13)                               \
	X(cudaLaunchAttributePreferredSharedMemoryCarveout, 14)                           \
	X(cudaLaunchAttributeNvlinkUtilCentricScheduling, 16)

#endif
