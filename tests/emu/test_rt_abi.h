/* Shared by test_rt_abi.c (our declarations) and test_rt_abi_cuda.c (the toolkit's):
 * each fills out[] with the field offsets of a structure and returns how many. */
#ifndef PMPPLAB_TEST_RT_ABI_H
#define PMPPLAB_TEST_RT_ABI_H

#include <stddef.h>

size_t abi_cuda_devprop(size_t *out, size_t *size);
size_t abi_cuda_funcattr(size_t *out, size_t *size);
size_t abi_cuda_ptrattr(size_t *out, size_t *size);
size_t abi_cuda_launchcfg(size_t *out, size_t *size);
/* cudaLaunchAttribute: its size, the offset of val and the size of val. */
void abi_cuda_launchattr(size_t *size, size_t *val_offset, size_t *val_size);

/* The arrays', textures' and surfaces' types (cudart_abi.h's last part): the same
 * expressions, evaluated against each side's declarations. */
#define ABI_TEXTURE_LAYOUT(X)                                                             \
	X(sizeof(struct cudaChannelFormatDesc)) X(offsetof(struct cudaChannelFormatDesc, f))  \
	X(sizeof(struct cudaExtent)) X(sizeof(struct cudaPos)) X(sizeof(struct cudaPitchedPtr)) \
	X(sizeof(struct cudaMemcpy3DParms)) X(offsetof(struct cudaMemcpy3DParms, dstArray))    \
	X(offsetof(struct cudaMemcpy3DParms, dstPtr)) X(offsetof(struct cudaMemcpy3DParms, kind)) \
	X(sizeof(struct cudaResourceDesc)) X(offsetof(struct cudaResourceDesc, flags))         \
	X(offsetof(struct cudaResourceDesc, res.linear.sizeInBytes))                          \
	X(offsetof(struct cudaResourceDesc, res.pitch2D.pitchInBytes))                        \
	X(sizeof(struct cudaResourceViewDesc)) X(offsetof(struct cudaResourceViewDesc, lastLayer)) \
	X(sizeof(struct cudaTextureDesc)) X(offsetof(struct cudaTextureDesc, filterMode))     \
	X(offsetof(struct cudaTextureDesc, borderColor))                                      \
	X(offsetof(struct cudaTextureDesc, normalizedCoords))                                 \
	X(offsetof(struct cudaTextureDesc, mipmapFilterMode))                                 \
	X(offsetof(struct cudaTextureDesc, maxMipmapLevelClamp))                              \
	X(offsetof(struct cudaTextureDesc, seamlessCubemap))                                  \
	X(sizeof(cudaTextureObject_t)) X((size_t)cudaChannelFormatKindSignedNormalized16X4)    \
	X((size_t)cudaResourceTypePitch2D) X((size_t)cudaAddressModeBorder)                    \
	X((size_t)cudaReadModeNormalizedFloat) X((size_t)cudaArrayTextureGather)              \
	X((size_t)cudaArrayCubemap)
size_t abi_cuda_texture(size_t *out);

/* Graphs, stream capture and memory pools (cudart_abi.h's graph part). */
#define ABI_GRAPH_LAYOUT(X)                                                               \
	X(sizeof(struct cudaKernelNodeParams)) X(offsetof(struct cudaKernelNodeParams, blockDim)) \
	X(offsetof(struct cudaKernelNodeParams, sharedMemBytes))                              \
	X(offsetof(struct cudaKernelNodeParams, kernelParams))                                \
	X(offsetof(struct cudaKernelNodeParams, extra)) X(sizeof(struct cudaMemsetParams))    \
	X(offsetof(struct cudaMemsetParams, value)) X(offsetof(struct cudaMemsetParams, elementSize)) \
	X(offsetof(struct cudaMemsetParams, width)) X(offsetof(struct cudaMemsetParams, height)) \
	X(sizeof(struct cudaHostNodeParams)) X(sizeof(struct cudaMemcpyNodeParams))           \
	X(offsetof(struct cudaMemcpyNodeParams, copyParams)) X(sizeof(struct cudaMemPoolProps)) \
	X(offsetof(struct cudaMemPoolProps, location)) X(offsetof(struct cudaMemPoolProps, maxSize)) \
	X(offsetof(struct cudaMemPoolProps, usage)) X(sizeof(struct cudaMemAllocNodeParams))  \
	X(offsetof(struct cudaMemAllocNodeParams, bytesize))                                  \
	X(offsetof(struct cudaMemAllocNodeParams, dptr)) X(sizeof(struct cudaConditionalNodeParams)) \
	X(offsetof(struct cudaConditionalNodeParams, type))                                   \
	X(offsetof(struct cudaConditionalNodeParams, size))                                   \
	X(offsetof(struct cudaConditionalNodeParams, phGraph_out))                            \
	X(sizeof(struct cudaGraphNodeParams)) X(offsetof(struct cudaGraphNodeParams, kernel))  \
	X(offsetof(struct cudaGraphNodeParams, memcpy)) X(offsetof(struct cudaGraphNodeParams, alloc)) \
	X(offsetof(struct cudaGraphNodeParams, conditional))                                  \
	X(offsetof(struct cudaGraphNodeParams, eventRecord.event))                            \
	X(offsetof(struct cudaGraphNodeParams, reserved2)) X(sizeof(cudaGraphEdgeData))       \
	X(sizeof(cudaGraphInstantiateParams)) X(offsetof(cudaGraphInstantiateParams, result_out)) \
	X(sizeof(cudaGraphExecUpdateResultInfo)) X(sizeof(cudaGraphConditionalHandle))        \
	X((size_t)cudaGraphNodeTypeConditional) X((size_t)cudaStreamCaptureModeRelaxed)       \
	X((size_t)cudaStreamCaptureStatusInvalidated) X((size_t)cudaGraphMemAttrReservedMemHigh) \
	X((size_t)cudaMemPoolAttrUsedMemHigh) X((size_t)cudaGraphCondTypeSwitch)              \
	X((size_t)cudaStreamSetCaptureDependencies) X((size_t)cudaGraphCondAssignDefault)
size_t abi_cuda_graph(size_t *out);

#endif
