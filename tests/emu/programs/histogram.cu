// Text histogram, PMPP chapter 9 style: a global-atomics kernel and a privatized one
// (per-block histogram in shared memory, merged with atomicAdd), on letters a-z in
// bins of four ("a-d", "e-h", ...) plus a 256-bin byte histogram.
#include "check.h"

#define NUM_BINS 7
#define BYTE_BINS 256

__global__ void histoGlobal(const char *data, unsigned n, unsigned *histo)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	for (; i < n; i += blockDim.x * gridDim.x) {
		int pos = data[i] - 'a';
		if (pos >= 0 && pos < 26)
			atomicAdd(&histo[pos / 4], 1u);
	}
}

__global__ void histoPrivate(const char *data, unsigned n, unsigned *histo)
{
	__shared__ unsigned local[NUM_BINS];
	for (unsigned b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
		local[b] = 0;
	__syncthreads();
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		int pos = data[i] - 'a';
		if (pos >= 0 && pos < 26)
			atomicAdd(&local[pos / 4], 1u);
	}
	__syncthreads();
	for (unsigned b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
		if (local[b])
			atomicAdd(&histo[b], local[b]);
}

__global__ void histoBytes(const unsigned char *data, unsigned n, unsigned *histo)
{
	__shared__ unsigned local[BYTE_BINS];
	for (unsigned b = threadIdx.x; b < BYTE_BINS; b += blockDim.x)
		local[b] = 0;
	__syncthreads();
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&local[data[i]], 1u);
	__syncthreads();
	for (unsigned b = threadIdx.x; b < BYTE_BINS; b += blockDim.x)
		atomicAdd(&histo[b], local[b]);
}

int main()
{
	const unsigned n = 300001;
	char *text = (char *)malloc(n);
	unsigned x = 2024;
	for (unsigned i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		unsigned r = (x >> 24) % 32;
		text[i] = r < 26 ? (char)('a' + r) : (r < 30 ? ' ' : '.');
	}
	unsigned ref[NUM_BINS] = {0}, refBytes[BYTE_BINS] = {0};
	for (unsigned i = 0; i < n; i++) {
		int pos = text[i] - 'a';
		if (pos >= 0 && pos < 26)
			ref[pos / 4]++;
		refBytes[(unsigned char)text[i]]++;
	}
	char *dText;
	unsigned *dHisto, *dBytes;
	CHECK(cudaMalloc(&dText, n));
	CHECK(cudaMalloc(&dHisto, NUM_BINS * sizeof(unsigned)));
	CHECK(cudaMalloc(&dBytes, BYTE_BINS * sizeof(unsigned)));
	CHECK(cudaMemcpy(dText, text, n, cudaMemcpyHostToDevice));

	GpuTimer t;
	unsigned h[NUM_BINS];
	int bad = 0;
	const char *names[2] = {"global atomics", "privatized"};
	for (int v = 0; v < 2; v++) {
		CHECK(cudaMemset(dHisto, 0, NUM_BINS * sizeof(unsigned)));
		t.begin();
		if (v == 0)
			histoGlobal<<<64, 256>>>(dText, n, dHisto);
		else
			histoPrivate<<<48, 256>>>(dText, n, dHisto);
		CHECK(cudaGetLastError());
		t.end(names[v]);
		CHECK(cudaMemcpy(h, dHisto, sizeof h, cudaMemcpyDeviceToHost));
		printf("%s:", names[v]);
		for (int b = 0; b < NUM_BINS; b++) {
			printf(" %c-%c=%u", 'a' + 4 * b, b == 6 ? 'z' : 'a' + 4 * b + 3, h[b]);
			bad += h[b] != ref[b];
		}
		printf("\n");
	}
	CHECK(cudaMemset(dBytes, 0, BYTE_BINS * sizeof(unsigned)));
	histoBytes<<<32, 128>>>((const unsigned char *)dText, n, dBytes);
	CHECK(cudaGetLastError());
	unsigned hb[BYTE_BINS];
	CHECK(cudaMemcpy(hb, dBytes, sizeof hb, cudaMemcpyDeviceToHost));
	unsigned total = 0;
	for (int b = 0; b < BYTE_BINS; b++) {
		bad += hb[b] != refBytes[b];
		total += hb[b];
	}
	printf("bytes: ' '=%u '.'=%u 'q'=%u total=%u\n", hb[' '], hb['.'], hb['q'], total);
	CHECK(cudaFree(dText));
	CHECK(cudaFree(dHisto));
	CHECK(cudaFree(dBytes));
	free(text);
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad != 0;
}
