// Known-right (issue 14): a fixed grid of 16 x 16 blocks, each looping over the output
// tiles blockIdx.x, blockIdx.x + gridDim.x, ... (a grid-stride loop over tiles).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE 16

__global__ void tiledMatMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tilesX = (n + TILE - 1) / TILE, tiles = tilesX * ((m + TILE - 1) / TILE);
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int row = (tile / tilesX) * TILE + ty, col = (tile % tilesX) * TILE + tx;
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
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    tiledMatMulKernel<<<4 * sms, dim3(TILE, TILE)>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
