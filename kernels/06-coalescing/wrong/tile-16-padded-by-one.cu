// expect: performance
// expect-text: 16-wide tile
// Known-wrong for speed: 16 x 16 tiles padded by one column. A warp reads two columns of
// the tile at once: the word of (column 15, row 1) is 15 x 17 + 1 = 256, in the bank of
// (column 0, row 0)'s word 0, so every column read takes 2 passes (the emulator's limit
// is 1.5). tile-16-bank-conflicts.cu, padded by two, is on the limit on the emulator.
#include <cuda_runtime.h>
#include <stdio.h>
#define T 16
__global__ void transposeKernel(const float * __restrict__ in, float * __restrict__ out, int rows, int cols)
{
    extern __shared__ float tile[]; // T x (T+1)
    int x = blockIdx.x * T + threadIdx.x;
    int y = blockIdx.y * T + threadIdx.y;
    if (x < cols && y < rows)
        tile[threadIdx.y * (T + 1) + threadIdx.x] = in[y * cols + x];
    __syncthreads();
    int ox = blockIdx.y * T + threadIdx.x;
    int oy = blockIdx.x * T + threadIdx.y;
    if (ox < rows && oy < cols)
        out[oy * rows + ox] = tile[threadIdx.x * (T + 1) + threadIdx.y];
}
void transpose(const float *in_h, float *out_h, int rows, int cols)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *in_d, *out_d;
    cudaMalloc(&in_d, bytes);
    cudaMalloc(&out_d, bytes);
    cudaMemcpy(in_d, in_h, bytes, cudaMemcpyHostToDevice);
    dim3 block(T, T);
    dim3 grid((cols + T - 1) / T, (rows + T - 1) / T);
    transposeKernel<<<grid, block, T * (T + 1) * sizeof(float)>>>(in_d, out_d, rows, cols);
    cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost);
    cudaFree(in_d);
    cudaFree(out_d);
}
