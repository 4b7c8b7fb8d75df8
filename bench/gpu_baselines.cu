// gpu_baselines: the yardsticks the lab solutions are held against on this GPU
// (issue 8, bench/gpu_bench.sh). One line per operation, tab-separated:
//   name  kind(bandwidth|flops)  work(bytes|flops)  median_ms  rate(per s)  reps
// after a "device" line with the peak rates from the device attributes.
//   copy    cudaMemcpyAsync device to device, N floats: 8N bytes (read + write)
//   copyk   a grid-stride float4 copy kernel, N floats: 8N bytes
//   reduce  cub::DeviceReduce::Sum, N floats: 4N bytes read
//   scan    cub::DeviceScan::InclusiveSum, N floats: 8N bytes
//   hist    cub::DeviceHistogram::HistogramEven, 256 bins over 4N bytes of uint8
//   sgemm   cublasSgemm, 4096 x 4096 x 4096: 2 * 4096^3 flops
//   tf32gemm  the same with cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores)
//   f16gemm   the same with FP16 operands (converted before, not timed), FP32 sums
// Each is timed with CUDA events, the L2 flushed (2x its size written) before every
// repetition, 3 warm-ups, then repetitions until 1 s or 200; the median is printed.
// usage: gpu_baselines [N]   (default N = 2^26 floats, 256 MiB)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <cub/cub.cuh>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "gpu_util.cuh"


static void *flush_buf;
static size_t flush_bytes;

// Median time of OP in ms, over repetitions each preceded by an L2 flush.
static double time_op(const std::function<void()> &op, int *reps_out)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        op();
    CK(cudaDeviceSynchronize());
    std::vector<double> ms;
    double total = 0;
    while (total < 1000 && ms.size() < 200) {
        CK(cudaMemsetAsync(flush_buf, (int)ms.size() & 0xff, flush_bytes));
        CK(cudaEventRecord(a));
        op();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
        total += t + 0.05;
    }
    CK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    *reps_out = (int)ms.size();
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms[ms.size() / 2];
}

static void report(const char *name, const char *kind, double work, const std::function<void()> &op)
{
    int reps;
    double ms = time_op(op, &reps);
    printf("%s\t%s\t%.0f\t%.5f\t%.4e\t%d\n", name, kind, work, ms, work / (ms * 1e-3), reps);
    fflush(stdout);
}

__global__ void copy_kernel(const float4 *in, float4 *out, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

__global__ void fill(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)1 << 26;
    int dev = 0, sms, clock, mclock, bus, l2, major, minor;
    CK(cudaSetDevice(dev));
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&mclock, cudaDevAttrMemoryClockRate, dev);
    cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    double peak_bw = 2.0 * mclock * 1e3 * bus / 8;
    int lanes = major == 8 && minor == 0 ? 64 : major == 7 ? 64 : 128;
    double peak_fl = (double)sms * lanes * 2 * clock * 1e3;
    printf("device\t%s\tcc %d.%d\t%d SMs\t%d MHz\tmem %d MHz x %d bit\tL2 %d MB\tpeak %.3e B/s\t%.3e FLOP/s\n",
           prop.name, major, minor, sms, clock / 1000, mclock / 1000, bus, l2 >> 20, peak_bw, peak_fl);

    flush_bytes = 2 * (size_t)l2;
    CK(cudaMalloc(&flush_buf, flush_bytes));
    float *x, *y, *sum;
    unsigned char *bytes;
    int *hist;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMalloc(&sum, sizeof(float)));
    CK(cudaMalloc(&hist, 256 * sizeof(int)));
    bytes = (unsigned char *)x; // 4N bytes of uint8 data for the histogram
    fill<<<1024, 256>>>(x, n);
    CK(cudaDeviceSynchronize());

    report("copy", "bandwidth", 8.0 * n, [&] { CK(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
    report("copyk", "bandwidth", 8.0 * n, [&] { copy_kernel<<<sms * 8, 512>>>((const float4 *)x, (float4 *)y, n / 4); });

    void *tmp = NULL;
    size_t tmp_bytes = 0, need = 0;
    cub::DeviceReduce::Sum(NULL, need, x, sum, (int)n);
    tmp_bytes = std::max(tmp_bytes, need);
    cub::DeviceScan::InclusiveSum(NULL, need, x, y, (int)n);
    tmp_bytes = std::max(tmp_bytes, need);
    cub::DeviceHistogram::HistogramEven(NULL, need, bytes, hist, 257, 0, 256, (int)(4 * n));
    tmp_bytes = std::max(tmp_bytes, need);
    CK(cudaMalloc(&tmp, tmp_bytes));
    report("reduce", "bandwidth", 4.0 * n, [&] { size_t t = tmp_bytes; cub::DeviceReduce::Sum(tmp, t, x, sum, (int)n); });
    report("scan", "bandwidth", 8.0 * n, [&] { size_t t = tmp_bytes; cub::DeviceScan::InclusiveSum(tmp, t, x, y, (int)n); });
    report("hist", "bandwidth", 4.0 * n, [&] { size_t t = tmp_bytes; cub::DeviceHistogram::HistogramEven(tmp, t, bytes, hist, 257, 0, 256, (int)(4 * n)); });

    const int m = 4096;
    float *A, *B, *C;
    CK(cudaMalloc(&A, (size_t)m * m * sizeof(float)));
    CK(cudaMalloc(&B, (size_t)m * m * sizeof(float)));
    CK(cudaMalloc(&C, (size_t)m * m * sizeof(float)));
    fill<<<1024, 256>>>(A, (size_t)m * m);
    fill<<<1024, 256>>>(B, (size_t)m * m);
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    // Default math: FP32 on the CUDA cores (TF32 only when asked), like the lab kernels.
    cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
    const float one = 1, zero = 0;
    report("sgemm", "flops", 2.0 * m * m * m, [&] {
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, A, m, B, m, &zero, C, m);
    });
    // lab 14's yardsticks: each of its formats on the tensor cores, FP32 sums
    report("tf32gemm", "flops", 2.0 * m * m * m, [&] {
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, A, CUDA_R_32F, m, B, CUDA_R_32F, m,
                     &zero, C, CUDA_R_32F, m, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    });
    __half *Ah = (__half *)x, *Bh = (__half *)x + (size_t)m * m; // x holds 2^26 floats
    if (n >= (size_t)m * m) {
        to_half<<<1024, 256>>>(A, Ah, (size_t)m * m);
        to_half<<<1024, 256>>>(B, Bh, (size_t)m * m);
        report("f16gemm", "flops", 2.0 * m * m * m, [&] {
            cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, Ah, CUDA_R_16F, m, Bh, CUDA_R_16F, m,
                         &zero, C, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        });
    }
    cublasDestroy(h);
    return 0;
}
