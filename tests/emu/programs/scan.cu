// Inclusive prefix sum over many blocks, PMPP chapter 11 style: a Kogge-Stone scan per
// block (double-buffered shared memory), a scan of the block sums, and a fix-up kernel.
#include "check.h"

#define SECTION 512

__global__ void koggeStoneScan(const int *in, int *out, int *blockSums, int n)
{
	__shared__ int buf[2][SECTION];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int src = 0;
	buf[src][threadIdx.x] = i < n ? in[i] : 0;
	for (int stride = 1; stride < blockDim.x; stride *= 2) {
		__syncthreads();
		int v = buf[src][threadIdx.x];
		if (threadIdx.x >= stride)
			v += buf[src][threadIdx.x - stride];
		buf[1 - src][threadIdx.x] = v;
		src = 1 - src;
	}
	__syncthreads();
	if (i < n)
		out[i] = buf[src][threadIdx.x];
	if (blockSums && threadIdx.x == blockDim.x - 1)
		blockSums[blockIdx.x] = buf[src][threadIdx.x];
}

__global__ void addBlockOffsets(int *out, const int *scannedSums, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (blockIdx.x > 0 && i < n)
		out[i] += scannedSums[blockIdx.x - 1];
}

int main()
{
	const int n = 200000;
	const int blocks = (n + SECTION - 1) / SECTION; // 391: the block sums fit one section
	int *h = (int *)malloc(n * sizeof(int)), *out = (int *)malloc(n * sizeof(int));
	for (int i = 0; i < n; i++)
		h[i] = (i * 37 + 11) % 19 - 9;
	int *dIn, *dOut, *dSums, *dSumsScanned;
	CHECK(cudaMalloc(&dIn, n * sizeof(int)));
	CHECK(cudaMalloc(&dOut, n * sizeof(int)));
	CHECK(cudaMalloc(&dSums, blocks * sizeof(int)));
	CHECK(cudaMalloc(&dSumsScanned, blocks * sizeof(int)));
	CHECK(cudaMemcpy(dIn, h, n * sizeof(int), cudaMemcpyHostToDevice));

	GpuTimer t;
	t.begin();
	koggeStoneScan<<<blocks, SECTION>>>(dIn, dOut, dSums, n);
	CHECK(cudaGetLastError());
	koggeStoneScan<<<1, SECTION>>>(dSums, dSumsScanned, NULL, blocks);
	CHECK(cudaGetLastError());
	addBlockOffsets<<<blocks, SECTION>>>(dOut, dSumsScanned, n);
	CHECK(cudaGetLastError());
	t.end("hierarchical scan");
	CHECK(cudaMemcpy(out, dOut, n * sizeof(int), cudaMemcpyDeviceToHost));

	int bad = 0, firstBad = -1;
	long long run = 0;
	for (int i = 0; i < n; i++) {
		run += h[i];
		if (out[i] != run) {
			if (firstBad < 0)
				firstBad = i;
			bad++;
		}
	}
	printf("scan: n=%d blocks=%d out[0]=%d out[511]=%d out[512]=%d out[n-1]=%d mismatches=%d first=%d\n",
	       n, blocks, out[0], out[511], out[512], out[n - 1], bad, firstBad);
	CHECK(cudaFree(dIn));
	CHECK(cudaFree(dOut));
	CHECK(cudaFree(dSums));
	CHECK(cudaFree(dSumsScanned));
	free(h), free(out);
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad != 0;
}
