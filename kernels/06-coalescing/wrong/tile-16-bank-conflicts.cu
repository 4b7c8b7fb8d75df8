// expect: performance
// expect-on: gpu
// Known-wrong for speed on a GPU: 16 x 16 tiles whose padding cannot remove every bank
// conflict (1.5x the passes, the emulator's limit); on an H100 it took 1.56 times the
// solution's time, past the 1.4x limit.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE 16

__global__ void transposeKernel(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 2];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) {
        tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) {
        out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
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
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transposeKernel<<<grid, dim3(TILE, TILE)>>>(in_d, out_d, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
