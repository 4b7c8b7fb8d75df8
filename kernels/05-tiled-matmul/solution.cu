// BEGIN SOLUTION
// Lab 05 solution: what a good student writes after chapter 5. It is also the single
// source of the student's starter (labs/05-tiled-matmul/tiled_matmul.cu, made by
// `pmpplab lab starter 05-tiled-matmul`; labs/README.md, "Solution markers").
// STARTER
// Lab 05: tiled matrix multiplication. Read README.md beside this file first.
//
// pmpplab calls matMul() with A (m x k) and B (k x n), row-major, and expects C_h to hold
// C = A * B (m x n, row-major). The host code is written; complete the kernel.
// END SOLUTION
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE_WIDTH 16

// BEGIN SOLUTION
// C (m x n) = A (m x k) * B (k x n), row-major. Each block computes one TILE_WIDTH x
// TILE_WIDTH tile of C; in each phase its threads load one tile of A and one of B into
// shared memory (0 where the tile sticks out of the matrix) and use them TILE_WIDTH times.
// STARTER
// Each block computes one TILE_WIDTH x TILE_WIDTH tile of C; thread (tx, ty) computes
// C[row][col].
// END SOLUTION
__global__ void tiledMatMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE_WIDTH + ty;
    int col = blockIdx.x * TILE_WIDTH + tx;
    float sum = 0.0f;

    // BEGIN SOLUTION
    for (int ph = 0; ph < (k + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int aCol = ph * TILE_WIDTH + tx;
        int bRow = ph * TILE_WIDTH + ty;
        As[ty][tx] = (row < m && aCol < k) ? A[row * k + aCol] : 0.0f;
        Bs[ty][tx] = (bRow < k && col < n) ? B[bRow * n + col] : 0.0f;
        __syncthreads(); // the whole tile is loaded before anyone reads it

        for (int i = 0; i < TILE_WIDTH; ++i) {
            sum += As[ty][i] * Bs[i][tx];
        }
        __syncthreads(); // everyone is done with the tile before the next phase overwrites it
    }
    // STARTER
    // TODO 1: loop over the phases: enough tiles of width TILE_WIDTH to cover all k
    //         (round up!). In phase ph:
    //   TODO 2: load one element of each tile: As[ty][tx] is A[row][ph * TILE_WIDTH + tx]
    //           and Bs[ty][tx] is B[ph * TILE_WIDTH + ty][col], or 0.0f when that element
    //           lies outside the matrix
    //   TODO 3: wait until the whole block has loaded (why?)
    //   TODO 4: add As[ty][i] * Bs[i][tx] for i = 0 .. TILE_WIDTH-1 to sum
    //   TODO 5: wait until the whole block is done with the tiles (why?)
    //> (void)As; (void)Bs; (void)tx; (void)ty;
    //>
    // TODO 6: threads inside C store their sum (only those!).
    //> (void)row; (void)col; (void)sum;
    // END SOLUTION
    // BEGIN SOLUTION
    if (row < m && col < n) {
        C[row * n + col] = sum;
    }
    // STARTER
    // END SOLUTION
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

    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    dim3 dimGrid((n + TILE_WIDTH - 1) / TILE_WIDTH, (m + TILE_WIDTH - 1) / TILE_WIDTH, 1);
    tiledMatMulKernel<<<dimGrid, dimBlock>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
