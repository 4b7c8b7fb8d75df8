// expect: performance
// expect-on: emu
// (On an H100 this kernel took 2.05x the solution's time, within the GPU limit of 3x;
// the emulator counts that it uses only a quarter of the bytes it fetches.)
// expect-text: TOO LOW
// Known-wrong (slow): contiguous partitioning: each thread counts its own run of
// ELEMENTS_PER_THREAD consecutive bytes, so at each step the lanes of a warp read bytes
// 8 apart and most of every 32-byte sector fetched is wasted (not coalesced). The counts
// are right.
#include <cuda_runtime.h>
#include <stdio.h>

#define NUM_BINS 256
#define BLOCK_SIZE 128
#define ELEMENTS_PER_THREAD 8

__global__ void histogramKernel(const unsigned char *data, unsigned int *histo, int n)
{
    __shared__ unsigned int histo_s[NUM_BINS];
    for (int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
        histo_s[bin] = 0u;
    }
    __syncthreads();

    int first = (blockIdx.x * blockDim.x + threadIdx.x) * ELEMENTS_PER_THREAD;
    for (int i = first; i < first + ELEMENTS_PER_THREAD && i < n; i++) {
        atomicAdd(&histo_s[data[i]], 1u);
    }
    __syncthreads();

    for (int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
        unsigned int count = histo_s[bin];
        if (count > 0) {
            atomicAdd(&histo[bin], count);
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

void histogram(const unsigned char *data_h, unsigned int *histo_h, int n)
{
    unsigned char *data_d;
    unsigned int *histo_d;
    CHECK(cudaMalloc((void **)&data_d, n));
    CHECK(cudaMalloc((void **)&histo_d, NUM_BINS * sizeof(unsigned int)));
    CHECK(cudaMemcpy(data_d, data_h, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(histo_d, 0, NUM_BINS * sizeof(unsigned int)));

    int perBlock = BLOCK_SIZE * ELEMENTS_PER_THREAD;
    int blocks = (n + perBlock - 1) / perBlock;
    histogramKernel<<<blocks, BLOCK_SIZE>>>(data_d, histo_d, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(histo_h, histo_d, NUM_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(data_d));
    CHECK(cudaFree(histo_d));
}
