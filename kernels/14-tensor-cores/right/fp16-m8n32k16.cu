// Known-right: FP16 with m8n32k16 fragments (8 x 16 of A, 16 x 32 of B, 8 x 32 of C: a
// warp's 64 x 32 piece of the tile is 8 x 1 of them), TF32 with m16n16k8 as in the solution;
// the staging tile is one array of FM x FN floats for either shape.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <stdio.h>

using namespace nvcuda;

#define BM 128              // rows of C per block
#define BN 128              // columns of C per block
#define BK 32               // depth of one phase
#define WM 64               // rows of C per warp: 4 fragments
#define WN 32               // columns of C per warp: 2 fragments
#define WARPS ((BM / WM) * (BN / WN)) // 8
#define THREADS (WARPS * 32)          // 256
#define PAD 8               // elements added to each shared row: fewer bank conflicts,
                            // and every fragment still starts 32 bytes aligned

// The operand type in shared memory and the wmma shapes of each precision.
template <bool HALF> struct Prec;
template <> struct Prec<false> { // TF32: m16 n16 k8, operands kept as floats
    typedef float elem;
    typedef wmma::precision::tf32 frag;
    static const int FM = 16, FN = 16, FK = 8;
    __device__ static float convert(float v) { return wmma::__float_to_tf32(v); }
};
template <> struct Prec<true> {  // FP16: m16 n16 k16
    typedef __half elem;
    typedef __half frag;
    static const int FM = 8, FN = 32, FK = 16; // m8n32k16
    __device__ static __half convert(float v) { return __float2half_rn(v); }
};

// C (m x n) = A (m x k) * B (k x n), row-major. A block computes a BM x BN tile of C with
// 8 warps, each a WM x WN piece of it as 4 x 2 accumulator fragments of 16 x 16. Each
// phase stages a BM x BK tile of A and a BK x BN tile of B in shared memory, converted to
// the operand precision, 0 outside the matrices; the warps load their fragments from
// there (ldm = the shared row length) and multiply-accumulate in FP32.
template <bool HALF>
__global__ void __launch_bounds__(THREADS, 2) // at most 128 registers: 2 blocks per SM
tcMatMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    typedef Prec<HALF> P;
    typedef typename P::elem E;
    const int FM = P::FM, FN = P::FN, FK = P::FK;
    __shared__ __align__(128) E As[BM][BK + PAD];
    __shared__ __align__(128) E Bs[BK][BN + PAD];
    __shared__ __align__(128) float Cs[WARPS][256]; // each warp's staging tile (FM x FN)

    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    int wr = warp / (BN / WN), wc = warp % (BN / WN); // the warp's piece of the C tile
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, FM, FN, FK, float> acc[WM / FM][WN / FN];
    for (int i = 0; i < WM / FM; ++i)
        for (int j = 0; j < WN / FN; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int ph = 0; ph < (k + BK - 1) / BK; ++ph) {
        for (int i = t; i < BM * BK; i += THREADS) { // a warp reads one row of 32
            int r = i / BK, c = i % BK, gr = row0 + r, gc = ph * BK + c;
            As[r][c] = P::convert(gr < m && gc < k ? A[(size_t)gr * k + gc] : 0.0f);
        }
        for (int i = t; i < BK * BN; i += THREADS) { // a warp reads 32 of one row
            int r = i / BN, c = i % BN, gr = ph * BK + r, gc = col0 + c;
            Bs[r][c] = P::convert(gr < k && gc < n ? B[(size_t)gr * n + gc] : 0.0f);
        }
        __syncthreads(); // the tiles are complete before any warp loads a fragment

        for (int kk = 0; kk < BK; kk += FK) {
            wmma::fragment<wmma::matrix_a, FM, FN, FK, typename P::frag, wmma::row_major> a[WM / FM];
            wmma::fragment<wmma::matrix_b, FM, FN, FK, typename P::frag, wmma::row_major> b[WN / FN];
            for (int i = 0; i < WM / FM; ++i)
                wmma::load_matrix_sync(a[i], &As[wr * WM + i * FM][kk], BK + PAD);
            for (int j = 0; j < WN / FN; ++j)
                wmma::load_matrix_sync(b[j], &Bs[kk][wc * WN + j * FN], BN + PAD);
            for (int i = 0; i < WM / FM; ++i)
                for (int j = 0; j < WN / FN; ++j)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads(); // every warp is done with the tiles before they are replaced
    }

    // Store each fragment through the warp's staging tile, so that only the elements
    // inside C are written (C's rows are n floats apart, not a multiple of 16 in general).
    for (int i = 0; i < WM / FM; ++i)
        for (int j = 0; j < WN / FN; ++j) {
            wmma::store_matrix_sync(&Cs[warp][0], acc[i][j], FN, wmma::mem_row_major);
            __syncwarp(); // the fragment is in Cs before the lanes read other lanes' parts
            int r0 = row0 + wr * WM + i * FM, c0 = col0 + wc * WN + j * FN;
            for (int e = lane; e < FM * FN; e += 32) {
                int r = r0 + e / FN, c = c0 + e % FN;
                if (r < m && c < n)
                    C[(size_t)r * n + c] = Cs[warp][e];
            }
            __syncwarp(); // every lane has read Cs before the next fragment overwrites it
        }
}

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                   \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

void tcMatMul(const float *A_h, const float *B_h, float *C_h, int m, int k, int n, int precision)
{
    size_t bytesA = (size_t)m * k * sizeof(float);
    size_t bytesB = (size_t)k * n * sizeof(float);
    size_t bytesC = (size_t)m * n * sizeof(float);
    float *A_d, *B_d, *C_d;
    CHECK(cudaMalloc((void **)&A_d, bytesA));
    CHECK(cudaMalloc((void **)&B_d, bytesB));
    CHECK(cudaMalloc((void **)&C_d, bytesC));
    CHECK(cudaMemcpy(A_d, A_h, bytesA, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B_d, B_h, bytesB, cudaMemcpyHostToDevice));

    dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    if (precision == 16)
        tcMatMulKernel<true><<<grid, THREADS>>>(A_d, B_d, C_d, m, k, n);
    else
        tcMatMulKernel<false><<<grid, THREADS>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
