// Asynchronous barriers, sm_80/sm_90 (issue 18: NVIDIA's simpleAWBarrier and
// globalToShmemAsyncCopy use them): cuda::barrier<thread_scope_block> over several phases
// (arrive_and_wait, and arrive with a token waited for later, work between); a tile
// copied with cuda::memcpy_async completing a barrier (a bulk copy with a transaction
// count on sm_90); a two-stage block-scope cuda::pipeline (cp.async tracked by an
// mbarrier); the PTX itself: a count larger than one arrival, arrive_drop, expect_tx and
// complete_tx, test_wait on the phase's parity, pending_count. Every result is exact.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include "check.h"
namespace cg = cooperative_groups;
#pragma nv_diag_suppress static_var_with_dynamic_init // cuda::barrier is set up by init()

#define N 128

// Each phase: every thread writes its value, the barrier, then each reads its two
// neighbours'; the second barrier keeps the next phase's writes after those reads.
__global__ void neighbours(int *out, int rounds)
{
	__shared__ int buf[N];
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	int t = threadIdx.x, v = t;
	if (t == 0)
		init(&bar, blockDim.x);
	__syncthreads();
	for (int r = 0; r < rounds; r++) {
		buf[t] = v;
		bar.arrive_and_wait();
		v = (buf[(t + 1) % N] + buf[(t + N - 1) % N]) % 1000;
		auto token = bar.arrive(); // split: arrive now, work, wait later
		v += t;
		bar.wait(cuda::std::move(token));
	}
	out[t] = v;
}

// A tile of global memory copied into shared memory by the whole block, the barrier
// completing when its bytes have come; then summed in reverse order.
__global__ void tileCopy(const float *in, float *out)
{
	__shared__ alignas(16) float tile[N];
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	auto block = cg::this_thread_block();
	if (block.thread_rank() == 0)
		init(&bar, block.size());
	block.sync();
	cuda::memcpy_async(block, tile, in + blockIdx.x * N, cuda::aligned_size_t<16>(sizeof tile), bar);
	bar.arrive_and_wait();
	out[blockIdx.x * N + threadIdx.x] = tile[N - 1 - threadIdx.x] * 2.0f;
}

// A two-stage pipeline of the whole block: stage s + 1 is fetched while stage s is used.
__global__ void pipelineSum(const int *in, int *out, int stages)
{
	__shared__ alignas(16) int buf[2][N];
	__shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
	auto block = cg::this_thread_block();
	auto pipe = cuda::make_pipeline(block, &state);
	int t = threadIdx.x, sum = 0;
	for (int fetch = 0; fetch < 2 && fetch < stages; fetch++) {
		pipe.producer_acquire();
		cuda::memcpy_async(block, buf[fetch], in + fetch * N, sizeof(int) * N, pipe);
		pipe.producer_commit();
	}
	for (int s = 0; s < stages; s++) {
		pipe.consumer_wait();
		sum += buf[s % 2][(t + s) % N];
		pipe.consumer_release();
		if (s + 2 < stages) {
			pipe.producer_acquire();
			cuda::memcpy_async(block, buf[s % 2], in + (s + 2) * N, sizeof(int) * N, pipe);
			pipe.producer_commit();
		}
	}
	out[t] = sum;
}

// The instructions themselves, one warp, each step after a __syncwarp (the order of
// arrivals inside one instruction is the hardware's): phase 0 expects 40 arrivals: 32
// lanes, then lane 0 with a count of 7 (its state's pending count: 1), then lane 1.
// Phase 1: lanes 0-7 drop out for good (arrive_drop), lanes 8-31 arrive: 8 missing
// (test_wait on parity 1 says not yet), lane 0 with a count of 8 completes it. Phase 2
// expects 32 arrivals and 64 transaction bytes: all arrive, not complete until
// complete_tx brings the bytes.
#define PTX_WAIT(dst, kind, c, arg)                                                              \
	asm volatile("{ .reg .pred p; mbarrier.test_wait" kind ".shared::cta.b64 p, [%1], %2; "     \
		     "selp.u32 %0, 1, 0, p; }" : "=r"(dst) : "r"(a), c(arg) : "memory")
#define PTX_ARRIVE(count) \
	asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;" : "=l"(st) : "r"(a), "r"(count) : "memory")

__global__ void ptxBarrier(unsigned *out)
{
	__shared__ unsigned long long mbar;
	unsigned a = (unsigned)__cvta_generic_to_shared(&mbar), lane = threadIdx.x;
	unsigned p0, p1, p2, p3, p4, pend = 0;
	unsigned long long st;
	if (lane == 0)
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 40;" ::"r"(a) : "memory");
	__syncwarp();
	PTX_ARRIVE(1);
	__syncwarp();
	if (lane == 0) {
		PTX_ARRIVE(7);
		asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pend) : "l"(st));
	}
	__syncwarp();
	if (lane == 1)
		PTX_ARRIVE(1);
	__syncwarp();
	PTX_WAIT(p0, ".parity", "r", 0u);
	__syncwarp();
	if (lane < 8)
		asm volatile("mbarrier.arrive_drop.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(a) : "memory");
	__syncwarp();
	if (lane >= 8)
		PTX_ARRIVE(1);
	__syncwarp();
	PTX_WAIT(p1, ".parity", "r", 1u);
	__syncwarp();
	if (lane == 0)
		PTX_ARRIVE(8);
	__syncwarp();
	PTX_WAIT(p2, ".parity", "r", 1u);
	if (lane == 0)
		asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 64;" ::"r"(a) : "memory");
	__syncwarp();
	PTX_ARRIVE(1);
	__syncwarp();
	PTX_WAIT(p3, "", "l", st);
	__syncwarp();
	if (lane == 0)
		asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 64;" ::"r"(a) : "memory");
	__syncwarp();
	PTX_WAIT(p4, "", "l", st);
	out[lane] = p0 | p1 << 1 | p2 << 2 | p3 << 3 | p4 << 4 | pend << 8;
}

int main()
{
	int *out, *in;
	CHECK(cudaMallocManaged(&out, N * sizeof(int)));
	neighbours<<<1, N>>>(out, 3);
	CHECK(cudaDeviceSynchronize());
	long long s = 0;
	for (int i = 0; i < N; i++)
		s += (long long)out[i] * (i + 1);
	printf("cuda::barrier, 3 rounds: out[0] %d, out[1] %d, out[127] %d, weighted sum %lld\n",
	       out[0], out[1], out[N - 1], s);

	float *fin, *fout;
	CHECK(cudaMallocManaged(&fin, 4 * N * sizeof(float)));
	CHECK(cudaMallocManaged(&fout, 4 * N * sizeof(float)));
	for (int i = 0; i < 4 * N; i++)
		fin[i] = (float)i;
	tileCopy<<<4, N>>>(fin, fout);
	CHECK(cudaDeviceSynchronize());
	int bad = 0;
	for (int b = 0; b < 4; b++)
		for (int i = 0; i < N; i++)
			bad += fout[b * N + i] != 2.0f * (b * N + N - 1 - i);
	printf("cuda::memcpy_async with a barrier, 4 blocks: %d wrong of %d\n", bad, 4 * N);

	const int stages = 6;
	CHECK(cudaMallocManaged(&in, stages * N * sizeof(int)));
	for (int i = 0; i < stages * N; i++)
		in[i] = i % 97;
	pipelineSum<<<1, N>>>(in, out, stages);
	CHECK(cudaDeviceSynchronize());
	bad = 0;
	for (int t = 0; t < N; t++) {
		int want = 0;
		for (int st = 0; st < stages; st++)
			want += in[st * N + (t + st) % N];
		bad += out[t] != want;
	}
	printf("block-scope cuda::pipeline, %d stages: %d wrong of %d\n", stages, bad, N);

	unsigned *u;
	CHECK(cudaMallocManaged(&u, 32 * sizeof(unsigned)));
	ptxBarrier<<<1, 32>>>(u);
	CHECK(cudaDeviceSynchronize());
	printf("mbarrier in PTX: lane 0 %#x, lane 7 %#x, lane 8 %#x, lane 31 %#x\n", u[0], u[7], u[8],
	       u[31]);
	printf("done\n");
	return 0;
}
