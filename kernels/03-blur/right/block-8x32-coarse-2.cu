// Known-right (issue 14): 8 x 32 blocks, tall rather than wide, each thread blurring two
// pixels of one row blockDim.x columns apart.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void blurKernel(const unsigned char *in, unsigned char *out, int width, int height,
                           int blurSize)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    for (int k = 0; k < 2; ++k) {
        int col = blockIdx.x * blockDim.x * 2 + k * blockDim.x + threadIdx.x;
        if (col >= width || row >= height) {
            continue;
        }
        int sum = 0, count = 0;
        for (int r = row - blurSize; r <= row + blurSize; ++r) {
            for (int c = col - blurSize; c <= col + blurSize; ++c) {
                if (r >= 0 && r < height && c >= 0 && c < width) {
                    sum += in[r * width + c];
                    ++count;
                }
            }
        }
        out[row * width + col] = (unsigned char)(sum / count);
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

void blur(const unsigned char *in_h, unsigned char *out_h, int width, int height, int blurSize)
{
    size_t bytes = (size_t)width * height;
    unsigned char *in_d, *out_d;
    CHECK(cudaMalloc((void **)&in_d, bytes));
    CHECK(cudaMalloc((void **)&out_d, bytes));
    CHECK(cudaMemcpy(in_d, in_h, bytes, cudaMemcpyHostToDevice));
    dim3 dimBlock(8, 32, 1);
    dim3 dimGrid((width + 15) / 16, (height + 31) / 32, 1);
    blurKernel<<<dimGrid, dimBlock>>>(in_d, out_d, width, height, blurSize);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
