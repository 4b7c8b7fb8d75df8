// expect: barriers
// expect-text: with no __syncthreads() between
// Known-wrong (part 1): Kogge-Stone with XY[t] += XY[t - stride] and only one barrier
// per step: a thread may read XY[t - stride] after its owner has already overwritten it
// in the same step.
#include <cuda_runtime.h>
#include <stdio.h>

#define SECTION_KS 256
#define BLOCK_BK 256
#define SECTION_BK (2 * BLOCK_BK)

__global__ void koggeStoneScanKernel(const float *x, float *y, int n)
{
    __shared__ float XY[SECTION_KS];
    unsigned int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    XY[t] = (i < n) ? x[i] : 0.0f;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        if (t >= stride) {
            XY[t] += XY[t - stride];
        }
    }
    if (i < n) {
        y[i] = XY[t];
    }
}

__global__ void brentKungScanKernel(const float *x, float *y, float *sectionSums, int n)
{
    __shared__ float XY[SECTION_BK];
    unsigned int t = threadIdx.x;
    int i = 2 * blockIdx.x * blockDim.x + t;
    XY[t] = (i < n) ? x[i] : 0.0f;
    XY[t + blockDim.x] = (i + blockDim.x < n) ? x[i + blockDim.x] : 0.0f;
    // Up-sweep: partial sums at indices 2*stride-1, 4*stride-1, ...
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        __syncthreads();
        unsigned int index = (t + 1) * 2 * stride - 1;
        if (index < SECTION_BK) {
            XY[index] += XY[index - stride];
        }
    }
    // Down-sweep: push the partial sums to the positions that still miss them.
    for (unsigned int stride = SECTION_BK / 4; stride > 0; stride /= 2) {
        __syncthreads();
        unsigned int index = (t + 1) * 2 * stride - 1;
        if (index + stride < SECTION_BK) {
            XY[index + stride] += XY[index];
        }
    }
    __syncthreads();
    if (i < n) {
        y[i] = XY[t];
    }
    if (i + blockDim.x < n) {
        y[i + blockDim.x] = XY[t + blockDim.x];
    }
    if (t == blockDim.x - 1) {
        sectionSums[blockIdx.x] = XY[SECTION_BK - 1];
    }
}

// Section b > 0 gets the inclusive scan of the section sums up to b - 1.
__global__ void addSectionSumsKernel(float *y, const float *scannedSums, int n)
{
    if (blockIdx.x == 0) {
        return;
    }
    float add = scannedSums[blockIdx.x - 1];
    int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] += add;
    }
    if (i + blockDim.x < n) {
        y[i + blockDim.x] += add;
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

// Inclusive scan of n elements of x_d into y_d, both on the device.
static void scanDevice(const float *x_d, float *y_d, int n)
{
    int sections = (n + SECTION_BK - 1) / SECTION_BK;
    float *sums_d;
    CHECK(cudaMalloc((void **)&sums_d, sections * sizeof(float)));
    brentKungScanKernel<<<sections, BLOCK_BK>>>(x_d, y_d, sums_d, n);
    CHECK(cudaGetLastError());
    if (sections > 1) {
        scanDevice(sums_d, sums_d, sections);
        addSectionSumsKernel<<<sections, BLOCK_BK>>>(y_d, sums_d, n);
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

    // Part 1
    koggeStoneScanKernel<<<(n + SECTION_KS - 1) / SECTION_KS, SECTION_KS>>>(x_d, sectionScan_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sectionScan_h, sectionScan_d, bytes, cudaMemcpyDeviceToHost));

    // Part 2
    scanDevice(x_d, y_d, n);
    CHECK(cudaMemcpy(y_h, y_d, bytes, cudaMemcpyDeviceToHost));

    CHECK(cudaFree(x_d));
    CHECK(cudaFree(sectionScan_d));
    CHECK(cudaFree(y_d));
}
