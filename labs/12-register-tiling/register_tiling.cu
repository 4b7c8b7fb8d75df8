// Lab 12: joint register and shared-memory tiling. Read README.md beside this file first.
//
// pmpplab calls matMul() with A (m x k) and B (k x n), row-major, and expects C_h to hold
// C = A * B (m x n, row-major). The host code is written; complete the kernel.
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE_M 64                     // rows of C per block
#define TILE_N 64                     // columns of C per block
#define TILE_K 16                     // depth of one phase
#define U 16                          // outputs per thread: a strip of U rows of one column
#define THREADS (TILE_M * TILE_N / U) // 256 threads per block

// A block computes a TILE_M x TILE_N tile of C. Thread t owns column col = t % TILE_N of
// the tile and the U rows of strip t / TILE_N; its U sums live in registers.
__global__ void regTiledMatMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    __shared__ float AsT[TILE_K][TILE_M + 4]; // the A tile, transposed: AsT[s][r]
    __shared__ float Bs[TILE_K][TILE_N];      // the B tile: Bs[s][c]

    int t = threadIdx.x;
    int col = t % TILE_N;
    int strip = t / TILE_N;
    int row0 = blockIdx.y * TILE_M, col0 = blockIdx.x * TILE_N;

    float sum[U];
    for (int u = 0; u < U; ++u)
        sum[u] = 0.0f;

    // TODO 1: loop over the phases: enough TILE_K-deep slices to cover all k (round up!).
    //   TODO 2: load the TILE_M x TILE_K tile of A that starts at (row0, ph * TILE_K) into
    //           AsT, transposed: AsT[s][r] = A[row0 + r][ph * TILE_K + s]. 1024 elements,
    //           4 per thread: let consecutive threads read consecutive addresses of A.
    //           0.0f for elements outside A.
    //   TODO 3: load the TILE_K x TILE_N tile of B that starts at (ph * TILE_K, col0) into
    //           Bs, the same way (0.0f outside B).
    //   TODO 4: wait until both tiles are loaded.
    //   TODO 5: for each step s of the phase: put Bs[s][col] in a register, and add its
    //           product with AsT[s][strip * U + u] to sum[u], for u = 0 .. U-1.
    //   TODO 6: wait until everyone is done with the tiles.
    (void)AsT; (void)Bs; (void)col; (void)strip; (void)row0; (void)col0; (void)A; (void)B;
    (void)m; (void)k; (void)n;

    // TODO 7: store the U sums: sum[u] belongs at row row0 + strip * U + u, column
    //         col0 + col, if that lies inside C.
    (void)C;
}

// Stops the program with a message when a CUDA call fails.
#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                   \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

void matMul(const float *A_h, const float *B_h, float *C_h, int m, int k, int n)
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

    dim3 grid((n + TILE_N - 1) / TILE_N, (m + TILE_M - 1) / TILE_M);
    regTiledMatMulKernel<<<grid, THREADS>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
