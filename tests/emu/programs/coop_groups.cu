// Cooperative groups as the CUDA samples use them: a thread_block reduction through
// shared memory, tiled_partition<16> with shfl_down, cg::reduce, any and ballot (each
// half warp votes with its own member mask), and the dynamic tiled_partition(8) and
// coalesced_threads().
#include <cmath>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "check.h"
namespace cg = cooperative_groups;

__device__ int reduceSum(cg::thread_group g, int *temp, int val)
{
	int lane = g.thread_rank();
	for (int i = g.size() / 2; i > 0; i /= 2) {
		temp[lane] = val;
		g.sync();
		if (lane < i)
			val += temp[lane + i];
		g.sync();
	}
	return val;
}

__device__ int threadSum(const int4 *input, int n)
{
	int sum = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += blockDim.x * gridDim.x) {
		int4 in = input[i];
		sum += in.x + in.y + in.z + in.w;
	}
	return sum;
}

__global__ void sumKernelBlock(int *sum, const int4 *input, int n)
{
	int mySum = threadSum(input, n);
	extern __shared__ int temp[];
	auto g = cg::this_thread_block();
	int blockSum = reduceSum(g, temp, mySum);
	if (g.thread_rank() == 0)
		atomicAdd(sum, blockSum);
}

template <int TILE> __global__ void tileKernel(const float *in, float *out, int *tileCount, int n)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(block);
	int i = block.group_index().x * block.size() + block.thread_rank();
	float v = i < n ? in[i] : 0.f;
	for (int o = tile.size() / 2; o > 0; o /= 2)
		v += tile.shfl_down(v, o);
	float all = cg::reduce(tile, i < n ? in[i] : 0.f, cg::plus<float>());
	int any = tile.any(i < n && in[i] > 0.99f);
	unsigned bal = tile.ballot(i < n && in[i] > 0.5f);
	if (tile.thread_rank() == 0 && i < n) {
		out[i / TILE] = v;
		out[(n + TILE - 1) / TILE + i / TILE] = all;
		atomicAdd(tileCount, __popc(bal) + any * 1000);
	}
	block.sync();
}

__global__ void dynamicTiles(int *out)
{
	cg::thread_group tile8 = cg::tiled_partition(cg::this_thread_block(), 8);
	int r = tile8.thread_rank();
	__shared__ int buf[256]; // the tile's sum of ranks through shared memory
	buf[threadIdx.x] = r;
	tile8.sync();
	int s = 0, base = threadIdx.x - r;
	for (int k = 0; k < 8; k++)
		s += buf[base + k];
	out[threadIdx.x] = s * 100 + (int)tile8.size();
	if (threadIdx.x < 40) {
		cg::coalesced_group active = cg::coalesced_threads();
		out[threadIdx.x] += active.thread_rank() * 10000 + active.size() * 1000000;
	}
}

static int blockReduce()
{
	int n = 1 << 20;
	int *h = (int *)malloc(n * sizeof(int));
	long long ref = 0;
	for (int i = 0; i < n; i++) {
		h[i] = (i * 7) % 13 - 6;
		ref += h[i];
	}
	int *d, *dSum;
	CHECK(cudaMalloc(&d, n * sizeof(int)));
	CHECK(cudaMalloc(&dSum, sizeof(int)));
	CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
	CHECK(cudaMemset(dSum, 0, sizeof(int)));
	int bs = 256, nb = (n + bs - 1) / bs;
	nb = nb > 128 ? 128 : nb;
	GpuTimer t;
	t.begin();
	sumKernelBlock<<<nb, bs, bs * sizeof(int)>>>(dSum, (int4 *)d, n);
	CHECK(cudaGetLastError());
	t.end("cg block reduce");
	int got;
	CHECK(cudaMemcpy(&got, dSum, sizeof(int), cudaMemcpyDeviceToHost));
	printf("cg block reduce: %d vs %lld %s\n", got, ref, got == ref ? "ok" : "WRONG");
	CHECK(cudaFree(d));
	CHECK(cudaFree(dSum));
	free(h);
	return got != ref;
}

static int tiles16()
{
	const int m = 1000;
	float hf[m], ho[2 * m];
	for (int i = 0; i < m; i++)
		hf[i] = (float)((i * 37) % 101) / 100.f;
	float *dF, *dOut;
	int *dCnt, cnt;
	CHECK(cudaMalloc(&dF, m * sizeof(float)));
	CHECK(cudaMalloc(&dOut, 2 * m * sizeof(float)));
	CHECK(cudaMalloc(&dCnt, sizeof(int)));
	CHECK(cudaMemcpy(dF, hf, sizeof hf, cudaMemcpyHostToDevice));
	CHECK(cudaMemset(dCnt, 0, sizeof(int)));
	tileKernel<16><<<(m + 127) / 128, 128>>>(dF, dOut, dCnt, m);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(ho, dOut, sizeof ho, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&cnt, dCnt, sizeof cnt, cudaMemcpyDeviceToHost));
	int nt = (m + 15) / 16, badTiles = 0, rcnt = 0;
	for (int t = 0; t < nt; t++) {
		float r = 0;
		int any = 0;
		for (int i = t * 16; i < t * 16 + 16 && i < m; i++) {
			r += hf[i];
			rcnt += hf[i] > 0.5f;
			any |= hf[i] > 0.99f;
		}
		rcnt += any * 1000;
		badTiles += fabsf(ho[t] - r) > 1e-4f || fabsf(ho[nt + t] - r) > 1e-4f;
	}
	int ok = badTiles == 0 && cnt == rcnt;
	printf("tiled_partition<16>: %d bad tiles, count %d vs %d %s\n", badTiles, cnt, rcnt,
	       ok ? "ok" : "WRONG");
	CHECK(cudaFree(dF));
	CHECK(cudaFree(dOut));
	CHECK(cudaFree(dCnt));
	return !ok;
}

static int tiles8()
{
	int *dt, ht[256];
	CHECK(cudaMalloc(&dt, 256 * sizeof(int)));
	dynamicTiles<<<1, 256>>>(dt);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(ht, dt, sizeof ht, cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int t = 0; t < 256; t++) {
		int want = 28 * 100 + 8;
		if (t < 40) // lanes 0..31 of warp 0, then 8 lanes of warp 1
			want += (t & 31) * 10000 + (t < 32 ? 32 : 8) * 1000000;
		if (ht[t] != want && bad++ < 4)
			printf("  t=%d got %d want %d\n", t, ht[t], want);
	}
	printf("tiled_partition(8)/coalesced_threads: %d bad %s\n", bad, bad ? "WRONG" : "ok");
	CHECK(cudaFree(dt));
	return bad != 0;
}

int main()
{
	int fail = blockReduce();
	fail |= tiles16();
	fail |= tiles8();
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail;
}
