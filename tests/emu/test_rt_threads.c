/* Several host threads calling the runtime at once (issue 18: cuda-samples' cudaOpenMP,
 * where each OpenMP thread drives the device): choosing the device and its settings,
 * allocating device, managed and pinned memory, synchronous and asynchronous copies and
 * sets, 2-D copies, launches on the default stream and on streams of their own, events,
 * frees. Every thread's results must be its own, and under ThreadSanitizer (the emu suite
 * of build-tsan, docs/HACKING.md) nothing may race: the synchronous calls' work runs on
 * the device thread (cudart_async.h's rt_async_run), never beside another thread's
 * kernel, whose launch scans the written flags of managed and pinned memory. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cudart_device.h"
#include "cudart_errors.h"
#include "cudart_launch.h"
#include "cudart_memory.h"
#include "cudart_registry.h"
#include "cudart_stream.h"

#define THREADS 4
#define ROUNDS 3
#define N 3000 /* ints a thread works on: not a multiple of the block */

/* a[i] += b for i < n (nvcc -arch=compute_90 writes the same, less its line info) */
static const char add_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".visible .entry _Z11addConstantPiii(.param .u64 a, .param .u32 b, .param .u32 n)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"
	"\tld.param.u64 %rd1, [a];\n\tld.param.u32 %r1, [b];\n\tld.param.u32 %r2, [n];\n"
	"\tmov.u32 %r3, %ctaid.x;\n\tmov.u32 %r4, %ntid.x;\n\tmov.u32 %r5, %tid.x;\n"
	"\tmad.lo.s32 %r6, %r3, %r4, %r5;\n"
	"\tsetp.ge.s32 %p1, %r6, %r2;\n\t@%p1 bra DONE;\n"
	"\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.s32 %rd3, %r6, 4;\n"
	"\tadd.s64 %rd2, %rd2, %rd3;\n\tld.global.u32 %r7, [%rd2];\n"
	"\tadd.s32 %r7, %r7, %r1;\n\tst.global.u32 [%rd2], %r7;\n"
	"DONE:\n\tret;\n}\n";

static void add_stub(void) {}

static cudaError_t add(int *a, int b, int n, cudaStream_t s)
{
	void *args[] = {&a, &b, &n};
	return cudaLaunchKernel((const void *)(uintptr_t)add_stub, (dim3){(N + 127) / 128, 1, 1},
				(dim3){128, 1, 1}, args, 0, s);
}

struct worker {
	int index;
	int failed; /* calls that did not return cudaSuccess */
	int wrong;  /* elements that did not come back as computed */
	int host[N];
};

#define CALL(w, call) ((w)->failed += (call) != cudaSuccess)

/* One round of one thread: host -> device (+t+1, default stream) -> managed (+10, its
 * own stream, an event) -> pinned (2-D copy, two rows) -> host. */
static void one_round(struct worker *w)
{
	int t = w->index, dev = -1, *d = NULL, *managed = NULL, *pinned = NULL;
	size_t bytes = N * sizeof(int), limit = 0;
	unsigned flags = 0;
	CALL(w, cudaSetDevice(0));
	CALL(w, cudaGetDevice(&dev));
	w->failed += dev != 0;
	CALL(w, cudaSetDeviceFlags(0x4)); /* cudaDeviceMapHost */
	CALL(w, cudaGetDeviceFlags(&flags));
	CALL(w, cudaDeviceSetCacheConfig(t % 4));
	CALL(w, cudaDeviceGetLimit(&limit, 1));
	CALL(w, cudaMalloc((void **)&d, bytes));
	CALL(w, cudaMallocManaged((void **)&managed, bytes, 1));
	CALL(w, cudaMallocHost((void **)&pinned, bytes));
	for (int i = 0; i < N; i++)
		w->host[i] = i;
	CALL(w, cudaMemset(d, 0xff, bytes));
	CALL(w, cudaMemcpy(d, w->host, bytes, cudaMemcpyHostToDevice));
	CALL(w, add(d, t + 1, N, 0));
	CALL(w, cudaStreamSynchronize(0));
	cudaStream_t s = NULL;
	cudaEvent_t done = NULL;
	CALL(w, cudaStreamCreate(&s));
	CALL(w, cudaEventCreate(&done));
	CALL(w, cudaMemcpyAsync(managed, d, bytes, cudaMemcpyDeviceToDevice, s));
	CALL(w, add(managed, 10, N, s));
	CALL(w, cudaEventRecord(done, s));
	CALL(w, cudaEventSynchronize(done));
	CALL(w, cudaMemset(pinned, 0, bytes));
	CALL(w, cudaMemcpy2D(pinned, bytes / 2, managed, bytes / 2, bytes / 2, 2,
			     cudaMemcpyDefault));
	CALL(w, cudaMemcpy(w->host, pinned, bytes, cudaMemcpyHostToHost));
	for (int i = 0; i < N; i++)
		w->wrong += w->host[i] != i + t + 1 + 10;
	CALL(w, cudaEventDestroy(done));
	CALL(w, cudaStreamDestroy(s));
	CALL(w, cudaFreeHost(pinned));
	CALL(w, cudaFree(managed));
	CALL(w, cudaFree(d));
	CALL(w, cudaGetLastError());
}

static void *host_thread(void *arg)
{
	struct worker *w = arg;
	for (int r = 0; r < ROUNDS; r++)
		one_round(w);
	return NULL;
}

static void test_host_threads(void **state)
{
	(void)state;
	char path[] = "/tmp/pmpplab-rt-threads-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, add_ptx, sizeof add_ptx - 1), (ssize_t)(sizeof add_ptx - 1));
	close(fd);
	setenv("PMPPLAB_EMU_PTX", path, 1); /* the kernel's PTX: no fat binary needed */
	static int wrapper;
	void **h = __cudaRegisterFatBinary(&wrapper);
	assert_non_null(h);
	static char mangled[] = "_Z11addConstantPiii";
	__cudaRegisterFunction(h, (const char *)(uintptr_t)add_stub, mangled, mangled, -1, NULL,
			       NULL, NULL, NULL, NULL);

	static struct worker workers[THREADS];
	pthread_t th[THREADS];
	for (int t = 0; t < THREADS; t++) {
		workers[t].index = t;
		assert_int_equal(pthread_create(&th[t], NULL, host_thread, &workers[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	unlink(path);
	for (int t = 0; t < THREADS; t++) {
		assert_int_equal(workers[t].failed, 0);
		assert_int_equal(workers[t].wrong, 0);
	}
	__cudaUnregisterFatBinary(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
