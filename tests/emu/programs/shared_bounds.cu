// Shared memory at its limits. The emulator checks each __shared__ array on its own
// (a poisoned red zone after each, in its own layout only), while what the program
// sees is the PTX's: a kernel with exactly the 48 KiB of static shared memory a block
// may have launches, cudaFuncGetAttributes says 49152 bytes, and so does one with the
// opt-in maximum of dynamic shared memory. A staging loop one past the first of two
// arrays (i <= TILE) faults at its line; a GPU writes into whatever lies there.
#include <cstdio>

#include "check.h"

#define BIG 8192   // floats: 32 KiB
#define SMALL 4096 // 16 KiB: 48 KiB in all
#define TILE 256

// Every element of s[0..n) a thread's stride reaches: v, then their sum.
__device__ void fill(float *s, int n, float v)
{
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		s[i] = v;
}

__device__ float sum(const float *s, int n)
{
	float t = 0.0f;
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		t += s[i];
	return t;
}

__global__ void maxStatic(float *out)
{
	__shared__ float a[BIG];
	__shared__ float b[SMALL];
	fill(a, BIG, 1.0f);
	fill(b, SMALL, 2.0f);
	__syncthreads();
	out[threadIdx.x] = sum(a, BIG) + sum(b, SMALL);
}

__global__ void maxDynamic(float *out, int n)
{
	extern __shared__ float dyn[];
	fill(dyn, n, 1.0f);
	__syncthreads();
	out[threadIdx.x] = sum(dyn, n);
}

__global__ void stageOnePast(float *out)
{
	__shared__ float As[TILE];
	__shared__ float Bs[TILE];
	for (int i = threadIdx.x; i <= TILE; i += blockDim.x)
		As[i] = 1.0f; // one past As: line 53 (tests/emu/programs/meson.build)
	Bs[threadIdx.x] = 2.0f;
	__syncthreads();
	out[threadIdx.x] = As[threadIdx.x] + Bs[threadIdx.x];
}

int main()
{
	float *d, h[256];
	CHECK(cudaMalloc(&d, sizeof h));
	cudaFuncAttributes attr;
	CHECK(cudaFuncGetAttributes(&attr, maxStatic));
	printf("maxStatic: %zu bytes of static shared memory\n", attr.sharedSizeBytes);
	maxStatic<<<1, 256>>>(d);
	printf("maxStatic launch: %s\n", cudaGetErrorName(cudaGetLastError()));
	CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	printf("maxStatic sum of thread 0: %.0f\n", h[0]);

	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, 0));
	int bytes = (int)p.sharedMemPerBlockOptin;
	CHECK(cudaFuncSetAttribute(maxDynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
	maxDynamic<<<1, 256, bytes>>>(d, bytes / 4);
	printf("maxDynamic launch with the opt-in maximum: %s\n", cudaGetErrorName(cudaGetLastError()));
	CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	printf("maxDynamic sum of thread 0: %.0f (%s)\n", h[0], h[0] * 256 == bytes / 4 ? "all" : "not all");

	stageOnePast<<<1, 256>>>(d);
	printf("stageOnePast launch: %s\n", cudaGetErrorName(cudaGetLastError()));
	printf("stageOnePast sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	return 0;
}
