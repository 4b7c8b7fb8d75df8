/* cudart_array — CUDA arrays: the channel-format descriptors, cudaMallocArray,
 * cudaMalloc3DArray (layered, cube map), mipmapped arrays and their levels, and the copies
 * to, from and between arrays (cudaMemcpy2DToArray, cudaMemcpy3D...).
 *
 * An array's texels live in one device allocation (devmem.h), row-major without padding,
 * layer after layer and level after level; texture.h's struct tex_image describes them,
 * and texture and surface objects (cudart_texture.c) copy that description. Handles are
 * checked: an array that was never allocated, or was freed, is an error naming the call.
 */
#ifndef PMPPLAB_EMU_CUDART_ARRAY_H
#define PMPPLAB_EMU_CUDART_ARRAY_H

#include "cudart_abi.h"
#include "texture.h"

#pragma GCC visibility push(hidden)

/* The image of a live array (or of a whole mipmapped array when mip is nonzero) and its
 * cudaArray* flags; reports misuse naming call and returns cudaErrorInvalidValue or
 * cudaErrorInvalidResourceHandle. */
cudaError_t rt_array_image(const char *call, const void *array, int mip,
			   struct tex_image *img, unsigned *flags);
/* The texel format of a channel descriptor: 0, or cudaErrorInvalidChannelDescriptor
 * (reported naming call). */
cudaError_t rt_array_format(const char *call, const struct cudaChannelFormatDesc *d,
			    struct tex_image *img);

#pragma GCC visibility pop

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
						   enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
			    size_t width, size_t height, unsigned int flags);
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
			      struct cudaExtent extent, unsigned int flags);
cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
				     const struct cudaChannelFormatDesc *desc,
				     struct cudaExtent extent, unsigned int numLevels,
				     unsigned int flags);
cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
				       cudaMipmappedArray_const_t mipmappedArray,
				       unsigned int level);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
			     unsigned int *flags, cudaArray_t array);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
			      const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
				size_t hOffset, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
				const void *src, size_t spitch, size_t width, size_t height,
				enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
				     const void *src, size_t spitch, size_t width,
				     size_t height, enum cudaMemcpyKind kind,
				     cudaStream_t stream);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
				  size_t wOffset, size_t hOffset, size_t width, size_t height,
				  enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
				       size_t wOffset, size_t hOffset, size_t width,
				       size_t height, enum cudaMemcpyKind kind,
				       cudaStream_t stream);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
				     cudaArray_const_t src, size_t wOffsetSrc,
				     size_t hOffsetSrc, size_t width, size_t height,
				     enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream);
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
			 struct cudaExtent extent);

#endif
