// Vendor yardsticks for the reduction, scan and histogram labs (09, 10, 08, 13): CUB's
// device-wide algorithms computing the lab's outputs from the same inputs. A performance
// check names one of these functions in its `vendor:` field (labs/README.md); the grader
// times it on the same dataset as the student's kernels and prints "vs the vendor
// library" (no points).
#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                   \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

// CUB's scratch space: asked for with a NULL pointer first, then allocated.
struct Scratch {
    void *p = nullptr;
    size_t bytes = 0;
    void fit(size_t need)
    {
        if (need <= bytes)
            return;
        CHECK(cudaFree(p));
        CHECK(cudaMalloc(&p, need));
        bytes = need;
    }
    ~Scratch() { cudaFree(p); }
};

// Lab 09: blockSums[b] = the sum of 512-element segment b, *sum = the sum of all n.
void cubReduceSum(const float *x_h, float *blockSums_h, float *sum_h, int n)
{
    const int segment = 512;
    int segments = (n + segment - 1) / segment;
    int *offsets_h = (int *)malloc((segments + 1) * sizeof(int));
    for (int s = 0; s <= segments; s++)
        offsets_h[s] = s * segment < n ? s * segment : n;
    float *x_d, *blockSums_d, *sum_d;
    int *offsets_d;
    CHECK(cudaMalloc((void **)&x_d, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc((void **)&blockSums_d, segments * sizeof(float)));
    CHECK(cudaMalloc((void **)&sum_d, sizeof(float)));
    CHECK(cudaMalloc((void **)&offsets_d, (segments + 1) * sizeof(int)));
    CHECK(cudaMemcpy(x_d, x_h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(offsets_d, offsets_h, (segments + 1) * sizeof(int), cudaMemcpyHostToDevice));

    Scratch tmp;
    size_t need = 0;
    CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, need, x_d, blockSums_d, segments, offsets_d,
                                          offsets_d + 1));
    tmp.fit(need);
    CHECK(cub::DeviceSegmentedReduce::Sum(tmp.p, need, x_d, blockSums_d, segments, offsets_d,
                                          offsets_d + 1));
    CHECK(cub::DeviceReduce::Sum(nullptr, need, x_d, sum_d, n));
    tmp.fit(need);
    CHECK(cub::DeviceReduce::Sum(tmp.p, need, x_d, sum_d, n));

    CHECK(cudaMemcpy(blockSums_h, blockSums_d, segments * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sum_h, sum_d, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x_d));
    CHECK(cudaFree(blockSums_d));
    CHECK(cudaFree(sum_d));
    CHECK(cudaFree(offsets_d));
    free(offsets_h);
}

struct SectionOf {
    __host__ __device__ int operator()(int i) const { return i / 256; }
};

// Lab 10: sectionScan = the inclusive scan of each 256-element section, y = the
// inclusive scan of all n.
void cubScan(const float *x_h, float *sectionScan_h, float *y_h, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *x_d, *sec_d, *y_d;
    CHECK(cudaMalloc((void **)&x_d, bytes));
    CHECK(cudaMalloc((void **)&sec_d, bytes));
    CHECK(cudaMalloc((void **)&y_d, bytes));
    CHECK(cudaMemcpy(x_d, x_h, bytes, cudaMemcpyHostToDevice));

    auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<int>(0), SectionOf());
    Scratch tmp;
    size_t need = 0;
    CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, need, keys, x_d, sec_d, n));
    tmp.fit(need);
    CHECK(cub::DeviceScan::InclusiveSumByKey(tmp.p, need, keys, x_d, sec_d, n));
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, need, x_d, y_d, n));
    tmp.fit(need);
    CHECK(cub::DeviceScan::InclusiveSum(tmp.p, need, x_d, y_d, n));

    CHECK(cudaMemcpy(sectionScan_h, sec_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(y_h, y_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x_d));
    CHECK(cudaFree(sec_d));
    CHECK(cudaFree(y_d));
}

// Lab 08: histo[v] = how many of the n bytes equal v.
void cubHistogram(const unsigned char *data_h, unsigned int *histo_h, int n)
{
    unsigned char *data_d;
    unsigned int *histo_d;
    CHECK(cudaMalloc((void **)&data_d, n > 0 ? n : 1));
    CHECK(cudaMalloc((void **)&histo_d, 256 * sizeof(unsigned int)));
    CHECK(cudaMemcpy(data_d, data_h, n, cudaMemcpyHostToDevice));

    Scratch tmp;
    size_t need = 0;
    CHECK(cub::DeviceHistogram::HistogramEven(nullptr, need, data_d, histo_d, 257, 0, 256, n));
    tmp.fit(need);
    CHECK(cub::DeviceHistogram::HistogramEven(tmp.p, need, data_d, histo_d, 257, 0, 256, n));

    CHECK(cudaMemcpy(histo_h, histo_d, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(data_d));
    CHECK(cudaFree(histo_d));
}
