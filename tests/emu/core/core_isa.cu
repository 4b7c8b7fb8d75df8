// Emulator core tests of the instruction families of sm_80/sm_90 (test_core_isa.c):
// tensor cores through shared memory, the faults and races of their misuse, ldmatrix,
// and one result or two of each f16/bf16/tf32 and integer SIMD instruction.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// One warp: A and B through shared memory, C = A B back through shared memory.
__global__ void wmmaShared(const half *a, const half *b, float *c)
{
	__shared__ __align__(32) half as[256], bs[256];
	__shared__ __align__(32) float cs[256];
	for (int i = threadIdx.x; i < 256; i += 32) {
		as[i] = a[i];
		bs[i] = b[i];
	}
	__syncwarp();
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	wmma::load_matrix_sync(fa, as, 16);
	wmma::load_matrix_sync(fb, bs, 16);
	wmma::fill_fragment(fc, 0.0f);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(cs, fc, 16, wmma::mem_row_major);
	__syncwarp();
	for (int i = threadIdx.x; i < 256; i += 32)
		c[i] = cs[i];
}

// Warp 0 stores a fragment into shared memory, warp 1 loads it: with the barrier, or
// without it (a race the checker must name at both lines).
__global__ void wmmaHandoff(float *out, int sync)
{
	__shared__ __align__(32) float t[256];
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
	if (threadIdx.x < 32) {
		wmma::fill_fragment(f, 2.0f);
		wmma::store_matrix_sync(t, f, 16, wmma::mem_row_major); // STORE_LINE
	}
	if (sync)
		__syncthreads();
	if (threadIdx.x >= 32) {
		wmma::load_matrix_sync(f, t, 16, wmma::mem_row_major); // LOAD_LINE
		out[threadIdx.x - 32] = f.x[0];
	}
}

// Half a warp loads a fragment: on a GPU undefined, here stopped at the line.
__global__ void wmmaDivergent(const half *a, float *out)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;
	wmma::fill_fragment(f, __float2half(0.0f));
	if (threadIdx.x < 16)
		wmma::load_matrix_sync(f, a, 16); // DIVERGENT_LINE
	out[threadIdx.x] = __half2float(f.x[0]);
}

// A matrix 16 bytes into its allocation: load_matrix_sync needs 32-byte alignment.
__global__ void wmmaMisaligned(const half *a, float *out)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;
	wmma::load_matrix_sync(f, a + 8, 16); // MISALIGNED_LINE
	out[threadIdx.x] = __half2float(f.x[0]);
}

// An s8 matrix_a fragment is 8 bytes a lane: 16 bytes into its allocation is aligned (as
// NVIDIA's immaTensorCoreGemm loads it), 4 bytes is not.
__global__ void wmmaInt8Offset(const signed char *a, int *out, int off)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> f;
	wmma::load_matrix_sync(f, a + off, 16); // INT8_OFFSET_LINE
	out[threadIdx.x] = f.x[0];
}

// ldmatrix .x1 and .x1.trans of an 8x8 matrix holding 8 r + c.
__global__ void ldMatrix(unsigned *out)
{
	__shared__ __align__(16) unsigned short m[64];
	for (int i = threadIdx.x; i < 64; i += 32)
		m[i] = (unsigned short)i;
	__syncwarp();
	unsigned addr = (unsigned)__cvta_generic_to_shared(m + 8 * (threadIdx.x % 8)), r, t;
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(addr));
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(t) : "r"(addr));
	out[threadIdx.x] = r;
	out[32 + threadIdx.x] = t;
}

__device__ static unsigned h2u(__half2 h) { return *(unsigned *)&h; }

// One thread: the half, bf16, tf32 and SIMD results test_core_isa.c checks.
__global__ void scalars(const float *f, const unsigned *u, unsigned *out)
{
	__half one = __float2half(f[0]), tiny = __float2half(f[1]), big = __float2half(f[2]);
	__half nan = __ushort_as_half(0x7e00), up = __ushort_as_half(0x3c01);
	out[0] = __half_as_ushort(__hadd(one, tiny));          // a tie: to even, 1
	out[1] = __half_as_ushort(__hadd(up, tiny));           // a tie: to even, 0x3c02
	out[2] = __half_as_ushort(__hmul(big, __float2half(2.0f))); // overflow: inf
	out[3] = __half_as_ushort(__hmin(nan, one));           // the number
	out[4] = __half_as_ushort(__hmax_nan(nan, one));       // canonical NaN
	out[5] = __half_as_ushort(__hfma_relu(__hneg(one), one, __float2half(0.0f)));
	out[6] = h2u(__floats2half2_rn(f[3], f[4]));           // 1/3 and -2.5
	out[7] = __hlt2_mask(__floats2half2_rn(1.0f, 2.0f), __floats2half2_rn(2.0f, 1.0f));
	out[8] = __bfloat16_as_ushort(__float2bfloat16(f[5]));  // 1 + 2^-8: a tie, to even
	out[9] = __bfloat16_as_ushort(__float2bfloat16_ru(f[5]));
	out[10] = __float_as_uint(wmma::__float_to_tf32(__uint_as_float(u[0]))); // away
	out[11] = __vabsdiffu4(u[1], u[2]);
	out[12] = (unsigned)__dp2a_lo((int)u[3], (int)u[4], 100);
	out[13] = __fns(u[5], 0, 3);
	out[14] = __fns(u[5], 31, -1);
	out[15] = __vaddss2(u[6], u[7]);
	out[16] = (unsigned)__vimax_s32_relu(-5, -3);
	unsigned r;
	asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(u[8]), "r"(u[9]), "r"(1));
	out[17] = r;
	asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r) : "r"(u[8]), "r"(u[9]), "r"(0));
	out[18] = r;
	asm("vadd2.u32.u32.u32.sat %0, %1, %2, %3;" : "=r"(r) : "r"(u[10]), "r"(u[11]), "r"(0));
	out[19] = r;
	out[20] = __bfloat16_as_ushort(__hadd(__float2bfloat16(f[0]), __float2bfloat16(f[6])));
	unsigned short h; // .sat on a float result: clamped to [0, 1] (PTX ISA, cvt)
	asm("cvt.rn.sat.f16.f32 %0, %1;" : "=h"(h) : "f"(f[2])); // 65504: 1.0
	out[21] = h;
	asm("cvt.rn.sat.f16.f32 %0, %1;" : "=h"(h) : "f"(f[4])); // -2.5: +0
	out[22] = h;
	asm("cvt.rn.sat.f16.f32 %0, %1;" : "=h"(h) : "f"(f[3])); // 1/3, unchanged
	out[23] = h;
}

// cp.async (exec_async.c): one warp copies 32 floats into shared memory, one 128-byte
// global read and one shared write at the copy's line, waits, reads a neighbour's.
__global__ void cpAsyncTile(const float *in, float *out)
{
	__shared__ __align__(16) float tile[32];
	unsigned d = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(in + threadIdx.x) : "memory"); // CPASYNC_LINE
	asm volatile("cp.async.wait_all;" ::: "memory");
	__syncwarp();
	out[threadIdx.x] = tile[(threadIdx.x + 1) % 32];
}

// cvta.param (sm_70 on): a __grid_constant__ parameter's address given to a function
// that is not inlined is the parameter's generic address; loads through it read the
// parameter (both halves, per lane), isspacep says which space it is in, and a store
// through it faults: a kernel's parameters are read-only.
struct GcPair {
	int a, b;
};
__device__ __noinline__ int gcRead(const int *p, int i)
{
	return p[i];
}
__device__ __noinline__ void gcPoke(int *p)
{
	*p = 1; // GCPOKE_LINE
}
__global__ void gcParamRead(__grid_constant__ const GcPair s, int *out)
{
	const int *p = &s.a;
	unsigned inParam;
	asm("{ .reg .pred q; isspacep.param q, %1; selp.u32 %0, 1, 0, q; }"
	    : "=r"(inParam) : "l"(p));
	out[threadIdx.x] = gcRead(p, threadIdx.x & 1);
	out[32 + threadIdx.x] = (int)__isGlobal(p) * 2 + (int)inParam;
}
__global__ void gcParamWrite(__grid_constant__ const GcPair s)
{
	gcPoke(const_cast<int *>(&s.a));
}
