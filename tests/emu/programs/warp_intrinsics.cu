// Warp-level primitives as the CUDA blog teaches them: shuffle reductions and scans,
// votes, match, shuffles of width 16 and 8, and warp-aggregated atomics (__activemask,
// __ffs, __popc). The device code uses warpSize, which PTX spells WARP_SZ.
#include <cmath>
#include <vector>
#include "check.h"

#define FULL 0xffffffffu

__inline__ __device__ int warpReduceSum(int val)
{
	for (int offset = warpSize / 2; offset > 0; offset /= 2)
		val += __shfl_down_sync(FULL, val, offset);
	return val;
}

__inline__ __device__ float warpAllMax(float v)
{
	for (int m = 16; m; m >>= 1)
		v = fmaxf(v, __shfl_xor_sync(FULL, v, m));
	return v;
}

__inline__ __device__ double warpSumD(double v)
{
	for (int m = 16; m; m >>= 1)
		v += __shfl_xor_sync(FULL, v, m);
	return v;
}

// Sum of the ints, maximum of the floats (as int bits: they are not negative) and the
// sum of the floats in double, over a grid-stride loop.
__global__ void reduceKernel(const int *in, int *out, int n, float *maxOut, const float *fin,
			     double *dsum)
{
	int sum = 0;
	float mx = -1e30f;
	double ds = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		sum += in[i];
		mx = fmaxf(mx, fin[i]);
		ds += fin[i];
	}
	static __shared__ int shared[32];
	int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
	sum = warpReduceSum(sum);
	mx = warpAllMax(mx);
	ds = warpSumD(ds);
	if (lane == 0) {
		shared[wid] = sum;
		atomicAdd(dsum, ds);
	}
	if (lane == 5)
		atomicMax((int *)maxOut, __float_as_int(fmaxf(mx, 0.f)));
	__syncthreads();
	sum = threadIdx.x < blockDim.x / warpSize ? shared[lane] : 0;
	if (wid == 0)
		sum = warpReduceSum(sum);
	if (threadIdx.x == 0)
		atomicAdd(out, sum);
}

// Inclusive scan of each warp's 32 values with __shfl_up_sync.
__global__ void scanWarp(const int *in, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x & 31;
	int v = i < n ? in[i] : 0;
	for (int d = 1; d < 32; d <<= 1) {
		int t = __shfl_up_sync(FULL, v, d);
		if (lane >= d)
			v += t;
	}
	if (i < n)
		out[i] = v;
}

// Warp-aggregated atomic increment: one atomicAdd per warp, each lane its rank.
__device__ int atomicAggInc(int *ctr)
{
	unsigned int active = __activemask();
	int leader = __ffs(active) - 1;
	int change = __popc(active);
	unsigned int rank = __popc(active & ((1u << (threadIdx.x & 31)) - 1));
	int warpRes;
	if ((threadIdx.x & 31) == leader)
		warpRes = atomicAdd(ctr, change);
	warpRes = __shfl_sync(active, warpRes, leader);
	return warpRes + rank;
}

// Stream compaction of the positive values.
__global__ void filterPositive(int *dst, int *nres, const int *src, int n)
{
	int i = threadIdx.x + blockIdx.x * blockDim.x;
	if (i < n && src[i] > 0)
		dst[atomicAggInc(nres)] = src[i];
}

// n is a multiple of 32.
__global__ void votes(const int *in, unsigned *ballots, int *anyAll, unsigned *match, int *bcast)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x & 31, w = i >> 5;
	int v = in[i];
	unsigned b = __ballot_sync(FULL, v & 1);
	int any = __any_sync(FULL, v > 990), all = __all_sync(FULL, v >= 0);
	unsigned mm = __match_any_sync(FULL, v % 4);
	int bc = __shfl_sync(FULL, v, 7, 16); // width 16: lane 7 of each half
	int bc2 = __shfl_down_sync(FULL, v, 3, 8);
	if (lane == 0) {
		ballots[w] = b;
		anyAll[w] = any * 2 + all;
	}
	match[i] = mm;
	bcast[2 * i] = bc;
	bcast[2 * i + 1] = bc2;
}

// The votes of warp w checked on the host: the number of wrong values.
static int checkVotes(const std::vector<int> &h, int w, unsigned bal, int anyAll,
		      const unsigned *match, const int *bcast)
{
	unsigned rb = 0;
	int any = 0, all = 1, bad = 0;
	for (int l = 0; l < 32; l++) {
		int v = h[w * 32 + l];
		rb |= (unsigned)(v & 1) << l;
		any |= v > 990;
		all &= v >= 0;
	}
	bad += bal != rb || anyAll != any * 2 + all;
	for (int l = 0; l < 32; l++) {
		unsigned rm = 0;
		int v = h[w * 32 + l];
		for (int k = 0; k < 32; k++)
			if (h[w * 32 + k] % 4 == v % 4)
				rm |= 1u << k;
		bad += match[w * 32 + l] != rm;
		bad += bcast[2 * (w * 32 + l)] != h[w * 32 + (l & 16) + 7];
		int seg = l & ~7, src = l + 3;
		bad += bcast[2 * (w * 32 + l) + 1] != (src - seg < 8 ? h[w * 32 + src] : v);
	}
	return bad;
}

int main()
{
	const int n = 1 << 18;
	std::vector<int> h(n);
	std::vector<float> hf(n);
	srand(1234);
	for (int i = 0; i < n; i++) {
		h[i] = rand() % 1000 - 300;
		hf[i] = (rand() % 100000) / 100.0f;
	}
	int *dIn, *dOut, *dScan, *dFlt, *dCnt;
	float *dF, *dMax;
	double *dDs;
	CHECK(cudaMalloc(&dIn, n * sizeof(int)));
	CHECK(cudaMalloc(&dOut, sizeof(int)));
	CHECK(cudaMalloc(&dScan, n * sizeof(int)));
	CHECK(cudaMalloc(&dFlt, n * sizeof(int)));
	CHECK(cudaMalloc(&dCnt, sizeof(int)));
	CHECK(cudaMalloc(&dF, n * sizeof(float)));
	CHECK(cudaMalloc(&dMax, sizeof(float)));
	CHECK(cudaMalloc(&dDs, sizeof(double)));
	CHECK(cudaMemcpy(dIn, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dF, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemset(dOut, 0, sizeof(int)));
	CHECK(cudaMemset(dCnt, 0, sizeof(int)));
	CHECK(cudaMemset(dMax, 0, sizeof(float)));
	CHECK(cudaMemset(dDs, 0, sizeof(double)));

	GpuTimer t;
	t.begin();
	reduceKernel<<<64, 512>>>(dIn, dOut, n, dMax, dF, dDs);
	scanWarp<<<n / 256, 256>>>(dIn, dScan, n);
	filterPositive<<<n / 128 + 1, 128>>>(dFlt, dCnt, dIn, n);
	CHECK(cudaGetLastError());
	t.end("reduce, scan, filter");

	int sum, cnt;
	float mx;
	double ds;
	CHECK(cudaMemcpy(&sum, dOut, sizeof(int), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&cnt, dCnt, sizeof(int), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&mx, dMax, sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&ds, dDs, sizeof(double), cudaMemcpyDeviceToHost));
	std::vector<int> scan(n), flt(n);
	CHECK(cudaMemcpy(scan.data(), dScan, n * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(flt.data(), dFlt, n * sizeof(int), cudaMemcpyDeviceToHost));
	long long rsum = 0, rpos = 0, fsum = 0;
	float rmax = 0;
	double rds = 0;
	int rcnt = 0, scanBad = 0, run = 0;
	for (int i = 0; i < n; i++) {
		rsum += h[i];
		rmax = hf[i] > rmax ? hf[i] : rmax;
		rds += hf[i];
		if (h[i] > 0) {
			rcnt++;
			rpos += h[i];
		}
		run = i % 32 == 0 ? h[i] : run + h[i];
		scanBad += scan[i] != run;
	}
	for (int i = 0; i < cnt && i < n; i++)
		fsum += flt[i];
	int dsOk = fabs(ds - rds) < 1e-6 * rds, fltOk = cnt == rcnt && fsum == rpos;
	printf("reduce: %d vs %lld %s\n", sum, rsum, sum == rsum ? "ok" : "WRONG");
	printf("max: %g vs %g %s\n", mx, rmax, mx == rmax ? "ok" : "WRONG");
	printf("dsum: %.3f vs %.3f %s\n", ds, rds, dsOk ? "ok" : "WRONG");
	printf("warp scan: %d bad %s\n", scanBad, scanBad ? "WRONG" : "ok");
	printf("filter: count %d vs %d, sum %lld vs %lld %s\n", cnt, rcnt, fsum, rpos,
	       fltOk ? "ok" : "WRONG");
	int fail = sum != rsum || mx != rmax || !dsOk || scanBad || !fltOk;

	const int m = 4096;
	unsigned *dBal, *dMatch;
	int *dAnyAll, *dBcast;
	CHECK(cudaMalloc(&dBal, m / 32 * sizeof(unsigned)));
	CHECK(cudaMalloc(&dAnyAll, m / 32 * sizeof(int)));
	CHECK(cudaMalloc(&dMatch, m * sizeof(unsigned)));
	CHECK(cudaMalloc(&dBcast, 2 * m * sizeof(int)));
	votes<<<m / 128, 128>>>(dIn, dBal, dAnyAll, dMatch, dBcast);
	CHECK(cudaGetLastError());
	std::vector<unsigned> bal(m / 32), match(m);
	std::vector<int> anyAll(m / 32), bcast(2 * m);
	CHECK(cudaMemcpy(bal.data(), dBal, m / 32 * 4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(anyAll.data(), dAnyAll, m / 32 * 4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(match.data(), dMatch, m * 4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(bcast.data(), dBcast, 2 * m * 4, cudaMemcpyDeviceToHost));
	int voteBad = 0;
	for (int w = 0; w < m / 32; w++)
		voteBad += checkVotes(h, w, bal[w], anyAll[w], match.data(), bcast.data());
	printf("vote/match/shfl-width: %d bad %s\n", voteBad, voteBad ? "WRONG" : "ok");
	fail |= voteBad != 0;
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail;
}
