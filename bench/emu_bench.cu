// Kernels of the emulator benchmark (bench/emu_bench.c): compiled with nvcc -ptx -O3
// -arch=compute_90 (the emulated H100's).
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

__global__ void vecAdd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

#define TILE 16
__global__ void matmulTiled(const float *A, const float *B, float *C, int n)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0;
	for (int t = 0; t < n / TILE; t++) {
		As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
		Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
		__syncthreads();
	}
	C[row * n + col] = acc;
}

__global__ void reduceShared(const float *in, float *out, int n)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = s[0];
}

// A tensor-core GEMM as a course writes it: a block of 4 warps computes a 32x32 tile of
// C, staging 32x16 of A and 16x32 of B in padded shared memory; each warp one 16x16
// wmma fragment (f16 inputs, f32 accumulator).
#define WT 32
__global__ void wmmaGemm(const half *A, const half *B, float *C, int n)
{
	__shared__ __align__(32) half As[WT][16 + 8];
	__shared__ __align__(32) half Bs[16][WT + 8];
	int warp = threadIdx.x / 32, wr = warp / 2, wc = warp % 2;
	int row0 = blockIdx.y * WT, col0 = blockIdx.x * WT;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
	wmma::fill_fragment(acc, 0.0f);
	for (int k0 = 0; k0 < n; k0 += 16) {
		for (int e = threadIdx.x; e < WT * 16; e += blockDim.x) {
			As[e / 16][e % 16] = A[(size_t)(row0 + e / 16) * n + k0 + e % 16];
			Bs[e / WT][e % WT] = B[(size_t)(k0 + e / WT) * n + col0 + e % WT];
		}
		__syncthreads();
		wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
		wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
		wmma::load_matrix_sync(fa, &As[wr * 16][0], 16 + 8);
		wmma::load_matrix_sync(fb, &Bs[0][wc * 16], WT + 8);
		wmma::mma_sync(acc, fa, fb, acc);
		__syncthreads();
	}
	wmma::store_matrix_sync(&C[(size_t)(row0 + wr * 16) * n + col0 + wc * 16], acc, n,
				wmma::mem_row_major);
}
