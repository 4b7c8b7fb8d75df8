// expect: correctness: not-a-multiple
// expect-text: Only the last 13 rows and the last 11 columns are wrong
// Known-wrong: the grid is width / 16 by height / 16 blocks, so the right-hand columns and
// the bottom rows that do not fill a whole block are never converted.
#include <cuda_runtime.h>
#include <stdio.h>

#define CHANNELS 3

// One thread per pixel: (col, row) from a 2-D grid of 2-D blocks.
__global__ void colorToGreyKernel(const unsigned char *rgb, unsigned char *grey, int width,
                                  int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        int greyOffset = row * width + col;
        int rgbOffset = greyOffset * CHANNELS;
        unsigned char r = rgb[rgbOffset];
        unsigned char g = rgb[rgbOffset + 1];
        unsigned char b = rgb[rgbOffset + 2];
        grey[greyOffset] = (unsigned char)(0.21f * r + 0.72f * g + 0.07f * b);
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

    dim3 dimBlock(16, 16, 1);
    dim3 dimGrid(width / 16, height / 16, 1);
    colorToGreyKernel<<<dimGrid, dimBlock>>>(rgb_d, grey_d, width, height);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(grey_h, grey_d, pixels, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(rgb_d));
    CHECK(cudaFree(grey_d));
}
