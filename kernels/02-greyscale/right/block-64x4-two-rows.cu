// Known-right (issue 14): 64 x 4 blocks in which every thread converts two pixels of
// the same column, blockDim.y rows apart: half as many blocks in y.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHANNELS 3

__global__ void colorToGreyKernel(const unsigned char *rgb, unsigned char *grey, int width,
                                  int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row0 = blockIdx.y * blockDim.y * 2 + threadIdx.y;
    for (int k = 0; k < 2; ++k) {
        int row = row0 + k * blockDim.y;
        if (col < width && row < height) {
            int i = row * width + col;
            grey[i] = (unsigned char)(0.21f * rgb[3 * i] + 0.72f * rgb[3 * i + 1] +
                                      0.07f * rgb[3 * i + 2]);
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
    size_t pixels = (size_t)width * height;
    unsigned char *rgb_d, *grey_d;
    CHECK(cudaMalloc((void **)&rgb_d, pixels * CHANNELS));
    CHECK(cudaMalloc((void **)&grey_d, pixels));
    CHECK(cudaMemcpy(rgb_d, rgb_h, pixels * CHANNELS, cudaMemcpyHostToDevice));
    dim3 dimBlock(64, 4, 1);
    dim3 dimGrid((width + 63) / 64, (height + 7) / 8, 1);
    colorToGreyKernel<<<dimGrid, dimBlock>>>(rgb_d, grey_d, width, height);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(grey_h, grey_d, pixels, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(rgb_d));
    CHECK(cudaFree(grey_d));
}
