// Known-right (issue 14): part 1 with 128 threads per 256-element section, each thread
// scanning its 2 neighbouring elements sequentially, a Kogge-Stone scan over the 128
// thread totals in between; part 2 hierarchical with 1024-element sections, Kogge-Stone
// on 1024 threads (read and write phases apart), the section sums scanned recursively.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define SECTION1 256
#define BLOCK1 128
#define SECTION2 1024
#define BLOCK2 1024

__global__ void coarsenedScanKernel(const float *x, float *y, int n)
{
    __shared__ float totals[BLOCK1];
    unsigned int t = threadIdx.x;
    int i = blockIdx.x * SECTION1 + 2 * t;
    float a = i < n ? x[i] : 0.0f;
    float b = a + (i + 1 < n ? x[i + 1] : 0.0f);
    totals[t] = b;
    for (unsigned int stride = 1; stride < BLOCK1; stride *= 2) {
        __syncthreads();
        float add = t >= stride ? totals[t - stride] : 0.0f;
        __syncthreads();
        totals[t] += add;
    }
    __syncthreads(); // every total is final before a thread reads its neighbour's
    float before = t > 0 ? totals[t - 1] : 0.0f;
    if (i < n) {
        y[i] = before + a;
    }
    if (i + 1 < n) {
        y[i + 1] = before + b;
    }
}

__global__ void sectionScanKernel(const float *x, float *y, float *sums, int n)
{
    __shared__ float XY[SECTION2];
    unsigned int t = threadIdx.x;
    int i = blockIdx.x * SECTION2 + t;
    XY[t] = i < n ? x[i] : 0.0f;
    for (unsigned int stride = 1; stride < SECTION2; stride *= 2) {
        __syncthreads();
        float add = t >= stride ? XY[t - stride] : 0.0f;
        __syncthreads();
        XY[t] += add;
    }
    if (i < n) {
        y[i] = XY[t];
    }
    if (t == SECTION2 - 1) {
        sums[blockIdx.x] = XY[t];
    }
}

// y[i] += the scanned sum of all sections before i's (a thread per element)
__global__ void addPrefixKernel(float *y, const float *scannedSums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = i / SECTION2;
    if (i < n && s > 0) {
        y[i] += scannedSums[s - 1];
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

static void scanDevice(const float *x_d, float *y_d, int n)
{
    int sections = (n + SECTION2 - 1) / SECTION2;
    float *sums_d;
    CHECK(cudaMalloc((void **)&sums_d, sections * sizeof(float)));
    sectionScanKernel<<<sections, BLOCK2>>>(x_d, y_d, sums_d, n);
    CHECK(cudaGetLastError());
    if (sections > 1) {
        scanDevice(sums_d, sums_d, sections);
        addPrefixKernel<<<(n + 255) / 256, 256>>>(y_d, sums_d, n);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaFree(sums_d));
}

void scan(const float *x_h, float *sectionScan_h, float *y_h, int n)
{
    size_t bytes = n * sizeof(float);
    float *x_d, *sectionScan_d, *y_d;
    CHECK(cudaMalloc((void **)&x_d, bytes));
    CHECK(cudaMalloc((void **)&sectionScan_d, bytes));
    CHECK(cudaMalloc((void **)&y_d, bytes));
    CHECK(cudaMemcpy(x_d, x_h, bytes, cudaMemcpyHostToDevice));
    coarsenedScanKernel<<<(n + SECTION1 - 1) / SECTION1, BLOCK1>>>(x_d, sectionScan_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sectionScan_h, sectionScan_d, bytes, cudaMemcpyDeviceToHost));
    scanDevice(x_d, y_d, n);
    CHECK(cudaMemcpy(y_h, y_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x_d));
    CHECK(cudaFree(sectionScan_d));
    CHECK(cudaFree(y_d));
}
