// expect: performance
// expect-on: emu
// expect-text: TOO LOW
// (On an H100 its time is 1.69x the solution's, as slow as the right grid-stride
// variant's 1.67x: the time cannot tell them apart; the emulator's lane count can.)
// Known-wrong (slow): part 1 is the chapter's first, simple kernel: the stride grows and
// the active threads are those with t % (2 * stride) == 0, so they spread out and every
// warp stays busy in every step (control divergence), and its stride-2 loads use half of
// each sector fetched. The sums are right (the barrier is outside the if).
#include <cuda_runtime.h>
#include <stdio.h>

#define BLOCK_DIM 256
#define BLOCK_DIM2 512
#define COARSE_FACTOR 2

__global__ void simpleSumKernel(const float *x, float *blockSums, int n)
{
    __shared__ float x_s[2 * BLOCK_DIM];
    unsigned int t = threadIdx.x;
    int base = 2 * blockDim.x * blockIdx.x;
    x_s[2 * t] = (base + 2 * t < n) ? x[base + 2 * t] : 0.0f;
    x_s[2 * t + 1] = (base + 2 * t + 1 < n) ? x[base + 2 * t + 1] : 0.0f;
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        __syncthreads();
        if (t % stride == 0) {
            x_s[2 * t] += x_s[2 * t + stride];
        }
    }
    if (t == 0) {
        blockSums[blockIdx.x] = x_s[0];
    }
}

__global__ void sharedSumKernel(const float *x, float *sum, int n)
{
    __shared__ float x_s[BLOCK_DIM2];
    unsigned int t = threadIdx.x;
    int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    float mine = 0.0f;
    for (int k = 0; k < COARSE_FACTOR * 2; k++) {
        int i = segment + k * blockDim.x + t;
        if (i < n) {
            mine += x[i];
        }
    }
    x_s[t] = mine;
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            x_s[t] += x_s[t + stride];
        }
    }
    if (t == 0) {
        atomicAdd(sum, x_s[0]);
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
    int segments = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
    CHECK(cudaMalloc((void **)&x_d, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&blockSums_d, segments * sizeof(float)));
    CHECK(cudaMalloc((void **)&sum_d, sizeof(float)));
    CHECK(cudaMemcpy(x_d, x_h, n * sizeof(float), cudaMemcpyHostToDevice));

    // Part 1
    simpleSumKernel<<<segments, BLOCK_DIM>>>(x_d, blockSums_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(blockSums_h, blockSums_d, segments * sizeof(float), cudaMemcpyDeviceToHost));

    // Part 2
    int perBlock = COARSE_FACTOR * 2 * BLOCK_DIM2;
    CHECK(cudaMemset(sum_d, 0, sizeof(float)));
    sharedSumKernel<<<(n + perBlock - 1) / perBlock, BLOCK_DIM2>>>(x_d, sum_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sum_h, sum_d, sizeof(float), cudaMemcpyDeviceToHost));

    CHECK(cudaFree(x_d));
    CHECK(cudaFree(blockSums_d));
    CHECK(cudaFree(sum_d));
}
