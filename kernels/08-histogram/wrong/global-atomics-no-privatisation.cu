// expect: performance
// Known-wrong (slow): the first histogram of the chapter, no privatisation: one thread
// per byte and atomicAdd straight on the global histogram. The counts are right, but every
// byte costs a global atomic, and all the blocks contend for the same 256 addresses.
#include <cuda_runtime.h>
#include <stdio.h>

#define NUM_BINS 256
#define BLOCK_SIZE 256
#define ELEMENTS_PER_THREAD 8

__global__ void histogramKernel(const unsigned char *data, unsigned int *histo, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&histo[data[i]], 1u);
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

    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    histogramKernel<<<blocks, BLOCK_SIZE>>>(data_d, histo_d, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(histo_h, histo_d, NUM_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(data_d));
    CHECK(cudaFree(histo_d));
}
