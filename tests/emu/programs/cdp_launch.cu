// Dynamic parallelism (issue 18): kernels that launch kernels, as CUDA 12's device runtime
// (CDP2) runs them. nvcc builds it only with -rdc=true, which `pmpplab run` adds when nvcc
// asks for it. Everything printed is a result in memory, read by the host after the
// parent grid (and so all its descendants) ended: a GPU may run children in any order.
#include <cstdio>
#include "check.h"

struct Box {
	int lo, hi;
	double scale;
};

// Fills out[lo, hi) with i * scale, splitting in two until a piece is at most 64 long:
// a recursion of launches, each passing a struct by value.
__global__ void fill(int *out, Box b, int *depth_seen, int depth)
{
	atomicMax(depth_seen, depth);
	int n = b.hi - b.lo;
	if (n > 64) {
		if (threadIdx.x == 0) {
			int mid = b.lo + n / 2;
			Box l = {b.lo, mid, b.scale}, r = {mid, b.hi, b.scale};
			fill<<<1, 32>>>(out, l, depth_seen, depth + 1);
			fill<<<1, 32>>>(out, r, depth_seen, depth + 1);
		}
		return;
	}
	for (int i = b.lo + threadIdx.x; i < b.hi; i += blockDim.x)
		out[i] = (int)(i * b.scale);
}

__global__ void sumInto(const int *v, int n, unsigned long long *sum)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(sum, (unsigned long long)v[i]);
}

// One thread: device-side cudaMalloc, a stream of its own, a child that fills the
// allocation, a second child in the same stream that sums it (stream order), then the
// error codes of a launch with an invalid block.
__global__ void parent(int n, unsigned long long *sum, int *codes)
{
	int *tmp = nullptr;
	codes[0] = cudaMalloc((void **)&tmp, n * sizeof(int));
	cudaStream_t s;
	codes[1] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	Box b = {0, n, 3.0};
	int *depth = (int *)(sum + 1);
	fill<<<1, 32, 0, s>>>(tmp, b, depth, 1);
	codes[2] = cudaGetLastError();
	sumInto<<<(n + 127) / 128, 128, 0, s>>>(tmp, n, sum);
	codes[3] = cudaGetLastError();
	sumInto<<<1, 2048, 0, s>>>(tmp, n, sum); // more than 1024 threads in a block
	codes[4] = cudaGetLastError();
	codes[5] = cudaStreamDestroy(s);
}

// A kernel whose children each launch one more, depth after depth, until the launch
// fails: every grid of the chain is pending until its child completes, so the launch past
// cudaLimitDevRuntimePendingLaunchCount (2048) fails (an H200: depth 2048).
__global__ void deep(int depth, int *reached, int *code)
{
	atomicMax(reached, depth);
	deep<<<1, 1>>>(depth + 1, reached, code);
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		*code = e;
}

int main()
{
	const int n = 1000;
	unsigned long long *sum;
	int *codes;
	CHECK(cudaMallocManaged(&sum, 2 * sizeof(unsigned long long)));
	CHECK(cudaMallocManaged(&codes, 8 * sizeof(int)));
	sum[0] = sum[1] = 0;
	for (int i = 0; i < 8; i++)
		codes[i] = -1;
	parent<<<1, 1>>>(n, sum, codes);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	unsigned long long want = 0;
	for (int i = 0; i < n; i++)
		want += (unsigned long long)(i * 3.0);
	printf("sum of the children's fill: %llu (expected %llu)\n", sum[0], want);
	printf("deepest fill: %d\n", (int)sum[1]);
	printf("cudaMalloc %s, cudaStreamCreateWithFlags %s\n", cudaGetErrorName((cudaError_t)codes[0]),
	       cudaGetErrorName((cudaError_t)codes[1]));
	printf("launches: %s, %s; a 2048-thread block: %s\n", cudaGetErrorName((cudaError_t)codes[2]),
	       cudaGetErrorName((cudaError_t)codes[3]), cudaGetErrorName((cudaError_t)codes[4]));
	printf("cudaStreamDestroy %s\n", cudaGetErrorName((cudaError_t)codes[5]));

	int *reached, *code;
	CHECK(cudaMallocManaged(&reached, sizeof(int)));
	CHECK(cudaMallocManaged(&code, sizeof(int)));
	*reached = 0;
	*code = 0;
	deep<<<1, 1>>>(0, reached, code);
	CHECK(cudaDeviceSynchronize());
	printf("nesting: reached depth %d, then %s\n", *reached, cudaGetErrorName((cudaError_t)*code));
	return 0;
}
