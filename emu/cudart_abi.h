/* cudart_abi — the CUDA 13 runtime's types, as host code compiled by nvcc sees them.
 *
 * The replacement runtime is C and must build without the CUDA toolkit, so it declares
 * the few types that cross the boundary itself, with the real names and layouts
 * (driver_types.h, vector_types.h of CUDA 13.0). tests/emu/test_rt_abi.c compares every
 * value and field offset here with the toolkit's headers. Never include this together
 * with the real cuda_runtime_api.h: the names are the same on purpose.
 */
#ifndef PMPPLAB_EMU_CUDART_ABI_H
#define PMPPLAB_EMU_CUDART_ABI_H

#include <stddef.h>

#include "cudart_abi_fields.h"

/* Every error code of CUDA 13.0 (values from driver_types.h). */
typedef enum cudaError {
#define RT_ERR(value, name, message) name = value,
#include "cudart_errtab.h"
#undef RT_ERR
} cudaError_t;

/* dim3 is a plain struct of three unsigned ints (12 bytes) in C and C++ alike, so it is
 * passed by value identically from nvcc's C++ host code. */
typedef struct dim3 {
	unsigned int x, y, z;
} dim3;

enum cudaMemcpyKind {
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4,
};

enum cudaMemoryType {
	cudaMemoryTypeUnregistered = 0,
	cudaMemoryTypeHost = 1,
	cudaMemoryTypeDevice = 2,
	cudaMemoryTypeManaged = 3,
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUkern_st *cudaKernel_t;

typedef struct CUuuid_st {
	char bytes[16];
} cudaUUID_t;

enum cudaDeviceAttr {
#define RT_DEVATTR_ENUM(name, value) name = value,
	RT_DEVATTRS(RT_DEVATTR_ENUM)
#undef RT_DEVATTR_ENUM
};

#define RT_FIELD_DECL(type, name, dims) type name dims;
struct cudaDeviceProp {
	RT_DEVPROP_FIELDS(RT_FIELD_DECL)
};

struct cudaFuncAttributes {
	RT_FUNCATTR_FIELDS(RT_FIELD_DECL)
};

struct cudaPointerAttributes {
	RT_PTRATTR_FIELDS(RT_FIELD_DECL)
};
#undef RT_FIELD_DECL

/* Where cudaMemPrefetchAsync / cudaMemAdvise move managed memory (CUDA 13 form). */
struct cudaMemLocation {
	int type; /* enum cudaMemLocationType */
	int id;
};

enum cudaLaunchAttributeID {
#define RT_LAUNCHATTR_ENUM(name, value) name = value,
	RT_LAUNCHATTRS(RT_LAUNCHATTR_ENUM)
#undef RT_LAUNCHATTR_ENUM
};

/* One attribute of cudaLaunchKernelExC: the value is a 64-byte union, of which the
 * members read here are declared. */
typedef struct cudaLaunchAttribute_st {
	enum cudaLaunchAttributeID id;
	char pad[8 - sizeof(enum cudaLaunchAttributeID)];
	union {
		char pad[64];
		int cooperative;
		struct {
			unsigned int x, y, z;
		} clusterDim;
		struct {
			cudaEvent_t event;
			int flags;
			int triggerAtBlockStart;
		} programmaticEvent;
		struct {
			cudaEvent_t event;
			int flags;
		} launchCompletionEvent;
	} val;
} cudaLaunchAttribute;

#define RT_FIELD_DECL(type, name, dims) type name dims;
typedef struct cudaLaunchConfig_st {
	RT_LAUNCHCFG_FIELDS(RT_FIELD_DECL)
} cudaLaunchConfig_t;
#undef RT_FIELD_DECL

typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

/* cudaHostAlloc / cudaMallocManaged / cudaEventCreateWithFlags flags we look at. */
#define cudaHostAllocDefault 0x00
#define cudaHostAllocMapped 0x02
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaEventDisableTiming 0x02

#endif
