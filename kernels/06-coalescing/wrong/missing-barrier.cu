// expect: barriers
// expect-text: no __syncthreads() at all
// Known-wrong: no barrier between filling the tile and reading its columns, so a warp
// reads elements that other warps have not stored yet.
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// out (cols x rows) = transpose of in (rows x cols), both row-major. A block moves one
// TILE_DIM x TILE_DIM tile: it reads the tile's rows from `in` (consecutive threads,
// consecutive addresses), turns the corner in shared memory, and writes the rows of the
// transposed tile to `out` (again consecutive). Each thread handles TILE_DIM / BLOCK_ROWS
// elements (thread coarsening).
__global__ void transposeKernel(const float *in, float *out, int rows, int cols)
{
    // +1 column: walking down a column of the tile then touches 32 different banks.
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x; // column of in
    int y = blockIdx.y * TILE_DIM + threadIdx.y; // row of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < cols && y + j < rows) {
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
        }
    }

    x = blockIdx.y * TILE_DIM + threadIdx.x; // column of out = row of in
    y = blockIdx.x * TILE_DIM + threadIdx.y; // row of out = column of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < rows && y + j < cols) {
            out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
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

    dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);
    dim3 dimGrid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM, 1);
    transposeKernel<<<dimGrid, dimBlock>>>(in_d, out_d, rows, cols);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
