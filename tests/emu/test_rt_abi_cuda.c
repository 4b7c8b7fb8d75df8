/* The CUDA toolkit's side of the ABI test (test_rt_abi.c): compiled against the real
 * cuda_runtime_api.h, it checks every error and attribute value at compile time and
 * reports the real structures' field offsets and sizes. */
#include <cuda_runtime_api.h>
#include <stddef.h>

#include "cudart_abi_fields.h"
#include "test_rt_abi.h"

#define RT_ERR(value, name, message) _Static_assert(name == value, #name);
#include "cudart_errtab.h"
#undef RT_ERR

#define CHECK_ATTR(name, value) _Static_assert(name == value, #name);
RT_DEVATTRS(CHECK_ATTR)
RT_LAUNCHATTRS(CHECK_ATTR)
#undef CHECK_ATTR

_Static_assert(cudaMemcpyDefault == 4, "cudaMemcpyKind");
_Static_assert(cudaMemoryTypeManaged == 3, "cudaMemoryType");
_Static_assert(cudaHostAllocMapped == 0x02 && cudaEventDisableTiming == 0x02, "flags");
_Static_assert(sizeof(dim3) == 12, "dim3");
_Static_assert(sizeof(struct cudaMemLocation) == 8, "cudaMemLocation");

#define OFFSET(type, name, dims) out[n++] = offsetof(struct cudaDeviceProp, name);
size_t abi_cuda_devprop(size_t *out, size_t *size)
{
	size_t n = 0;
	RT_DEVPROP_FIELDS(OFFSET)
	*size = sizeof(struct cudaDeviceProp);
	return n;
}
#undef OFFSET

#define OFFSET(type, name, dims) out[n++] = offsetof(struct cudaFuncAttributes, name);
size_t abi_cuda_funcattr(size_t *out, size_t *size)
{
	size_t n = 0;
	RT_FUNCATTR_FIELDS(OFFSET)
	*size = sizeof(struct cudaFuncAttributes);
	return n;
}
#undef OFFSET

#define OFFSET(type, name, dims) out[n++] = offsetof(struct cudaPointerAttributes, name);
size_t abi_cuda_ptrattr(size_t *out, size_t *size)
{
	size_t n = 0;
	RT_PTRATTR_FIELDS(OFFSET)
	*size = sizeof(struct cudaPointerAttributes);
	return n;
}
#undef OFFSET

#define OFFSET(type, name, dims) out[n++] = offsetof(cudaLaunchConfig_t, name);
size_t abi_cuda_launchcfg(size_t *out, size_t *size)
{
	size_t n = 0;
	RT_LAUNCHCFG_FIELDS(OFFSET)
	*size = sizeof(cudaLaunchConfig_t);
	return n;
}
#undef OFFSET

void abi_cuda_launchattr(size_t *size, size_t *val_offset, size_t *val_size)
{
	*size = sizeof(cudaLaunchAttribute);
	*val_offset = offsetof(cudaLaunchAttribute, val);
	*val_size = sizeof(cudaLaunchAttributeValue);
}

size_t abi_cuda_texture(size_t *out)
{
	size_t n = 0;
#define VALUE(expr) out[n++] = (expr);
	ABI_TEXTURE_LAYOUT(VALUE)
#undef VALUE
	return n;
}

size_t abi_cuda_graph(size_t *out)
{
	size_t n = 0;
#define VALUE(expr) out[n++] = (expr);
	ABI_GRAPH_LAYOUT(VALUE)
#undef VALUE
	return n;
}
