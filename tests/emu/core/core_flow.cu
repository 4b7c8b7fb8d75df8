// Emulator core tests: divergence, calls, warp operations, atomics, printf, faults.
#include <cassert>
#include <cstdio>
#include <cuda_fp16.h>

__device__ __noinline__ int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ float scaleAdd(float a, float b, int k)
{
	if (k & 1)
		return a * k + b;
	return a - b * k;
}

// nested ifs, per-thread trip counts, early return, break and continue
__global__ void divergence(int *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n)
		return;
	int v = 0;
	if (t % 2 == 0) {
		if (t % 4 == 0)
			v += 100;
		else
			v += 200;
	} else {
		if (t % 3 == 0)
			v += 300;
	}
	for (int i = 0; i < t % 7; i++)
		v += i;
	for (int i = 0; i < 100; i++) {
		if (i == t % 13)
			break;
		if (i % 2)
			continue;
		v += 1000;
	}
	int k = t;
	while (k > 1) { // per-thread trip counts (Collatz steps)
		k = (k % 2) ? 3 * k + 1 : k / 2;
		v++;
	}
	if (t % 5 == 4) {
		out[t] = -v;
		return;
	}
	out[t] = v + __popc(__activemask());
}

__global__ void calls(const float *a, float *out, int *fibs, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < n) {
		out[t] = scaleAdd(a[t], 2.0f, t);
		fibs[t] = fib(t % 12);
	}
}

__global__ void warpOps(const int *in, unsigned *out)
{
	int t = threadIdx.x, lane = t & 31;
	int v = in[t];
	unsigned *o = out + t * 10;
	o[0] = __ballot_sync(0xffffffff, v > 50);
	o[1] = __any_sync(0xffffffff, v == 7);
	o[2] = __all_sync(0xffffffff, v >= 0);
	o[3] = __shfl_sync(0xffffffff, v, 3);
	o[4] = __shfl_up_sync(0xffffffff, v, 2);
	o[5] = __shfl_down_sync(0xffffffff, v, 5);
	o[6] = __shfl_xor_sync(0xffffffff, v, 9);
	o[7] = __shfl_sync(0xffffffff, v, lane + 1, 8);
	o[8] = __match_any_sync(0xffffffff, v % 4);
	unsigned m = 0;
	if (lane % 3 == 0)
		m = __activemask();
	o[9] = m;
}

__device__ double atomicAddCas(double *addr, double val)
{
	unsigned long long *p = (unsigned long long *)addr, old = *p, assumed;
	do {
		assumed = old;
		old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
	} while (assumed != old);
	return __longlong_as_double(old);
}

__global__ void atomics(int *iv, unsigned *uv, float *fv, double *dv)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	atomicAdd(&iv[0], t);
	atomicSub(&iv[1], 1);
	atomicMin(&iv[2], 1000 - t);
	atomicMax(&iv[3], t * 3);
	atomicAnd(&uv[0], ~(1u << (t % 32)));
	atomicOr(&uv[1], 1u << (t % 32));
	atomicXor(&uv[2], (unsigned)t);
	atomicInc(&uv[3], 16u);
	atomicDec(&uv[4], 16u);
	atomicExch(&uv[5], 77u);
	atomicAdd(&fv[0], 0.5f);
	atomicAdd(&dv[0], 0.25);
	atomicAddCas(&dv[1], 1.0);
	__shared__ int s;
	if (threadIdx.x == 0)
		s = 0;
	__syncthreads();
	atomicAdd(&s, 2);
	__syncthreads();
	if (threadIdx.x == 0)
		atomicAdd(&iv[4], s);
}

__global__ void intOps(const int *a, const int *b, int *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n)
		return;
	int x = a[t], y = b[t];
	unsigned ux = (unsigned)x, uy = (unsigned)y;
	int *o = out + t * 16;
	o[0] = y ? x / y : 0;
	o[1] = y ? x % y : 0;
	o[2] = uy ? (int)(ux / uy) : 0;
	o[3] = uy ? (int)(ux % uy) : 0;
	o[4] = __mulhi(x, y);
	o[5] = (int)__umulhi(ux, uy);
	o[6] = __popc(ux);
	o[7] = __clz(x);
	o[8] = (int)__brev(ux);
	o[9] = (int)__byte_perm(ux, uy, 0x3715);
	o[10] = (int)__funnelshift_l(ux, uy, y & 31);
	o[11] = x >> (y & 31);
	o[12] = (int)(ux >> (y & 31));
	o[13] = min(x, y) + max(x, y) * 3;
	o[14] = abs(x) ^ (x << 3);
	o[15] = (int)(((long long)x * y) >> 7);
}

__global__ void floatOps(const float *a, const float *b, float *out, int *iout, double *dout, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n)
		return;
	float x = a[t], y = b[t];
	float *o = out + t * 8;
	o[0] = x * y + x;
	o[1] = x / y;
	o[2] = sqrtf(fabsf(x));
	o[3] = fminf(x, y) - fmaxf(x, y);
	o[4] = __saturatef(x);
	o[5] = (float)(int)x;
	o[6] = __half2float(__float2half(x));
	o[7] = rsqrtf(fabsf(y) + 1.0f);
	int *io = iout + t * 6;
	io[0] = __float2int_rn(x);
	io[1] = __float2int_rz(x);
	io[2] = __float2int_rd(x);
	io[3] = __float2int_ru(x);
	io[4] = (int)__float2uint_rn(x);
	io[5] = x < y;
	double dx = x, dy = y;
	dout[t * 3] = dx / dy;
	dout[t * 3 + 1] = sqrt(fabs(dx)) + dx * dy;
	dout[t * 3 + 2] = (double)(long long)(dx * 1000.0);
}

__global__ void printer(int n)
{
	int t = threadIdx.x;
	if (t < n)
		printf("block %d thread %d: %d %5.2f %s %c %x %lld\n", blockIdx.x, t, t * t,
		       t * 0.5, "ok", 'A' + t, 255 + t, 1LL << (40 + t));
}

__global__ void oob(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	a[i] = 1.0f; // OOB_LINE: no bounds check
}

__global__ void sharedOob(int *out, int k)
{
	__shared__ int s[64];
	s[threadIdx.x] = threadIdx.x;
	__syncthreads();
	out[threadIdx.x] = s[threadIdx.x + k];
}

// Two shared arrays, staged by a loop whose bound is last (63 right, 64 one past a[]),
// and read at a[threadIdx.x + k]: a[64] and a[-1] are beside a, not in b.
__global__ void sharedTwoArrays(int *out, int last, int k)
{
	__shared__ int a[64];
	__shared__ int b[64];
	for (int i = threadIdx.x; i <= last; i += blockDim.x)
		a[i] = i; // SHARED_STAGE_LINE
	b[threadIdx.x] = 1;
	__syncthreads();
	out[threadIdx.x] = a[(int)threadIdx.x + k] + b[threadIdx.x];
}

// The dynamic shared memory: one window, whatever its size, and nothing past it.
__global__ void sharedDynamicEnd(int *out, int n)
{
	extern __shared__ int dyn2[];
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		dyn2[i] = i;
	__syncthreads();
	out[threadIdx.x] = dyn2[threadIdx.x];
}

__global__ void trapper(int *p)
{
	if (threadIdx.x == 5)
		__trap();
	p[threadIdx.x] = 1;
}

__global__ void asserter(int *p)
{
	assert(p[threadIdx.x] == 0);
}

// A barrier inside divergent code: lanes 16..31 skip it but live on (they store after
// the if), so warp 0 reaches the barrier split.
__global__ void barrierDivergent(int *p)
{
	if (threadIdx.x < 16) {
		__syncthreads();
		p[threadIdx.x] = 1;
	}
	p[threadIdx.x + 32] = 2;
}

// The common student pattern: the threads past the end return, the others sync. Since
// Volta, threads that exited no longer count at __syncthreads(), so it works on a GPU
// (and on the emulator, unless the race checker's strict view is on).
__global__ void earlyReturnSync(const int *in, int *out, int n)
{
	__shared__ int tile[128];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	tile[threadIdx.x] = in[i];
	__syncthreads();
	int j = threadIdx.x ^ 1;
	out[i] = blockIdx.x * blockDim.x + j < n ? tile[j] : -1;
}

// Bit tricks whose PTX needs modifiers: __ffs is brev + bfind.shiftamt; bmsk (what
// cub's radix sort uses) in both modes; warpSize is the PTX constant WARP_SZ.
__global__ void bitOps(const unsigned *in, unsigned *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n)
		return;
	unsigned x = in[t], c, w;
	unsigned long long wide = (unsigned long long)x << (t % 40);
	unsigned *o = out + t * 6;
	asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(c) : "r"(x & 63), "r"((x >> 6) & 63));
	asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(w) : "r"(x & 63), "r"((x >> 6) & 63));
	o[0] = __ffs(x);
	o[1] = __ffsll(wide);
	o[2] = c;
	o[3] = w;
	o[4] = warpSize;
	o[5] = t % warpSize;
}

// Votes and matches over half warps, each lane naming its own half as the member mask
// (what cooperative_groups::tiled_partition<16> emits).
__global__ void halfWarpVotes(const int *in, unsigned *out)
{
	unsigned lane = threadIdx.x & 31, mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
	int v = in[threadIdx.x];
	unsigned *o = out + threadIdx.x * 5;
	o[0] = __ballot_sync(mask, v > 50);
	o[1] = __all_sync(mask, v >= 0);
	o[2] = __any_sync(mask, v == 7);
	o[3] = __match_any_sync(mask, v % 3);
	int pred;
	o[4] = __match_all_sync(mask, v < 1000, &pred) + pred;
}

// Dynamic shared memory in a module that also has static __shared__ variables: the
// literal 0s here must stay 0, not become the dynamic base address.
__global__ void externZero(int *out, int n)
{
	extern __shared__ int dyn[];
	dyn[threadIdx.x] = 7;
	__syncthreads();
	if (threadIdx.x == 0)
		dyn[0] = 0;
	__syncthreads();
	int v = dyn[threadIdx.x];
	if (threadIdx.x < n)
		out[threadIdx.x] = v != 0 ? v : 100;
}

// Function pointers that are not (issue 18): data called as a function, a function read
// as data. Both fault at their line, as on a GPU.
__device__ int twice(int x) { return 2 * x; }
typedef int (*intfn)(int);
__global__ void callData(const int *p, int *out)
{
	intfn f = (intfn)p;
	out[threadIdx.x] = f((int)threadIdx.x); // ICALL_LINE
}

__device__ intfn twicePtr = twice;
__global__ void readFunction(volatile int *out)
{
	out[0] = *(volatile const int *)twicePtr; // FNREAD_LINE
}

// The SM's clocks (issue 18): each thread spins on clock64() until the global timer says
// 2 ms have passed, counting the reads that went back; cycles over nanoseconds is the
// device's clock rate (1.98 cycles a nanosecond on the H100). A warp may be stopped for
// milliseconds between any two of its instructions while others run (the emulator's
// timeslices), so the rate is taken from a timer read between two clock64() reads that
// are close: nothing ran between them.
__device__ bool timerBetween(long long &c, unsigned long long &g)
{
	long long c1 = clock64();
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
	long long c2 = clock64();
	c = c1;
	return c2 >= c1 && c2 - c1 < 1000;
}

__global__ void clocks(long long *cycles, unsigned long long *ns, int *backwards)
{
	long long c0, c, cv;
	unsigned long long g0, g, gv;
	while (!timerBetween(c0, g0)) {
	}
	long long prev = c0;
	cv = c0;
	gv = g0;
	int back = 0;
	do {
		bool close = timerBetween(c, g);
		back += c < prev;
		prev = c;
		if (close) {
			cv = c;
			gv = g;
		}
	} while (g - g0 < 2000000);
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	cycles[t] = cv - c0;
	ns[t] = gv - g0;
	backwards[t] = back;
}

// Atomics of a warp's lanes on one address (issue 18: the emulator makes them one update,
// exec_arith.c's atom_warp): each lane's old value, as if the lanes went in lane order.
// The first n lanes take part.
__global__ void atomicOlds(unsigned *word, long long *wide, unsigned *olds, int n)
{
	unsigned t = threadIdx.x;
	if ((int)t >= n)
		return;
	olds[0 * 32 + t] = atomicAdd(&word[0], t + 1);
	olds[1 * 32 + t] = atomicInc(&word[1], 5u);
	olds[2 * 32 + t] = atomicCAS(&word[2], t, t + 1);
	olds[3 * 32 + t] = atomicExch(&word[3], t * 7);
	olds[4 * 32 + t] = atomicMax(&word[4], t % 3 == 0 ? 100 - t : t);
	olds[5 * 32 + t] = atomicOr(&word[5], 1u << t);
	olds[6 * 32 + t] = (unsigned)atomicAdd((unsigned long long *)&wide[0], 1ull << 33);
	atomicAdd(&word[6], 2u); // no old value: red
}

// An array in a __grid_constant__ parameter read at indices the kernel computes (ld.param
// at a register's address: LargeKernelParameter): the same index in every lane, then one
// of its own in each.
struct Table {
	int v[300];
};
__global__ void paramIndex(__grid_constant__ const Table t, int n, int *out)
{
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += t.v[i];
	out[threadIdx.x] = sum + t.v[(threadIdx.x * 7) % n];
}

// The order warps run in, round by round: each warp's first lane takes a ticket in every
// round between barriers (the warp that runs first in a round gets 0).
__global__ void warpTickets(unsigned *tickets, unsigned *counter, int rounds)
{
	unsigned w = threadIdx.x / 32, nw = blockDim.x / 32;
	for (int r = 0; r < rounds; r++) {
		if (threadIdx.x % 32 == 0)
			tickets[r * nw + w] = atomicAdd(&counter[r], 1u);
		__syncthreads();
	}
}
