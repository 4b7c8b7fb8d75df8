// expect: performance
// expect-on: gpu
// Known-wrong for speed on a GPU: correct, coalesced and conflict-free, but a fixed 8 x 8
// grid is 64 blocks for a GPU of 132 SMs; on an H100 it took 3.96 times the solution's time.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE 32

__global__ void transposeKernel(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    for (int by = blockIdx.y; by * TILE < rows; by += gridDim.y) {
        for (int bx = blockIdx.x; bx * TILE < cols; bx += gridDim.x) {
            int x = bx * TILE + threadIdx.x, y = by * TILE + threadIdx.y;
            if (x < cols && y < rows) {
                tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
            }
            __syncthreads();
            x = by * TILE + threadIdx.x;
            y = bx * TILE + threadIdx.y;
            if (x < rows && y < cols) {
                out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
            }
            __syncthreads(); // the tile is read before the next one overwrites it
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

void transpose(const float *in_h, float *out_h, int rows, int cols)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *in_d, *out_d;
    CHECK(cudaMalloc((void **)&in_d, bytes));
    CHECK(cudaMalloc((void **)&out_d, bytes));
    CHECK(cudaMemcpy(in_d, in_h, bytes, cudaMemcpyHostToDevice));
    transposeKernel<<<dim3(8, 8), dim3(TILE, TILE)>>>(in_d, out_d, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
