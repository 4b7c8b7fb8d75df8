// Features seen in course code: recursion, local arrays with dynamic indices, the
// __syncthreads_count/and/or reductions, an early return before __syncthreads() (which
// GPUs since Volta allow: exited threads no longer count at the barrier), 3-D grids,
// large struct parameters, the occupancy API, cudaLaunchKernel, cudaFuncGetAttributes,
// clock64, __ldg, 64-bit indexing past 2 GiB, cudaMemcpyDefault and
// cudaPointerGetAttributes. What depends on the device (occupancy, registers, cycles)
// goes to stderr.
#include <cmath>
#include <cstdint>
#include "check.h"

__device__ int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ unsigned long long fact(int n)
{
	return n <= 1 ? 1ULL : n * fact(n - 1);
}

struct Big {
	float w[64];
	int n;
	char tag;
	double bias;
};

__global__ void recurse(int *out, unsigned long long *f)
{
	int t = threadIdx.x;
	out[t] = fib(t % 15);
	f[t] = fact(t % 21);
}

// Insertion sort of 16 values in local memory; out = two of them picked by in[i].
__global__ void localSort(const int *in, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int a[16];
	for (int k = 0; k < 16; k++)
		a[k] = in[(i * 16 + k * 7) % (n * 16)];
	for (int x = 1; x < 16; x++) {
		int v = a[x], y = x - 1;
		while (y >= 0 && a[y] > v) {
			a[y + 1] = a[y];
			y--;
		}
		a[y + 1] = v;
	}
	int sel = in[i] & 15;
	out[i] = a[sel] * 100 + a[15 - sel];
}

__global__ void syncCounts(const int *in, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = i < n ? in[i] : 0;
	int c = __syncthreads_count(v > 500);
	int a = __syncthreads_and(v >= 0);
	int o = __syncthreads_or(v == 999);
	if (threadIdx.x == 0) {
		out[3 * blockIdx.x] = c;
		out[3 * blockIdx.x + 1] = a;
		out[3 * blockIdx.x + 2] = o;
	}
}

// The common student pattern: the threads past the end return before the barrier.
__global__ void earlyExit(const float *in, float *out, int n)
{
	__shared__ float tile[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	tile[threadIdx.x] = in[i];
	__syncthreads();
	int j = threadIdx.x ^ 1;
	out[i] = blockIdx.x * blockDim.x + j < n ? tile[j] : -1.f;
}

__global__ void grid3d(int *vol, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;
	if (x < nx && y < ny && z < nz)
		vol[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z + (int)(gridDim.z * 1000000);
}

__global__ void bigParam(Big b, float *out)
{
	float s = 0;
	for (int k = 0; k < 64; k++)
		s += b.w[k] * (k + threadIdx.x);
	out[threadIdx.x] = s + b.n + b.tag + (float)b.bias;
}

__global__ void ldgClock(const float *__restrict__ in, float *out, long long *cycles, int n)
{
	long long t0 = clock64();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __ldg(&in[i]) + 1.f;
	long long t1 = clock64();
	if (i == 0)
		*cycles = t1 - t0;
}

__global__ void farIndex(unsigned char *p, size_t base)
{
	size_t i = base + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	p[i] = (unsigned char)(i & 0xff);
}

static int testRecursion()
{
	int *dOut, h[64];
	unsigned long long *dF, hf[64];
	CHECK(cudaMalloc(&dOut, sizeof h));
	CHECK(cudaMalloc(&dF, sizeof hf));
	recurse<<<1, 64>>>(dOut, dF);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(h, dOut, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hf, dF, sizeof hf, cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int t = 0; t < 64; t++) {
		int a = 0, b = 1;
		for (int k = 0; k < t % 15; k++) {
			int c = a + b;
			a = b;
			b = c;
		}
		unsigned long long f = 1;
		for (int k = 2; k <= t % 21; k++)
			f *= k;
		bad += h[t] != a || hf[t] != f;
	}
	printf("recursion: %d bad\n", bad);
	return bad != 0;
}

static int testLocalSort(const int *hin, const int *din, int n)
{
	int *dls, minGrid, bs, nn = n;
	CHECK(cudaMalloc(&dls, n * sizeof(int)));
	CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &bs, localSort, 0, 0));
	cudaFuncAttributes fa;
	CHECK(cudaFuncGetAttributes(&fa, localSort));
	fprintf(stderr, "occupancy: minGrid %d block %d; localSort uses %d regs, %zu B local, "
		"maxThreads %d\n", minGrid, bs, fa.numRegs, fa.localSizeBytes, fa.maxThreadsPerBlock);
	void *args[] = { &din, &dls, &nn };
	CHECK(cudaLaunchKernel((const void *)localSort, dim3((n + 127) / 128), dim3(128), args, 0, 0));
	int *hls = (int *)malloc(n * sizeof(int)), bad = 0;
	CHECK(cudaMemcpy(hls, dls, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++) {
		int a[16];
		for (int k = 0; k < 16; k++)
			a[k] = hin[(i * 16 + k * 7) % (n * 16)];
		for (int x = 1; x < 16; x++) {
			int v = a[x], y = x - 1;
			while (y >= 0 && a[y] > v) {
				a[y + 1] = a[y];
				y--;
			}
			a[y + 1] = v;
		}
		int sel = hin[i] & 15;
		bad += hls[i] != a[sel] * 100 + a[15 - sel];
	}
	printf("local-memory insertion sort: %d bad\n", bad);
	free(hls);
	CHECK(cudaFree(dls));
	return bad != 0 || fa.maxThreadsPerBlock != 1024;
}

static int testSyncCounts(const int *hin, const int *din, int n)
{
	int *dsc, hsc[24], bad = 0;
	CHECK(cudaMalloc(&dsc, sizeof hsc));
	syncCounts<<<8, 128>>>(din, dsc, n);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(hsc, dsc, sizeof hsc, cudaMemcpyDeviceToHost));
	for (int b = 0; b < 8; b++) {
		int c = 0, a = 1, o = 0;
		for (int i = b * 128; i < b * 128 + 128; i++) {
			int v = i < n ? hin[i] : 0;
			c += v > 500;
			a &= v >= 0;
			o |= v == 999;
		}
		bad += hsc[3 * b] != c || hsc[3 * b + 1] != a || hsc[3 * b + 2] != o;
	}
	printf("__syncthreads_count/and/or: %d bad\n", bad);
	CHECK(cudaFree(dsc));
	return bad != 0;
}

static int testEarlyExit(const float *dfi, float *dfo, const float *hfi, int m)
{
	float *hfo = (float *)malloc(m * sizeof(float));
	earlyExit<<<(m + 255) / 256, 256>>>(dfi, dfo, m);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(hfo, dfo, m * sizeof(float), cudaMemcpyDefault));
	int bad = 0;
	for (int i = 0; i < m; i++) {
		int j = i ^ 1;
		bad += hfo[i] != (j < m ? hfi[j] : -1.f);
	}
	printf("early return before __syncthreads: %d bad\n", bad);
	free(hfo);
	return bad != 0;
}

static int testGrid3d()
{
	int nx = 37, ny = 19, nz = 11, *dv, bad = 0;
	CHECK(cudaMalloc(&dv, nx * ny * nz * sizeof(int)));
	dim3 blk(8, 4, 2), grd((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2);
	grid3d<<<grd, blk>>>(dv, nx, ny, nz);
	CHECK(cudaGetLastError());
	int *hv = (int *)malloc(nx * ny * nz * sizeof(int));
	CHECK(cudaMemcpy(hv, dv, nx * ny * nz * sizeof(int), cudaMemcpyDeviceToHost));
	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++)
				bad += hv[(z * ny + y) * nx + x] !=
				       x + 100 * y + 10000 * z + (int)grd.z * 1000000;
	printf("3-D grid: %d bad\n", bad);
	free(hv);
	CHECK(cudaFree(dv));
	return bad != 0;
}

static int testBigParam()
{
	Big bg;
	for (int k = 0; k < 64; k++)
		bg.w[k] = k * 0.25f;
	bg.n = 5;
	bg.tag = 3;
	bg.bias = 0.5;
	float *dbo, hbo[32];
	CHECK(cudaMalloc(&dbo, sizeof hbo));
	bigParam<<<1, 32>>>(bg, dbo);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(hbo, dbo, sizeof hbo, cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int t = 0; t < 32; t++) {
		float s = 0;
		for (int k = 0; k < 64; k++)
			s += bg.w[k] * (k + t);
		bad += fabsf(hbo[t] - (s + 8.5f)) > 1e-3f * s;
	}
	printf("struct param (%zu bytes): %d bad\n", sizeof(Big), bad);
	CHECK(cudaFree(dbo));
	return bad != 0;
}

static int testLdgClock(const float *dfi, float *dfo, const float *hfi, int m)
{
	long long *dcy, cy;
	CHECK(cudaMalloc(&dcy, sizeof cy));
	ldgClock<<<4, 256>>>(dfi, dfo, dcy, m);
	CHECK(cudaGetLastError());
	float *hfo = (float *)malloc(m * sizeof(float));
	CHECK(cudaMemcpy(&cy, dcy, sizeof cy, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hfo, dfo, m * sizeof(float), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0; i < m; i++)
		bad += hfo[i] != hfi[i] + 1.f;
	fprintf(stderr, "clock64: %lld cycles\n", cy);
	printf("__ldg + clock64: %d bad\n", bad);
	free(hfo);
	return bad != 0 || cy < 0;
}

static int testFarIndex()
{
	size_t big = (size_t)2304 << 20;
	unsigned char *dp, hb[1024];
	cudaError_t e = cudaMalloc(&dp, big);
	if (e != cudaSuccess) {
		printf("2.25 GiB cudaMalloc failed: %s (skipped)\n", cudaGetErrorString(e));
		cudaGetLastError();
		return 0;
	}
	size_t base = ((size_t)1 << 31) + 1000;
	farIndex<<<4, 256>>>(dp, base);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(hb, dp + base, 1024, cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int k = 0; k < 1024; k++)
		bad += hb[k] != (unsigned char)((base + k) & 0xff);
	cudaPointerAttributes pa;
	CHECK(cudaPointerGetAttributes(&pa, dp + base));
	printf("64-bit indexing past 2 GiB: %d bad (pointer type %d)\n", bad, (int)pa.type);
	CHECK(cudaFree(dp));
	return bad != 0 || pa.type != cudaMemoryTypeDevice;
}

int main()
{
	int fail = testRecursion();
	const int n = 1000;
	int *hin = (int *)malloc(n * 16 * sizeof(int)), *din;
	for (int i = 0; i < n * 16; i++)
		hin[i] = (i * 7919) % 1000;
	CHECK(cudaMalloc(&din, n * 16 * sizeof(int)));
	CHECK(cudaMemcpy(din, hin, n * 16 * sizeof(int), cudaMemcpyHostToDevice));
	fail |= testLocalSort(hin, din, n);
	fail |= testSyncCounts(hin, din, n);

	const int m = 1000;
	float *dfi, *dfo, hfi[m];
	for (int i = 0; i < m; i++)
		hfi[i] = i * 0.5f;
	CHECK(cudaMalloc(&dfi, m * sizeof(float)));
	CHECK(cudaMalloc(&dfo, m * sizeof(float)));
	CHECK(cudaMemcpy(dfi, hfi, sizeof hfi, cudaMemcpyDefault));
	fail |= testEarlyExit(dfi, dfo, hfi, m);
	fail |= testGrid3d();
	fail |= testBigParam();
	fail |= testLdgClock(dfi, dfo, hfi, m);
	fail |= testFarIndex();
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail;
}
