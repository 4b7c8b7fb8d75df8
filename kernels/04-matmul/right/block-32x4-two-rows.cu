// Known-right (issue 14): 32 x 4 blocks in which every thread computes two elements of C,
// in rows blockDim.y apart (coarsening in y: each B element it loads serves both).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void matMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row0 = blockIdx.y * blockDim.y * 2 + threadIdx.y;
    int row1 = row0 + blockDim.y;
    if (col >= n) {
        return;
    }
    float sum0 = 0.0f, sum1 = 0.0f;
    for (int i = 0; i < k; ++i) {
        float b = B[i * n + col];
        if (row0 < m) {
            sum0 += A[row0 * k + i] * b;
        }
        if (row1 < m) {
            sum1 += A[row1 * k + i] * b;
        }
    }
    if (row0 < m) {
        C[row0 * n + col] = sum0;
    }
    if (row1 < m) {
        C[row1 * n + col] = sum1;
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
    dim3 dimBlock(32, 4, 1);
    dim3 dimGrid((n + 31) / 32, (m + 7) / 8, 1);
    matMulKernel<<<dimGrid, dimBlock>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
