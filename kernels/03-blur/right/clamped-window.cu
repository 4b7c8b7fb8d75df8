// Known-right: clamps the window to the image first, so the loops need no test and the
// pixel count is the clamped window's area.
#include <cuda_runtime.h>
#include <stdio.h>

// One thread per output pixel: the average of the (2 * blurSize + 1)^2 window around it,
// counting only the pixels that lie inside the image.
__global__ void blurKernel(const unsigned char *in, unsigned char *out, int width, int height,
                           int blurSize)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        int r0 = max(row - blurSize, 0), r1 = min(row + blurSize, height - 1);
        int c0 = max(col - blurSize, 0), c1 = min(col + blurSize, width - 1);
        int pixVal = 0;
        for (int r = r0; r <= r1; ++r)
            for (int c = c0; c <= c1; ++c)
                pixVal += in[r * width + c];
        int pixels = (r1 - r0 + 1) * (c1 - c0 + 1);
        out[row * width + col] = (unsigned char)(pixVal / pixels);
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

    dim3 dimBlock(16, 16, 1);
    dim3 dimGrid((width + 15) / 16, (height + 15) / 16, 1);
    blurKernel<<<dimGrid, dimBlock>>>(in_d, out_d, width, height, blurSize);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
