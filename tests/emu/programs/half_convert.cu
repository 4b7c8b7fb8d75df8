// Conversions to and from __half in every rounding mode cuda_fp16.h offers: float and
// double to half at ties, at the ends of the subnormal and normal ranges, overflow,
// NaN payloads; integers of each width to half; half to integers of each width
// (saturation, NaN, negative to unsigned). Printed as bits.
#include <cuda_fp16.h>
#include <cstdint>
#include <cstring>
#include "check.h"

#define NF 32
static const uint32_t fbits[NF] = {
	0x00000000, 0x80000000, 0x3f800000, 0x3f801000, 0x3f803000, 0x3f801001, 0x477fe000, 0x477fefff,
	0x477ff000, 0xc77ff000, 0x49742400, 0x33800000, 0x33000000, 0x33000001, 0x33c00000, 0x38800000,
	0x387fc000, 0x2edbe6ff, 0xaedbe6ff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc12345,
	0x3dcccccd, 0x3eaaaaab, 0xc0200000, 0x33a00000, 0x34400000, 0x387fe000, 0x00000001, 0x7f7fffff,
};
#define ND 8 // doubles that a float would round first
static const uint64_t dbits[ND] = {
	0x3ff0010000000001ull, 0x3e60000000000001ull, 0xbe60000000000001ull, 0x40effe0000000001ull,
	0x40effdffffffffffull, 0x3ff0020000000000ull, 0x7ff0000000000001ull, 0x3f0ff80000000000ull,
};
#define NI 16
static const long long ints[NI] = {0, 1, -1, 2047, 2049, 4097, 65504, 65519, 65520, 65536, -65520,
				   2147483647, -2147483647 - 1, 33333, 4294967295ll,
				   -9223372036854775807ll - 1};
#define NH 24
static const uint16_t hvals[NH] = {
	0x0000, 0x8000, 0x0001, 0x3800, 0x3c00, 0x3e00, 0x4100, 0xc100, 0x4300, 0xbe00, 0x7bff, 0xfbff,
	0x5bff, 0x57ff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0xb800, 0x3bff, 0x5c00, 0xd800, 0x6400, 0xe400,
};

__global__ void kConv(const uint32_t *fb, const uint64_t *db, const long long *iv,
		      const uint16_t *hv, uint64_t *out)
{
	int t = threadIdx.x;
	uint64_t *o = out + t * 64;
	if (t < NF) {
		float f = __uint_as_float(fb[t]);
		o[0] = __half_as_ushort(__float2half_rn(f));
		o[1] = __half_as_ushort(__float2half_rz(f));
		o[2] = __half_as_ushort(__float2half_rd(f));
		o[3] = __half_as_ushort(__float2half_ru(f));
		o[4] = __half_as_ushort(__double2half((double)f));
		o[5] = *(const uint32_t *)&(const __half2 &)__float2half2_rn(f);
	}
	if (t < ND)
		o[6] = __half_as_ushort(__double2half(__longlong_as_double((long long)db[t])));
	if (t < NI) {
		long long x = iv[t];
		o[7] = __half_as_ushort(__int2half_rn((int)x));
		o[8] = __half_as_ushort(__int2half_rz((int)x));
		o[9] = __half_as_ushort(__int2half_rd((int)x));
		o[10] = __half_as_ushort(__int2half_ru((int)x));
		o[11] = __half_as_ushort(__uint2half_rn((unsigned)x));
		o[12] = __half_as_ushort(__uint2half_rd((unsigned)x));
		o[13] = __half_as_ushort(__short2half_rn((short)x));
		o[14] = __half_as_ushort(__short2half_ru((short)x));
		o[15] = __half_as_ushort(__ushort2half_rn((unsigned short)x));
		o[16] = __half_as_ushort(__ushort2half_rz((unsigned short)x));
		o[17] = __half_as_ushort(__ll2half_rn(x));
		o[18] = __half_as_ushort(__ll2half_rd(x));
		o[19] = __half_as_ushort(__ull2half_rn((unsigned long long)x));
		o[20] = __half_as_ushort(__ull2half_ru((unsigned long long)x));
	}
	if (t < NH) {
		__half h = __ushort_as_half(hv[t]);
		o[21] = (uint32_t)__half2int_rn(h);
		o[22] = (uint32_t)__half2int_rz(h);
		o[23] = (uint32_t)__half2int_rd(h);
		o[24] = (uint32_t)__half2int_ru(h);
		o[25] = __half2uint_rn(h);
		o[26] = __half2uint_rz(h);
		o[27] = (uint16_t)__half2short_rn(h);
		o[28] = (uint16_t)__half2short_rz(h);
		o[29] = __half2ushort_rn(h);
		o[30] = __half2ushort_rd(h);
		o[31] = (uint64_t)__half2ll_rn(h);
		o[32] = (uint64_t)__half2ll_ru(h);
		o[33] = __half2ull_rn(h);
		o[34] = __half2ull_rz(h);
		o[35] = (uint8_t)__half2char_rz(h);
		o[36] = __half2uchar_rz(h);
		o[37] = __float_as_uint(__half2float(h));
		o[38] = (uint64_t)__double_as_longlong((double)h);
		o[39] = __half_as_ushort(__short_as_half((short)hv[t]));
	}
}

int main()
{
	uint32_t *fb;
	uint64_t *db, *out;
	long long *iv;
	uint16_t *hv;
	CHECK(cudaMalloc(&fb, sizeof fbits));
	CHECK(cudaMalloc(&db, sizeof dbits));
	CHECK(cudaMalloc(&iv, sizeof ints));
	CHECK(cudaMalloc(&hv, sizeof hvals));
	CHECK(cudaMalloc(&out, 32 * 64 * 8));
	CHECK(cudaMemset(out, 0, 32 * 64 * 8));
	CHECK(cudaMemcpy(fb, fbits, sizeof fbits, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(db, dbits, sizeof dbits, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(iv, ints, sizeof ints, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(hv, hvals, sizeof hvals, cudaMemcpyHostToDevice));
	kConv<<<1, 32>>>(fb, db, iv, hv, out);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	static uint64_t h[32 * 64];
	CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	printf("float bits -> half rn rz rd ru, via double, half2 rn\n");
	for (int t = 0; t < NF; t++)
		printf("%08x: %04llx %04llx %04llx %04llx %04llx %08llx\n", fbits[t],
		       (unsigned long long)h[t * 64], (unsigned long long)h[t * 64 + 1],
		       (unsigned long long)h[t * 64 + 2], (unsigned long long)h[t * 64 + 3],
		       (unsigned long long)h[t * 64 + 4], (unsigned long long)h[t * 64 + 5]);
	printf("double bits -> half rn\n");
	for (int t = 0; t < ND; t++)
		printf("%016llx: %04llx\n", (unsigned long long)dbits[t], (unsigned long long)h[t * 64 + 6]);
	printf("integer -> half: int rn rz rd ru, uint rn rd, short rn ru, ushort rn rz, ll rn rd, ull rn ru\n");
	for (int t = 0; t < NI; t++) {
		printf("%lld:", ints[t]);
		for (int k = 7; k <= 20; k++)
			printf(" %04llx", (unsigned long long)h[t * 64 + k]);
		printf("\n");
	}
	printf("half -> int rn rz rd ru, uint rn rz, short rn rz, ushort rn rd, ll rn ru, ull rn rz, char rz, uchar rz, float, double, short_as_half\n");
	for (int t = 0; t < NH; t++) {
		printf("%04x:", hvals[t]);
		for (int k = 21; k <= 39; k++)
			printf(" %llx", (unsigned long long)h[t * 64 + k]);
		printf("\n");
	}
	return 0;
}
