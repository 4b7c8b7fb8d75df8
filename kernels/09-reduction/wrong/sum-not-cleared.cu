// expect: correctness
// expect-text: cudaMemset(sum_d, 0, bytes)
// expect-on: emu
// Known-wrong: sum is never cleared before the blocks atomicAdd into it. cudaMalloc does
// not clear memory; a GPU's fresh memory often reads as zeros, so there it may pass by
// luck; the emulator fills it with 0xCD bytes and the grader names the pattern.
#include <cuda_runtime.h>
#include <stdio.h>
#define SEG 512
#define THREADS 256
__inline__ __device__ float warpSum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}
__device__ float blockSum(float v) {
    __shared__ float warps[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    v = warpSum(v);
    if (lane == 0) warps[w] = v;
    __syncthreads();
    v = (threadIdx.x < blockDim.x / 32) ? warps[lane] : 0.0f;
    if (w == 0) v = warpSum(v);
    return v; // valid in thread 0
}
__global__ void segmentSums(const float *__restrict__ x, float *__restrict__ out, int n) {
    int i = blockIdx.x * SEG + threadIdx.x;
    float v = (i < n ? x[i] : 0.f) + (i + THREADS < n ? x[i + THREADS] : 0.f);
    v = blockSum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
__global__ void totalSum(const float *__restrict__ x, float *sum, int n) {
    const float4 *x4 = (const float4 *)x;
    int n4 = n / 4;
    float v = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        float4 q = x4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n - 4 * n4) v += x[4 * n4 + threadIdx.x];
    v = blockSum(v);
    if (threadIdx.x == 0) atomicAdd(sum, v);
}
void reduceSum(const float *x_h, float *blockSums_h, float *sum_h, int n)
{
    float *x_d, *bs_d, *s_d;
    int segs = (n + SEG - 1) / SEG;
    cudaMalloc(&x_d, n * sizeof(float));
    cudaMalloc(&bs_d, segs * sizeof(float));
    cudaMalloc(&s_d, sizeof(float));
    cudaMemcpy(x_d, x_h, n * sizeof(float), cudaMemcpyHostToDevice);

    segmentSums<<<segs, THREADS>>>(x_d, bs_d, n);
    int blocks = (n / 4 + THREADS * 4 - 1) / (THREADS * 4);
    if (blocks < 1) blocks = 1;
    totalSum<<<blocks, THREADS>>>(x_d, s_d, n);
    cudaMemcpy(blockSums_h, bs_d, segs * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(sum_h, s_d, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(x_d); cudaFree(bs_d); cudaFree(s_d);
}
