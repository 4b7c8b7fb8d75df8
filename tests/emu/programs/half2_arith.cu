// __half2 arithmetic, comparisons and packing as cuda_fp16.h compiles them (add.f16x2,
// fma.rn.f16x2 with .sat and .relu, set.*.f16x2, min/max with .NaN, cvt.rn.f16x2.f32,
// the mask and bool comparisons, __hcmadd), the lane shuffles of half2 and atomicAdd of
// half and half2, on pairs that put each edge value in both halves.
#include <cuda_fp16.h>
#include <cstdint>
#include "check.h"

#define NVAL 24
static const uint16_t vals[NVAL] = {
	0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x0401, 0x3c00, 0x3c01, 0xbc00, 0x3555, 0x3800,
	0x4000, 0x4200, 0x7bff, 0xfbff, 0x7bfe, 0x5bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x1001,
};
#define NP 48 // operand pairs
#define NOP 33
static const char *const names[NOP] = {
	"__hadd2", "__hsub2", "__hmul2", "__h2div", "__hadd2_sat", "__hsub2_sat", "__hmul2_sat",
	"__hfma2", "__hfma2_sat", "__hfma2_relu", "__hmin2", "__hmax2", "__hmin2_nan", "__hmax2_nan",
	"__hneg2", "__habs2", "__heq2", "__hne2", "__hlt2", "__hgeu2", "__hisnan2", "__heq2_mask",
	"__hlt2_mask", "__hgeu2_mask", "bool eq|ne|lt|gtu", "__hcmadd", "__lowhigh2highlow",
	"__low2half2", "__highs2half2", "h2rint", "__floats2half2_rn(x/3,y*1e4)",
	"__half22float2 bits (x)", "__half22float2 bits (y)",
};

__device__ static uint32_t u(__half2 h) { return *(uint32_t *)&h; }
__device__ static __half2 h2(uint16_t lo, uint16_t hi)
{
	return __halves2half2(__ushort_as_half(lo), __ushort_as_half(hi));
}

__global__ void kOps(const uint16_t *v, uint32_t *out)
{
	int p = threadIdx.x;
	__half2 a = h2(v[p % NVAL], v[(p * 5 + 3) % NVAL]);
	__half2 b = h2(v[(p * 7 + 1) % NVAL], v[(p / 2 + 11) % NVAL]);
	__half2 c = h2(v[(p * 3 + 2) % NVAL], v[(p * 11 + 5) % NVAL]);
	float2 f = __half22float2(a);
	uint32_t r[NOP] = {
		u(__hadd2(a, b)), u(__hsub2(a, b)), u(__hmul2(a, b)), u(__h2div(a, b)),
		u(__hadd2_sat(a, b)), u(__hsub2_sat(a, b)), u(__hmul2_sat(a, b)), u(__hfma2(a, b, c)),
		u(__hfma2_sat(a, b, c)), u(__hfma2_relu(a, b, c)), u(__hmin2(a, b)), u(__hmax2(a, b)),
		u(__hmin2_nan(a, b)), u(__hmax2_nan(a, b)), u(__hneg2(a)), u(__habs2(a)),
		u(__heq2(a, b)), u(__hne2(a, b)), u(__hlt2(a, b)), u(__hgeu2(a, b)), u(__hisnan2(a)),
		__heq2_mask(a, b), __hlt2_mask(a, b), __hgeu2_mask(a, b),
		(uint32_t)(__hbeq2(a, b) | __hbne2(a, b) << 1 | __hblt2(a, b) << 2 | __hbgtu2(a, b) << 3),
		u(__hcmadd(a, b, c)), u(__lowhigh2highlow(a)), u(__low2half2(a)), u(__highs2half2(a, b)),
		u(h2rint(a)), u(__floats2half2_rn(f.x / 3.0f, f.y * 1e4f)), __float_as_uint(f.x),
		__float_as_uint(f.y),
	};
	for (int k = 0; k < NOP; k++)
		out[k * NP + p] = r[k];
}

// Shuffles move both halves; atomicAdd of exact values sums the same in any order.
__global__ void kWarp(uint32_t *out, __half2 *acc2, __half *acc)
{
	int l = threadIdx.x;
	__half2 x = __floats2half2_rn((float)l, (float)-l * 0.5f);
	out[l] = u(__shfl_sync(0xffffffff, x, 31 - l));
	out[32 + l] = u(__shfl_xor_sync(0xffffffff, x, 5));
	out[64 + l] = u(__shfl_down_sync(0xffffffff, x, 3));
	__half y = __float2half((float)l * 0.25f);
	out[96 + l] = __half_as_ushort(__shfl_up_sync(0xffffffff, y, 2));
	atomicAdd(acc2, x);
	atomicAdd(acc, y);
}

int main()
{
	uint16_t *v;
	uint32_t *out, *wo;
	__half2 *acc2;
	__half *acc;
	CHECK(cudaMalloc(&v, sizeof vals));
	CHECK(cudaMalloc(&out, NOP * NP * 4));
	CHECK(cudaMalloc(&wo, 128 * 4));
	CHECK(cudaMalloc(&acc2, 4));
	CHECK(cudaMalloc(&acc, 2));
	CHECK(cudaMemset(acc2, 0, 4));
	CHECK(cudaMemset(acc, 0, 2));
	CHECK(cudaMemcpy(v, vals, sizeof vals, cudaMemcpyHostToDevice));
	kOps<<<1, NP>>>(v, out);
	kWarp<<<1, 32>>>(wo, acc2, acc);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	static uint32_t h[NOP * NP], hw[128];
	uint32_t s2;
	uint16_t s1;
	CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hw, wo, sizeof hw, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&s2, acc2, 4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&s1, acc, 2, cudaMemcpyDeviceToHost));
	printf("a (hi lo):");
	for (int p = 0; p < NP; p++)
		printf("%s%04x%04x", p % 12 ? " " : "\n ", vals[(p * 5 + 3) % NVAL], vals[p % NVAL]);
	printf("\n");
	for (int k = 0; k < NOP; k++) {
		printf("%s:", names[k]);
		for (int p = 0; p < NP; p++)
			printf("%s%08x", p % 12 ? " " : "\n ", h[k * NP + p]);
		printf("\n");
	}
	static const char *const wn[] = {"__shfl_sync(31-l)", "__shfl_xor_sync(5)",
					 "__shfl_down_sync(3)", "__shfl_up_sync(half, 2)"};
	for (int k = 0; k < 4; k++) {
		printf("%s:", wn[k]);
		for (int l = 0; l < 32; l++)
			printf("%s%08x", l % 8 ? " " : "\n ", hw[k * 32 + l]);
		printf("\n");
	}
	printf("atomicAdd half2 sum %08x, half sum %04x\n", s2, s1);
	return 0;
}
