// malloc/free and new/delete in kernels (issue 18: NVIDIA's newdelete): a block per
// thread, written and read back; one block shared through shared memory; objects made
// with new and destroyed with delete in a later launch; a heap too small for a request
// (malloc returns NULL, as the CUDA programming guide says), its size set before the
// first malloc kernel (a later set is refused, as the runtime API says); a free of a
// pointer malloc did not return, which stops the kernel at its line on the emulator.
#include "check.h"

struct Pair {
	int a, b;
	__device__ Pair(int x) : a(x), b(2 * x) {}
};

__global__ void perThread(int *ok)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int *p = (int *)malloc(8 * sizeof(int));
	if (!p)
		return;
	for (int i = 0; i < 8; i++)
		p[i] = t + i;
	int s = 0;
	for (int i = 0; i < 8; i++)
		s += p[i];
	free(p);
	if (s == 8 * t + 28)
		atomicAdd(ok, 1);
}

__global__ void perBlock(int *sums)
{
	__shared__ int *buf;
	if (threadIdx.x == 0)
		buf = (int *)malloc(blockDim.x * sizeof(int));
	__syncthreads();
	if (!buf)
		return;
	buf[threadIdx.x] = threadIdx.x;
	__syncthreads();
	if (threadIdx.x == 0) {
		int s = 0;
		for (int i = 0; i < blockDim.x; i++)
			s += buf[i];
		sums[blockIdx.x] = s;
		free(buf);
	}
}

__global__ void make(Pair **slot, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < n)
		slot[t] = new Pair(t);
}

__global__ void readAndDelete(Pair **slot, int n, int *sum)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < n) {
		atomicAdd(sum, slot[t]->a + slot[t]->b);
		delete slot[t];
	}
}

__global__ void tooBig(unsigned long long *got)
{
	void *p = malloc((size_t)64 << 20);
	*got = p != NULL;
	free(p);
}

__global__ void badFree(int *p)
{
	free(p + 1);
}

int main()
{
	int *ok, *sums, *sum;
	CHECK(cudaMallocManaged(&ok, sizeof(int)));
	CHECK(cudaMallocManaged(&sums, 4 * sizeof(int)));
	CHECK(cudaMallocManaged(&sum, sizeof(int)));
	// the heap's size is set before the first kernel that uses malloc, as CUDA requires
	CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
	*ok = 0;
	perThread<<<4, 64>>>(ok);
	CHECK(cudaDeviceSynchronize());
	printf("per-thread blocks right: %d of 256\n", *ok);
	perBlock<<<4, 128>>>(sums);
	CHECK(cudaDeviceSynchronize());
	printf("per-block sums: %d %d %d %d\n", sums[0], sums[1], sums[2], sums[3]);
	Pair **slot;
	CHECK(cudaMalloc(&slot, 100 * sizeof(Pair *)));
	*sum = 0;
	make<<<1, 128>>>(slot, 100);
	readAndDelete<<<1, 128>>>(slot, 100, sum);
	CHECK(cudaDeviceSynchronize());
	printf("new/delete: sum %d\n", *sum);
	printf("heap size set after malloc kernels ran: %s\n",
	       cudaGetErrorName(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 << 20)));
	cudaGetLastError();
	size_t heap = 0;
	CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
	unsigned long long *got;
	CHECK(cudaMallocManaged(&got, sizeof *got));
	tooBig<<<1, 1>>>(got);
	CHECK(cudaDeviceSynchronize());
	printf("heap %zu MiB: a 64 MiB malloc %s\n", heap >> 20, *got ? "succeeded" : "returned NULL");
	int *d;
	CHECK(cudaMalloc(&d, 64));
	badFree<<<1, 1>>>(d);
	printf("a free of a pointer malloc did not return: %s\n",
	       cudaGetErrorName(cudaDeviceSynchronize()));
	return 0;
}
