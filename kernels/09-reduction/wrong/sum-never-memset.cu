// expect: memcheck
// expect-text: of device memory that nothing had written (an atomic such as atomicAdd
// Known-wrong (part 2): the solution without its cudaMemset(sum_d, 0, ...): the blocks'
// atomicAdd add to whatever cudaMalloc left in sum_d (it does not clear memory; a GPU's
// fresh memory often reads as zeros, so there the sum may come out right by luck). The
// emulator's initcheck names the first atomicAdd that read it, on both backends.
#include <cuda_runtime.h>
#include <stdio.h>

#define BLOCK_DIM 256
#define COARSE_FACTOR 4

__global__ void convergentSumKernel(const float *x, float *blockSums, int n)
{
    __shared__ float x_s[BLOCK_DIM];
    unsigned int t = threadIdx.x;
    int i = 2 * blockDim.x * blockIdx.x + t;
    float a = (i < n) ? x[i] : 0.0f;
    float b = (i + blockDim.x < n) ? x[i + blockDim.x] : 0.0f;
    x_s[t] = a + b;
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
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
    __shared__ float x_s[BLOCK_DIM];
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
    for (unsigned int stride = blockDim.x / 2; stride >= 32; stride /= 2) {
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
    int segments = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
    CHECK(cudaMalloc((void **)&x_d, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&blockSums_d, segments * sizeof(float)));
    CHECK(cudaMalloc((void **)&sum_d, sizeof(float)));
    CHECK(cudaMemcpy(x_d, x_h, n * sizeof(float), cudaMemcpyHostToDevice));

    // Part 1
    convergentSumKernel<<<segments, BLOCK_DIM>>>(x_d, blockSums_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(blockSums_h, blockSums_d, segments * sizeof(float), cudaMemcpyDeviceToHost));

    // Part 2
    int perBlock = COARSE_FACTOR * 2 * BLOCK_DIM;
    coarsenedSumKernel<<<(n + perBlock - 1) / perBlock, BLOCK_DIM>>>(x_d, sum_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sum_h, sum_d, sizeof(float), cudaMemcpyDeviceToHost));

    CHECK(cudaFree(x_d));
    CHECK(cudaFree(blockSums_d));
    CHECK(cudaFree(sum_d));
}
