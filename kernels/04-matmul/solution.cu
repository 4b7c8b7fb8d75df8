// BEGIN SOLUTION
// Lab 04 solution: what a good student writes after chapter 3. It is also the single
// source of the student's starter (labs/04-matmul/matmul.cu, made by `pmpplab lab
// starter 04-matmul`; labs/README.md, "Solution markers").
// STARTER
// Lab 04: matrix multiplication. Read README.md beside this file first.
//
// pmpplab calls matMul() with A (m rows, k columns) and B (k rows, n columns), both
// row-major, and expects C_h to hold C = A * B (m rows, n columns, row-major).
// END SOLUTION
#include <cuda_runtime.h>
#include <stdio.h>

// BEGIN SOLUTION
// C (m x n) = A (m x k) * B (k x n), all row-major. One thread per element of C: the dot
// product of row `row` of A with column `col` of B.
// STARTER
// TODO 1: each thread computes one element C[row][col].
//   - row from the y dimension, col from the x dimension
//   - only threads with row < m and col < n do anything
//   - sum A[row][i] * B[i][col] for i = 0 .. k-1, in a float
//   - remember that the matrices are flat arrays: element (r, c) of a matrix with
//     `cols` columns is at r * cols + c
// END SOLUTION
__global__ void matMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    // BEGIN SOLUTION
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) {
            sum += A[row * k + i] * B[i * n + col];
        }
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

    // BEGIN SOLUTION
    dim3 dimBlock(16, 16, 1);
    dim3 dimGrid((n + 15) / 16, (m + 15) / 16, 1);
    // STARTER
    // TODO 2: 16 x 16 blocks; x must cover the n columns of C and y its m rows.
    //> dim3 dimBlock(1, 1, 1);
    //> dim3 dimGrid(1, 1, 1);
    // END SOLUTION
    matMulKernel<<<dimGrid, dimBlock>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
