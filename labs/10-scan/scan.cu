// Lab 10: prefix sum (scan). Read README.md beside this file first.
//
// pmpplab calls scan() with n floats in x_h and expects two inclusive scans:
//   part 1: sectionScan_h[i] = x[256 s] + ... + x[i], s = i / 256 (each 256-element
//           section scanned on its own)
//   part 2: y_h[i] = x[0] + ... + x[i]
// The host code is written except the end of scanDevice(); the kernels are yours.
#include <cuda_runtime.h>
#include <stdio.h>

#define SECTION_KS 256
#define BLOCK_BK 256
#define SECTION_BK (2 * BLOCK_BK)

// Part 1: one thread per element, one block per SECTION_KS-element section.
__global__ void koggeStoneScanKernel(const float *x, float *y, int n)
{
    __shared__ float XY[SECTION_KS];

    // TODO 1: load XY[threadIdx.x] = x[i] (0 past n), i = blockIdx.x * blockDim.x + threadIdx.x.

    // TODO 2: Kogge-Stone: for stride = 1, 2, 4, ... < blockDim.x, threads t >= stride
    //         add XY[t - stride] to XY[t]. Mind the race: in one step a thread reads an
    //         element that another thread writes in the same step.

    // TODO 3: write XY[threadIdx.x] to y[i] (only i < n).
    (void)XY; (void)x; (void)y; (void)n;
}

// Part 2, kernel 1: block b scans x[SECTION_BK * b ...], SECTION_BK = 2 * blockDim.x
// elements (two per thread), writes them to y and the section's sum to sectionSums[b].
__global__ void brentKungScanKernel(const float *x, float *y, float *sectionSums, int n)
{
    __shared__ float XY[SECTION_BK];

    // TODO 4: load two elements per thread (i and i + blockDim.x, 0 past n), then the
    //         up-sweep and the down-sweep of the Brent-Kung scan, then write y (i < n
    //         only) and the section's sum.
    (void)XY; (void)x; (void)y; (void)sectionSums; (void)n;
}

// Part 2, kernel 3: section b > 0 gets the scanned section sums up to section b - 1.
// One block of blockDim.x threads per section, two elements per thread.
__global__ void addSectionSumsKernel(float *y, const float *scannedSums, int n)
{
    // TODO 5: add scannedSums[blockIdx.x - 1] to the elements of section blockIdx.x.
    (void)y; (void)scannedSums; (void)n;
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

// Inclusive scan of n elements of x_d into y_d, both on the device.
static void scanDevice(const float *x_d, float *y_d, int n)
{
    int sections = (n + SECTION_BK - 1) / SECTION_BK;
    float *sums_d;
    CHECK(cudaMalloc((void **)&sums_d, sections * sizeof(float)));
    brentKungScanKernel<<<sections, BLOCK_BK>>>(x_d, y_d, sums_d, n);
    CHECK(cudaGetLastError());

    // TODO 6: with more than one section, scan the section sums sums_d in place (this
    //         function can do that: there may be more than one section of sums too), then
    //         launch addSectionSumsKernel with one block of BLOCK_BK threads per section.
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
