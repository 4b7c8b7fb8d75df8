// Lab 07: 2-D convolution with the filter in constant memory and halo tiles.
// Read README.md beside this file first.
//
// pmpplab calls convolution2D() with a width x height image N_h (row-major floats), a
// 5x5 filter F_h, and expects P_h = N convolved with F, pixels outside the image
// counting as 0.
#include <cuda_runtime.h>
#include <stdio.h>

#define FILTER_RADIUS 2
#define FILTER_DIM (2 * FILTER_RADIUS + 1)
#define IN_TILE_DIM 32
#define OUT_TILE_DIM (IN_TILE_DIM - 2 * FILTER_RADIUS)

// The filter, in constant memory: every thread of the grid reads it, none writes it.
__constant__ float F_c[FILTER_DIM][FILTER_DIM];

// One block per OUT_TILE_DIM x OUT_TILE_DIM output tile, IN_TILE_DIM x IN_TILE_DIM threads.
__global__ void convolution2DKernel(const float *N, float *P, int width, int height)
{
    __shared__ float N_s[IN_TILE_DIM][IN_TILE_DIM];

    // TODO 1: the input pixel (row, col) this thread loads. The block's output tile
    //         starts at (blockIdx.y * OUT_TILE_DIM, blockIdx.x * OUT_TILE_DIM); its input
    //         tile starts FILTER_RADIUS pixels further up and left.

    // TODO 2: load N_s[threadIdx.y][threadIdx.x]: the pixel when it is inside the image,
    //         0.0f (a ghost cell) when it is not.

    // TODO 3: wait until the whole tile is loaded.

    // TODO 4: the threads of the inner OUT_TILE_DIM x OUT_TILE_DIM square whose pixel is
    //         inside the image compute
    //             P[row][col] = sum over fRow, fCol of F_c[fRow][fCol] * N_s[tileRow + fRow][tileCol + fCol]
    //         with tileRow = threadIdx.y - FILTER_RADIUS, tileCol = threadIdx.x - FILTER_RADIUS.
    (void)N_s; (void)N; (void)P; (void)width; (void)height;
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

void convolution2D(const float *N_h, const float *F_h, float *P_h, int width, int height)
{
    size_t bytes = (size_t)width * height * sizeof(float);
    float *N_d, *P_d;
    CHECK(cudaMalloc((void **)&N_d, bytes));
    CHECK(cudaMalloc((void **)&P_d, bytes));
    CHECK(cudaMemcpy(N_d, N_h, bytes, cudaMemcpyHostToDevice));

    // TODO 5: copy the filter F_h into the constant-memory array F_c
    //         (cudaMemcpyToSymbol; the byte count is FILTER_DIM * FILTER_DIM floats).
    (void)F_h;

    // TODO 6: the grid: enough blocks of IN_TILE_DIM x IN_TILE_DIM threads for every
    //         output tile of OUT_TILE_DIM x OUT_TILE_DIM pixels, rounding up.
    dim3 block(IN_TILE_DIM, IN_TILE_DIM);
    dim3 grid(1, 1);
    convolution2DKernel<<<grid, block>>>(N_d, P_d, width, height);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(N_d));
    CHECK(cudaFree(P_d));
}
