// The runtime API beyond malloc/memcpy that textbook programs use: __constant__ and
// __device__ variables through the symbol calls, managed and pinned memory, streams
// and async copies, cudaLaunchKernel, dynamic shared memory, device printf, function
// attributes and device attributes. Prints only what is the same on every device.
#include "check.h"

__constant__ float coeffs[4];
__device__ unsigned hits;
__device__ int table[8];
__managed__ int managedCounter;

__global__ void polynomial(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = coeffs[0] + x[i] * (coeffs[1] + x[i] * (coeffs[2] + x[i] * coeffs[3]));
	if (i < n && x[i] > 10.0f)
		atomicAdd(&hits, 1u);
}

__global__ void reverseDynamic(int *data, int n)
{
	extern __shared__ int s[];
	int t = threadIdx.x;
	if (t < n)
		s[t] = data[t];
	__syncthreads();
	if (t < n)
		data[t] = s[n - 1 - t];
}

__global__ void staticShared(int *out)
{
	__shared__ int buf[256];
	buf[threadIdx.x] = threadIdx.x * 2;
	__syncthreads();
	out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x] + table[threadIdx.x % 8];
	if (threadIdx.x == 0) {
		printf("device printf: block %d sees table[7]=%d\n", blockIdx.x, table[7]);
		atomicAdd(&managedCounter, 5);
	}
}

__global__ void managedIncrement(int *m, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		m[i] += i;
}

int main()
{
	const int n = 1000;
	float c[4] = {1.0f, 0.5f, 0.25f, 0.125f};
	CHECK(cudaMemcpyToSymbol(coeffs, c, sizeof c));
	unsigned zero = 0;
	CHECK(cudaMemcpyToSymbol(hits, &zero, sizeof zero));
	float *hx, *hy;
	CHECK(cudaMallocHost(&hx, n * sizeof(float)));
	CHECK(cudaMallocHost(&hy, n * sizeof(float)));
	for (int i = 0; i < n; i++)
		hx[i] = (float)(i % 16);
	float *dx, *dy;
	CHECK(cudaMalloc(&dx, n * sizeof(float)));
	CHECK(cudaMalloc(&dy, n * sizeof(float)));
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMemcpyAsync(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice, s));
	polynomial<<<(n + 127) / 128, 128, 0, s>>>(dx, dy, n);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpyAsync(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	unsigned h;
	CHECK(cudaMemcpyFromSymbol(&h, hits, sizeof h));
	printf("polynomial: y[3]=%.4f y[15]=%.4f hits=%u\n", hy[3], hy[15], h);

	int tbl[8] = {10, 20, 30, 40, 50, 60, 70, 80};
	int *tableAddr;
	CHECK(cudaGetSymbolAddress((void **)&tableAddr, table));
	CHECK(cudaMemcpy(tableAddr, tbl, sizeof tbl, cudaMemcpyHostToDevice));
	size_t tableSize;
	CHECK(cudaGetSymbolSize(&tableSize, table));
	int *dOut;
	CHECK(cudaMalloc(&dOut, 256 * sizeof(int)));
	managedCounter = 1;
	void *args[] = {&dOut};
	CHECK(cudaLaunchKernel((const void *)staticShared, dim3(1), dim3(256), args, 0, 0));
	CHECK(cudaDeviceSynchronize());
	int out[256];
	CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
	printf("staticShared: out[0]=%d out[255]=%d table size=%zu managedCounter=%d\n", out[0], out[255], tableSize, managedCounter);

	int data[300];
	for (int i = 0; i < 300; i++)
		data[i] = i * i;
	int *dData;
	CHECK(cudaMalloc(&dData, sizeof data));
	CHECK(cudaMemcpy(dData, data, sizeof data, cudaMemcpyHostToDevice));
	reverseDynamic<<<1, 300, 300 * sizeof(int)>>>(dData, 300);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(data, dData, sizeof data, cudaMemcpyDeviceToHost));
	printf("reverseDynamic: data[0]=%d data[299]=%d\n", data[0], data[299]);

	int *m;
	CHECK(cudaMallocManaged(&m, n * sizeof(int)));
	for (int i = 0; i < n; i++)
		m[i] = 1;
	managedIncrement<<<(n + 255) / 256, 256>>>(m, n);
	CHECK(cudaDeviceSynchronize());
	long msum = 0;
	for (int i = 0; i < n; i++)
		msum += m[i];
	printf("managed: m[999]=%d sum=%ld\n", m[999], msum);

	cudaFuncAttributes fa;
	CHECK(cudaFuncGetAttributes(&fa, staticShared));
	printf("staticShared attributes: sharedSizeBytes=%zu maxThreadsPerBlock=%d\n", fa.sharedSizeBytes, fa.maxThreadsPerBlock);
	int warp, maxThreads, blocks;
	CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
	CHECK(cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerBlock, 0));
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, polynomial, 128, 0));
	printf("device: warpSize=%d maxThreadsPerBlock=%d occupancy>0=%d\n", warp, maxThreads, blocks > 0);
	int version;
	CHECK(cudaRuntimeGetVersion(&version));
	printf("runtime version >= 13000: %d\n", version >= 13000);

	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFreeHost(hx));
	CHECK(cudaFreeHost(hy));
	CHECK(cudaFree(dx));
	CHECK(cudaFree(dy));
	CHECK(cudaFree(dOut));
	CHECK(cudaFree(dData));
	CHECK(cudaFree(m));
	printf("PASS\n");
	return 0;
}
