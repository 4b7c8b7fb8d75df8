// A tiled tensor-core GEMM as a course teaches it: each block stages 64x16 tiles of A
// and B in padded shared memory, its four warps each compute a 32x32 piece of C with
// 2x2 wmma fragments, in FP16 (f32 accumulator) and in TF32, then C goes out through
// shared memory. Inputs are small integers, so every GPU gives the same C.
#include <mma.h>
#include <cuda_fp16.h>
#include "check.h"
using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 16
#define PAD 8

template <typename S, typename T, int K>
__global__ void gemm(const S *A, const S *B, float *C, int n)
{
	__shared__ __align__(32) S as[BM][BK + PAD];
	__shared__ __align__(32) S bs[BK][BN + PAD];
	__shared__ __align__(32) float cs[BM][BN + 4];
	int warp = threadIdx.x / 32, wr = warp / 2, wc = warp % 2;
	int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
	wmma::fragment<wmma::accumulator, 16, 16, K, float> acc[2][2];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			wmma::fill_fragment(acc[i][j], 0.0f);
	for (int k0 = 0; k0 < n; k0 += BK) {
		for (int e = threadIdx.x; e < BM * BK; e += blockDim.x) {
			as[e / BK][e % BK] = A[(size_t)(row0 + e / BK) * n + k0 + e % BK];
			bs[e / BN][e % BN] = B[(size_t)(k0 + e / BN) * n + col0 + e % BN];
		}
		__syncthreads();
		for (int kk = 0; kk < BK; kk += K) {
			wmma::fragment<wmma::matrix_a, 16, 16, K, T, wmma::row_major> fa[2];
			wmma::fragment<wmma::matrix_b, 16, 16, K, T, wmma::row_major> fb[2];
			for (int i = 0; i < 2; i++) {
				wmma::load_matrix_sync(fa[i], &as[wr * 32 + i * 16][kk], BK + PAD);
				wmma::load_matrix_sync(fb[i], &bs[kk][wc * 32 + i * 16], BN + PAD);
			}
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++)
					wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			wmma::store_matrix_sync(&cs[wr * 32 + i * 16][wc * 32 + j * 16], acc[i][j],
						BN + 4, wmma::mem_row_major);
	__syncthreads();
	for (int e = threadIdx.x; e < BM * BN; e += blockDim.x)
		C[(size_t)(row0 + e / BN) * n + col0 + e % BN] = cs[e / BN][e % BN];
}

template <typename S, typename T, int K>
static void run(const char *what, int n, S (*conv)(float))
{
	size_t nn = (size_t)n * n;
	S *ha = new S[nn], *hb = new S[nn];
	float *hc = new float[nn];
	for (size_t i = 0; i < nn; i++) {
		ha[i] = conv((float)((int)(i * 7 % 13) - 6));
		hb[i] = conv((float)((int)(i * 5 % 11) - 5));
	}
	S *a, *b;
	float *c;
	CHECK(cudaMalloc(&a, nn * sizeof(S)));
	CHECK(cudaMalloc(&b, nn * sizeof(S)));
	CHECK(cudaMalloc(&c, nn * sizeof(float)));
	CHECK(cudaMemcpy(a, ha, nn * sizeof(S), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(b, hb, nn * sizeof(S), cudaMemcpyHostToDevice));
	GpuTimer t;
	t.begin();
	gemm<S, T, K><<<dim3(n / BN, n / BM), 128>>>(a, b, c, n);
	CHECK(cudaGetLastError());
	t.end(what);
	CHECK(cudaMemcpy(hc, c, nn * sizeof(float), cudaMemcpyDeviceToHost));
	int bad = 0;
	double sum = 0;
	for (int r = 0; r < n; r++)
		for (int col = 0; col < n; col++) {
			double want = 0;
			for (int k = 0; k < n; k++)
				want += (double)((int)(((size_t)r * n + k) * 7 % 13) - 6) *
					((int)(((size_t)k * n + col) * 5 % 11) - 5);
			bad += hc[(size_t)r * n + col] != want;
			sum += hc[(size_t)r * n + col];
		}
	printf("%s %dx%d: C[0][0] %.0f C[%d][%d] %.0f sum %.0f, %d elements differ from the host's\n",
	       what, n, n, hc[0], n - 1, n - 1, hc[nn - 1], sum, bad);
	cudaFree(a), cudaFree(b), cudaFree(c);
	delete[] ha, delete[] hb, delete[] hc;
}

static __half toH(float f) { return __float2half(f); }
static float toF(float f) { return f; }

int main()
{
	run<__half, __half, 16>("fp16 wmma gemm", 128, toH);
	run<float, wmma::precision::tf32, 8>("tf32 wmma gemm", 128, toF);
	run<__half, __half, 16>("fp16 wmma gemm", 192, toH);
	return 0;
}
