// Lab 03: image blur. Read README.md beside this file first.
//
// pmpplab calls blur() with a greyscale image of width x height bytes, row-major, and
// expects out_h[row * width + col] to be the average (integer division, rounding down)
// of the pixels of the (2 * blurSize + 1) x (2 * blurSize + 1) window centred on
// (row, col) that lie inside the image.
#include <cuda_runtime.h>
#include <stdio.h>

// TODO 1: each thread computes one output pixel.
//   - col from x, row from y; threads outside the image do nothing
//   - visit every (curRow, curCol) of the window around (row, col); skip the ones
//     outside the image, add up the others and count them
//   - store sum / count, as an unsigned char
__global__ void blurKernel(const unsigned char *in, unsigned char *out, int width, int height,
                           int blurSize)
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

void blur(const unsigned char *in_h, unsigned char *out_h, int width, int height, int blurSize)
{
    size_t bytes = (size_t)width * height;
    unsigned char *in_d, *out_d;
    CHECK(cudaMalloc((void **)&in_d, bytes));
    CHECK(cudaMalloc((void **)&out_d, bytes));
    CHECK(cudaMemcpy(in_d, in_h, bytes, cudaMemcpyHostToDevice));

    // TODO 2: 16 x 16 blocks, and enough of them to cover the image (round up).
    dim3 dimBlock(1, 1, 1);
    dim3 dimGrid(1, 1, 1);
    blurKernel<<<dimGrid, dimBlock>>>(in_d, out_d, width, height, blurSize);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
