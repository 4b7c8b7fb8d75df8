// Known-right (issue 14): part 1 with a Brent-Kung scan of each 256-element section by
// 128 threads, two elements each; part 2 with the three-phase scan of PMPP 11.5: 256
// threads per 1024-element section, each thread scanning its 4 consecutive elements,
// a Kogge-Stone scan of the 256 thread totals, then each thread adding the totals before
// it; the section sums scanned recursively.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define SECTION1 256
#define BLOCK1 128
#define SECTION2 1024
#define BLOCK2 256
#define COARSE (SECTION2 / BLOCK2)

__global__ void brentKungScanKernel(const float *x, float *y, int n)
{
    __shared__ float XY[SECTION1];
    unsigned int t = threadIdx.x;
    int i = blockIdx.x * SECTION1 + t;
    XY[t] = i < n ? x[i] : 0.0f;
    XY[t + BLOCK1] = i + BLOCK1 < n ? x[i + BLOCK1] : 0.0f;
    for (unsigned int stride = 1; stride <= BLOCK1; stride *= 2) {
        __syncthreads();
        unsigned int index = (t + 1) * 2 * stride - 1;
        if (index < SECTION1) {
            XY[index] += XY[index - stride];
        }
    }
    for (unsigned int stride = SECTION1 / 4; stride > 0; stride /= 2) {
        __syncthreads();
        unsigned int index = (t + 1) * 2 * stride - 1;
        if (index + stride < SECTION1) {
            XY[index + stride] += XY[index];
        }
    }
    __syncthreads();
    if (i < n) {
        y[i] = XY[t];
    }
    if (i + BLOCK1 < n) {
        y[i + BLOCK1] = XY[t + BLOCK1];
    }
}

__global__ void sectionScanKernel(const float *x, float *y, float *sums, int n)
{
    __shared__ float XY[SECTION2];
    __shared__ float totals[BLOCK2];
    unsigned int t = threadIdx.x;
    int base = blockIdx.x * SECTION2;
    for (int k = t; k < SECTION2; k += BLOCK2) { // coalesced loads into shared memory
        XY[k] = base + k < n ? x[base + k] : 0.0f;
    }
    __syncthreads();
    float run = 0.0f;
    for (int k = 0; k < COARSE; k++) { // phase 1: this thread's 4 elements, in order
        run += XY[t * COARSE + k];
        XY[t * COARSE + k] = run;
    }
    totals[t] = run;
    for (unsigned int stride = 1; stride < BLOCK2; stride *= 2) { // phase 2
        __syncthreads();
        float add = t >= stride ? totals[t - stride] : 0.0f;
        __syncthreads();
        totals[t] += add;
    }
    __syncthreads();
    float before = t > 0 ? totals[t - 1] : 0.0f;
    for (int k = 0; k < COARSE; k++) { // phase 3
        XY[t * COARSE + k] += before;
    }
    __syncthreads();
    for (int k = t; k < SECTION2; k += BLOCK2) {
        if (base + k < n) {
            y[base + k] = XY[k];
        }
    }
    if (t == BLOCK2 - 1) {
        sums[blockIdx.x] = totals[t];
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
    brentKungScanKernel<<<(n + SECTION1 - 1) / SECTION1, BLOCK1>>>(x_d, sectionScan_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sectionScan_h, sectionScan_d, bytes, cudaMemcpyDeviceToHost));
    scanDevice(x_d, y_d, n);
    CHECK(cudaMemcpy(y_h, y_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x_d));
    CHECK(cudaFree(sectionScan_d));
    CHECK(cudaFree(y_d));
}
