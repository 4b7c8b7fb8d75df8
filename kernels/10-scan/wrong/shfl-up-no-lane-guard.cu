// expect: correctness
// expect-text: expected
// Known-wrong: __shfl_up_sync without the lane >= offset guard: a lane below the offset
// gets its own value back and adds it, so every warp's first lanes count twice.
#include <cuda_runtime.h>
#include <stdio.h>
#define SEC 256
__global__ void scanSections(const float *x, float *y, float *sums, int n)
{
    __shared__ float warpTot[SEC / 32];
    int i = blockIdx.x * SEC + threadIdx.x;
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    float v = i < n ? x[i] : 0.0f;
    for (int o = 1; o < 32; o *= 2) {
        float u = __shfl_up_sync(0xffffffffu, v, o);
        v += u;
    }
    if (lane == 31) warpTot[w] = v;
    __syncthreads();
    if (w == 0) {
        float t = lane < SEC / 32 ? warpTot[lane] : 0.0f;
        for (int o = 1; o < SEC / 32; o *= 2) {
            float u = __shfl_up_sync(0xffffffffu, t, o);
            if (lane >= o) t += u;
        }
        if (lane < SEC / 32) warpTot[lane] = t;
    }
    __syncthreads();
    if (w > 0) v += warpTot[w - 1];
    if (i < n) y[i] = v;
    if (sums && threadIdx.x == SEC - 1) sums[blockIdx.x] = v;
}
__global__ void addBack(float *y, const float *sums, int n)
{
    int i = blockIdx.x * SEC + threadIdx.x;
    if (blockIdx.x > 0 && i < n) y[i] += sums[blockIdx.x - 1];
}
static void scanDevice(const float *x_d, float *y_d, int n)
{
    int secs = (n + SEC - 1) / SEC;
    if (secs == 1) {
        scanSections<<<1, SEC>>>(x_d, y_d, NULL, n);
        return;
    }
    float *sums, *sumsScanned;
    cudaMalloc(&sums, secs * sizeof(float));
    cudaMalloc(&sumsScanned, secs * sizeof(float));
    scanSections<<<secs, SEC>>>(x_d, y_d, sums, n);
    scanDevice(sums, sumsScanned, secs);
    addBack<<<secs, SEC>>>(y_d, sumsScanned, n);
    cudaFree(sums);
    cudaFree(sumsScanned);
}
void scan(const float *x_h, float *sectionScan_h, float *y_h, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *x_d, *s_d, *y_d;
    cudaMalloc(&x_d, bytes); cudaMalloc(&s_d, bytes); cudaMalloc(&y_d, bytes);
    cudaMemcpy(x_d, x_h, bytes, cudaMemcpyHostToDevice);
    scanSections<<<(n + SEC - 1) / SEC, SEC>>>(x_d, s_d, NULL, n);
    scanDevice(x_d, y_d, n);
    cudaMemcpy(sectionScan_h, s_d, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(y_h, y_d, bytes, cudaMemcpyDeviceToHost);
    cudaFree(x_d); cudaFree(s_d); cudaFree(y_d);
}
