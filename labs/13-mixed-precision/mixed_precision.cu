// Lab 13: mixed precision with __half2. Read README.md beside this file first.
//
// pmpplab calls mixedPrecision() and expects
//   part 1: z_h[i]   = a_h[0] * x_h[i] + y_h[i], computed with half-precision operands
//   part 2: dot_h[0] = the sum of u_h[i] * v_h[i], products in half, sums in float
// The host code is written; the two kernels are yours.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>

#define BLOCK_DIM 256

// Part 1: thread t handles elements i = 2t and 2t + 1 as one __half2.
__global__ void axpyHalf2Kernel(const float *x, const float *y, const float *a, float *z, int n)
{
    int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);

    // TODO 1: if both i and i + 1 are < n: read x[i..i+1] and y[i..i+1] as float2,
    //         convert them to __half2, z = __hfma2(a2, x2, y2) with a2 holding a[0] in
    //         both halves, and store z back as a float2.
    // TODO 2: if only i < n (n odd, the last element): the same with one __half.
    (void)i; (void)x; (void)y; (void)a; (void)z; (void)n;
}

// Part 2: add this thread's products u[i] * v[i] (half) into a float, then the block's
// sums (lab 09's tree), then one atomicAdd into *dot per block. Grid-stride: blocks
// cover pairs 2 * blockDim.x * gridDim.x apart.
__global__ void dotHalf2Kernel(const float *u, const float *v, float *dot, int n)
{
    __shared__ float partial[BLOCK_DIM];

    // TODO 3: for i = 2 * (global thread index), stepping by 2 * blockDim.x * gridDim.x:
    //         __hmul2 the pair (or __hmul the odd last element) and add the products,
    //         converted to float, to a float sum.
    // TODO 4: reduce the block's sums in partial[] and atomicAdd the result into *dot.
    (void)partial; (void)u; (void)v; (void)dot; (void)n;
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

void mixedPrecision(const float *x_h, const float *y_h, const float *a_h, float *z_h,
                    const float *u_h, const float *v_h, float *dot_h, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *x_d, *y_d, *a_d, *z_d, *u_d, *v_d, *dot_d;
    CHECK(cudaMalloc((void **)&x_d, bytes));
    CHECK(cudaMalloc((void **)&y_d, bytes));
    CHECK(cudaMalloc((void **)&a_d, sizeof(float)));
    CHECK(cudaMalloc((void **)&z_d, bytes));
    CHECK(cudaMalloc((void **)&u_d, bytes));
    CHECK(cudaMalloc((void **)&v_d, bytes));
    CHECK(cudaMalloc((void **)&dot_d, sizeof(float)));
    CHECK(cudaMemcpy(x_d, x_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y_d, y_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(a_d, a_h, sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(u_d, u_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(v_d, v_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dot_d, 0, sizeof(float)));

    int pairs = (n + 1) / 2;
    axpyHalf2Kernel<<<(pairs + BLOCK_DIM - 1) / BLOCK_DIM, BLOCK_DIM>>>(x_d, y_d, a_d, z_d, n);
    CHECK(cudaGetLastError());
    int blocks = (pairs + BLOCK_DIM - 1) / BLOCK_DIM;
    if (blocks > 1024)
        blocks = 1024; // the grid-stride loop covers the rest
    dotHalf2Kernel<<<blocks, BLOCK_DIM>>>(u_d, v_d, dot_d, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(z_h, z_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(dot_h, dot_d, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x_d));
    CHECK(cudaFree(y_d));
    CHECK(cudaFree(a_d));
    CHECK(cudaFree(z_d));
    CHECK(cudaFree(u_d));
    CHECK(cudaFree(v_d));
    CHECK(cudaFree(dot_d));
}
