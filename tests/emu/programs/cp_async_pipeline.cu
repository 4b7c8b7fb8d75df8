// Asynchronous copies into shared memory (sm_80's cp.async) as CUDA C writes them: a
// double-buffered tiled matrix multiplication with __pipeline_memcpy_async (the next
// phase's tiles load while this phase computes; elements past the matrices are
// zero-filled by the copy), the same with a thread-scope cuda::pipeline, and a block sum
// staged with cooperative_groups::memcpy_async. Sizes are not multiples of the tile.
#include "matmul_ref.h"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

#define TILE 16

// Stage phase ph's tiles into buffer ph % 2 as one group: a copy past the matrices
// reads nothing and fills its 4 bytes with zeros (zfill = 4).
__device__ void loadTiles(float (*Ms)[TILE][TILE], float (*Ns)[TILE][TILE], const float *M,
			  const float *N, int rows, int inner, int cols, int ph)
{
	int tx = threadIdx.x, ty = threadIdx.y, s = ph % 2;
	int r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
	int mk = ph * TILE + tx, nk = ph * TILE + ty;
	bool okM = r < rows && mk < inner, okN = nk < inner && c < cols;
	__pipeline_memcpy_async(&Ms[s][ty][tx], okM ? &M[r * inner + mk] : M, sizeof(float),
				okM ? 0 : sizeof(float));
	__pipeline_memcpy_async(&Ns[s][ty][tx], okN ? &N[nk * cols + c] : N, sizeof(float),
				okN ? 0 : sizeof(float));
	__pipeline_commit();
}

__global__ void matmulPipelined(const float *M, const float *N, float *P, int rows, int inner,
				int cols)
{
	__shared__ float Ms[2][TILE][TILE];
	__shared__ float Ns[2][TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
	int phases = (inner + TILE - 1) / TILE;
	float acc = 0;
	loadTiles(Ms, Ns, M, N, rows, inner, cols, 0);
	for (int ph = 0; ph < phases; ph++) {
		if (ph + 1 < phases)
			loadTiles(Ms, Ns, M, N, rows, inner, cols, ph + 1);
		else
			__pipeline_commit(); // an empty group: "all but the newest" stays phase ph
		__pipeline_wait_prior(1); // this thread's copies of phase ph have landed
		__syncthreads();          // ... and every other thread's
		int s = ph % 2;
		for (int k = 0; k < TILE; k++)
			acc += Ms[s][ty][k] * Ns[s][k][tx];
		__syncthreads(); // everyone is done with buffer s before phase ph + 2 loads it
	}
	if (r < rows && c < cols)
		P[r * cols + c] = acc;
}

// The same with cuda::pipeline (thread scope, two stages): producer_acquire/commit around
// each phase's copies, consumer_wait/release around its use.
__global__ void matmulCudaPipeline(const float *M, const float *N, float *P, int rows, int inner,
				   int cols)
{
	__shared__ float Ms[2][TILE][TILE];
	__shared__ float Ns[2][TILE][TILE];
	cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
	int tx = threadIdx.x, ty = threadIdx.y;
	int r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
	int phases = (inner + TILE - 1) / TILE;
	auto produce = [&](int ph) {
		int s = ph % 2, mk = ph * TILE + tx, nk = ph * TILE + ty;
		pipe.producer_acquire();
		if (r < rows && mk < inner)
			cuda::memcpy_async(&Ms[s][ty][tx], &M[r * inner + mk], sizeof(float), pipe);
		else
			Ms[s][ty][tx] = 0;
		if (nk < inner && c < cols)
			cuda::memcpy_async(&Ns[s][ty][tx], &N[nk * cols + c], sizeof(float), pipe);
		else
			Ns[s][ty][tx] = 0;
		pipe.producer_commit();
	};
	float acc = 0;
	produce(0);
	for (int ph = 0; ph < phases; ph++) {
		if (ph + 1 < phases)
			produce(ph + 1);
		pipe.consumer_wait(); // the oldest stage: phase ph's
		__syncthreads();
		int s = ph % 2;
		for (int k = 0; k < TILE; k++)
			acc += Ms[s][ty][k] * Ns[s][k][tx];
		pipe.consumer_release();
		__syncthreads();
	}
	if (r < rows && c < cols)
		P[r * cols + c] = acc;
}

// Each block copies its 256 floats (16-byte aligned) into shared memory with one
// collective memcpy_async, waits, and sums them with a neighbour offset.
__global__ void blockSum(const float *x, float *out)
{
	__shared__ float s[256];
	cg::thread_block block = cg::this_thread_block();
	cg::memcpy_async(block, s, x + blockIdx.x * 256, sizeof(float) * 256);
	cg::wait(block);
	int t = threadIdx.x;
	out[blockIdx.x * 256 + t] = s[t] + 2 * s[(t + 1) % 256];
}

MATMUL_LAUNCHER(launchPipelined, matmulPipelined)
MATMUL_LAUNCHER(launchCudaPipeline, matmulCudaPipeline)

int main()
{
	const int nb = 5, n = nb * 256;
	float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
	for (int i = 0; i < n; i++)
		x[i] = (float)(i % 13);
	float *dx, *dy;
	CHECK(cudaMalloc(&dx, n * sizeof(float)));
	CHECK(cudaMalloc(&dy, n * sizeof(float)));
	CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
	blockSum<<<nb, 256>>>(dx, dy);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += y[i] != x[i] + 2 * x[(i / 256) * 256 + (i % 256 + 1) % 256];
	printf("cg_memcpy_async: y[0]=%.0f y[%d]=%.0f mismatches=%d\n", y[0], n - 1, y[n - 1], bad);
	CHECK(cudaFree(dx));
	CHECK(cudaFree(dy));
	free(x), free(y);

	const char *names[2] = {"pipeline_primitives", "cuda_pipeline"};
	const MatmulLaunch launch[2] = {launchPipelined, launchCudaPipeline};
	return (matmulCheck(names, launch, 2) + bad) != 0;
}
