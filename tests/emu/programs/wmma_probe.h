// Shared by the wmma_*.cu programs: which matrix element each lane holds in each
// fragment element (fragment-by-index prints), what store_matrix_sync writes where, and
// an exact mma (small integers), for one element type. The GPU's prints are the truth
// the emulator's fragment layouts are checked against.
#pragma once
#include <type_traits>
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "check.h"
using namespace nvcuda;

#define MAXE 64 // fragment elements a lane may hold

// A small integer as each storage type, on the host and on the device.
template <typename S> __host__ __device__ inline S fromInt(int v) { return (S)v; }
template <> __host__ __device__ inline __half fromInt<__half>(int v) { return __int2half_rn(v); }
template <> __host__ __device__ inline __nv_bfloat16 fromInt<__nv_bfloat16>(int v)
{
	return __int2bfloat16_rn(v);
}
template <typename S> __host__ __device__ inline double toD(S v) { return (double)v; }
template <> __host__ __device__ inline double toD<__half>(__half v) { return __half2float(v); }
template <> __host__ __device__ inline double toD<__nv_bfloat16>(__nv_bfloat16 v)
{
	return __bfloat162float(v);
}

template <typename Use, int M, int N, int K, typename T, typename L, typename S>
__global__ void kLoad(const S *p, unsigned ldm, double *out, int *nel)
{
	wmma::fragment<Use, M, N, K, T, L> f;
	wmma::load_matrix_sync(f, p, ldm);
	for (int i = 0; i < f.num_elements; i++)
		out[threadIdx.x * MAXE + i] = toD(f.x[i]);
	if (threadIdx.x == 0)
		*nel = f.num_elements;
}

template <int M, int N, int K, typename C>
__global__ void kLoadAcc(const C *p, unsigned ldm, bool rowMajor, double *out, int *nel)
{
	wmma::fragment<wmma::accumulator, M, N, K, C> f;
	wmma::load_matrix_sync(f, p, ldm, rowMajor ? wmma::mem_row_major : wmma::mem_col_major);
	for (int i = 0; i < f.num_elements; i++)
		out[threadIdx.x * MAXE + i] = toD(f.x[i]);
	if (threadIdx.x == 0)
		*nel = f.num_elements;
}

// Element i of lane l holds 1 + l * num_elements + i; stored with the layout.
template <int M, int N, int K, typename C>
__global__ void kStoreAcc(C *p, unsigned ldm, bool rowMajor)
{
	wmma::fragment<wmma::accumulator, M, N, K, C> f;
	wmma::fill_fragment(f, fromInt<C>(0));
	for (int i = 0; i < f.num_elements; i++)
		f.x[i] = fromInt<C>(1 + (int)threadIdx.x * f.num_elements + i);
	wmma::store_matrix_sync(p, f, ldm, rowMajor ? wmma::mem_row_major : wmma::mem_col_major);
}

template <typename T> struct Conv { template <typename F> __device__ static void run(F &) {} };
template <> struct Conv<wmma::precision::tf32> {
	template <typename F> __device__ static void run(F &f)
	{
		for (int i = 0; i < f.num_elements; i++)
			f.x[i] = wmma::__float_to_tf32(f.x[i]);
	}
};

// D = A B + C, A and B with the given layouts, C and D row-major; C starts at one.
template <int M, int N, int K, typename T, typename LA, typename LB, typename S, typename C>
__global__ void kMma(const S *a, unsigned lda, const S *b, unsigned ldb, const C *c, C *d,
		     bool fill)
{
	wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
	wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
	wmma::fragment<wmma::accumulator, M, N, K, C> fc;
	wmma::load_matrix_sync(fa, a, lda);
	wmma::load_matrix_sync(fb, b, ldb);
	Conv<T>::run(fa);
	Conv<T>::run(fb);
	if (fill)
		wmma::fill_fragment(fc, fromInt<C>(1));
	else
		wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

// A rows x cols matrix in memory with the layout, PAD elements after each row (column).
template <typename S> struct Mat {
	int rows, cols, ldm;
	bool rowMajor;
	size_t count;
	S *dev;
	Mat(int r, int c, bool rm, int pad) : rows(r), cols(c), rowMajor(rm)
	{
		int q = sizeof(S) >= 16 ? 1 : 16 / (int)sizeof(S); // ldm: a multiple of 16 bytes
		ldm = ((rm ? c : r) + pad + q - 1) / q * q;
		count = (size_t)ldm * (rm ? r : c);
		CHECK(cudaMalloc(&dev, count * sizeof(S)));
	}
	~Mat() { cudaFree(dev); }
	size_t at(int r, int c) const { return rowMajor ? (size_t)r * ldm + c : (size_t)c * ldm + r; }
	// element (r, c) = f(r, c); padding = pad
	template <typename F> void fill(F f, int pad)
	{
		S *h = new S[count];
		for (size_t i = 0; i < count; i++)
			h[i] = fromInt<S>(pad);
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < cols; c++)
				h[at(r, c)] = fromInt<S>(f(r, c));
		CHECK(cudaMemcpy(dev, h, count * sizeof(S), cudaMemcpyHostToDevice));
		delete[] h;
	}
	void get(S *h) const { CHECK(cudaMemcpy(h, dev, count * sizeof(S), cudaMemcpyDeviceToHost)); }
};

// Element index -> "row:col" for each lane, from two loads (rows + 1, then cols + 1; the
// padding holds 0, which shows as "pad").
static void printRc(const char *what, const double *rows, const double *cols, int nel)
{
	for (int l = 0; l < 32; l++) {
		printf("%s lane %2d:", what, l);
		for (int i = 0; i < nel; i++) {
			int r = (int)rows[l * MAXE + i], c = (int)cols[l * MAXE + i];
			if (r == 0 || c == 0)
				printf(" pad");
			else
				printf(" %d:%d", r - 1, c - 1);
		}
		printf("\n");
	}
}

struct Probe {
	double *out;
	int *nel;
	Probe()
	{
		CHECK(cudaMalloc(&out, 32 * MAXE * sizeof(double)));
		CHECK(cudaMalloc(&nel, sizeof(int)));
	}
	~Probe() { cudaFree(out); cudaFree(nel); }
	int fetch(double *h)
	{
		CHECK(cudaGetLastError());
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(h, out, 32 * MAXE * sizeof(double), cudaMemcpyDeviceToHost));
		int n;
		CHECK(cudaMemcpy(&n, nel, sizeof(int), cudaMemcpyDeviceToHost));
		return n;
	}
};

// matrix_a (M x K) or matrix_b (K x N), both layouts.
template <typename Use, int M, int N, int K, typename T, typename S>
void probeAB(const char *tname, int pad)
{
	bool isA = std::is_same<Use, wmma::matrix_a>::value;
	int rows = isA ? M : K, cols = isA ? K : N;
	static double hr[32 * MAXE], hc[32 * MAXE];
	for (int rm = 1; rm >= 0; rm--) {
		Mat<S> m(rows, cols, rm, pad);
		Probe p;
		char what[96];
		snprintf(what, sizeof what, "%s m%dn%dk%d %s %s ldm %d", isA ? "a" : "b", M, N, K,
			 tname, rm ? "row" : "col", m.ldm);
		m.fill([](int r, int) { return r + 1; }, 0);
		if (rm)
			kLoad<Use, M, N, K, T, wmma::row_major, S><<<1, 32>>>(m.dev, m.ldm, p.out, p.nel);
		else
			kLoad<Use, M, N, K, T, wmma::col_major, S><<<1, 32>>>(m.dev, m.ldm, p.out, p.nel);
		int n = p.fetch(hr);
		m.fill([](int, int c) { return c + 1; }, 0);
		if (rm)
			kLoad<Use, M, N, K, T, wmma::row_major, S><<<1, 32>>>(m.dev, m.ldm, p.out, p.nel);
		else
			kLoad<Use, M, N, K, T, wmma::col_major, S><<<1, 32>>>(m.dev, m.ldm, p.out, p.nel);
		p.fetch(hc);
		printf("%s: %d elements\n", what, n);
		printRc(what, hr, hc, n);
	}
}

// The accumulator: loads in both layouts, then stores in both layouts.
template <int M, int N, int K, typename C>
void probeAcc(const char *tname, int pad)
{
	static double hr[32 * MAXE], hc[32 * MAXE];
	for (int rm = 1; rm >= 0; rm--) {
		Mat<C> m(M, N, rm, pad);
		Probe p;
		char what[96];
		snprintf(what, sizeof what, "c m%dn%dk%d %s %s ldm %d", M, N, K, tname,
			 rm ? "row" : "col", m.ldm);
		m.fill([](int r, int) { return r + 1; }, 0);
		kLoadAcc<M, N, K, C><<<1, 32>>>(m.dev, m.ldm, rm, p.out, p.nel);
		int n = p.fetch(hr);
		m.fill([](int, int c) { return c + 1; }, 0);
		kLoadAcc<M, N, K, C><<<1, 32>>>(m.dev, m.ldm, rm, p.out, p.nel);
		p.fetch(hc);
		printf("%s: %d elements\n", what, n);
		printRc(what, hr, hc, n);
	}
	for (int rm = 1; rm >= 0; rm--) {
		Mat<C> m(M, N, rm, pad);
		m.fill([](int, int) { return 0; }, -1);
		kStoreAcc<M, N, K, C><<<1, 32>>>(m.dev, m.ldm, rm);
		CHECK(cudaDeviceSynchronize());
		C *h = new C[m.count];
		m.get(h);
		printf("store m%dn%dk%d %s %s ldm %d (lane.element; memory order, padding -1):\n", M,
		       N, K, tname, rm ? "row" : "col", m.ldm);
		int nel = M * N / 32, lines = rm ? M : N;
		for (int i = 0; i < lines; i++) {
			for (int j = 0; j < m.ldm; j++) {
				int v = (int)toD(h[(size_t)i * m.ldm + j]);
				if (v <= 0)
					printf(" %d", v);
				else
					printf(" %d.%d", (v - 1) / nel, (v - 1) % nel);
			}
			printf("\n");
		}
		delete[] h;
	}
}

// An exact D = A B + C for the layout pair, printed row by row and checked on the host.
template <int M, int N, int K, typename T, typename LA, typename LB, typename S, typename C>
void probeMma(const char *tname, int pad, int lo, bool fill)
{
	bool ra = std::is_same<LA, wmma::row_major>::value, rb = std::is_same<LB, wmma::row_major>::value;
	Mat<S> a(M, K, ra, pad), b(K, N, rb, pad);
	auto fa = [lo](int r, int k) { return (r * 3 + k * 5) % 7 + lo; };
	auto fb = [lo](int k, int n) { return (k * 2 + n * 3 + 1) % 5 + lo; };
	a.fill(fa, 0);
	b.fill(fb, 0);
	Mat<C> c(M, N, true, 0), d(M, N, true, 0);
	c.fill([](int r, int n) { return r - n; }, 0);
	d.fill([](int, int) { return 0; }, 0);
	kMma<M, N, K, T, LA, LB, S, C><<<1, 32>>>(a.dev, a.ldm, b.dev, b.ldm, c.dev, d.dev, fill);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	C *h = new C[M * N];
	d.get(h);
	printf("mma m%dn%dk%d %s a %s b %s%s:\n", M, N, K, tname, ra ? "row" : "col",
	       rb ? "row" : "col", fill ? " c filled with 1" : "");
	int bad = 0;
	for (int r = 0; r < M; r++) {
		for (int n = 0; n < N; n++) {
			long want = fill ? 1 : r - n;
			for (int k = 0; k < K; k++)
				want += (long)fa(r, k) * fb(k, n);
			long got = (long)toD(h[r * N + n]);
			bad += got != want;
			printf(" %ld", got);
		}
		printf("\n");
	}
	printf("mma m%dn%dk%d %s: %d of %d elements differ from the host's\n", M, N, K, tname,
	       bad, M * N);
	delete[] h;
}
