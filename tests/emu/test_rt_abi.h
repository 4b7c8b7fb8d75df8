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

#endif
