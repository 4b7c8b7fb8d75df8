// Known-right: the A tile stored column-major in shared memory (As[k][m]) and loaded as
// col_major matrix_a fragments; fragments wholly inside C with 32-byte aligned rows
// (n % 8 == 0) are stored straight to global memory, the others staged as the solution does.
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
    static const int FK = 8;
    __device__ static float convert(float v) { return wmma::__float_to_tf32(v); }
};
template <> struct Prec<true> {  // FP16: m16 n16 k16
    typedef __half elem;
    typedef __half frag;
    static const int FK = 16;
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
    const int FK = P::FK;
    __shared__ __align__(128) E As[BK][BM + PAD]; // A tile stored column-major: As[c][r]
    __shared__ __align__(128) E Bs[BK][BN + PAD];
    __shared__ __align__(128) float Cs[WARPS][16][16]; // each warp's staging tile

    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    int wr = warp / (BN / WN), wc = warp % (BN / WN); // the warp's piece of the C tile
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, FK, float> acc[WM / 16][WN / 16];
    for (int i = 0; i < WM / 16; ++i)
        for (int j = 0; j < WN / 16; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int ph = 0; ph < (k + BK - 1) / BK; ++ph) {
        for (int i = t; i < BM * BK; i += THREADS) { // a warp reads one row of 32
            int r = i / BK, c = i % BK, gr = row0 + r, gc = ph * BK + c;
            As[c][r] = P::convert(gr < m && gc < k ? A[(size_t)gr * k + gc] : 0.0f);
        }
        for (int i = t; i < BK * BN; i += THREADS) { // a warp reads 32 of one row
            int r = i / BN, c = i % BN, gr = ph * BK + r, gc = col0 + c;
            Bs[r][c] = P::convert(gr < k && gc < n ? B[(size_t)gr * n + gc] : 0.0f);
        }
        __syncthreads(); // the tiles are complete before any warp loads a fragment

        for (int kk = 0; kk < BK; kk += FK) {
            wmma::fragment<wmma::matrix_a, 16, 16, FK, typename P::frag, wmma::col_major> a[WM / 16];
            wmma::fragment<wmma::matrix_b, 16, 16, FK, typename P::frag, wmma::row_major> b[WN / 16];
            for (int i = 0; i < WM / 16; ++i)
                wmma::load_matrix_sync(a[i], &As[kk][wr * WM + i * 16], BM + PAD);
            for (int j = 0; j < WN / 16; ++j)
                wmma::load_matrix_sync(b[j], &Bs[kk][wc * WN + j * 16], BN + PAD);
            for (int i = 0; i < WM / 16; ++i)
                for (int j = 0; j < WN / 16; ++j)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads(); // every warp is done with the tiles before they are replaced
    }

    // Store each fragment through the warp's staging tile, so that only the elements
    // inside C are written (C's rows are n floats apart, not a multiple of 16 in general).
    for (int i = 0; i < WM / 16; ++i)
        for (int j = 0; j < WN / 16; ++j) {
            int r0 = row0 + wr * WM + i * 16, c0 = col0 + wc * WN + j * 16;
            if (r0 + 16 <= m && c0 + 16 <= n && n % 8 == 0) { // 32-byte aligned rows // whole fragment inside C: straight to global
                wmma::store_matrix_sync(&C[(size_t)r0 * n + c0], acc[i][j], n, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(&Cs[warp][0][0], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp(); // the fragment is in Cs before the lanes read other lanes' parts
            for (int e = lane; e < 16 * 16; e += 32) {
                int r = r0 + e / 16, c = c0 + e % 16;
                if (r < m && c < n)
                    C[(size_t)r * n + c] = Cs[warp][e / 16][e % 16];
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
