// __nv_bfloat16 and __nv_bfloat162 as cuda_bf16.h compiles them for sm_90 (add.bf16,
// fma.rn.bf16x2, min/max with .NaN, set/setp on bf16, cvt.rn.bf16.f32...): arithmetic
// and comparisons on every pair of 24 edge values, the paired forms on 48 pairs, and
// conversions from float, double and integers in each rounding mode and back. Bits.
#include <cuda_bf16.h>
#include <cstdint>
#include "check.h"

#define NVAL 24
static const uint16_t vals[NVAL] = {
	0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0x3f81, 0xbf80, 0x3eab, 0x3f00, 0x4000,
	0x4040, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x3f7f, 0x0081, 0x4380, 0x4381,
};
#define NBIN 12
static const char *const binNames[NBIN] = {"__hadd", "__hsub", "__hmul", "__hdiv", "__hfma(a,b,c)",
	"__hadd_rn", "__hmul_rn", "__hmin", "__hmax", "__hmin_nan", "__hmax_nan", "__hfma_relu(a,b,c)"};
#define NPAIR 16
static const char *const pairNames[NPAIR] = {"__hadd2", "__hsub2", "__hmul2", "__h2div", "__hfma2",
	"__hmin2", "__hmax2", "__hmax2_nan", "__hneg2", "__habs2", "__heq2", "__hlt2", "__hgeu2_mask",
	"__hfma2_relu", "__floats2bfloat162_rn(x/3,y*1e4)", "__lowhigh2highlow"};

__device__ static uint32_t u(__nv_bfloat162 h) { return *(uint32_t *)&h; }
__device__ static __nv_bfloat16 b(uint16_t x) { return __ushort_as_bfloat16(x); }

__global__ void kBin(const uint16_t *v, uint16_t *out, uint32_t *cmp)
{
	int i = blockIdx.x, j = threadIdx.x;
	__nv_bfloat16 x = b(v[i]), y = b(v[j]), z = b(v[(i + j) % NVAL]);
	__nv_bfloat16 r[NBIN] = {__hadd(x, y), __hsub(x, y), __hmul(x, y), __hdiv(x, y),
				 __hfma(x, y, z), __hadd_rn(x, y), __hmul_rn(x, y), __hmin(x, y),
				 __hmax(x, y), __hmin_nan(x, y), __hmax_nan(x, y), __hfma_relu(x, y, z)};
	for (int k = 0; k < NBIN; k++)
		out[(k * NVAL + i) * NVAL + j] = __bfloat16_as_ushort(r[k]);
	bool t[8] = {__heq(x, y), __hne(x, y), __hlt(x, y), __hge(x, y), __hequ(x, y), __hltu(x, y),
		     __hgeu(x, y), __hisnan(x)};
	uint32_t m = 0;
	for (int k = 0; k < 8; k++)
		m |= (uint32_t)t[k] << k;
	cmp[i * NVAL + j] = m;
}

__global__ void kPair(const uint16_t *v, uint32_t *out)
{
	int p = threadIdx.x;
	__nv_bfloat162 x = __halves2bfloat162(b(v[p % NVAL]), b(v[(p * 5 + 3) % NVAL]));
	__nv_bfloat162 y = __halves2bfloat162(b(v[(p * 7 + 1) % NVAL]), b(v[(p / 2 + 11) % NVAL]));
	__nv_bfloat162 z = __halves2bfloat162(b(v[(p * 3 + 2) % NVAL]), b(v[(p * 11 + 5) % NVAL]));
	float2 f = __bfloat1622float2(x);
	uint32_t r[NPAIR] = {u(__hadd2(x, y)), u(__hsub2(x, y)), u(__hmul2(x, y)), u(__h2div(x, y)),
			     u(__hfma2(x, y, z)), u(__hmin2(x, y)), u(__hmax2(x, y)),
			     u(__hmax2_nan(x, y)), u(__hneg2(x)), u(__habs2(x)), u(__heq2(x, y)),
			     u(__hlt2(x, y)), __hgeu2_mask(x, y), u(__hfma2_relu(x, y, z)),
			     u(__floats2bfloat162_rn(f.x / 3.0f, f.y * 1e4f)), u(__lowhigh2highlow(x))};
	for (int k = 0; k < NPAIR; k++)
		out[k * 48 + p] = r[k];
}

#define NF 16
static const uint32_t fbits[NF] = {0x00000000, 0x80000000, 0x3f808000, 0x3f818000, 0x3f808001,
	0x7f7fffff, 0x7f7f8000, 0x00008000, 0x00018000, 0x7fc00000, 0x7f800001, 0xffc12345,
	0x3dcccccd, 0xc0200000, 0x7f800000, 0x007fffff};
static const int ints[8] = {0, 1, -1, 255, 257, 65535, -65537, 2147483647};

__global__ void kConv(const uint32_t *fb, const int *iv, const uint16_t *v, uint64_t *out)
{
	int t = threadIdx.x;
	uint64_t *o = out + t * 32;
	if (t < NF) {
		float f = __uint_as_float(fb[t]);
		o[0] = __bfloat16_as_ushort(__float2bfloat16_rn(f));
		o[1] = __bfloat16_as_ushort(__float2bfloat16_rz(f));
		o[2] = __bfloat16_as_ushort(__float2bfloat16_rd(f));
		o[3] = __bfloat16_as_ushort(__float2bfloat16_ru(f));
		o[4] = __bfloat16_as_ushort(__double2bfloat16((double)f + 1e-30));
		o[5] = u(__float22bfloat162_rn(make_float2(f, -f)));
	}
	if (t < 8) {
		o[6] = __bfloat16_as_ushort(__int2bfloat16_rn(iv[t]));
		o[7] = __bfloat16_as_ushort(__int2bfloat16_rz(iv[t]));
		o[8] = __bfloat16_as_ushort(__uint2bfloat16_rn((unsigned)iv[t]));
		o[9] = __bfloat16_as_ushort(__short2bfloat16_rn((short)iv[t]));
		o[10] = __bfloat16_as_ushort(__ll2bfloat16_rn((long long)iv[t] * 65537));
	}
	if (t < NVAL) {
		__nv_bfloat16 x = b(v[t]);
		o[11] = __float_as_uint(__bfloat162float(x));
		o[12] = (uint32_t)__bfloat162int_rn(x);
		o[13] = (uint32_t)__bfloat162int_rz(x);
		o[14] = __bfloat162uint_rn(x);
		o[15] = (uint16_t)__bfloat162short_rn(x);
		o[16] = (uint64_t)__bfloat162ll_rn(x);
		o[17] = __bfloat16_as_ushort(hrint(x));
		o[18] = __bfloat16_as_ushort(hfloor(x));
		o[19] = __bfloat16_as_ushort(hceil(x));
		o[20] = __bfloat16_as_ushort(htrunc(x));
		o[21] = __bfloat16_as_ushort(__hneg(x));
		o[22] = __bfloat16_as_ushort(__habs(x));
	}
}

int main()
{
	uint16_t *v, *out;
	uint32_t *cmp, *po, *fb;
	uint64_t *co;
	int *iv;
	CHECK(cudaMalloc(&v, sizeof vals));
	CHECK(cudaMalloc(&out, NBIN * NVAL * NVAL * 2));
	CHECK(cudaMalloc(&cmp, NVAL * NVAL * 4));
	CHECK(cudaMalloc(&po, NPAIR * 48 * 4));
	CHECK(cudaMalloc(&fb, sizeof fbits));
	CHECK(cudaMalloc(&iv, sizeof ints));
	CHECK(cudaMalloc(&co, 32 * 32 * 8));
	CHECK(cudaMemset(co, 0, 32 * 32 * 8));
	CHECK(cudaMemcpy(v, vals, sizeof vals, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(fb, fbits, sizeof fbits, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(iv, ints, sizeof ints, cudaMemcpyHostToDevice));
	kBin<<<NVAL, NVAL>>>(v, out, cmp);
	kPair<<<1, 48>>>(v, po);
	kConv<<<1, 32>>>(fb, iv, v, co);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	static uint16_t h[NBIN * NVAL * NVAL];
	static uint32_t hc[NVAL * NVAL], hp[NPAIR * 48];
	static uint64_t hv[32 * 32];
	CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hc, cmp, sizeof hc, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hp, po, sizeof hp, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hv, co, sizeof hv, cudaMemcpyDeviceToHost));
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
	printf("compare bits eq ne lt ge equ ltu geu isnan(a):\n");
	for (int i = 0; i < NVAL; i++) {
		printf("%04x", vals[i]);
		for (int j = 0; j < NVAL; j++)
			printf(" %02x", hc[i * NVAL + j]);
		printf("\n");
	}
	for (int k = 0; k < NPAIR; k++) {
		printf("%s:", pairNames[k]);
		for (int p = 0; p < 48; p++)
			printf("%s%08x", p % 12 ? " " : "\n ", hp[k * 48 + p]);
		printf("\n");
	}
	printf("float -> bf16 rn rz rd ru, double rn, bf162 rn (x, -x)\n");
	for (int t = 0; t < NF; t++) {
		printf("%08x:", fbits[t]);
		for (int k = 0; k <= 5; k++)
			printf(" %llx", (unsigned long long)hv[t * 32 + k]);
		printf("\n");
	}
	printf("int -> bf16 int rn rz, uint rn, short rn, ll(x*65537) rn\n");
	for (int t = 0; t < 8; t++) {
		printf("%d:", ints[t]);
		for (int k = 6; k <= 10; k++)
			printf(" %llx", (unsigned long long)hv[t * 32 + k]);
		printf("\n");
	}
	printf("bf16 -> float, int rn rz, uint rn, short rn, ll rn; rint floor ceil trunc neg abs\n");
	for (int t = 0; t < NVAL; t++) {
		printf("%04x:", vals[t]);
		for (int k = 11; k <= 22; k++)
			printf(" %llx", (unsigned long long)hv[t * 32 + k]);
		printf("\n");
	}
	return 0;
}
