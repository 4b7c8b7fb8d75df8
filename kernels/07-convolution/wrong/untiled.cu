// expect: performance
// expect-on: emu
// (On an H100 this kernel took 0.99x the tiled solution's time: the L1 and L2 caches
// serve the 25 reads per pixel that the emulator's cache-less model counts.)
// expect-text: TOO MANY
// Known-wrong (slow): no shared-memory tile: every output pixel reads its 25 input pixels
// from global memory. Correct, but it moves several times the bytes of the tiled kernel.
#include <cuda_runtime.h>
#include <stdio.h>

#define FILTER_RADIUS 2
#define FILTER_DIM (2 * FILTER_RADIUS + 1)
#define IN_TILE_DIM 32
#define OUT_TILE_DIM (IN_TILE_DIM - 2 * FILTER_RADIUS)

__constant__ float F_c[FILTER_DIM][FILTER_DIM];

__global__ void convolution2DKernel(const float *N, float *P, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < height && col < width) {
        float sum = 0.0f;
        for (int fRow = 0; fRow < FILTER_DIM; fRow++) {
            for (int fCol = 0; fCol < FILTER_DIM; fCol++) {
                int r = row - FILTER_RADIUS + fRow;
                int c = col - FILTER_RADIUS + fCol;
                if (r >= 0 && r < height && c >= 0 && c < width) {
                    sum += F_c[fRow][fCol] * N[r * width + c];
                }
            }
        }
        P[row * width + col] = sum;
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

void convolution2D(const float *N_h, const float *F_h, float *P_h, int width, int height)
{
    size_t bytes = (size_t)width * height * sizeof(float);
    float *N_d, *P_d;
    CHECK(cudaMalloc((void **)&N_d, bytes));
    CHECK(cudaMalloc((void **)&P_d, bytes));
    CHECK(cudaMemcpy(N_d, N_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(F_c, F_h, FILTER_DIM * FILTER_DIM * sizeof(float)));

    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    convolution2DKernel<<<grid, block>>>(N_d, P_d, width, height);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(N_d));
    CHECK(cudaFree(P_d));
}
