// Emulator core tests: a tensor-core kernel the emulator must refuse by name, and
// kernels that need a module of their own (the first .shared variable at offset 0).
#include <mma.h>
using namespace nvcuda;

__global__ void plain(int *p)
{
	p[threadIdx.x] = threadIdx.x;
}

__global__ void tensorCores(const half *a, const half *b, float *c)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	wmma::fill_fragment(fc, 0.0f);
	wmma::load_matrix_sync(fa, a, 16); // WMMA_LINE
	wmma::load_matrix_sync(fb, b, 16);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

// 2-D convolution, halo from global memory (kernels/07-convolution's cached-halo): the
// shared address of N_s[ty][tx] is formed in 32-bit registers that go below zero for
// halo taps the in-range check then skips; shared addresses must wrap modulo 2^32 like
// the hardware's (a regression test; N_s must be the module's first .shared variable).
__constant__ float c_filter[5][5];
__global__ void convCachedHalo(const float *N, float *P, int width, int height)
{
	int col = blockIdx.x * 32 + threadIdx.x;
	int row = blockIdx.y * 32 + threadIdx.y;
	__shared__ float N_s[32][32];
	if (row < height && col < width) {
		N_s[threadIdx.y][threadIdx.x] = N[row * width + col];
	} else {
		N_s[threadIdx.y][threadIdx.x] = 0.0f;
	}
	__syncthreads();
	if (row < height && col < width) {
		float sum = 0.0f;
		for (int fRow = 0; fRow < 5; fRow++) {
			for (int fCol = 0; fCol < 5; fCol++) {
				int ty = (int)threadIdx.y - 2 + fRow;
				int tx = (int)threadIdx.x - 2 + fCol;
				if (ty >= 0 && ty < 32 && tx >= 0 && tx < 32) {
					sum += c_filter[fRow][fCol] * N_s[ty][tx];
				} else {
					int r = row - 2 + fRow;
					int c = col - 2 + fCol;
					if (r >= 0 && r < height && c >= 0 && c < width) {
						sum += c_filter[fRow][fCol] * N[r * width + c];
					}
				}
			}
		}
		P[row * width + col] = sum;
	}
}
