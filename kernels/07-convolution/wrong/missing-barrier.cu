// expect: barriers
// expect-text: no __syncthreads() at all
// Known-wrong: no __syncthreads() between loading the tile and using it, so a warp reads
// tile rows that later warps have not loaded yet.
#include <cuda_runtime.h>
#include <stdio.h>

#define FILTER_RADIUS 2
#define FILTER_DIM (2 * FILTER_RADIUS + 1)
#define IN_TILE_DIM 32
#define OUT_TILE_DIM (IN_TILE_DIM - 2 * FILTER_RADIUS)

__constant__ float F_c[FILTER_DIM][FILTER_DIM];

__global__ void convolution2DKernel(const float *N, float *P, int width, int height)
{
    int col = blockIdx.x * OUT_TILE_DIM + threadIdx.x - FILTER_RADIUS;
    int row = blockIdx.y * OUT_TILE_DIM + threadIdx.y - FILTER_RADIUS;

    __shared__ float N_s[IN_TILE_DIM][IN_TILE_DIM];
    if (row >= 0 && row < height && col >= 0 && col < width) {
        N_s[threadIdx.y][threadIdx.x] = N[row * width + col];
    } else {
        N_s[threadIdx.y][threadIdx.x] = 0.0f;
    }

    int tileCol = threadIdx.x - FILTER_RADIUS;
    int tileRow = threadIdx.y - FILTER_RADIUS;
    if (row >= 0 && row < height && col >= 0 && col < width) {
        if (tileCol >= 0 && tileCol < OUT_TILE_DIM && tileRow >= 0 && tileRow < OUT_TILE_DIM) {
            float sum = 0.0f;
            for (int fRow = 0; fRow < FILTER_DIM; fRow++) {
                for (int fCol = 0; fCol < FILTER_DIM; fCol++) {
                    sum += F_c[fRow][fCol] * N_s[tileRow + fRow][tileCol + fCol];
                }
            }
            P[row * width + col] = sum;
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

void convolution2D(const float *N_h, const float *F_h, float *P_h, int width, int height)
{
    size_t bytes = (size_t)width * height * sizeof(float);
    float *N_d, *P_d;
    CHECK(cudaMalloc((void **)&N_d, bytes));
    CHECK(cudaMalloc((void **)&P_d, bytes));
    CHECK(cudaMemcpy(N_d, N_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(F_c, F_h, FILTER_DIM * FILTER_DIM * sizeof(float)));

    dim3 block(IN_TILE_DIM, IN_TILE_DIM);
    dim3 grid((width + OUT_TILE_DIM - 1) / OUT_TILE_DIM, (height + OUT_TILE_DIM - 1) / OUT_TILE_DIM);
    convolution2DKernel<<<grid, block>>>(N_d, P_d, width, height);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(N_d));
    CHECK(cudaFree(P_d));
}
