// GPU Gems 3 chapter 39's work-efficient scan with bank-conflict avoidance (dynamic
// shared memory), Harris's reduction #6 (volatile warp-synchronous tail) and the
// threadFenceReduction sample's "last block" pattern. The kernels with extern
// __shared__ share the module with ones that have static __shared__ arrays.
#include "check.h"

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

// Exclusive scan of n values per block (n / 2 threads); sums gets each block's total.
__global__ void prescan(float *out, const float *in, float *sums, int n)
{
	extern __shared__ float temp[];
	int thid = threadIdx.x, offset = 1, base = blockIdx.x * n;
	int ai = thid, bi = thid + n / 2;
	int bankOffsetA = CONFLICT_FREE_OFFSET(ai), bankOffsetB = CONFLICT_FREE_OFFSET(bi);
	temp[ai + bankOffsetA] = in[base + ai];
	temp[bi + bankOffsetB] = in[base + bi];
	for (int d = n >> 1; d > 0; d >>= 1) { // up-sweep
		__syncthreads();
		if (thid < d) {
			int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
			a += CONFLICT_FREE_OFFSET(a);
			b += CONFLICT_FREE_OFFSET(b);
			temp[b] += temp[a];
		}
		offset *= 2;
	}
	if (thid == 0) {
		int last = n - 1 + CONFLICT_FREE_OFFSET(n - 1);
		if (sums)
			sums[blockIdx.x] = temp[last];
		temp[last] = 0;
	}
	for (int d = 1; d < n; d *= 2) { // down-sweep
		offset >>= 1;
		__syncthreads();
		if (thid < d) {
			int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
			a += CONFLICT_FREE_OFFSET(a);
			b += CONFLICT_FREE_OFFSET(b);
			float t = temp[a];
			temp[a] = temp[b];
			temp[b] += t;
		}
	}
	__syncthreads();
	out[base + ai] = temp[ai + bankOffsetA];
	out[base + bi] = temp[bi + bankOffsetB];
}

__global__ void addSums(float *data, const float *sums, int n)
{
	data[blockIdx.x * n + threadIdx.x] += sums[blockIdx.x];
	data[blockIdx.x * n + threadIdx.x + n / 2] += sums[blockIdx.x];
}

template <unsigned int blockSize> __device__ void warpReduce(volatile int *sdata, unsigned int tid)
{
	if (blockSize >= 64)
		sdata[tid] += sdata[tid + 32];
	if (blockSize >= 32)
		sdata[tid] += sdata[tid + 16];
	if (blockSize >= 16)
		sdata[tid] += sdata[tid + 8];
	if (blockSize >= 8)
		sdata[tid] += sdata[tid + 4];
	if (blockSize >= 4)
		sdata[tid] += sdata[tid + 2];
	if (blockSize >= 2)
		sdata[tid] += sdata[tid + 1];
}

template <unsigned int blockSize> __global__ void reduce6(const int *in, int *out, unsigned int n)
{
	extern __shared__ int sdata[];
	unsigned int tid = threadIdx.x, i = blockIdx.x * (blockSize * 2) + tid;
	unsigned int gridSize = blockSize * 2 * gridDim.x;
	sdata[tid] = 0;
	while (i < n) {
		sdata[tid] += in[i] + (i + blockSize < n ? in[i + blockSize] : 0);
		i += gridSize;
	}
	__syncthreads();
	if (blockSize >= 512) {
		if (tid < 256)
			sdata[tid] += sdata[tid + 256];
		__syncthreads();
	}
	if (blockSize >= 256) {
		if (tid < 128)
			sdata[tid] += sdata[tid + 128];
		__syncthreads();
	}
	if (blockSize >= 128) {
		if (tid < 64)
			sdata[tid] += sdata[tid + 64];
		__syncthreads();
	}
	if (tid < 32)
		warpReduce<blockSize>(sdata, tid);
	if (tid == 0)
		out[blockIdx.x] = sdata[0];
}

__device__ unsigned int retirementCount = 0;

// Each block sums its part; the last block to finish sums the partial sums.
__global__ void fenceReduce(const float *in, float *partial, float *result, int n)
{
	__shared__ float s[256];
	__shared__ bool amLast;
	float v = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		v += in[i];
	s[threadIdx.x] = v;
	__syncthreads();
	for (int st = blockDim.x / 2; st > 0; st >>= 1) {
		if (threadIdx.x < st)
			s[threadIdx.x] += s[threadIdx.x + st];
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		partial[blockIdx.x] = s[0];
		__threadfence();
		unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
		amLast = ticket == gridDim.x - 1;
	}
	__syncthreads();
	if (amLast) {
		float t = 0;
		for (int k = threadIdx.x; k < gridDim.x; k += blockDim.x)
			t += partial[k];
		s[threadIdx.x] = t;
		__syncthreads();
		for (int st = blockDim.x / 2; st > 0; st >>= 1) {
			if (threadIdx.x < st)
				s[threadIdx.x] += s[threadIdx.x + st];
			__syncthreads();
		}
		if (threadIdx.x == 0) {
			*result = s[0];
			retirementCount = 0;
		}
	}
}

int main()
{
	const int B = 512, nb = 64, n = B * nb;
	float *h = (float *)malloc(n * sizeof(float)), *o = (float *)malloc(n * sizeof(float));
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 10);
	float *di, *dout, *dsum, *dsumScan;
	CHECK(cudaMalloc(&di, n * sizeof(float)));
	CHECK(cudaMalloc(&dout, n * sizeof(float)));
	CHECK(cudaMalloc(&dsum, nb * sizeof(float)));
	CHECK(cudaMalloc(&dsumScan, nb * sizeof(float)));
	CHECK(cudaMemcpy(di, h, n * sizeof(float), cudaMemcpyHostToDevice));
	GpuTimer t;
	t.begin();
	size_t sh = (B + B / NUM_BANKS) * sizeof(float);
	prescan<<<nb, B / 2, sh>>>(dout, di, dsum, B);
	prescan<<<1, nb / 2, (nb + nb / NUM_BANKS) * sizeof(float)>>>(dsumScan, dsum, NULL, nb);
	addSums<<<nb, B / 2>>>(dout, dsumScan, B);
	CHECK(cudaGetLastError());
	t.end("exclusive scan");
	CHECK(cudaMemcpy(o, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
	int bad = 0;
	double run = 0;
	for (int i = 0; i < n; i++) {
		bad += o[i] != (float)run;
		run += h[i];
	}
	printf("exclusive scan n=%d: %d bad\n", n, bad);
	int fail = bad != 0;

	const int m = 1 << 20;
	int *hi = (int *)malloc(m * sizeof(int)), ho[64];
	long long ref = 0, got = 0;
	for (int i = 0; i < m; i++) {
		hi[i] = (i * 13) % 7 - 3;
		ref += hi[i];
	}
	int *dI, *dO;
	CHECK(cudaMalloc(&dI, m * sizeof(int)));
	CHECK(cudaMalloc(&dO, 64 * sizeof(int)));
	CHECK(cudaMemcpy(dI, hi, m * sizeof(int), cudaMemcpyHostToDevice));
	reduce6<256><<<64, 256, 256 * sizeof(int)>>>(dI, dO, m);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(ho, dO, sizeof ho, cudaMemcpyDeviceToHost));
	for (int k = 0; k < 64; k++)
		got += ho[k];
	printf("reduce6 (volatile warp-synchronous): %lld vs %lld\n", got, ref);
	fail |= got != ref;

	float *dp, *dr, r1 = 0, r2 = 0;
	CHECK(cudaMalloc(&dp, 40 * sizeof(float)));
	CHECK(cudaMalloc(&dr, sizeof(float)));
	fenceReduce<<<40, 256>>>(di, dp, dr, n);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(&r1, dr, 4, cudaMemcpyDeviceToHost));
	fenceReduce<<<40, 256>>>(di, dp, dr, n); // the counter was reset: works again
	CHECK(cudaMemcpy(&r2, dr, 4, cudaMemcpyDeviceToHost));
	printf("threadfence reduction: %.0f, %.0f vs %.0f\n", r1, r2, run);
	fail |= r1 != (float)run || r2 != (float)run;
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail;
}
