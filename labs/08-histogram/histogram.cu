// Lab 08: histogram with atomics and privatisation. Read README.md beside this file first.
//
// pmpplab calls histogram() with n bytes in data_h and expects histo_h[b] to be the
// number of bytes equal to b, for the 256 bins b = 0..255.
#include <cuda_runtime.h>
#include <stdio.h>

#define NUM_BINS 256
#define BLOCK_SIZE 256
#define ELEMENTS_PER_THREAD 8

__global__ void histogramKernel(const unsigned char *data, unsigned int *histo, int n)
{
    __shared__ unsigned int histo_s[NUM_BINS];

    // TODO 1: zero the block's private histogram histo_s. Do not assume that the block
    //         has NUM_BINS threads.

    // TODO 2: count. Thread i of the grid handles elements i, i + (total threads),
    //         i + 2 * (total threads)... (consecutive threads read consecutive bytes), and
    //         adds 1 to histo_s[data[i]] for each. Other threads count into the same bins
    //         at the same time.

    // TODO 3: merge the private histogram into the global one, which every block adds to.
    //         Remember when each step may start.
    (void)histo_s; (void)data; (void)histo; (void)n;
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

void histogram(const unsigned char *data_h, unsigned int *histo_h, int n)
{
    unsigned char *data_d;
    unsigned int *histo_d;
    CHECK(cudaMalloc((void **)&data_d, n));
    CHECK(cudaMalloc((void **)&histo_d, NUM_BINS * sizeof(unsigned int)));
    CHECK(cudaMemcpy(data_d, data_h, n, cudaMemcpyHostToDevice));

    // TODO 4: the kernel adds to histo_d: it must start at zero (cudaMemset).

    // Coarsening: each thread handles about ELEMENTS_PER_THREAD elements.
    int perBlock = BLOCK_SIZE * ELEMENTS_PER_THREAD;
    int blocks = (n + perBlock - 1) / perBlock;
    histogramKernel<<<blocks, BLOCK_SIZE>>>(data_d, histo_d, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(histo_h, histo_d, NUM_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(data_d));
    CHECK(cudaFree(histo_d));
}
