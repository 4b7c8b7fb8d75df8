// Scalar __half arithmetic and comparisons as cuda_fp16.h compiles them (add/sub/mul as
// add.f16..., the _rn and _sat forms, __hdiv, fma with .sat and .relu, min/max and their
// NaN-propagating forms, the 12 comparisons, rounding to integers) on every pair of 24
// edge values: zeros, subnormals, the normal range's ends, infinities and NaNs. Results
// are printed as bits.
#include <cuda_fp16.h>
#include <cstdint>
#include "check.h"

#define NVAL 24
static const uint16_t vals[NVAL] = {
	0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x0401, 0x3c00, 0x3c01, 0xbc00, 0x3555, 0x3800,
	0x4000, 0x4200, 0x7bff, 0xfbff, 0x7bfe, 0x5bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x1001,
};
#define NBIN 17
static const char *const binNames[NBIN] = {
	"__hadd", "__hsub", "__hmul", "__hdiv", "__hadd_sat", "__hsub_sat", "__hmul_sat",
	"__hadd_rn", "__hsub_rn", "__hmul_rn", "__hmin", "__hmax", "__hmin_nan", "__hmax_nan",
	"__hfma(a,b,c)", "__hfma_sat(a,b,c)", "__hfma_relu(a,b,c)",
};
#define NUN 8
static const char *const unNames[NUN] = {"__hneg", "__habs", "hfloor", "hceil", "htrunc",
					 "hrint", "a*b+c as __hfma(a,b,-c)", "classes"};

__global__ void kBin(const uint16_t *v, uint16_t *out, uint32_t *cmp)
{
	int i = blockIdx.x, j = threadIdx.x;
	__half a = __ushort_as_half(v[i]), b = __ushort_as_half(v[j]);
	__half c = __ushort_as_half(v[(i + j) % NVAL]);
	__half r[NBIN] = {__hadd(a, b), __hsub(a, b), __hmul(a, b), __hdiv(a, b), __hadd_sat(a, b),
			  __hsub_sat(a, b), __hmul_sat(a, b), __hadd_rn(a, b), __hsub_rn(a, b),
			  __hmul_rn(a, b), __hmin(a, b), __hmax(a, b), __hmin_nan(a, b),
			  __hmax_nan(a, b), __hfma(a, b, c), __hfma_sat(a, b, c), __hfma_relu(a, b, c)};
	for (int k = 0; k < NBIN; k++)
		out[(k * NVAL + i) * NVAL + j] = __half_as_ushort(r[k]);
	bool t[13] = {__heq(a, b), __hne(a, b), __hlt(a, b), __hle(a, b), __hgt(a, b), __hge(a, b),
		      __hequ(a, b), __hneu(a, b), __hltu(a, b), __hleu(a, b), __hgtu(a, b),
		      __hgeu(a, b), a < b};
	uint32_t m = 0;
	for (int k = 0; k < 13; k++)
		m |= (uint32_t)t[k] << k;
	cmp[i * NVAL + j] = m;
}

__global__ void kUn(const uint16_t *v, uint16_t *out)
{
	int i = threadIdx.x;
	__half a = __ushort_as_half(v[i]), b = __ushort_as_half(v[(i + 7) % NVAL]);
	__half c = __ushort_as_half(v[(i + 3) % NVAL]);
	__half r[NUN - 1] = {__hneg(a), __habs(a), hfloor(a), hceil(a), htrunc(a), hrint(a),
			     __hfma(a, b, __hneg(c))};
	for (int k = 0; k < NUN - 1; k++)
		out[k * NVAL + i] = __half_as_ushort(r[k]);
	out[(NUN - 1) * NVAL + i] = (uint16_t)(__hisnan(a) | __hisinf(a) << 1 | (__hisinf(a) < 0) << 2);
}

int main()
{
	uint16_t *v, *out, *uo;
	uint32_t *cmp;
	CHECK(cudaMalloc(&v, sizeof vals));
	CHECK(cudaMalloc(&out, NBIN * NVAL * NVAL * 2));
	CHECK(cudaMalloc(&uo, NUN * NVAL * 2));
	CHECK(cudaMalloc(&cmp, NVAL * NVAL * 4));
	CHECK(cudaMemcpy(v, vals, sizeof vals, cudaMemcpyHostToDevice));
	kBin<<<NVAL, NVAL>>>(v, out, cmp);
	kUn<<<1, NVAL>>>(v, uo);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	static uint16_t h[NBIN * NVAL * NVAL], hu[NUN * NVAL];
	static uint32_t hc[NVAL * NVAL];
	CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hu, uo, sizeof hu, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hc, cmp, sizeof hc, cudaMemcpyDeviceToHost));
	printf("b:  ");
	for (int j = 0; j < NVAL; j++)
		printf(" %04x", vals[j]);
	printf("\n");
	for (int k = 0; k < NBIN; k++) {
		printf("%s (c = value i+j):\n", binNames[k]);
		for (int i = 0; i < NVAL; i++) {
			printf("%04x", vals[i]);
			for (int j = 0; j < NVAL; j++)
				printf(" %04x", h[(k * NVAL + i) * NVAL + j]);
			printf("\n");
		}
	}
	printf("compare bits eq ne lt le gt ge equ neu ltu leu gtu geu <:\n");
	for (int i = 0; i < NVAL; i++) {
		printf("%04x", vals[i]);
		for (int j = 0; j < NVAL; j++)
			printf(" %04x", hc[i * NVAL + j]);
		printf("\n");
	}
	for (int k = 0; k < NUN; k++) {
		printf("%s:", unNames[k]);
		for (int i = 0; i < NVAL; i++)
			printf(" %04x", hu[k * NVAL + i]);
		printf("\n");
	}
	return 0;
}
