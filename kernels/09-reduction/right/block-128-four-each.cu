// Known-right (issue 14): part 1 with 128 threads per 512-element segment, each thread
// first adding 4 elements 128 apart; part 2 with 512-thread blocks and a coarsening factor
// of 2 (2048 elements a block), finished with shuffles.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define SEGMENT 512
#define BLOCK1 128
#define BLOCK2 512
#define COARSE2 2

__global__ void segmentSumKernel(const float *x, float *blockSums, int n)
{
    __shared__ float x_s[BLOCK1];
    unsigned int t = threadIdx.x;
    int base = blockIdx.x * SEGMENT + t;
    float mine = 0.0f;
    for (int k = 0; k < SEGMENT / BLOCK1; k++) {
        int i = base + k * BLOCK1;
        mine += i < n ? x[i] : 0.0f;
    }
    x_s[t] = mine;
    for (unsigned int stride = BLOCK1 / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            x_s[t] += x_s[t + stride];
        }
    }
    if (t == 0) {
        blockSums[blockIdx.x] = x_s[0];
    }
}

__global__ void coarsenedSumKernel(const float *x, float *sum, int n)
{
    __shared__ float x_s[BLOCK2];
    unsigned int t = threadIdx.x;
    int segment = COARSE2 * 2 * BLOCK2 * blockIdx.x;
    float mine = 0.0f;
    for (int k = 0; k < COARSE2 * 2; k++) {
        int i = segment + k * BLOCK2 + t;
        mine += i < n ? x[i] : 0.0f;
    }
    x_s[t] = mine;
    for (unsigned int stride = BLOCK2 / 2; stride >= 32; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            x_s[t] += x_s[t + stride];
        }
    }
    if (t < 32) {
        float v = x_s[t];
        for (int offset = 16; offset > 0; offset /= 2) {
            v += __shfl_down_sync(0xffffffffu, v, offset);
        }
        if (t == 0) {
            atomicAdd(sum, v);
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

void reduceSum(const float *x_h, float *blockSums_h, float *sum_h, int n)
{
    float *x_d, *blockSums_d, *sum_d;
    int segments = (n + SEGMENT - 1) / SEGMENT;
    CHECK(cudaMalloc((void **)&x_d, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&blockSums_d, segments * sizeof(float)));
    CHECK(cudaMalloc((void **)&sum_d, sizeof(float)));
    CHECK(cudaMemcpy(x_d, x_h, n * sizeof(float), cudaMemcpyHostToDevice));
    segmentSumKernel<<<segments, BLOCK1>>>(x_d, blockSums_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(blockSums_h, blockSums_d, segments * sizeof(float), cudaMemcpyDeviceToHost));
    int perBlock = COARSE2 * 2 * BLOCK2;
    CHECK(cudaMemset(sum_d, 0, sizeof(float)));
    coarsenedSumKernel<<<(n + perBlock - 1) / perBlock, BLOCK2>>>(x_d, sum_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sum_h, sum_d, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x_d));
    CHECK(cudaFree(blockSums_d));
    CHECK(cudaFree(sum_d));
}
