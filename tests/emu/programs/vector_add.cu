// Vector addition, PMPP chapter 2 style: three kernels (plain, grid-stride, in-place
// scale), sizes that are not a multiple of the block size.
#include "check.h"

__global__ void vecAddKernel(const float *A, const float *B, float *C, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		C[i] = A[i] + B[i];
}

__global__ void vecAddGridStride(const float *A, const float *B, float *C, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		C[i] = A[i] + B[i];
}

__global__ void scaleKernel(float *C, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		C[i] *= s;
}

int main()
{
	const int n = 100003;
	size_t bytes = n * sizeof(float);
	float *A = (float *)malloc(bytes), *B = (float *)malloc(bytes), *C = (float *)malloc(bytes);
	for (int i = 0; i < n; i++) {
		A[i] = 0.5f * i;
		B[i] = 2.0f * (i % 1000);
	}
	float *dA, *dB, *dC;
	CHECK(cudaMalloc(&dA, bytes));
	CHECK(cudaMalloc(&dB, bytes));
	CHECK(cudaMalloc(&dC, bytes));
	CHECK(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice));

	GpuTimer t;
	t.begin();
	vecAddKernel<<<(n + 255) / 256, 256>>>(dA, dB, dC, n);
	CHECK(cudaGetLastError());
	t.end("vecAddKernel");
	CHECK(cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += C[i] != A[i] + B[i];
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += C[i];
	printf("vecAdd: n=%d C[0]=%.1f C[n-1]=%.1f sum=%.1f mismatches=%d\n", n, C[0], C[n - 1], sum, bad);

	CHECK(cudaMemset(dC, 0, bytes));
	t.begin();
	vecAddGridStride<<<40, 128>>>(dA, dB, dC, n);
	CHECK(cudaGetLastError());
	scaleKernel<<<(n + 511) / 512, 512>>>(dC, 2.0f, n);
	CHECK(cudaGetLastError());
	t.end("gridStride+scale");
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost));
	bad = 0;
	for (int i = 0; i < n; i++)
		bad += C[i] != 2.0f * (A[i] + B[i]);
	printf("gridStride+scale: C[12345]=%.1f mismatches=%d\n", C[12345], bad);

	CHECK(cudaFree(dA));
	CHECK(cudaFree(dB));
	CHECK(cudaFree(dC));
	free(A), free(B), free(C);
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad != 0;
}
