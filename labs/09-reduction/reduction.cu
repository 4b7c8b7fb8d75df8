// Lab 09: sum reduction. Read README.md beside this file first.
//
// pmpplab calls reduceSum() with n floats in x_h and expects
//   part 1: blockSums_h[b] = the sum of the 512-element segment b (elements past n count 0)
//   part 2: sum_h[0]       = the sum of all n elements
// The host code is written; the two kernels are yours.
#include <cuda_runtime.h>
#include <stdio.h>

#define BLOCK_DIM 256
#define COARSE_FACTOR 4

// Part 1: block b reduces x[2 * BLOCK_DIM * b ... 2 * BLOCK_DIM * b + 2 * BLOCK_DIM - 1].
__global__ void convergentSumKernel(const float *x, float *blockSums, int n)
{
    __shared__ float x_s[BLOCK_DIM];

    // TODO 1: thread t adds the two elements i = 2 * blockDim.x * blockIdx.x + t and
    //         i + blockDim.x (0 for an index >= n) into x_s[t].

    // TODO 2: the convergent tree: halve the stride from blockDim.x / 2 down to 1; in each
    //         step threads t < stride add x_s[t + stride] into x_s[t]. Where do the
    //         barriers go?

    // TODO 3: thread 0 writes the block's sum to blockSums[blockIdx.x].
    (void)x_s; (void)x; (void)blockSums; (void)n;
}

// Part 2: block b covers COARSE_FACTOR * 2 * BLOCK_DIM elements and adds its sum to *sum.
__global__ void coarsenedSumKernel(const float *x, float *sum, int n)
{
    __shared__ float x_s[BLOCK_DIM];

    // TODO 4: each thread adds up its COARSE_FACTOR * 2 elements of the block's segment,
    //         blockDim.x apart (skip indices >= n), in a register, and stores it in x_s[t].

    // TODO 5: the tree of part 1, stopped when 32 partial sums are left (stride >= 32).

    // TODO 6: warp 0 reduces x_s[0..31] with __shfl_down_sync, and lane 0 adds the result
    //         to *sum. Every block adds to the same *sum.
    (void)x_s; (void)x; (void)sum; (void)n;
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
    CHECK(cudaMemset(sum_d, 0, sizeof(float)));
    coarsenedSumKernel<<<(n + perBlock - 1) / perBlock, BLOCK_DIM>>>(x_d, sum_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sum_h, sum_d, sizeof(float), cudaMemcpyDeviceToHost));

    CHECK(cudaFree(x_d));
    CHECK(cudaFree(blockSums_d));
    CHECK(cudaFree(sum_d));
}
