// Known-right (issue 14): part 1 as in the reading; part 2 with 1024-thread blocks in a
// fixed grid (2 per SM), a grid-stride loop, each warp reducing its values with shuffles
// and warp 0 reducing the 32 warps' sums: one barrier, one atomicAdd per block.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define SEGMENT 512
#define BLOCK1 256
#define BLOCK2 1024

__global__ void convergentSumKernel(const float *x, float *blockSums, int n)
{
    __shared__ float x_s[BLOCK1];
    unsigned int t = threadIdx.x;
    int i = SEGMENT * blockIdx.x + t;
    x_s[t] = (i < n ? x[i] : 0.0f) + (i + BLOCK1 < n ? x[i + BLOCK1] : 0.0f);
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

__device__ float warpSum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

__global__ void gridStrideSumKernel(const float *x, float *sum, int n)
{
    __shared__ float warpSums[BLOCK2 / 32];
    float mine = 0.0f;
    for (int i = blockIdx.x * BLOCK2 + threadIdx.x; i < n; i += gridDim.x * BLOCK2) {
        mine += x[i];
    }
    mine = warpSum(mine);
    if (threadIdx.x % 32 == 0) {
        warpSums[threadIdx.x / 32] = mine;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = warpSum(warpSums[threadIdx.x]);
        if (threadIdx.x == 0) {
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
    int segments = (n + SEGMENT - 1) / SEGMENT, sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaMalloc((void **)&x_d, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&blockSums_d, segments * sizeof(float)));
    CHECK(cudaMalloc((void **)&sum_d, sizeof(float)));
    CHECK(cudaMemcpy(x_d, x_h, n * sizeof(float), cudaMemcpyHostToDevice));
    convergentSumKernel<<<segments, BLOCK1>>>(x_d, blockSums_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(blockSums_h, blockSums_d, segments * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemset(sum_d, 0, sizeof(float)));
    gridStrideSumKernel<<<2 * sms, BLOCK2>>>(x_d, sum_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sum_h, sum_d, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x_d));
    CHECK(cudaFree(blockSums_d));
    CHECK(cudaFree(sum_d));
}
