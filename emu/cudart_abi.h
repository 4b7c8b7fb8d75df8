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

/* The L2 access policy of a stream or launch (cudaAccessPolicyWindow). */
enum cudaAccessProperty {
	cudaAccessPropertyNormal = 0,
	cudaAccessPropertyStreaming = 1,
	cudaAccessPropertyPersisting = 2,
};
struct cudaAccessPolicyWindow {
	void *base_ptr;
	size_t num_bytes;
	float hitRatio;
	enum cudaAccessProperty hitProp;
	enum cudaAccessProperty missProp;
};

/* One attribute of cudaLaunchKernelExC: the value is a 64-byte union, of which the
 * members read here are declared. A stream's attributes are the same union
 * (cudaStreamAttrValue, cudart_attr.c). */
typedef struct cudaLaunchAttribute_st {
	enum cudaLaunchAttributeID id;
	char pad[8 - sizeof(enum cudaLaunchAttributeID)];
	union cudaLaunchAttributeValue {
		char pad[64];
		struct cudaAccessPolicyWindow accessPolicyWindow;
		int cooperative;
		int syncPolicy; /* enum cudaSynchronizationPolicy: 1 auto ... 4 blocking sync */
		int priority;
		struct {
			unsigned char default_, remote;
		} memSyncDomainMap;
		int memSyncDomain;
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

typedef union cudaLaunchAttributeValue cudaLaunchAttributeValue;
typedef cudaLaunchAttributeValue cudaStreamAttrValue;
typedef enum cudaLaunchAttributeID cudaStreamAttrID;

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

/* ---- arrays, textures and surfaces (driver_types.h, texture_types.h, surface_types.h;
 * cudart_array.c, cudart_texture.c) ---- */

enum cudaChannelFormatKind {
	cudaChannelFormatKindSigned = 0,
	cudaChannelFormatKindUnsigned = 1,
	cudaChannelFormatKindFloat = 2,
	cudaChannelFormatKindNone = 3,
	cudaChannelFormatKindNV12 = 4,
	cudaChannelFormatKindUnsignedNormalized8X1 = 5,
	cudaChannelFormatKindUnsignedNormalized16X4 = 10,
	cudaChannelFormatKindSignedNormalized8X1 = 11,
	cudaChannelFormatKindSignedNormalized16X4 = 16,
};

struct cudaChannelFormatDesc {
	int x, y, z, w;
	enum cudaChannelFormatKind f;
};

typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

struct cudaExtent {
	size_t width, height, depth;
};
struct cudaPos {
	size_t x, y, z;
};
struct cudaPitchedPtr {
	void *ptr;
	size_t pitch, xsize, ysize;
};
struct cudaMemcpy3DParms {
	cudaArray_t srcArray;
	struct cudaPos srcPos;
	struct cudaPitchedPtr srcPtr;
	cudaArray_t dstArray;
	struct cudaPos dstPos;
	struct cudaPitchedPtr dstPtr;
	struct cudaExtent extent;
	enum cudaMemcpyKind kind;
};

enum cudaResourceType {
	cudaResourceTypeArray = 0,
	cudaResourceTypeMipmappedArray = 1,
	cudaResourceTypeLinear = 2,
	cudaResourceTypePitch2D = 3,
};
struct cudaResourceDesc {
	enum cudaResourceType resType;
	union {
		struct {
			cudaArray_t array;
		} array;
		struct {
			cudaMipmappedArray_t mipmap;
		} mipmap;
		struct {
			void *devPtr;
			struct cudaChannelFormatDesc desc;
			size_t sizeInBytes;
		} linear;
		struct {
			void *devPtr;
			struct cudaChannelFormatDesc desc;
			size_t width, height, pitchInBytes;
		} pitch2D;
		struct {
			int reserved[32];
		} reserved;
	} res;
	unsigned int flags;
};
struct cudaResourceViewDesc {
	int format; /* enum cudaResourceViewFormat */
	size_t width, height, depth;
	unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
	unsigned int reserved[16];
};

enum cudaTextureAddressMode {
	cudaAddressModeWrap = 0,
	cudaAddressModeClamp = 1,
	cudaAddressModeMirror = 2,
	cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
struct cudaTextureDesc {
	enum cudaTextureAddressMode addressMode[3];
	enum cudaTextureFilterMode filterMode;
	enum cudaTextureReadMode readMode;
	int sRGB;
	float borderColor[4];
	int normalizedCoords;
	unsigned int maxAnisotropy;
	enum cudaTextureFilterMode mipmapFilterMode;
	float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
	int disableTrilinearOptimization;
	int seamlessCubemap;
};

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

/* ---- graphs, stream capture and memory pools (driver_types.h; cudart_graph.c,
 * cudart_capture.c, cudart_pool.c) ---- */

typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
typedef unsigned long long cudaGraphConditionalHandle;

enum cudaStreamCaptureStatus {
	cudaStreamCaptureStatusNone = 0,
	cudaStreamCaptureStatusActive = 1,
	cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaStreamCaptureMode {
	cudaStreamCaptureModeGlobal = 0,
	cudaStreamCaptureModeThreadLocal = 1,
	cudaStreamCaptureModeRelaxed = 2,
};
#define cudaStreamAddCaptureDependencies 0x0
#define cudaStreamSetCaptureDependencies 0x1

enum cudaGraphNodeType {
	cudaGraphNodeTypeKernel = 0x00,
	cudaGraphNodeTypeMemcpy = 0x01,
	cudaGraphNodeTypeMemset = 0x02,
	cudaGraphNodeTypeHost = 0x03,
	cudaGraphNodeTypeGraph = 0x04,
	cudaGraphNodeTypeEmpty = 0x05,
	cudaGraphNodeTypeWaitEvent = 0x06,
	cudaGraphNodeTypeEventRecord = 0x07,
	cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
	cudaGraphNodeTypeExtSemaphoreWait = 0x09,
	cudaGraphNodeTypeMemAlloc = 0x0a,
	cudaGraphNodeTypeMemFree = 0x0b,
	cudaGraphNodeTypeConditional = 0x0d,
	cudaGraphNodeTypeCount,
};

struct cudaKernelNodeParams {
	void *func;
	dim3 gridDim, blockDim;
	unsigned int sharedMemBytes;
	void **kernelParams;
	void **extra;
};
struct cudaMemsetParams {
	void *dst;
	size_t pitch;
	unsigned int value, elementSize;
	size_t width, height;
};
struct cudaHostNodeParams {
	cudaHostFn_t fn;
	void *userData;
};
struct cudaMemcpyNodeParams {
	int flags;
	int reserved[3];
	struct cudaMemcpy3DParms copyParams;
};

enum cudaMemAllocationType { cudaMemAllocationTypeInvalid = 0, cudaMemAllocationTypePinned = 1 };
struct cudaMemPoolProps {
	enum cudaMemAllocationType allocType;
	int handleTypes; /* enum cudaMemAllocationHandleType */
	struct cudaMemLocation location;
	void *win32SecurityAttributes;
	size_t maxSize;
	unsigned short usage;
	unsigned char reserved[54];
};
struct cudaMemAllocNodeParams {
	struct cudaMemPoolProps poolProps;
	const void *accessDescs; /* const struct cudaMemAccessDesc * */
	size_t accessDescCount;
	size_t bytesize;
	void *dptr;
};
struct cudaMemFreeNodeParams {
	void *dptr;
};
enum cudaGraphMemAttributeType {
	cudaGraphMemAttrUsedMemCurrent = 0x0,
	cudaGraphMemAttrUsedMemHigh = 0x1,
	cudaGraphMemAttrReservedMemCurrent = 0x2,
	cudaGraphMemAttrReservedMemHigh = 0x3,
};
enum cudaMemPoolAttr {
	cudaMemPoolReuseFollowEventDependencies = 0x1,
	cudaMemPoolReuseAllowOpportunistic = 0x2,
	cudaMemPoolReuseAllowInternalDependencies = 0x3,
	cudaMemPoolAttrReleaseThreshold = 0x4,
	cudaMemPoolAttrReservedMemCurrent = 0x5,
	cudaMemPoolAttrReservedMemHigh = 0x6,
	cudaMemPoolAttrUsedMemCurrent = 0x7,
	cudaMemPoolAttrUsedMemHigh = 0x8,
};

enum cudaGraphConditionalNodeType {
	cudaGraphCondTypeIf = 0,
	cudaGraphCondTypeWhile = 1,
	cudaGraphCondTypeSwitch = 2,
};
#define cudaGraphCondAssignDefault 1
struct cudaConditionalNodeParams {
	cudaGraphConditionalHandle handle;
	enum cudaGraphConditionalNodeType type;
	unsigned int size;
	cudaGraph_t *phGraph_out;
};
struct cudaChildGraphNodeParams {
	cudaGraph_t graph;
	int ownership; /* enum cudaGraphChildGraphNodeOwnership */
};
/* cudaGraphAddNode's parameters: a 232-byte union after the type. */
struct cudaGraphNodeParams {
	enum cudaGraphNodeType type;
	int reserved0[3];
	union {
		long long reserved1[29];
		struct cudaKernelNodeParams kernel;
		struct cudaMemcpyNodeParams memcpy;
		struct cudaMemsetParams memset;
		struct cudaHostNodeParams host;
		struct cudaChildGraphNodeParams graph;
		struct {
			cudaEvent_t event;
		} eventWait, eventRecord;
		struct cudaMemAllocNodeParams alloc;
		struct cudaMemFreeNodeParams free;
		struct cudaConditionalNodeParams conditional;
	};
	long long reserved2;
};
typedef struct cudaGraphEdgeData_st {
	unsigned char from_port, to_port, type, reserved[5];
} cudaGraphEdgeData;

typedef struct cudaGraphInstantiateParams_st {
	unsigned long long flags;
	cudaStream_t uploadStream;
	cudaGraphNode_t errNode_out;
	int result_out; /* cudaGraphInstantiateResult */
} cudaGraphInstantiateParams;
typedef struct cudaGraphExecUpdateResultInfo_st {
	int result; /* enum cudaGraphExecUpdateResult */
	cudaGraphNode_t errorNode, errorFromNode;
} cudaGraphExecUpdateResultInfo;

#endif
