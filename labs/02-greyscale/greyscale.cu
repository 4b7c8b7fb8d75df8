// Lab 02: colour to greyscale. Read README.md beside this file first.
//
// pmpplab calls colorToGrey() with an RGB image of width x height pixels, stored row
// after row with 3 bytes (red, green, blue) per pixel, and expects grey_h to hold one
// byte per pixel: 0.21 * red + 0.72 * green + 0.07 * blue.
#include <cuda_runtime.h>
#include <stdio.h>

#define CHANNELS 3

// TODO 1: each thread converts one pixel.
//   - compute its column from the x dimension and its row from the y dimension
//     (blockIdx, blockDim, threadIdx)
//   - only threads inside the image (both dimensions!) may touch the arrays
//   - the pixel's grey offset is row * width + col; its RGB bytes start CHANNELS times
//     further along
//   - store (unsigned char)(0.21f * r + 0.72f * g + 0.07f * b)
__global__ void colorToGreyKernel(const unsigned char *rgb, unsigned char *grey, int width,
                                  int height)
{
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

void colorToGrey(const unsigned char *rgb_h, unsigned char *grey_h, int width, int height)
{
    size_t pixels = (size_t)width * height;
    unsigned char *rgb_d, *grey_d;
    CHECK(cudaMalloc((void **)&rgb_d, pixels * CHANNELS));
    CHECK(cudaMalloc((void **)&grey_d, pixels));
    CHECK(cudaMemcpy(rgb_d, rgb_h, pixels * CHANNELS, cudaMemcpyHostToDevice));

    // TODO 2: blocks of 16 x 16 threads, and enough blocks in x to cover the width and
    //         in y to cover the height (round up!).
    dim3 dimBlock(1, 1, 1);
    dim3 dimGrid(1, 1, 1);
    colorToGreyKernel<<<dimGrid, dimBlock>>>(rgb_d, grey_d, width, height);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(grey_h, grey_d, pixels, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(rgb_d));
    CHECK(cudaFree(grey_d));
}
