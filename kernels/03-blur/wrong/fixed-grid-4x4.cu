// expect: performance
// expect-on: gpu
// Known-wrong for speed on a GPU: correct on any image, but a fixed 4 x 4 grid is 16
// blocks for a GPU of 132 SMs; on an H100 it took 35 times the solution's time.
#include <cuda_runtime.h>
#include <stdio.h>

// One thread per output pixel: the average of the (2 * blurSize + 1)^2 window around it,
// counting only the pixels that lie inside the image.
__global__ void blurKernel(const unsigned char *in, unsigned char *out, int width, int height,
                           int blurSize)
{
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < height; row += gridDim.y * blockDim.y)
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < width; col += gridDim.x * blockDim.x) {
        int pixVal = 0;
        int pixels = 0;
        for (int blurRow = -blurSize; blurRow <= blurSize; ++blurRow) {
            for (int blurCol = -blurSize; blurCol <= blurSize; ++blurCol) {
                int curRow = row + blurRow;
                int curCol = col + blurCol;
                if (curRow >= 0 && curRow < height && curCol >= 0 && curCol < width) {
                    pixVal += in[curRow * width + curCol];
                    ++pixels;
                }
            }
        }
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
    dim3 dimGrid(4, 4, 1);
    blurKernel<<<dimGrid, dimBlock>>>(in_d, out_d, width, height, blurSize);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
