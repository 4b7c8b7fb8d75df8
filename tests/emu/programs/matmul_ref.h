// Shared by the matrix-multiplication programs: each kernel computes the same product of
// a 100x70 and a 70x90 matrix (not multiples of a tile) of small integers (every product
// and sum is exact in float, in any order), compared with the host's; one line each.
#pragma once
#include "check.h"

// Launches a kernel computing P = M N (device pointers; M rows x inner, N inner x cols).
typedef void (*MatmulLaunch)(const float *M, const float *N, float *P, int rows, int inner,
			     int cols);

// Defines NAME, a MatmulLaunch of KERNEL over TILE x TILE blocks covering P.
#define MATMUL_LAUNCHER(NAME, KERNEL)                                                   \
	static void NAME(const float *M, const float *N, float *P, int rows, int inner,  \
			 int cols)                                                        \
	{                                                                                \
		dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);           \
		KERNEL<<<grid, dim3(TILE, TILE)>>>(M, N, P, rows, inner, cols);          \
	}

// Runs each of the n launchers, prints its corner values, sum and mismatches (and its
// time on stderr), then PASS or FAIL; returns the total mismatches.
static int matmulCheck(const char *const *names, const MatmulLaunch *launch, int n)
{
	const int rows = 100, inner = 70, cols = 90;
	float *M = (float *)malloc(rows * inner * sizeof(float));
	float *N = (float *)malloc(inner * cols * sizeof(float));
	float *P = (float *)malloc(rows * cols * sizeof(float));
	float *ref = (float *)malloc(rows * cols * sizeof(float));
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
	GpuTimer t;
	int total_bad = 0;
	for (int v = 0; v < n; v++) {
		CHECK(cudaMemset(dP, 0, rows * cols * sizeof(float)));
		t.begin();
		launch[v](dM, dN, dP, rows, inner, cols);
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
	return total_bad;
}
