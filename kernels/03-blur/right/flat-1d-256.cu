// Known-right (issue 14): a 1-D grid of 256-thread blocks over the flattened image; each
// thread finds its row and column by division.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void blurKernel(const unsigned char *in, unsigned char *out, int width, int height,
                           int blurSize)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= width * height) {
        return;
    }
    int row = i / width, col = i % width;
    int rlo = max(row - blurSize, 0), rhi = min(row + blurSize, height - 1);
    int clo = max(col - blurSize, 0), chi = min(col + blurSize, width - 1);
    int sum = 0;
    for (int r = rlo; r <= rhi; ++r) {
        for (int c = clo; c <= chi; ++c) {
            sum += in[r * width + c];
        }
    }
    out[i] = (unsigned char)(sum / ((rhi - rlo + 1) * (chi - clo + 1)));
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
    int pixels = width * height;
    unsigned char *in_d, *out_d;
    CHECK(cudaMalloc((void **)&in_d, pixels));
    CHECK(cudaMalloc((void **)&out_d, pixels));
    CHECK(cudaMemcpy(in_d, in_h, pixels, cudaMemcpyHostToDevice));
    blurKernel<<<(pixels + 255) / 256, 256>>>(in_d, out_d, width, height, blurSize);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out_h, out_d, pixels, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
