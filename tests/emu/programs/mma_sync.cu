// mma.sync (inline PTX) for the f16, bf16, tf32, s8/u8 and f64 shapes of sm_80/sm_90:
// each lane packs its A, B and C elements at the places the PTX ISA's fragment tables
// give, the product D is unpacked the same way and compared with the host's. Exact
// inputs (small integers), so every GPU gives the same D; .satfinite saturates s32.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>
#include "check.h"

enum { F16, BF16, TF32, S8, U8, F64, F32, S32 };
struct Variant {
	int m, n, k, atype, btype, ctype, dtype;
	int na, nb, nc; // elements per lane
};
#define VARIANTS \
	{16, 8, 16, F16, F16, F32, F32, 8, 4, 4}, \
	{16, 8, 16, F16, F16, F16, F16, 8, 4, 4}, \
	{16, 8, 8, F16, F16, F32, F32, 4, 2, 4}, \
	{16, 8, 8, F16, F16, F16, F16, 4, 2, 4}, \
	{16, 8, 16, BF16, BF16, F32, F32, 8, 4, 4}, \
	{16, 8, 8, BF16, BF16, F32, F32, 4, 2, 4}, \
	{16, 8, 8, TF32, TF32, F32, F32, 4, 2, 4}, \
	{16, 8, 4, TF32, TF32, F32, F32, 2, 1, 4}, \
	{16, 8, 32, S8, S8, S32, S32, 16, 8, 4}, \
	{16, 8, 32, S8, S8, S32, S32, 16, 8, 4}, \
	{16, 8, 16, U8, S8, S32, S32, 8, 4, 4}, \
	{8, 8, 16, S8, U8, S32, S32, 4, 4, 2}, \
	{8, 8, 4, F64, F64, F64, F64, 1, 1, 2},
static const Variant V[] = {VARIANTS};
__constant__ Variant DV[] = {VARIANTS};
static const char *const names[] = {
	"m16n8k16.f32.f16.f16.f32",
	"m16n8k16.f16.f16.f16.f16",
	"m16n8k8.f32.f16.f16.f32",
	"m16n8k8.f16.f16.f16.f16",
	"m16n8k16.f32.bf16.bf16.f32",
	"m16n8k8.f32.bf16.bf16.f32",
	"m16n8k8.f32.tf32.tf32.f32",
	"m16n8k4.f32.tf32.tf32.f32",
	"m16n8k32.s32.s8.s8.s32",
	"m16n8k32.satfinite.s32.s8.s8.s32",
	"m16n8k16.s32.u8.s8.s32",
	"m8n8k16.s32.s8.u8.s32",
	"m8n8k4.f64.f64.f64.f64",
};

#define NV (int)(sizeof V / sizeof V[0])

// The PTX ISA's fragment layouts: element i of lane (g = lane / 4, t = lane % 4).
__host__ __device__ static void posA(const Variant &v, int g, int t, int i, int *r, int *c)
{
	if (v.atype == F64) { *r = g; *c = t; return; }
	if (v.atype == TF32) {
		if (v.k == 8) { *r = g + 8 * (i & 1); *c = t + 4 * (i >> 1); }
		else { *r = g + 8 * i; *c = t; }
		return;
	}
	if (v.atype == S8 || v.atype == U8) {
		if (v.m == 8) { *r = g; *c = 4 * t + i; }
		else if (v.k == 32) { *r = g + 8 * ((i >> 2) & 1); *c = 4 * t + (i & 3) + 16 * (i >> 3); }
		else { *r = g + 8 * (i >> 2); *c = 4 * t + (i & 3); }
		return;
	}
	if (v.k == 16) { *r = g + 8 * ((i >> 1) & 1); *c = 2 * t + (i & 1) + 8 * (i >> 2); }
	else { *r = g + 8 * (i >> 1); *c = 2 * t + (i & 1); }
}
__host__ __device__ static void posB(const Variant &v, int g, int t, int i, int *k, int *n)
{
	*n = g;
	if (v.btype == F64) *k = t;
	else if (v.btype == TF32) *k = v.k == 8 ? t + 4 * i : t;
	else if (v.btype == S8 || v.btype == U8) *k = v.k == 32 ? 4 * t + (i & 3) + 16 * (i >> 2) : 4 * t + i;
	else *k = v.k == 16 ? 2 * t + (i & 1) + 8 * (i >> 1) : 2 * t + i;
}
__host__ __device__ static void posC(const Variant &v, int g, int t, int i, int *r, int *c)
{
	if (v.m == 8) { *r = g; *c = 2 * t + i; }
	else { *r = g + 8 * (i >> 1); *c = 2 * t + (i & 1); }
}

// Element bits of each type, from the exact double value.
__device__ static uint64_t bitsOf(int ty, double x)
{
	switch (ty) {
	case F16: return __half_as_ushort(__double2half(x));
	case BF16: return __bfloat16_as_ushort(__double2bfloat16(x));
	case TF32: case F32: return __float_as_uint((float)x);
	case S8: case U8: return (uint8_t)(int)x;
	case S32: return (uint32_t)(int)x;
	default: return (uint64_t)__double_as_longlong(x);
	}
}
__device__ static double valueOf(int ty, uint64_t b)
{
	switch (ty) {
	case F16: return __half2float(__ushort_as_half((unsigned short)b));
	case F32: return __uint_as_float((uint32_t)b);
	case S32: return (int)(uint32_t)b;
	default: return __longlong_as_double((long long)b);
	}
}
__device__ static int ebits(int ty)
{
	return ty == F16 || ty == BF16 ? 16 : ty == S8 || ty == U8 ? 8 : ty == F64 ? 64 : 32;
}
// Packs n elements of bits e into 32-bit registers (64-bit for f64).
__device__ static void pack(uint64_t *reg, const uint64_t *el, int n, int e)
{
	int per = e >= 32 ? 1 : 32 / e;
	for (int r = 0; r < (n + per - 1) / per; r++) {
		reg[r] = 0;
		for (int j = 0; j < per && r * per + j < n; j++)
			reg[r] |= el[r * per + j] << (j * e);
	}
}

__global__ void kMma(int vi, const double *A, const double *B, const double *C, double *D)
{
	const Variant v = DV[vi];
	int lane = threadIdx.x, g = lane >> 2, t = lane & 3, r, c;
	uint64_t ea[16], eb[8], ec[4], a[8] = {}, b[8] = {}, cc[4] = {}, d[4] = {};
	for (int i = 0; i < v.na; i++) { posA(v, g, t, i, &r, &c); ea[i] = bitsOf(v.atype, A[r * v.k + c]); }
	for (int i = 0; i < v.nb; i++) { posB(v, g, t, i, &r, &c); eb[i] = bitsOf(v.btype, B[r * v.n + c]); }
	for (int i = 0; i < v.nc; i++) { posC(v, g, t, i, &r, &c); ec[i] = bitsOf(v.ctype, C[r * v.n + c]); }
	pack(a, ea, v.na, ebits(v.atype));
	pack(b, eb, v.nb, ebits(v.btype));
	pack(cc, ec, v.nc, ebits(v.ctype));
	uint32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], b0 = b[0], b1 = b[1];
	uint32_t c0 = cc[0], c1 = cc[1], c2 = cc[2], c3 = cc[3], d0 = 0, d1 = 0, d2 = 0, d3 = 0;
	switch (vi) {
	case 0: asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 1: asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
			     : "=r"(d0), "=r"(d1) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1)); break;
	case 2: asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 3: asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
			     : "=r"(d0), "=r"(d1) : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1)); break;
	case 4: asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 5: asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 6: asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 7: asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 8: asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 9: asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 10: asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
			     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3)); break;
	case 11: asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};"
			     : "=r"(d0), "=r"(d1) : "r"(a0), "r"(b0), "r"(c0), "r"(c1)); break;
	case 12: {
		double da = __longlong_as_double(a[0]), db = __longlong_as_double(b[0]);
		double dc0 = __longlong_as_double(cc[0]), dc1 = __longlong_as_double(cc[1]), dd0, dd1;
		asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
			     : "=d"(dd0), "=d"(dd1) : "d"(da), "d"(db), "d"(dc0), "d"(dc1));
		d[0] = __double_as_longlong(dd0);
		d[1] = __double_as_longlong(dd1);
		break;
	}
	}
	if (vi != 12) {
		uint64_t dr[4] = {d0, d1, d2, d3};
		if (v.dtype == F16) { // two halves a register
			for (int i = 0; i < 4; i++)
				d[i] = dr[i >> 1] >> (16 * (i & 1)) & 0xffff;
		} else {
			for (int i = 0; i < 4; i++)
				d[i] = dr[i];
		}
	}
	for (int i = 0; i < v.nc; i++) {
		posC(v, g, t, i, &r, &c);
		D[r * v.n + c] = valueOf(v.dtype, d[i]);
	}
}

int main()
{
	double *A, *B, *C, *D;
	CHECK(cudaMallocManaged(&A, 16 * 32 * sizeof(double)));
	CHECK(cudaMallocManaged(&B, 32 * 8 * sizeof(double)));
	CHECK(cudaMallocManaged(&C, 16 * 8 * sizeof(double)));
	CHECK(cudaMallocManaged(&D, 16 * 8 * sizeof(double)));
	for (int vi = 0; vi < NV; vi++) {
		const Variant &v = V[vi];
		for (int r = 0; r < v.m; r++)
			for (int k = 0; k < v.k; k++)
				A[r * v.k + k] = v.atype == U8 ? (r * 3 + k * 5) % 7 * 20 + 5
					       : v.atype == S8 && vi == 9 ? ((r + k) % 2 ? 127 : -128)
					       : (r * 3 + k * 5) % 7 - 3;
		for (int k = 0; k < v.k; k++)
			for (int n = 0; n < v.n; n++)
				B[k * v.n + n] = v.btype == U8 ? (k * 2 + n * 3 + 1) % 5 * 50
					       : v.btype == S8 && vi == 9 ? ((k + n) % 3 ? 127 : -128)
					       : (k * 2 + n * 3 + 1) % 5 - 2;
		for (int r = 0; r < v.m; r++)
			for (int n = 0; n < v.n; n++)
				C[r * v.n + n] = vi == 9 ? (r % 2 ? 2147483647.0 - 1000 * n : -2147483648.0 + 1000 * n)
					       : r - n;
		kMma<<<1, 32>>>(vi, A, B, C, D);
		CHECK(cudaGetLastError());
		CHECK(cudaDeviceSynchronize());
		int bad = 0;
		printf("%s:\n", names[vi]);
		for (int r = 0; r < v.m; r++) {
			for (int n = 0; n < v.n; n++) {
				double want = C[r * v.n + n];
				for (int k = 0; k < v.k; k++)
					want += A[r * v.k + k] * B[k * v.n + n];
				if (vi == 9)
					want = want > 2147483647.0 ? 2147483647.0 : want < -2147483648.0 ? -2147483648.0 : want;
				bad += D[r * v.n + n] != want;
				printf(" %.0f", D[r * v.n + n]);
			}
			printf("\n");
		}
		printf("%s: %d of %d elements differ from the host's\n", names[vi], bad, v.m * v.n);
	}
	return 0;
}
