// Grid-wide synchronisation through cooperative launches, as NVIDIA's samples
// reductionMultiBlockCG and conjugateGradientMultiBlockCG use it: the grid sized with
// cudaOccupancyMaxActiveBlocksPerMultiprocessor times the SM count, launched with
// cudaLaunchCooperativeKernel (and cudaLaunchKernelEx's cooperative attribute), phases
// separated by this_grid().sync(); grid_group's queries; barrier_arrive/barrier_wait; a
// grid one block too large; and last, grid.sync() in a kernel launched with <<<>>>,
// which traps on a GPU and leaves the context unusable.
// Everything printed is independent of the device's size; sums are exact.
#include <cmath>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "check.h"
namespace cg = cooperative_groups;

// reductionMultiBlockCG: each block reduces its grid-stride share into partial[block],
// then after grid.sync() block 0 reduces the partial sums.
__global__ void reduceGrid(const int *in, long long *partial, long long *out, int n)
{
	cg::grid_group grid = cg::this_grid();
	cg::thread_block block = cg::this_thread_block();
	__shared__ long long warpSums[32];
	long long s = 0;
	for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
		s += in[i];
	cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
	s = cg::reduce(tile, s, cg::plus<long long>());
	if (tile.thread_rank() == 0)
		warpSums[tile.meta_group_rank()] = s;
	block.sync();
	if (block.thread_rank() == 0) {
		long long b = 0;
		for (unsigned w = 0; w < tile.meta_group_size(); w++)
			b += warpSums[w];
		partial[grid.block_rank()] = b;
	}
	grid.sync();
	if (grid.block_rank() == 0 && block.thread_rank() == 0) {
		long long t = 0;
		for (unsigned long long b = 0; b < grid.num_blocks(); b++)
			t += partial[b];
		*out = t;
	}
}

// Phases: every thread adds 1 to count[p]; before its grid.sync() nobody can have
// started phase p + 1, and after it every block checks that all the grid's threads
// counted. A 3-D grid, so the master block is the one whose blockIdx.x + y + z is 0.
__global__ void phases(int *count, int *bad, int nphases)
{
	cg::grid_group grid = cg::this_grid();
	volatile int *seen = count;
	for (int p = 0; p < nphases; p++) {
		atomicAdd(&count[p], 1);
		if (p + 1 < nphases && seen[p + 1] != 0)
			atomicAdd(bad, 1000);
		grid.sync();
		if (threadIdx.x == 0 && seen[p] != (int)grid.size())
			atomicAdd(bad, 1);
	}
}

// What grid_group says about itself: valid, sizes and ranks, dims.
__global__ void queries(unsigned long long *q)
{
	cg::grid_group grid = cg::this_grid();
	if (grid.thread_rank() == 0) {
		q[0] = grid.is_valid();
		q[1] = grid.size();
		q[2] = grid.num_threads();
		q[3] = grid.num_blocks();
		q[4] = grid.dim_blocks().x * 10000 + grid.dim_blocks().y * 100 + grid.dim_blocks().z;
		q[5] = grid.group_dim().x;
	}
	if (blockIdx.x == 2 && blockIdx.y == 1 && threadIdx.x == 5)
		q[6] = grid.thread_rank() * 1000 + grid.block_rank();
}

// barrier_arrive / barrier_wait: work between them, then read what others wrote before
// arriving.
__global__ void splitBarrier(int *a, int *b, int n)
{
	cg::grid_group grid = cg::this_grid();
	unsigned long long r = grid.thread_rank();
	a[r] = (int)r;
	auto token = grid.barrier_arrive();
	int local = (int)(r * 3);
	grid.barrier_wait(std::move(token));
	b[r] = a[(r + 1) % grid.size()] + local;
	(void)n;
}

// conjugateGradientMultiBlockCG: solves A x = rhs for the 1-D Laplacian (2 on the
// diagonal, -1 beside it) with rhs = A * ones, so x must come out all ones. Dot
// products through one atomicAdd per block, grid.sync() between every phase.
__device__ void gridDot(cg::grid_group &grid, cg::thread_block &block, const double *x,
			const double *y, double *result, int n)
{
	__shared__ double sums[32];
	double s = 0;
	for (int i = grid.thread_rank(); i < n; i += grid.size())
		s += x[i] * y[i];
	cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
	s = cg::reduce(tile, s, cg::plus<double>());
	if (tile.thread_rank() == 0)
		sums[tile.meta_group_rank()] = s;
	block.sync();
	if (block.thread_rank() == 0) {
		double b = 0;
		for (unsigned w = 0; w < tile.meta_group_size(); w++)
			b += sums[w];
		atomicAdd(result, b);
	}
}

__device__ double laplace(const double *v, int i, int n)
{
	return 2 * v[i] - (i > 0 ? v[i - 1] : 0) - (i + 1 < n ? v[i + 1] : 0);
}

__global__ void conjugateGradient(const double *rhs, double *x, double *r, double *p,
				  double *Ap, double *dots, int n, int iters)
{
	cg::grid_group grid = cg::this_grid();
	cg::thread_block block = cg::this_thread_block();
	for (int i = grid.thread_rank(); i < n; i += grid.size()) {
		x[i] = 0;
		r[i] = rhs[i];
		p[i] = rhs[i];
	}
	if (grid.thread_rank() == 0)
		dots[0] = 0;
	grid.sync();
	gridDot(grid, block, r, r, &dots[0], n);
	grid.sync();
	for (int k = 0; k < iters; k++) {
		double rr = dots[3 * k];
		for (int i = grid.thread_rank(); i < n; i += grid.size())
			Ap[i] = laplace(p, i, n);
		if (grid.thread_rank() == 0)
			dots[3 * k + 1] = dots[3 * k + 3] = 0;
		grid.sync();
		gridDot(grid, block, p, Ap, &dots[3 * k + 1], n);
		grid.sync();
		double alpha = rr / dots[3 * k + 1];
		for (int i = grid.thread_rank(); i < n; i += grid.size()) {
			x[i] += alpha * p[i];
			r[i] -= alpha * Ap[i];
		}
		grid.sync();
		gridDot(grid, block, r, r, &dots[3 * k + 3], n);
		grid.sync();
		double beta = dots[3 * k + 3] / rr;
		for (int i = grid.thread_rank(); i < n; i += grid.size())
			p[i] = r[i] + beta * p[i];
		grid.sync();
	}
}

// Resident blocks of K with THREADS threads: what a cooperative grid may have.
template <typename K> static int residentBlocks(K kernel, int threads, size_t shmem)
{
	int sms = 0, perSm = 0;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, threads, shmem));
	return sms * perSm;
}

static int reduction()
{
	const int n = 1 << 20, threads = 256;
	int blocks = residentBlocks(reduceGrid, threads, 0);
	int *h = (int *)malloc(n * sizeof(int)), *in;
	long long want = 0, got = -1, *partial, *out;
	for (int i = 0; i < n; i++) {
		h[i] = (i * 7919) % 1001 - 500;
		want += h[i];
	}
	CHECK(cudaMalloc(&in, n * sizeof(int)));
	CHECK(cudaMalloc(&partial, blocks * sizeof(long long)));
	CHECK(cudaMalloc(&out, sizeof(long long)));
	CHECK(cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice));
	int nn = n;
	void *args[] = { &in, &partial, &out, &nn };
	GpuTimer t;
	t.begin();
	CHECK(cudaLaunchCooperativeKernel((void *)reduceGrid, blocks, threads, args, 0, 0));
	t.end("reduceGrid");
	CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
	fprintf(stderr, "reduceGrid: %d blocks of %d threads\n", blocks, threads);
	printf("reduction over a full grid: %lld vs %lld %s\n", got, want, got == want ? "ok" : "BAD");
	cudaFree(in);
	cudaFree(partial);
	cudaFree(out);
	free(h);
	return got != want;
}

static int phaseCheck(bool ex)
{
	const int nphases = 6;
	int *count, *bad, hbad = -1;
	CHECK(cudaMalloc(&count, nphases * sizeof(int)));
	CHECK(cudaMalloc(&bad, sizeof(int)));
	CHECK(cudaMemset(count, 0, nphases * sizeof(int)));
	CHECK(cudaMemset(bad, 0, sizeof(int)));
	dim3 grid(4, 3, 2), block(96);
	int np = nphases;
	if (ex) {
		cudaLaunchAttribute coop;
		coop.id = cudaLaunchAttributeCooperative;
		coop.val.cooperative = 1;
		cudaLaunchConfig_t cfg = {};
		cfg.gridDim = grid;
		cfg.blockDim = block;
		cfg.attrs = &coop;
		cfg.numAttrs = 1;
		CHECK(cudaLaunchKernelEx(&cfg, phases, count, bad, np));
	} else {
		void *args[] = { &count, &bad, &np };
		CHECK(cudaLaunchCooperativeKernel((void *)phases, grid, block, args, 0, 0));
	}
	CHECK(cudaMemcpy(&hbad, bad, sizeof hbad, cudaMemcpyDeviceToHost));
	printf("%d phases on a 4x3x2 grid (%s): %d bad %s\n", nphases,
	       ex ? "cudaLaunchKernelEx" : "cudaLaunchCooperativeKernel", hbad, hbad ? "BAD" : "ok");
	cudaFree(count);
	cudaFree(bad);
	return hbad != 0;
}

static int queryCheck()
{
	unsigned long long *q, h[7];
	CHECK(cudaMalloc(&q, sizeof h));
	CHECK(cudaMemset(q, 0, sizeof h));
	void *args[] = { &q };
	CHECK(cudaLaunchCooperativeKernel((void *)queries, dim3(5, 2), dim3(64), args, 0, 0));
	CHECK(cudaMemcpy(h, q, sizeof h, cudaMemcpyDeviceToHost));
	printf("cooperative: valid %llu, size %llu, threads %llu, blocks %llu, dims %llu, "
	       "group_dim.x %llu, rank of (5) in block (2,1) %llu\n",
	       h[0], h[1], h[2], h[3], h[4], h[5], h[6]);
	CHECK(cudaMemset(q, 0, sizeof h));
	queries<<<dim3(5, 2), 64>>>(q);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(h, q, sizeof h, cudaMemcpyDeviceToHost));
	printf("<<<>>>: valid %llu\n", h[0]);
	cudaFree(q);
	return 0;
}

static int splitCheck()
{
	const int blocks = 7, threads = 128, n = blocks * threads;
	int *a, *b, *h = (int *)malloc(n * sizeof(int)), bad = 0, nn = n;
	CHECK(cudaMalloc(&a, n * sizeof(int)));
	CHECK(cudaMalloc(&b, n * sizeof(int)));
	void *args[] = { &a, &b, &nn };
	CHECK(cudaLaunchCooperativeKernel((void *)splitBarrier, blocks, threads, args, 0, 0));
	CHECK(cudaMemcpy(h, b, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (int r = 0; r < n; r++)
		bad += h[r] != (r + 1) % n + r * 3;
	printf("barrier_arrive/barrier_wait: %d bad %s\n", bad, bad ? "BAD" : "ok");
	cudaFree(a);
	cudaFree(b);
	free(h);
	return bad != 0;
}

static int cgCheck()
{
	const int n = 4096, threads = 128, iters = 40;
	int blocks = residentBlocks(conjugateGradient, threads, 0);
	if (blocks > 64)
		blocks = 64; // as many as the emulator runs quickly; fits on any device
	double *h = (double *)malloc(n * sizeof(double));
	double *rhs, *x, *r, *p, *Ap, *dots;
	for (int i = 0; i < n; i++)
		h[i] = i == 0 || i == n - 1 ? 1 : 0; // A * ones
	CHECK(cudaMalloc(&rhs, n * sizeof(double)));
	CHECK(cudaMalloc(&x, n * sizeof(double)));
	CHECK(cudaMalloc(&r, n * sizeof(double)));
	CHECK(cudaMalloc(&p, n * sizeof(double)));
	CHECK(cudaMalloc(&Ap, n * sizeof(double)));
	CHECK(cudaMalloc(&dots, (3 * iters + 3) * sizeof(double)));
	CHECK(cudaMemcpy(rhs, h, n * sizeof(double), cudaMemcpyHostToDevice));
	int nn = n, it = iters;
	void *args[] = { &rhs, &x, &r, &p, &Ap, &dots, &nn, &it };
	GpuTimer t;
	t.begin();
	CHECK(cudaLaunchCooperativeKernel((void *)conjugateGradient, blocks, threads, args, 0, 0));
	t.end("conjugateGradient");
	CHECK(cudaMemcpy(h, x, n * sizeof(double), cudaMemcpyDeviceToHost));
	// CG on this matrix is exact after n steps; 40 steps move the middle by little,
	// but the ends' values are fixed by then: the residual falls steadily
	double rr0, rrk;
	CHECK(cudaMemcpy(&rr0, dots, sizeof rr0, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&rrk, dots + 3 * iters, sizeof rrk, cudaMemcpyDeviceToHost));
	printf("conjugate gradient, %d iterations: x[0] = %.6f, x[1] = %.6f, x[10] = %.6f, "
	       "residual %.3g -> %s\n", iters, h[0], h[1], h[10], rr0,
	       rrk < rr0 ? "smaller" : "NOT SMALLER");
	int bad = !(rrk < rr0) || fabs(h[0] - (double)40 / 41) > 1e-6;
	for (double *d : { rhs, x, r, p, Ap, dots })
		cudaFree(d);
	free(h);
	return bad;
}

static int tooLarge()
{
	int blocks = residentBlocks(phases, 96, 0), *count, *bad, np = 1;
	CHECK(cudaMalloc(&count, sizeof(int)));
	CHECK(cudaMalloc(&bad, sizeof(int)));
	void *args[] = { &count, &bad, &np };
	cudaError_t e = cudaLaunchCooperativeKernel((void *)phases, blocks + 1, 96, args, 0, 0);
	cudaError_t last = cudaGetLastError();
	cudaError_t after = cudaDeviceSynchronize();
	printf("one block more than fit: %s (last error %s, then %s)\n", cudaGetErrorName(e),
	       cudaGetErrorName(last), cudaGetErrorName(after));
	cudaFree(count);
	cudaFree(bad);
	return e != cudaErrorCooperativeLaunchTooLarge;
}

// Last: grid.sync() in a kernel launched with <<<>>> traps (the context is then lost).
static int notCooperative()
{
	int *count, *bad;
	CHECK(cudaMalloc(&count, sizeof(int)));
	CHECK(cudaMalloc(&bad, sizeof(int)));
	phases<<<2, 32>>>(count, bad, 1);
	cudaError_t launch = cudaGetLastError();
	cudaError_t sync = cudaDeviceSynchronize();
	printf("grid.sync() after <<<>>>: launch %s, then %s\n", cudaGetErrorName(launch),
	       cudaGetErrorName(sync));
	return sync == cudaSuccess;
}

int main()
{
	int coop = 0, fail = 0;
	CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
	printf("cudaDevAttrCooperativeLaunch: %d\n", coop);
	fail |= reduction();
	fail |= phaseCheck(false);
	fail |= phaseCheck(true);
	fail |= queryCheck();
	fail |= splitCheck();
	fail |= cgCheck();
	fail |= tooLarge();
	fail |= notCooperative();
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail;
}
