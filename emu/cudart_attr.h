/* cudart_attr — the attribute calls that tune streams, launches and the L2 cache without
 * changing any result: a stream's attributes (cudaStreamSetAttribute, GetAttribute,
 * CopyAttributes: the L2 access policy window, the synchronization policy, the
 * priority, the memory synchronization domain and its map), the persisting L2 limit
 * (cudaDeviceSetLimit's cudaLimitPersistingL2CacheSize) and
 * cudaCtxResetPersistingL2Cache. Each value is checked as the CUDA documentation says a
 * GPU checks it, remembered and answered back; the emulator models no L2, so none
 * changes what a kernel computes or how it runs.
 */
#ifndef PMPPLAB_EMU_CUDART_ATTR_H
#define PMPPLAB_EMU_CUDART_ATTR_H

#include <stddef.h>

#include "cudart_abi.h"

#pragma GCC visibility push(hidden)

/* An access policy window, of a stream or a launch (cudaLaunchAttributeAccessPolicyWindow):
 * cudaSuccess or cudaErrorInvalidValue (a window over the device's
 * accessPolicyMaxWindowSize, a hit ratio outside [0, 1], an unknown property, a
 * persisting miss property). */
cudaError_t rt_attr_check_window(const struct cudaAccessPolicyWindow *w);

/* cudaLimitPersistingL2CacheSize (cudart_device.c passes it on). */
cudaError_t rt_attr_set_persisting_l2(size_t value);
size_t rt_attr_persisting_l2(void);

/* Forgets the attributes of a destroyed stream (NULL: of every stream, cudaDeviceReset). */
void rt_attr_stream_forget(cudaStream_t stream);

#pragma GCC visibility pop

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
				   const cudaStreamAttrValue *value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
				   cudaStreamAttrValue *value_out);
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src);
cudaError_t cudaCtxResetPersistingL2Cache(void);

#endif
