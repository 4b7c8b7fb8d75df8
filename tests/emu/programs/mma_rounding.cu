// How the tensor cores round: random tiles (values spread over many binades, three in
// four products zero in the sparse sets) through wmma m16n16k16 f16 -> f32 and f16,
// bf16 -> f32, m16n16k8 tf32 (inputs rounded with __float_to_tf32, and raw floats whose
// low bits the tensor core must ignore), m8n8k4 f64, and mma.sync m16n8k8 f16 -> f32.
// Each result is printed as bits after its inputs' seed; a model of the accumulation is
// judged against these bits (emu/README.md gives the bound).
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>
#include <cstring>
#include "check.h"
using namespace nvcuda;

#define TILES 8

static uint64_t rng;
static bool inputs; // argument "inputs": print each tile's A, B and C instead of running it
static uint32_t next32()
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 32);
}
// A float with a random sign, exponent in [lo, hi] and 24 random significand bits; zero
// with probability zpct percent.
static float rnd(int lo, int hi, int zpct)
{
	if ((int)(next32() % 100) < zpct)
		return 0.0f;
	int e = lo + (int)(next32() % (uint32_t)(hi - lo + 1));
	float m = 1.0f + (float)(next32() >> 8) / 16777216.0f;
	return ldexpf(next32() & 1 ? -m : m, e);
}

template <typename T, typename S, typename C, int K>
__global__ void kWmma(const S *a, const S *b, const C *c, C *d)
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

// mma.sync m16n8k8 f16 -> f32: A 16x8 row-major, B 8x8 (k x n, stored n-major), C, D 16x8.
__global__ void kMma1688(const __half *a, const __half *b, const float *c, float *d)
{
	int l = threadIdx.x, g = l >> 2, t = l & 3;
	uint32_t a0, a1, b0;
	__half2 x;
	x = __halves2half2(a[g * 8 + 2 * t], a[g * 8 + 2 * t + 1]);
	memcpy(&a0, &x, 4);
	x = __halves2half2(a[(g + 8) * 8 + 2 * t], a[(g + 8) * 8 + 2 * t + 1]);
	memcpy(&a1, &x, 4);
	x = __halves2half2(b[g * 8 + 2 * t], b[g * 8 + 2 * t + 1]);
	memcpy(&b0, &x, 4);
	float c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1], c2 = c[(g + 8) * 8 + 2 * t],
	      c3 = c[(g + 8) * 8 + 2 * t + 1], d0, d1, d2, d3;
	asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
		     : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
		     : "r"(a0), "r"(a1), "r"(b0), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
	d[g * 8 + 2 * t] = d0, d[g * 8 + 2 * t + 1] = d1, d[(g + 8) * 8 + 2 * t] = d2;
	d[(g + 8) * 8 + 2 * t + 1] = d3;
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
static void dump(const char *what, int tile, const void *p, int n, int bytes)
{
	printf("%s tile %d:", what, tile);
	for (int i = 0; i < n; i++) {
		const unsigned char *q = (const unsigned char *)p + (size_t)i * bytes;
		if (bytes == 2) printf("%s%04x", i % 16 ? " " : "\n ", *(const uint16_t *)q);
		else if (bytes == 4) printf("%s%08x", i % 16 ? " " : "\n ", *(const uint32_t *)q);
		else printf("%s%016llx", i % 8 ? " " : "\n ", *(const unsigned long long *)q);
	}
	printf("\n");
}

// One f16/bf16 set: ranges of the inputs' and C's exponents, percent of zeros.
template <typename S, typename C>
static void set16(const char *what, S (*conv)(float), int lo, int hi, int clo, int chi, int z)
{
	S *a = (S *)dmem(256 * sizeof(S)), *b = (S *)dmem(256 * sizeof(S));
	C *c = (C *)dmem(256 * sizeof(C)), *d = (C *)dmem(256 * sizeof(C));
	for (int t = 0; t < TILES; t++) {
		S ha[256], hb[256];
		C hc[256], hd[256];
		for (int i = 0; i < 256; i++) {
			ha[i] = conv(rnd(lo, hi, z));
			hb[i] = conv(rnd(lo, hi, z));
			float cv = rnd(clo, chi, 25);
			if (sizeof(C) == 2) { __half h = __float2half(cv); memcpy(&hc[i], &h, 2); }
			else memcpy(&hc[i], &cv, 4);
		}
		if (inputs) {
			dump("a", t, ha, 256, sizeof(S)), dump("b", t, hb, 256, sizeof(S));
			dump("c", t, hc, 256, sizeof(C));
			continue;
		}
		up(a, ha, sizeof ha), up(b, hb, sizeof hb), up(c, hc, sizeof hc);
		kWmma<typename std::conditional<sizeof(C) == 2, __half, S>::type, S, C, 16><<<1, 32>>>(a, b, c, d);
		down(hd, d, sizeof hd);
		dump(what, t, hd, 256, sizeof(C));
	}
}
static __half toH(float f) { return __float2half(f); }
static __nv_bfloat16 toB(float f) { return __float2bfloat16(f); }

int main(int argc, char **argv)
{
	inputs = argc > 1 && !strcmp(argv[1], "inputs");
	rng = 12345;
	set16<__half, float>("f16->f32 narrow", toH, -4, 4, -4, 6, 0);
	set16<__half, float>("f16->f32 wide sparse", toH, -14, 15, -20, 30, 75);
	set16<__half, float>("f16->f32 wide", toH, -12, 12, -24, 24, 0);
	set16<__half, __half>("f16->f16", toH, -4, 3, -4, 8, 0);
	set16<__nv_bfloat16, float>("bf16->f32 wide", toB, -30, 30, -40, 40, 0);
	set16<__nv_bfloat16, float>("bf16->f32 sparse", toB, -20, 20, -30, 30, 75);
	// tf32: rounded inputs, then raw floats
	float *fa = (float *)dmem(128 * 4), *fb = (float *)dmem(128 * 4);
	float *fc = (float *)dmem(256 * 4), *fd = (float *)dmem(256 * 4);
	for (int raw = 0; raw < 2; raw++)
		for (int t = 0; t < TILES; t++) {
			float ha[128], hb[128], hc[256], hd[256];
			for (int i = 0; i < 128; i++) {
				ha[i] = rnd(-20, 20, 10), hb[i] = rnd(-20, 20, 10);
				if (!raw) { // what __float_to_tf32 (cvt.rna) gives
					uint32_t x;
					memcpy(&x, &ha[i], 4), x = (x + 0x1000u) & ~0x1fffu, memcpy(&ha[i], &x, 4);
					memcpy(&x, &hb[i], 4), x = (x + 0x1000u) & ~0x1fffu, memcpy(&hb[i], &x, 4);
				}
			}
			for (int i = 0; i < 256; i++)
				hc[i] = rnd(-30, 30, 25);
			if (inputs) {
				dump("a", t, ha, 128, 4), dump("b", t, hb, 128, 4), dump("c", t, hc, 256, 4);
				continue;
			}
			up(fa, ha, sizeof ha), up(fb, hb, sizeof hb), up(fc, hc, sizeof hc);
			kWmma<wmma::precision::tf32, float, float, 8><<<1, 32>>>(fa, fb, fc, fd);
			down(hd, fd, sizeof hd);
			dump(raw ? "tf32->f32 raw inputs" : "tf32->f32", t, hd, 256, 4);
		}
	double *da = (double *)dmem(32 * 8), *db = (double *)dmem(32 * 8);
	double *dc = (double *)dmem(64 * 8), *dd = (double *)dmem(64 * 8);
	for (int t = 0; t < TILES; t++) {
		double ha[32], hb[32], hc[64], hd[64];
		for (int i = 0; i < 32; i++) {
			ha[i] = (double)rnd(-40, 40, 0) * (1.0 + (double)next32() / 4294967296.0 / 16777216.0);
			hb[i] = (double)rnd(-40, 40, 0) * (1.0 + (double)next32() / 4294967296.0 / 16777216.0);
		}
		for (int i = 0; i < 64; i++)
			hc[i] = (double)rnd(-80, 80, 10) * (1.0 + (double)next32() / 4294967296.0 / 16777216.0);
		if (inputs) {
			dump("a", t, ha, 32, 8), dump("b", t, hb, 32, 8), dump("c", t, hc, 64, 8);
			continue;
		}
		up(da, ha, sizeof ha), up(db, hb, sizeof hb), up(dc, hc, sizeof hc);
		kDmma<<<1, 32>>>(da, db, dc, dd);
		down(hd, dd, sizeof hd);
		dump("f64 m8n8k4", t, hd, 64, 8);
	}
	__half *ha16 = (__half *)dmem(128 * 2), *hb16 = (__half *)dmem(64 * 2);
	for (int t = 0; t < TILES; t++) {
		__half ha[128], hb[64];
		float hc[128], hd[128];
		for (int i = 0; i < 128; i++)
			ha[i] = __float2half(rnd(-12, 12, 0)), hc[i] = rnd(-24, 24, 0);
		for (int i = 0; i < 64; i++)
			hb[i] = __float2half(rnd(-12, 12, 0));
		if (inputs) {
			dump("a", t, ha, 128, 2), dump("b", t, hb, 64, 2), dump("c", t, hc, 128, 4);
			continue;
		}
		up(ha16, ha, sizeof ha), up(hb16, hb, sizeof hb), up(fc, hc, sizeof hc);
		kMma1688<<<1, 32>>>(ha16, hb16, fc, fd);
		down(hd, fd, sizeof hd);
		dump("mma.sync m16n8k8 f16->f32", t, hd, 128, 4);
	}
	return 0;
}
