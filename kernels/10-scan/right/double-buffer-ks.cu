// Known-right: Kogge-Stone everywhere, with double buffering instead of a temporary:
// each step reads one shared array and writes the other, so one barrier per step is
// enough. Part 2 uses 1024-element sections (1024 threads) and the same hierarchy.
#include <cuda_runtime.h>
#include <stdio.h>

#define SECTION_KS 256
#define SECTION_BIG 1024

// Inclusive scan of blockDim.x elements per block; writes the section's sum when
// sectionSums is not NULL. SECTION is the shared arrays' size (>= blockDim.x).
template <int SECTION>
__global__ void doubleBufferScanKernel(const float *x, float *y, float *sectionSums, int n)
{
    __shared__ float buf[2][SECTION];
    unsigned int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int src = 0;
    buf[src][t] = (i < n) ? x[i] : 0.0f;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        float v = buf[src][t];
        if (t >= stride) {
            v += buf[src][t - stride];
        }
        buf[1 - src][t] = v;
        src = 1 - src;
    }
    if (i < n) {
        y[i] = buf[src][t];
    }
    if (sectionSums != NULL && t == blockDim.x - 1) {
        sectionSums[blockIdx.x] = buf[src][t];
    }
}

__global__ void addSectionSumsKernel(float *y, const float *scannedSums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && i < n) {
        y[i] += scannedSums[blockIdx.x - 1];
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
    int sections = (n + SECTION_BIG - 1) / SECTION_BIG;
    float *sums_d;
    CHECK(cudaMalloc((void **)&sums_d, sections * sizeof(float)));
    doubleBufferScanKernel<SECTION_BIG><<<sections, SECTION_BIG>>>(x_d, y_d, sums_d, n);
    CHECK(cudaGetLastError());
    if (sections > 1) {
        scanDevice(sums_d, sums_d, sections);
        addSectionSumsKernel<<<sections, SECTION_BIG>>>(y_d, sums_d, n);
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

    doubleBufferScanKernel<SECTION_KS><<<(n + SECTION_KS - 1) / SECTION_KS, SECTION_KS>>>(
        x_d, sectionScan_d, NULL, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sectionScan_h, sectionScan_d, bytes, cudaMemcpyDeviceToHost));

    scanDevice(x_d, y_d, n);
    CHECK(cudaMemcpy(y_h, y_d, bytes, cudaMemcpyDeviceToHost));

    CHECK(cudaFree(x_d));
    CHECK(cudaFree(sectionScan_d));
    CHECK(cudaFree(y_d));
}
