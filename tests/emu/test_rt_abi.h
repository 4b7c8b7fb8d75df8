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

#endif
