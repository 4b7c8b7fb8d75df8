// Matrix multiplication, PMPP chapter 5 style: a naive kernel and a shared-memory tiled
// kernel with boundary checks, on sizes that are not multiples of the tile.
#include "check.h"

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

int main()
{
	const int rows = 100, inner = 70, cols = 90;
	float *M = (float *)malloc(rows * inner * sizeof(float));
	float *N = (float *)malloc(inner * cols * sizeof(float));
	float *P = (float *)malloc(rows * cols * sizeof(float));
	float *ref = (float *)malloc(rows * cols * sizeof(float));
	// small integers: every product and sum is exact in float, in any order
	for (int i = 0; i < rows * inner; i++)
		M[i] = (float)((i * 7) % 11 - 5);
	for (int i = 0; i < inner * cols; i++)
		N[i] = (float)((i * 3) % 7 - 3);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			float acc = 0;
			for (int k = 0; k < inner; k++)
				acc += M[r * inner + k] * N[k * cols + c];
			ref[r * cols + c] = acc;
		}
	float *dM, *dN, *dP;
	CHECK(cudaMalloc(&dM, rows * inner * sizeof(float)));
	CHECK(cudaMalloc(&dN, inner * cols * sizeof(float)));
	CHECK(cudaMalloc(&dP, rows * cols * sizeof(float)));
	CHECK(cudaMemcpy(dM, M, rows * inner * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dN, N, inner * cols * sizeof(float), cudaMemcpyHostToDevice));

	dim3 block(TILE, TILE), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	GpuTimer t;
	const char *names[2] = {"naive", "tiled"};
	int total_bad = 0;
	for (int v = 0; v < 2; v++) {
		CHECK(cudaMemset(dP, 0, rows * cols * sizeof(float)));
		t.begin();
		if (v == 0)
			matmulNaive<<<grid, block>>>(dM, dN, dP, rows, inner, cols);
		else
			matmulTiled<<<grid, block>>>(dM, dN, dP, rows, inner, cols);
		CHECK(cudaGetLastError());
		t.end(names[v]);
		CHECK(cudaMemcpy(P, dP, rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
		int bad = 0;
		double sum = 0;
		for (int i = 0; i < rows * cols; i++) {
			bad += P[i] != ref[i];
			sum += P[i];
		}
		total_bad += bad;
		printf("%s: P[0]=%.0f P[%d]=%.0f sum=%.0f mismatches=%d\n", names[v], P[0],
		       rows * cols - 1, P[rows * cols - 1], sum, bad);
	}
	CHECK(cudaFree(dM));
	CHECK(cudaFree(dN));
	CHECK(cudaFree(dP));
	free(M), free(N), free(P), free(ref);
	printf("%s\n", total_bad ? "FAIL" : "PASS");
	return total_bad != 0;
}
