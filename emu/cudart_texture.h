/* cudart_texture — texture and surface objects: cudaCreateTextureObject (on a CUDA array,
 * a mipmapped array, linear or pitched 2-D device memory), cudaCreateSurfaceObject, their
 * Destroy and Get*Desc calls. Each object is registered in texture.h's table, which the
 * interpreter's tex/suld/sust read; the descriptors the program passed are kept here for
 * the Get*Desc calls. Legacy texture references are gone from CUDA 12 on, so none here.
 */
#ifndef PMPPLAB_EMU_CUDART_TEXTURE_H
#define PMPPLAB_EMU_CUDART_TEXTURE_H

#include "cudart_abi.h"

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
				    const struct cudaResourceDesc *pResDesc,
				    const struct cudaTextureDesc *pTexDesc,
				    const struct cudaResourceViewDesc *pResViewDesc);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
					     cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
					    cudaTextureObject_t texObject);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
				    const struct cudaResourceDesc *pResDesc);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
					     cudaSurfaceObject_t surfObject);

#endif
