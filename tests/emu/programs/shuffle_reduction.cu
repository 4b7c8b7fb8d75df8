// Reductions with warp shuffles (PMPP chapter 10 / CUDA samples style): a warp-level
// __shfl_down_sync sum, a shared-memory tree over the warps of a block, atomicAdd of the
// block sums, and a __shfl_xor_sync butterfly for the maximum.
#include "check.h"

__inline__ __device__ int warpSum(int v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffff, v, off);
	return v;
}

__inline__ __device__ int warpMax(int v)
{
	for (int mask = 16; mask > 0; mask >>= 1)
		v = max(v, __shfl_xor_sync(0xffffffff, v, mask));
	return v;
}

__global__ void reduceSum(const int *in, unsigned long long *total, int n)
{
	__shared__ int warpSums[32];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	int v = i < n ? in[i] : 0;
	v = warpSum(v);
	if (lane == 0)
		warpSums[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < blockDim.x / 32 ? warpSums[lane] : 0;
		v = warpSum(v);
		if (lane == 0)
			atomicAdd(total, (unsigned long long)(long long)v);
	}
}

__global__ void reduceMax(const int *in, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = i < n ? in[i] : INT_MIN;
	v = warpMax(v);
	if (threadIdx.x % 32 == 0)
		atomicMax(out, v);
}

// Per-block partial sums in a tree over shared memory (the classic version).
__global__ void reduceTree(const int *in, int *partial, int n)
{
	extern __shared__ int s[];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + t;
	int v = 0;
	if (i < n)
		v = in[i];
	if (i + blockDim.x < n)
		v += in[i + blockDim.x];
	s[t] = v;
	__syncthreads();
	for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (t < stride)
			s[t] += s[t + stride];
		__syncthreads();
	}
	if (t == 0)
		partial[blockIdx.x] = s[0];
}

int main()
{
	const int n = (1 << 18) + 77;
	int *h = (int *)malloc(n * sizeof(int));
	long long expect = 0;
	int expectMax = INT_MIN;
	unsigned x = 12345;
	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		h[i] = (int)((x >> 16) % 2001) - 1000;
		expect += h[i];
		expectMax = h[i] > expectMax ? h[i] : expectMax;
	}
	int *d, *dMax, *dPartial;
	unsigned long long *dTotal;
	CHECK(cudaMalloc(&d, n * sizeof(int)));
	CHECK(cudaMalloc(&dTotal, sizeof(unsigned long long)));
	CHECK(cudaMalloc(&dMax, sizeof(int)));
	CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
	CHECK(cudaMemset(dTotal, 0, sizeof(unsigned long long)));
	int lowest = INT_MIN;
	CHECK(cudaMemcpy(dMax, &lowest, sizeof(int), cudaMemcpyHostToDevice));

	GpuTimer t;
	t.begin();
	reduceSum<<<(n + 255) / 256, 256>>>(d, dTotal, n);
	CHECK(cudaGetLastError());
	reduceMax<<<(n + 127) / 128, 128>>>(d, dMax, n);
	CHECK(cudaGetLastError());
	t.end("shuffle reductions");
	unsigned long long total;
	int mx;
	CHECK(cudaMemcpy(&total, dTotal, sizeof total, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&mx, dMax, sizeof mx, cudaMemcpyDeviceToHost));
	printf("shuffle sum=%lld (expected %lld) max=%d (expected %d)\n", (long long)total, expect, mx, expectMax);

	const int threads = 512, blocks = (n + 2 * threads - 1) / (2 * threads);
	CHECK(cudaMalloc(&dPartial, blocks * sizeof(int)));
	t.begin();
	reduceTree<<<blocks, threads, threads * sizeof(int)>>>(d, dPartial, n);
	CHECK(cudaGetLastError());
	t.end("tree reduction");
	int *partial = (int *)malloc(blocks * sizeof(int));
	CHECK(cudaMemcpy(partial, dPartial, blocks * sizeof(int), cudaMemcpyDeviceToHost));
	long long tree = 0;
	for (int b = 0; b < blocks; b++)
		tree += partial[b];
	printf("tree sum=%lld over %d blocks, partial[0]=%d partial[last]=%d\n", tree, blocks, partial[0], partial[blocks - 1]);

	int ok = (long long)total == expect && mx == expectMax && tree == expect;
	CHECK(cudaFree(d));
	CHECK(cudaFree(dTotal));
	CHECK(cudaFree(dMax));
	CHECK(cudaFree(dPartial));
	free(h), free(partial);
	printf("%s\n", ok ? "PASS" : "FAIL");
	return !ok;
}
