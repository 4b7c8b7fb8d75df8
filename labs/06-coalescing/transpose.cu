// Lab 06: memory coalescing, a tiled transpose. Read README.md beside this file first.
//
// pmpplab calls transpose() with a matrix `in` of rows x cols floats, row-major, and
// expects out_h to hold its transpose: cols x rows, row-major, out[c][r] = in[r][c].
// The host code is written; complete the kernel. A correct kernel is not enough: both
// its global reads and its global writes must be coalesced, and its shared-memory
// accesses free of bank conflicts.
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// The block is TILE_DIM x BLOCK_ROWS threads and moves one TILE_DIM x TILE_DIM tile, so
// each thread handles TILE_DIM / BLOCK_ROWS elements, BLOCK_ROWS rows apart.
__global__ void transposeKernel(const float *in, float *out, int rows, int cols)
{
    // TODO 1: declare the tile in shared memory. Think about which banks the lanes of a
    //         warp touch when they walk down a column of it (README: bank conflicts).

    // TODO 2: read the tile's rows from `in`: threadIdx.x along a row, so the lanes of a
    //         warp read consecutive addresses. Rows j = 0, BLOCK_ROWS, 2*BLOCK_ROWS, ...
    //         Skip elements outside the matrix.

    // TODO 3: wait until the whole tile is in shared memory.

    // TODO 4: write the transposed tile to `out`: the block's tile lands at the mirrored
    //         position, and threadIdx.x again runs along a row of `out`, so the lanes
    //         read a column of the tile. Skip elements outside `out` (cols x rows!).
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
