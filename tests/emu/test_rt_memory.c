/* Unit tests of cudart_memory, cudart_stream and cudart_device: allocation, copies in
 * every direction with the misuses the real runtime rejects (codes measured on an H200),
 * symbols-free paths, events and streams, properties. No kernel runs here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cudart_device.h"
#include "cudart_errors.h"
#include "cudart_memhints.h"
#include "cudart_memory.h"
#include "cudart_pool.h"
#include "cudart_report.h"
#include "cudart_stream.h"
#include "devmem.h"

static int reset(void **state)
{
	(void)state;
	cudaDeviceReset();
	return 0;
}

static void test_roundtrip(void **state)
{
	(void)state;
	int host[64], back[64];
	for (int i = 0; i < 64; i++)
		host[i] = i * 3 - 7;
	int *d = NULL;
	assert_int_equal(cudaMalloc((void **)&d, sizeof host), cudaSuccess);
	assert_non_null(d);
	assert_true(devmem_in_device_range((uint64_t)(uintptr_t)d));
	assert_int_equal(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);
	int *d2 = NULL;
	assert_int_equal(cudaMalloc((void **)&d2, sizeof host), cudaSuccess);
	/* not cleared: a sum accumulated into it without a cudaMemset is wrong here (0xCD
	 * bytes), where a GPU's fresh memory often reads as zeros */
	assert_int_equal(cudaMemcpy(back, d2, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_int_equal((unsigned)back[5], 0xCDCDCDCDu);
	assert_int_equal(cudaMemcpy(d2, d, sizeof host, cudaMemcpyDeviceToDevice), cudaSuccess);
	memset(back, 0, sizeof back);
	assert_int_equal(cudaMemcpy(back, d2, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_memory_equal(back, host, sizeof host);
	assert_int_equal(cudaMemset(d2, 0xff, 8), cudaSuccess);
	assert_int_equal(cudaMemcpyAsync(back, d2, 16, cudaMemcpyDefault, 0), cudaSuccess);
	assert_int_equal(back[0], -1);
	assert_int_equal(back[1], -1);
	assert_int_equal(back[2], host[2]);
	assert_int_equal(cudaFree(d), cudaSuccess);
	assert_int_equal(cudaFree(d2), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	/* zero bytes: success and NULL, as on a GPU */
	d = (int *)1;
	assert_int_equal(cudaMalloc((void **)&d, 0), cudaSuccess);
	assert_null(d);
}

static void test_copy_misuse(void **state)
{
	(void)state;
	char host[256] = {0}, *heap = malloc(256);
	char *d = NULL;
	assert_int_equal(cudaMalloc((void **)&d, 256), cudaSuccess);
	/* host pointer where a device one is needed */
	assert_int_equal(cudaMemcpy(heap, host, 256, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	assert_int_equal(cudaMemcpy(host, heap, 256, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
	assert_int_equal(cudaMemset(heap, 0, 256), cudaErrorInvalidValue);
	/* a device pointer where a host one is named: a GPU copies anyway */
	assert_int_equal(cudaMemcpy(d, d, 256, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_int_equal(cudaMemcpy(d, d, 256, cudaMemcpyHostToDevice), cudaSuccess);
	/* ranges past the end, NULL, bad kind, zero bytes */
	assert_int_equal(cudaMemcpy(host, d, 512, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
	assert_int_equal(cudaMemset(d, 0, 1024), cudaErrorInvalidValue);
	assert_int_equal(cudaMemcpy(NULL, host, 8, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	assert_int_equal(cudaMemcpy(d, host, 8, (enum cudaMemcpyKind)7),
			 cudaErrorInvalidMemcpyDirection);
	assert_int_equal(cudaMemcpy(heap, host, 0, cudaMemcpyHostToDevice), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
	/* a freed pointer */
	assert_int_equal(cudaFree(d), cudaSuccess);
	assert_int_equal(cudaMemcpy(d, host, 8, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	free(heap);
}

static void test_free_misuse(void **state)
{
	(void)state;
	int stack[4];
	int *heap = malloc(16), *d = NULL;
	assert_int_equal(cudaFree(NULL), cudaSuccess);
	assert_int_equal(cudaFree(heap), cudaErrorInvalidValue);
	assert_int_equal(cudaFree(stack), cudaErrorInvalidValue);
	assert_int_equal(cudaMalloc((void **)&d, 64), cudaSuccess);
	assert_int_equal(cudaFree(d + 1), cudaErrorInvalidValue);
	assert_int_equal(cudaFreeHost(d), cudaErrorInvalidValue);
	assert_int_equal(cudaFree(d), cudaSuccess);
	assert_int_equal(cudaFree(d), cudaErrorInvalidValue); /* double free */
	free(heap);
}

static void test_host_and_managed_memory(void **state)
{
	(void)state;
	int *pinned = NULL, *managed = NULL, *d = NULL;
	assert_int_equal(cudaMallocHost((void **)&pinned, 64), cudaSuccess);
	assert_int_equal(cudaMallocManaged((void **)&managed, 64, cudaMemAttachGlobal), cudaSuccess);
	pinned[3] = 42; /* both are host-addressable */
	managed[5] = 17;
	assert_int_equal(cudaMalloc((void **)&d, 64), cudaSuccess);
	assert_int_equal(cudaMemcpy(d, pinned, 64, cudaMemcpyHostToDevice), cudaSuccess);
	assert_int_equal(cudaMemcpy(managed, d, 64, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(managed[3], 42);
	struct cudaPointerAttributes a;
	assert_int_equal(cudaPointerGetAttributes(&a, d), cudaSuccess);
	assert_int_equal(a.type, cudaMemoryTypeDevice);
	assert_int_equal(cudaPointerGetAttributes(&a, managed), cudaSuccess);
	assert_int_equal(a.type, cudaMemoryTypeManaged);
	assert_int_equal(cudaPointerGetAttributes(&a, pinned), cudaSuccess);
	assert_int_equal(a.type, cudaMemoryTypeHost);
	int local;
	assert_int_equal(cudaPointerGetAttributes(&a, &local), cudaSuccess);
	assert_int_equal(a.type, cudaMemoryTypeUnregistered);
	assert_int_equal(cudaFree(pinned), cudaErrorInvalidValue);
	assert_int_equal(cudaFreeHost(pinned), cudaSuccess);
	assert_int_equal(cudaFree(managed), cudaSuccess);
	assert_int_equal(cudaFree(d), cudaSuccess);
}

static void test_mem_info_and_limits(void **state)
{
	(void)state;
	size_t free0, total, free1;
	assert_int_equal(cudaMemGetInfo(&free0, &total), cudaSuccess);
	assert_int_equal(total, rt_device_props()->totalGlobalMem);
	void *d;
	assert_int_equal(cudaMalloc(&d, 1 << 20), cudaSuccess);
	assert_int_equal(cudaMemGetInfo(&free1, &total), cudaSuccess);
	assert_int_equal(free0 - free1, 1 << 20);
	void *huge = (void *)1;
	assert_int_equal(cudaMalloc(&huge, (size_t)1 << 50), cudaErrorMemoryAllocation);
	assert_null(huge);
	assert_int_equal(cudaGetLastError(), cudaErrorMemoryAllocation);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaFree(d), cudaSuccess);
}

static void test_sticky_blocks_memory_calls(void **state)
{
	(void)state;
	void *d = NULL;
	assert_int_equal(cudaMalloc(&d, 64), cudaSuccess);
	rt_error_set_pending(cudaErrorIllegalAddress);
	assert_int_equal(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	assert_int_equal(cudaMalloc(&d, 64), cudaErrorIllegalAddress);
	int count = 0;
	assert_int_equal(cudaGetDeviceCount(&count), cudaSuccess);
	assert_int_equal(cudaDeviceReset(), cudaSuccess);
	assert_int_equal(cudaMalloc(&d, 64), cudaSuccess);
	/* the reset freed what was allocated before it */
	assert_int_equal(cudaFree(d), cudaSuccess);
}

static void test_events_and_streams(void **state)
{
	(void)state;
	cudaEvent_t a, b;
	cudaStream_t s;
	float ms = -1;
	assert_int_equal(cudaEventCreate(&a), cudaSuccess);
	assert_int_equal(cudaEventCreate(&b), cudaSuccess);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaEventRecord(a, s), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
	/* the device thread takes the time when it reaches the record: let it, then wait */
	assert_int_equal(cudaEventSynchronize(a), cudaSuccess);
	usleep(2000);
	assert_int_equal(cudaEventRecord(b, 0), cudaSuccess);
	assert_int_equal(cudaEventSynchronize(b), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
	assert_true(ms >= 1.5f && ms < 1000.0f);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaEventDestroy(a), cudaSuccess);
	assert_int_equal(cudaEventDestroy(a), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaEventDestroy(b), cudaSuccess);
	cudaGetLastError();
}

static void test_device_properties(void **state)
{
	(void)state;
	struct cudaDeviceProp p;
	int v = 0, n = 0;
	assert_int_equal(cudaGetDeviceCount(&n), cudaSuccess);
	assert_int_equal(n, 1);
	assert_int_equal(cudaGetDeviceProperties(&p, 0), cudaSuccess);
	/* the model PMPPLAB_EMU_DEVICE picks (meson runs this with none and with a100) */
	const char *dev = getenv("PMPPLAB_EMU_DEVICE");
	bool a100 = dev && !strcmp(dev, "a100");
	assert_string_equal(p.name, a100 ? "pmpplab emulated A100 (sm_80)"
					 : "pmpplab emulated H100 (sm_90)");
	assert_int_equal(p.major, a100 ? 8 : 9);
	assert_int_equal(p.multiProcessorCount, a100 ? 108 : 132);
	assert_int_equal(p.sharedMemPerMultiprocessor, (a100 ? 164 : 228) * 1024);
	assert_int_equal(p.sharedMemPerBlockOptin, (a100 ? 163 : 227) * 1024);
	assert_int_equal(p.reservedSharedMemPerBlock, 1024);
	assert_int_equal(p.maxThreadsPerMultiProcessor, 2048);
	assert_int_equal(p.maxBlocksPerMultiProcessor, 32);
	assert_int_equal(p.l2CacheSize, (a100 ? 40 : 50) * 1024 * 1024);
	assert_int_equal(p.warpSize, 32);
	assert_int_equal(p.maxThreadsPerBlock, 1024);
	assert_int_equal(p.maxThreadsDim[2], 64);
	assert_int_equal(p.sharedMemPerBlock, 48 * 1024);
	assert_int_equal(cudaGetDeviceProperties(&p, 7), cudaErrorInvalidDevice);
	assert_int_equal(cudaSetDevice(7), cudaErrorInvalidDevice);
	assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrMaxBlockDimZ, 0), cudaSuccess);
	assert_int_equal(v, 64);
	assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
	assert_int_equal(v, a100 ? 8 : 9);
	assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0), cudaSuccess);
	assert_int_equal(v, a100 ? 1410000 : 1980000); /* kHz, as the cards report it */
	assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
	assert_int_equal(v, a100 ? 108 : 132);
	assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 3), cudaErrorInvalidDevice);
	cudaGetLastError();
}

static void test_hostderef_message(void **state)
{
	(void)state;
	char *d = NULL, msg[512];
	assert_int_equal(cudaMalloc((void **)&d, 4000), cudaSuccess);
	rt_report_hostderef_message((uint64_t)(uintptr_t)(d + 12), msg, sizeof msg);
	assert_non_null(strstr(msg, "host code dereferenced device pointer 0x"));
	assert_non_null(strstr(msg, "(inside a 4000-byte cudaMalloc allocation, 12 bytes from its start)"));
	assert_non_null(strstr(msg, "cudaMemcpy(..., cudaMemcpyDeviceToHost)"));
	assert_int_equal(cudaFree(d), cudaSuccess);
	rt_report_hostderef_message((uint64_t)(uintptr_t)d, msg, sizeof msg);
	assert_non_null(strstr(msg, "inside a 4000-byte cudaMalloc allocation that was already freed"));
}

static void host_fn(void *data)
{
	++*(int *)data;
}

static void stream_cb(cudaStream_t s, cudaError_t status, void *data)
{
	(void)s;
	*(int *)data += status == cudaSuccess ? 10 : 1000;
}

static void test_async_and_hints(void **state)
{
	(void)state;
	cudaStream_t s;
	assert_int_equal(cudaStreamCreateWithFlags(&s, 1), cudaSuccess);
	unsigned flags = 7;
	assert_int_equal(cudaStreamGetFlags(s, &flags), cudaSuccess);
	assert_int_equal(flags, 1);
	char *d = NULL;
	assert_int_equal(cudaMallocAsync((void **)&d, 64 * 8, s), cudaSuccess);
	assert_int_equal(cudaMemset2D(d, 64, 7, 60, 8), cudaSuccess);
	assert_int_equal(cudaMemset2D(d, 64, 7, 65, 8), cudaErrorInvalidPitchValue);
	assert_int_equal(cudaMemset2D(d, 64, 7, 64, 9), cudaErrorInvalidValue); /* row 9 is past the end */
	char row[64];
	assert_int_equal(cudaMemcpy(row, d + 7 * 64, 64, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_int_equal(row[59], 7);
	assert_int_equal((unsigned char)row[60], 0xCD); /* not cleared: what cudaMalloc left */
	/* 2D copies: rows of 60 bytes out of a 64-byte pitch; a span past the end copies
	 * nothing */
	char rows[8 * 60];
	assert_int_equal(cudaMemcpy2D(rows, 60, d, 64, 60, 8, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_int_equal(rows[7 * 60 + 59], 7);
	memset(rows, 3, sizeof rows);
	assert_int_equal(cudaMemcpy2D(d, 64, rows, 60, 60, 9, cudaMemcpyHostToDevice),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemcpy(row, d, 64, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_int_equal(row[0], 7);
	assert_int_equal(cudaMemcpy2D(d, 64, rows, 60, 61, 8, cudaMemcpyHostToDevice),
			 cudaErrorInvalidPitchValue);
	assert_int_equal(cudaFreeAsync(d, s), cudaSuccess);
	int calls = 0;
	assert_int_equal(cudaLaunchHostFunc(s, host_fn, &calls), cudaSuccess);
	assert_int_equal(cudaStreamAddCallback(s, stream_cb, &calls, 0), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess); /* they run on the device thread */
	assert_int_equal(calls, 11);
	char buf[128];
	assert_int_equal(cudaHostRegister(buf, sizeof buf, 0), cudaSuccess);
	assert_int_equal(cudaHostRegister(buf, sizeof buf, 0), cudaErrorHostMemoryAlreadyRegistered);
	assert_int_equal(cudaHostUnregister(buf), cudaSuccess);
	assert_int_equal(cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
	int *m = NULL;
	assert_int_equal(cudaMallocManaged((void **)&m, 256, cudaMemAttachGlobal), cudaSuccess);
	struct cudaMemLocation loc = {1, 0};
	assert_int_equal(cudaMemPrefetchAsync(m, 256, loc, 0, s), cudaSuccess);
	assert_int_equal(cudaMemAdvise(m, 256, 1, loc), cudaSuccess);
	assert_int_equal(cudaMemPrefetchAsync(buf, 16, loc, 0, s), cudaErrorInvalidValue);
	assert_int_equal(cudaFree(m), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	cudaGetLastError();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_roundtrip, reset),
		cmocka_unit_test_setup(test_copy_misuse, reset),
		cmocka_unit_test_setup(test_free_misuse, reset),
		cmocka_unit_test_setup(test_host_and_managed_memory, reset),
		cmocka_unit_test_setup(test_mem_info_and_limits, reset),
		cmocka_unit_test_setup(test_sticky_blocks_memory_calls, reset),
		cmocka_unit_test_setup(test_events_and_streams, reset),
		cmocka_unit_test_setup(test_device_properties, reset),
		cmocka_unit_test_setup(test_hostderef_message, reset),
		cmocka_unit_test_setup(test_async_and_hints, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
