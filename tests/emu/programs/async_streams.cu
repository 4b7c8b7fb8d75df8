// Streams and events run behind the host's back (issue 18): a kernel that waits for a
// flag the host sets in pinned memory keeps its stream busy for as long as the host
// wants, so the answers below are the same on a GPU and on the emulator:
// cudaStreamQuery/cudaEventQuery say cudaErrorNotReady while the work is pending, the
// host counts iterations while it runs, stream callbacks and host functions run in
// stream order, the default stream waits for the other streams, and reading managed
// memory without cudaDeviceSynchronize() sees the values from before the kernel.
#include <cstdio>
#include "check.h"

__global__ void waitThenFill(volatile int *flag, int *out, int n)
{
	if (threadIdx.x == 0)
		while (*flag == 0) {
		}
	__syncthreads();
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		out[i] = 3 * i + 1;
}

__global__ void addOne(int *data, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		data[i] += 1;
}

static int g_order[8], g_norder;

static void CUDART_CB hostFn(void *tag)
{
	g_order[g_norder++] = (int)(size_t)tag;
}

static void CUDART_CB streamCallback(cudaStream_t, cudaError_t status, void *tag)
{
	g_order[g_norder++] = status == cudaSuccess ? (int)(size_t)tag : -1;
}

int main()
{
	const int n = 4096;
	int *flag, *dev, *host, *managed;
	CHECK(cudaHostAlloc(&flag, 2 * sizeof(int), cudaHostAllocDefault));
	flag[0] = flag[1] = 0;
	CHECK(cudaMalloc(&dev, n * sizeof(int)));
	CHECK(cudaMallocHost(&host, n * sizeof(int)));
	CHECK(cudaMallocManaged(&managed, n * sizeof(int)));
	for (int i = 0; i < n; i++)
		host[i] = managed[i] = 0;

	cudaStream_t s;
	cudaEvent_t start, stop;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));

	// 1. A stream whose kernel waits for the host.
	CHECK(cudaEventRecord(start, s));
	waitThenFill<<<1, 256, 0, s>>>(flag, dev, n);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpyAsync(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s));
	CHECK(cudaLaunchHostFunc(s, hostFn, (void *)1));
	CHECK(cudaStreamAddCallback(s, streamCallback, (void *)2, 0));
	CHECK(cudaEventRecord(stop, s));
	printf("cudaStreamQuery while the kernel waits: %s\n", cudaGetErrorName(cudaStreamQuery(s)));
	printf("cudaEventQuery(stop) while the kernel waits: %s\n",
	       cudaGetErrorName(cudaEventQuery(stop)));
	float ms = -1;
	printf("cudaEventElapsedTime before stop completes: %s\n",
	       cudaGetErrorName(cudaEventElapsedTime(&ms, start, stop)));
	printf("host functions called so far: %d\n", g_norder);
	printf("copied element 5 so far: %d\n", host[5]);

	// The host works while the device does; then releases the kernel and keeps counting
	// until the stop event completes.
	long busy = 0, after = 0;
	for (int k = 0; k < 1000; k++)
		busy += cudaStreamQuery(s) == cudaErrorNotReady;
	printf("host iterations while the kernel waits, of 1000: %ld\n", busy);
	__atomic_store_n(&flag[0], 1, __ATOMIC_SEQ_CST);
	while (cudaEventQuery(stop) == cudaErrorNotReady)
		after++;
	fprintf(stderr, "host iterations while the device worked: %ld\n", after);
	CHECK(cudaEventSynchronize(stop));
	CHECK(cudaEventElapsedTime(&ms, start, stop));
	fprintf(stderr, "time start..stop: %.3f ms\n", ms);
	printf("elapsed time measured: %s\n", ms > 0 ? "yes" : "no");
	printf("cudaStreamQuery after the stop event: %s\n", cudaGetErrorName(cudaStreamQuery(s)));
	printf("copied element 5: %d, element %d: %d\n", host[5], n - 1, host[n - 1]);
	printf("host functions in stream order:");
	for (int i = 0; i < g_norder; i++)
		printf(" %d", g_order[i]);
	printf("\n");

	// 2. The legacy default stream waits for the work of the (blocking) stream s.
	waitThenFill<<<1, 128, 0, s>>>(flag + 1, dev, n);
	addOne<<<(n + 255) / 256, 256>>>(dev, n);
	printf("cudaStreamQuery(0) behind a waiting kernel on s: %s\n",
	       cudaGetErrorName(cudaStreamQuery(0)));
	__atomic_store_n(&flag[1], 1, __ATOMIC_SEQ_CST);
	CHECK(cudaStreamSynchronize(0));
	CHECK(cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost));
	printf("after both: element 5 = %d\n", host[5]);

	// 3. The bug a missing cudaDeviceSynchronize() is: the host reads managed memory
	// before the kernel wrote it.
	flag[0] = 0;
	waitThenFill<<<1, 256>>>(flag, managed, n);
	printf("managed[5] read without cudaDeviceSynchronize: %d\n", managed[5]);
	__atomic_store_n(&flag[0], 1, __ATOMIC_SEQ_CST);
	CHECK(cudaDeviceSynchronize());
	printf("managed[5] after cudaDeviceSynchronize: %d\n", managed[5]);

	// 4. Events on an idle device complete at once.
	CHECK(cudaEventRecord(start, 0));
	CHECK(cudaEventSynchronize(start));
	printf("cudaEventQuery on an idle device: %s\n", cudaGetErrorName(cudaEventQuery(start)));

	CHECK(cudaEventDestroy(start));
	CHECK(cudaEventDestroy(stop));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(managed));
	CHECK(cudaFreeHost(host));
	CHECK(cudaFree(dev));
	CHECK(cudaFreeHost(flag));
	return 0;
}
