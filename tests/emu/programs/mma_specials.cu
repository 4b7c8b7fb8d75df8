// The tensor cores' results where the rounding model of emu/README.md was not fitted:
// NaN, infinite and zero operands (0 x inf, inf - inf, signed zeros), products and
// accumulators beyond f32's range, subnormal f16 inputs and f32 accumulators, and
// f64 and s32 at their limits. D = C + a_r b_n + x_n for 16 values of each, printed
// as bits, through wmma f16 -> f32 and f16, bf16 -> f32, tf32 -> f32, f64 and s8 -> s32.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>
#include <cstring>
#include "check.h"
using namespace nvcuda;

static const uint16_t ha[16] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7bff,
				0x0001, 0x03ff, 0x0400, 0x4200, 0x3800, 0x6400, 0xfbff, 0x7c01};
static const uint16_t hb[16] = {0x3c00, 0x0000, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0001, 0x8001,
				0x7e01, 0x4000, 0xc000, 0x3555, 0x7800, 0x03ff, 0x8000, 0x5bff};
static const uint16_t hx[16] = {0x0000, 0x8000, 0xfc00, 0x7c00, 0xfbff, 0x7bff, 0x8001, 0x0001,
				0x3c00, 0xc000, 0x4000, 0xb555, 0xf800, 0x83ff, 0x8000, 0xdbff};
static const uint32_t fc[16] = {0x00000000, 0x80000000, 0x7e967699, 0xfe967699, 0x7f800000,
				0xff800000, 0x7fc00000, 0x00000001, 0x00800000, 0xc0200000,
				0x7f7fffff, 0x000116c2, 0x40e00000, 0xc0e00000, 0x4b800000,
				0xff7fffff};

template <typename T, typename S, typename C, int K>
__global__ void kMma(const S *a, const S *b, const C *c, C *d)
{
	wmma::fragment<wmma::matrix_a, 16, 16, K, T, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, K, T, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, K, C> fc;
	wmma::load_matrix_sync(fa, a, K);
	wmma::load_matrix_sync(fb, b, K);
	wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

__global__ void kDmma(const double *a, const double *b, const double *c, double *d)
{
	wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
	wmma::load_matrix_sync(fa, a, 4);
	wmma::load_matrix_sync(fb, b, 4);
	wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

__global__ void kImma(const signed char *a, const signed char *b, const int *c, int *d)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

static float h2f(uint16_t h)
{
	__half x;
	memcpy(&x, &h, 2);
	return __half2float(x);
}
static uint32_t f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

template <typename S> static S conv(uint16_t h, int kind) // 0 f16, 1 bf16 (from f16's value)
{
	S s;
	if (kind == 0) {
		memcpy(&s, &h, 2);
	} else {
		__nv_bfloat16 b = __float2bfloat16(h2f(h));
		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) { // keep a NaN's payload bits
			uint16_t nb = (uint16_t)((h & 0x8000) | 0x7f80 | (h & 0x7f) | 0x40);
			memcpy(&b, &nb, 2);
		}
		memcpy(&s, &b, 2);
	}
	return s;
}

static void *dmem(size_t n)
{
	void *p;
	CHECK(cudaMalloc(&p, n));
	return p;
}
static void up(void *d, const void *h, size_t n) { CHECK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)); }
static void down(void *h, const void *d, size_t n)
{
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
}

// A: row r = (a_r, 1, 0...), B: column n = (b_n, x_n, 0...): D = C + a_r b_n + x_n.
template <typename S> static void ab16(S *A, S *B, int kind, int K)
{
	memset(A, 0, 256 * 2), memset(B, 0, 256 * 2);
	for (int r = 0; r < 16; r++) {
		A[r * K] = conv<S>(ha[r], kind);
		A[r * K + 1] = conv<S>(0x3c00, kind);
		B[r * K] = conv<S>(hb[r], kind);
		B[r * K + 1] = conv<S>(hx[r], kind);
	}
}

static void print(const char *what, const void *d, int bytes, int n)
{
	printf("%s:", what);
	for (int i = 0; i < n; i++) {
		const unsigned char *q = (const unsigned char *)d + (size_t)i * bytes;
		if (bytes == 2) printf("%s%04x", i % 16 ? " " : "\n ", *(const uint16_t *)q);
		else if (bytes == 4) printf("%s%08x", i % 16 ? " " : "\n ", *(const uint32_t *)q);
		else printf("%s%016llx", i % 8 ? " " : "\n ", *(const unsigned long long *)q);
	}
	printf("\n");
}

int main()
{
	void *a = dmem(2048), *b = dmem(2048), *c = dmem(2048), *d = dmem(2048);
	__half A[256], B[256];
	float C[256], D[256];
	for (int i = 0; i < 256; i++) {
		uint32_t u = fc[(i / 16 + i % 16) % 16];
		memcpy(&C[i], &u, 4);
	}
	ab16(A, B, 0, 16);
	up(a, A, 512), up(b, B, 512), up(c, C, 1024);
	kMma<__half, __half, float, 16><<<1, 32>>>((__half *)a, (__half *)b, (float *)c, (float *)d);
	down(D, d, 1024);
	print("f16 -> f32", D, 4, 256);
	__half HC[256], HD[256];
	for (int i = 0; i < 256; i++) {
		uint16_t h = hx[(i / 16 * 3 + i % 16) % 16];
		memcpy(&HC[i], &h, 2);
	}
	up(c, HC, 512);
	kMma<__half, __half, __half, 16><<<1, 32>>>((__half *)a, (__half *)b, (__half *)c, (__half *)d);
	down(HD, d, 512);
	print("f16 -> f16", HD, 2, 256);
	__nv_bfloat16 BA[256], BB[256];
	ab16(BA, BB, 1, 16);
	up(a, BA, 512), up(b, BB, 512), up(c, C, 1024);
	kMma<__nv_bfloat16, __nv_bfloat16, float, 16><<<1, 32>>>((__nv_bfloat16 *)a, (__nv_bfloat16 *)b, (float *)c, (float *)d);
	down(D, d, 1024);
	print("bf16 -> f32", D, 4, 256);
	float TA[128], TB[128];
	memset(TA, 0, sizeof TA), memset(TB, 0, sizeof TB);
	for (int r = 0; r < 16; r++) {
		uint32_t ua = f2u(h2f(ha[r])) | (r & 1 ? 0x1fffu : 0), ub = f2u(h2f(hb[r])) | (r & 2 ? 0x1234u : 0);
		if ((ha[r] & 0x7c00) == 0x7c00 && (ha[r] & 0x3ff))
			ua = 0x7f800001u | (ha[r] & 0x8000u) << 16; // a NaN only in the low bits
		memcpy(&TA[r * 8], &ua, 4);
		TA[r * 8 + 1] = 1.0f;
		memcpy(&TB[r * 8], &ub, 4);
		TB[r * 8 + 1] = h2f(hx[r]);
	}
	up(a, TA, 512), up(b, TB, 512), up(c, C, 1024);
	kMma<wmma::precision::tf32, float, float, 8><<<1, 32>>>((float *)a, (float *)b, (float *)c, (float *)d);
	down(D, d, 1024);
	print("tf32 -> f32 (inputs with low bits set)", D, 4, 256);
	double DA[32], DB[32], DC[64], DD[64];
	static const uint64_t dv[8] = {0x7ff0000000000000ull, 0xfff0000000000000ull,
				       0x7ff8000000000123ull, 0x7fefffffffffffffull,
				       0x0000000000000001ull, 0x8000000000000000ull,
				       0x3ff0000000000001ull, 0xfff4000000000000ull};
	for (int i = 0; i < 32; i++) {
		uint64_t u = dv[i % 8], w = dv[(i * 3 + 1) % 8];
		memcpy(&DA[i], &u, 8), memcpy(&DB[i], &w, 8);
	}
	for (int i = 0; i < 64; i++) {
		uint64_t u = dv[(i * 5 + 2) % 8];
		memcpy(&DC[i], &u, 8);
	}
	up(a, DA, 256), up(b, DB, 256), up(c, DC, 512);
	kDmma<<<1, 32>>>((double *)a, (double *)b, (double *)c, (double *)d);
	down(DD, d, 512);
	print("f64", DD, 8, 64);
	signed char IA[256], IB[256];
	int IC[256], ID[256];
	for (int i = 0; i < 256; i++) {
		IA[i] = (signed char)(i % 2 ? 127 : -128);
		IB[i] = (signed char)(i % 3 ? -128 : 127);
		IC[i] = i % 4 == 0 ? 2147483647 : i % 4 == 1 ? -2147483647 - 1 : i * 1000;
	}
	up(a, IA, 256), up(b, IB, 256), up(c, IC, 1024);
	kImma<<<1, 32>>>((signed char *)a, (signed char *)b, (int *)c, (int *)d);
	down(ID, d, 1024);
	print("s8 -> s32 (wrapping)", ID, 4, 256);
	return 0;
}
