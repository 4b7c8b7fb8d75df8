// Matrix multiplication, PMPP chapter 5 style: a naive kernel and a shared-memory tiled
// kernel with boundary checks, on sizes that are not multiples of the tile.
#include "matmul_ref.h"

#define TILE 16

__global__ void matmulNaive(const float *M, const float *N, float *P, int rows, int inner, int cols)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows && c < cols) {
		float acc = 0;
		for (int k = 0; k < inner; k++)
			acc += M[r * inner + k] * N[k * cols + c];
		P[r * cols + c] = acc;
	}
}

__global__ void matmulTiled(const float *M, const float *N, float *P, int rows, int inner, int cols)
{
	__shared__ float Ms[TILE][TILE];
	__shared__ float Ns[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
	float acc = 0;
	for (int ph = 0; ph < (inner + TILE - 1) / TILE; ph++) {
		int mk = ph * TILE + tx, nk = ph * TILE + ty;
		Ms[ty][tx] = (r < rows && mk < inner) ? M[r * inner + mk] : 0.0f;
		Ns[ty][tx] = (nk < inner && c < cols) ? N[nk * cols + c] : 0.0f;
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += Ms[ty][k] * Ns[k][tx];
		__syncthreads();
	}
	if (r < rows && c < cols)
		P[r * cols + c] = acc;
}

MATMUL_LAUNCHER(launchNaive, matmulNaive)
MATMUL_LAUNCHER(launchTiled, matmulTiled)

int main()
{
	const char *names[2] = {"naive", "tiled"};
	const MatmulLaunch launch[2] = {launchNaive, launchTiled};
	return matmulCheck(names, launch, 2) != 0;
}
