// expect: performance
// Known-wrong: correct, but no tensor cores: lab 12's register-tiled FP32 kernel on the
// CUDA cores. Each tensor-core instruction does 16 x 16 x 8 multiply-adds for a warp;
// here every multiply-add is an instruction of its own.
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE_M 64                     // rows of C per block
#define TILE_N 64                     // columns of C per block
#define TILE_K 16                     // depth of one phase
#define U 16                          // outputs per thread: a strip of U rows of one column
#define THREADS (TILE_M * TILE_N / U) // 256

// C (m x n) = A (m x k) * B (k x n), row-major. A block computes a TILE_M x TILE_N tile of
// C. Thread t owns column t % TILE_N of the tile and the U rows of strip t / TILE_N: its U
// sums live in registers. In each phase the block stages a TILE_M x TILE_K tile of A
// (transposed) and a TILE_K x TILE_N tile of B in shared memory, both loaded with
// consecutive threads on consecutive addresses. Each step s then loads one B element
// into a register and uses it U times, against U A values that are the same for the
// whole warp (one broadcast read of 16 bytes serves four of them).
__global__ void regTiledMatMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    __shared__ float AsT[TILE_K][TILE_M + 4]; // AsT[s][r] = A[row0 + r][ph * TILE_K + s]
    __shared__ float Bs[TILE_K][TILE_N];      // Bs[s][c]  = B[ph * TILE_K + s][col0 + c]

    int t = threadIdx.x;
    int col = t % TILE_N;
    int strip = t / TILE_N;
    int row0 = blockIdx.y * TILE_M, col0 = blockIdx.x * TILE_N;

    float sum[U];
    for (int u = 0; u < U; ++u)
        sum[u] = 0.0f;

    for (int ph = 0; ph < (k + TILE_K - 1) / TILE_K; ++ph) {
        for (int i = t; i < TILE_M * TILE_K; i += THREADS) {
            int r = i / TILE_K, s = i % TILE_K; // a warp reads two rows of 16 floats
            int gr = row0 + r, gc = ph * TILE_K + s;
            AsT[s][r] = (gr < m && gc < k) ? A[gr * k + gc] : 0.0f;
        }
        for (int i = t; i < TILE_K * TILE_N; i += THREADS) {
            int s = i / TILE_N, c = i % TILE_N; // a warp reads 32 floats of one row
            int gr = ph * TILE_K + s, gc = col0 + c;
            Bs[s][c] = (gr < k && gc < n) ? B[gr * n + gc] : 0.0f;
        }
        __syncthreads(); // both tiles are loaded before anyone reads them

#pragma unroll
        for (int s = 0; s < TILE_K; ++s) {
            float b = Bs[s][col];
#pragma unroll
            for (int u = 0; u < U; ++u)
                sum[u] += AsT[s][strip * U + u] * b;
        }
        __syncthreads(); // everyone is done with the tiles before the next phase
    }

    int c = col0 + col;
    for (int u = 0; u < U; ++u) {
        int r = row0 + strip * U + u;
        if (r < m && c < n)
            C[r * n + c] = sum[u];
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
    (void)precision; // FP32 on the CUDA cores, whatever was asked
    size_t bytesA = (size_t)m * k * sizeof(float);
    size_t bytesB = (size_t)k * n * sizeof(float);
    size_t bytesC = (size_t)m * n * sizeof(float);
    float *A_d, *B_d, *C_d;
    CHECK(cudaMalloc((void **)&A_d, bytesA));
    CHECK(cudaMalloc((void **)&B_d, bytesB));
    CHECK(cudaMalloc((void **)&C_d, bytesC));
    CHECK(cudaMemcpy(A_d, A_h, bytesA, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B_d, B_h, bytesB, cudaMemcpyHostToDevice));

    dim3 grid((n + TILE_N - 1) / TILE_N, (m + TILE_M - 1) / TILE_M);
    regTiledMatMulKernel<<<grid, THREADS>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
