// Two mistakes with asynchronous copies, for the emulator only (a GPU's output depends on
// timing, or on whether the stray read happens to fault). The tile is read before the
// wait that covers its copies: the emulator lands copies at that wait, so the read sees
// the old contents every time, and the race checker names the lines. Then a copy reads
// one element past the end of its source: the fault names the copy's line.
#include "check.h"

#include <cuda_pipeline.h>

__global__ void readBeforeWait(const float *in, float *out)
{
	__shared__ float tile[128];
	int t = threadIdx.x;
	__pipeline_memcpy_async(&tile[t], &in[blockIdx.x * 128 + t], sizeof(float));
	__pipeline_commit();
	__syncthreads(); // wrong: the copies need __pipeline_wait_prior(0) before this
	out[blockIdx.x * 128 + t] = tile[(t + 1) % 128];
	__pipeline_wait_prior(0);
}

__global__ void copyPastEnd(const float *in, float *out)
{
	__shared__ float tile[128];
	int t = threadIdx.x;
	__pipeline_memcpy_async(&tile[t], &in[t + 1], sizeof(float));
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	out[t] = tile[t];
}

int main()
{
	const int n = 256;
	float h[n], r[n];
	for (int i = 0; i < n; i++)
		h[i] = (float)(i + 1);
	float *din, *dout;
	CHECK(cudaMalloc(&din, n * sizeof(float)));
	CHECK(cudaMalloc(&dout, n * sizeof(float)));
	CHECK(cudaMemcpy(din, h, n * sizeof(float), cudaMemcpyHostToDevice));
	readBeforeWait<<<2, 128>>>(din, dout);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(r, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += r[i] != h[(i / 128) * 128 + (i % 128 + 1) % 128];
	printf("read before the wait: %d of %d elements wrong\n", bad, n);
	copyPastEnd<<<1, 128>>>(din + 128, dout);
	printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
	cudaError_t e = cudaDeviceSynchronize();
	printf("sync: %s\n", cudaGetErrorName(e));
	return e != cudaSuccess;
}
