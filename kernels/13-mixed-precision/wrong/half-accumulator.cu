// expect: correctness: ones
// Known-wrong (part 2): the sums are kept in half precision too, in a grid of 8 blocks
// whose threads loop over the array. A block's count passes 2048, where half's spacing
// is 2: adding 1 rounds back to an even number, and the counts come out wrong.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>

#define BLOCK_DIM 256

// Part 1: z = a x + y with half-precision operands, two elements per thread as one
// __half2 (one fused multiply-add does both). Thread t handles elements 2t and 2t + 1;
// the thread of an odd n's last element does it alone, as a __half.
__global__ void axpyHalf2Kernel(const float *x, const float *y, const float *a, float *z, int n)
{
    int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    __half2 a2 = __float2half2_rn(a[0]);
    if (i + 1 < n) {
        float2 xf = *(const float2 *)&x[i]; // i is even: 8-byte aligned
        float2 yf = *(const float2 *)&y[i];
        __half2 r = __hfma2(a2, __float22half2_rn(xf), __float22half2_rn(yf));
        *(float2 *)&z[i] = __half22float2(r);
    } else if (i < n) {
        __half r = __hfma(__low2half(a2), __float2half_rn(x[i]), __float2half_rn(y[i]));
        z[i] = __half2float(r);
    }
}

// Part 2: *dot += the sum of u[i] * v[i]. The products are taken in half precision, two
// at a time; the sums are kept in float, in a register, then in the block's tree, then
// one atomicAdd per block. (Sums kept in half would stop growing at 2048.)
__global__ void dotHalf2Kernel(const float *u, const float *v, float *dot, int n)
{
    __shared__ __half partial[BLOCK_DIM];
    __half sum = __float2half(0.0f);
    for (int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x); i < n;
         i += 2 * blockDim.x * gridDim.x) {
        if (i + 1 < n) {
            __half2 p = __hmul2(__float22half2_rn(*(const float2 *)&u[i]),
                                __float22half2_rn(*(const float2 *)&v[i]));
            sum = __hadd(sum, __hadd(__low2half(p), __high2half(p)));
        } else {
            sum = __hadd(sum, __hmul(__float2half_rn(u[i]), __float2half_rn(v[i])));
        }
    }
    unsigned t = threadIdx.x;
    partial[t] = sum;
    for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride)
            partial[t] = __hadd(partial[t], partial[t + stride]);
    }
    if (t == 0)
        atomicAdd(dot, __half2float(partial[0]));
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
    int blocks = 8; // the grid-stride loop covers the rest
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
