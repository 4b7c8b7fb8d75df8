// Known-right: blocks of OUT_TILE_DIM x OUT_TILE_DIM threads, one per output pixel. The
// input tile is larger than the block, so each thread loads up to four of its elements in
// a loop that strides by the block's size; then every thread computes.
#include <cuda_runtime.h>
#include <stdio.h>

#define FILTER_RADIUS 2
#define FILTER_DIM (2 * FILTER_RADIUS + 1)
#define OUT_TILE_DIM 16
#define IN_TILE_DIM (OUT_TILE_DIM + 2 * FILTER_RADIUS)

__constant__ float F_c[FILTER_DIM][FILTER_DIM];

__global__ void convolutionOutputTileKernel(const float *N, float *P, int width, int height)
{
    __shared__ float N_s[IN_TILE_DIM][IN_TILE_DIM];
    int tileRow0 = blockIdx.y * OUT_TILE_DIM - FILTER_RADIUS;
    int tileCol0 = blockIdx.x * OUT_TILE_DIM - FILTER_RADIUS;

    for (int y = threadIdx.y; y < IN_TILE_DIM; y += OUT_TILE_DIM) {
        for (int x = threadIdx.x; x < IN_TILE_DIM; x += OUT_TILE_DIM) {
            int r = tileRow0 + y;
            int c = tileCol0 + x;
            N_s[y][x] = (r >= 0 && r < height && c >= 0 && c < width) ? N[r * width + c] : 0.0f;
        }
    }
    __syncthreads();

    int row = blockIdx.y * OUT_TILE_DIM + threadIdx.y;
    int col = blockIdx.x * OUT_TILE_DIM + threadIdx.x;
    if (row < height && col < width) {
        float sum = 0.0f;
        for (int fRow = 0; fRow < FILTER_DIM; fRow++) {
            for (int fCol = 0; fCol < FILTER_DIM; fCol++) {
                sum += F_c[fRow][fCol] * N_s[threadIdx.y + fRow][threadIdx.x + fCol];
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
    CHECK(cudaMemcpyToSymbol(F_c, F_h, sizeof(F_c)));

    dim3 block(OUT_TILE_DIM, OUT_TILE_DIM);
    dim3 grid((width + OUT_TILE_DIM - 1) / OUT_TILE_DIM, (height + OUT_TILE_DIM - 1) / OUT_TILE_DIM);
    convolutionOutputTileKernel<<<grid, block>>>(N_d, P_d, width, height);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(N_d));
    CHECK(cudaFree(P_d));
}
