// Known-right: thread coarsening (PMPP section 6.3): each block computes two horizontally
// adjacent tiles of C, loading each tile of A once and using it for both.
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE_WIDTH 16
#define COARSE 2

__global__ void tiledMatMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE_WIDTH + ty;
    int colStart = blockIdx.x * TILE_WIDTH * COARSE + tx;

    float sum[COARSE];
    for (int c = 0; c < COARSE; ++c)
        sum[c] = 0.0f;

    for (int ph = 0; ph < (k + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int aCol = ph * TILE_WIDTH + tx;
        int bRow = ph * TILE_WIDTH + ty;
        As[ty][tx] = (row < m && aCol < k) ? A[row * k + aCol] : 0.0f;
        for (int c = 0; c < COARSE; ++c) {
            int col = colStart + c * TILE_WIDTH;
            Bs[ty][tx] = (bRow < k && col < n) ? B[bRow * n + col] : 0.0f;
            __syncthreads();
            for (int i = 0; i < TILE_WIDTH; ++i)
                sum[c] += As[ty][i] * Bs[i][tx];
            __syncthreads();
        }
    }
    for (int c = 0; c < COARSE; ++c) {
        int col = colStart + c * TILE_WIDTH;
        if (row < m && col < n)
            C[row * n + col] = sum[c];
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

    int colsPerBlock = TILE_WIDTH * COARSE;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    dim3 dimGrid((n + colsPerBlock - 1) / colsPerBlock, (m + TILE_WIDTH - 1) / TILE_WIDTH, 1);
    tiledMatMulKernel<<<dimGrid, dimBlock>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
