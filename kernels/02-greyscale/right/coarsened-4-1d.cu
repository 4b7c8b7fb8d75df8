// Known-right (issue 14): a 1-D grid of 128-thread blocks, each thread converting 4
// pixels blockDim.x apart, so a warp still reads neighbouring pixels.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHANNELS 3
#define PIXELS_PER_THREAD 4

__global__ void colorToGreyKernel(const unsigned char *rgb, unsigned char *grey, int pixels)
{
    int first = blockIdx.x * blockDim.x * PIXELS_PER_THREAD + threadIdx.x;
    for (int k = 0; k < PIXELS_PER_THREAD; ++k) {
        int p = first + k * blockDim.x;
        if (p < pixels) {
            unsigned char r = rgb[p * CHANNELS];
            unsigned char g = rgb[p * CHANNELS + 1];
            unsigned char b = rgb[p * CHANNELS + 2];
            grey[p] = (unsigned char)(0.21f * r + 0.72f * g + 0.07f * b);
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

void colorToGrey(const unsigned char *rgb_h, unsigned char *grey_h, int width, int height)
{
    int pixels = width * height;
    unsigned char *rgb_d, *grey_d;
    CHECK(cudaMalloc((void **)&rgb_d, (size_t)pixels * CHANNELS));
    CHECK(cudaMalloc((void **)&grey_d, pixels));
    CHECK(cudaMemcpy(rgb_d, rgb_h, (size_t)pixels * CHANNELS, cudaMemcpyHostToDevice));
    int perBlock = 128 * PIXELS_PER_THREAD;
    colorToGreyKernel<<<(pixels + perBlock - 1) / perBlock, 128>>>(rgb_d, grey_d, pixels);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(grey_h, grey_d, pixels, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(rgb_d));
    CHECK(cudaFree(grey_d));
}
