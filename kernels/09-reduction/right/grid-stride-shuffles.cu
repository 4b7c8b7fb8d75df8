// Known-right: part 1 with 512 threads per block, one element each (the tree starts at
// stride 256); part 2 with a grid that fills the GPU once (SMs x resident blocks per SM,
// from the occupancy API) and a grid-stride loop, then two
// rounds of warp shuffles: each warp reduces its 32 values, warp 0 reduces the warps' sums.
#include <cuda_runtime.h>
#include <stdio.h>

#define SEGMENT 512
#define BLOCK_DIM2 256

__global__ void oneEachSumKernel(const float *x, float *blockSums, int n)
{
    __shared__ float x_s[SEGMENT];
    unsigned int t = threadIdx.x;
    int i = blockIdx.x * SEGMENT + t;
    x_s[t] = (i < n) ? x[i] : 0.0f;
    for (unsigned int stride = SEGMENT / 2; stride >= 1; stride /= 2) {
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
    __shared__ float warpSums[BLOCK_DIM2 / 32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        v += x[i];
    }
    v = warpSum(v);
    unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
        warpSums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        v = (lane < blockDim.x / 32) ? warpSums[lane] : 0.0f;
        v = warpSum(v);
        if (lane == 0) {
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

    // Part 1
    oneEachSumKernel<<<segments, SEGMENT>>>(x_d, blockSums_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(blockSums_h, blockSums_d, segments * sizeof(float), cudaMemcpyDeviceToHost));

    // Part 2
    CHECK(cudaMemset(sum_d, 0, sizeof(float)));
    int dev, sms, perSM;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, gridStrideSumKernel, BLOCK_DIM2, 0));
    gridStrideSumKernel<<<sms * perSM, BLOCK_DIM2>>>(x_d, sum_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sum_h, sum_d, sizeof(float), cudaMemcpyDeviceToHost));

    CHECK(cudaFree(x_d));
    CHECK(cudaFree(blockSums_d));
    CHECK(cudaFree(sum_d));
}
