// Known-right (issue 14): 16 x 16 tiles computed by 1-D blocks of 256 threads; each
// thread finds its place in the tile from threadIdx.x alone.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE 16

__global__ void tiledMatMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        As[ty][tx] = row < m && t + tx < k ? A[row * k + t + tx] : 0.0f;
        Bs[ty][tx] = t + ty < k && col < n ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; ++i) {
            sum += As[ty][i] * Bs[i][tx];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        C[row * n + col] = sum;
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
    dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    tiledMatMulKernel<<<grid, TILE * TILE>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
