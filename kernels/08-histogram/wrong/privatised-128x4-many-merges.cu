// expect: performance
// expect-on: gpu
// Known-wrong for speed on a GPU: privatised and correct, but 128 threads x 4 bytes is
// 512 bytes a block: 131072 blocks at 64 MiB, each merging 256 bins with global atomics.
// On an H100 it took 4.39 times the solution's time (the emulator's counts allow it).
#include <cuda_runtime.h>
#include <stdio.h>

#define NUM_BINS 256
#define BLOCK_SIZE 128
#define ELEMENTS_PER_THREAD 4

__global__ void histogramKernel(const unsigned char *data, unsigned int *histo, int n)
{
    __shared__ unsigned int histo_s[NUM_BINS];
    for (int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
        histo_s[bin] = 0u;
    }
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
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
