// tc_gemm_bench: lab 14's wmma GEMMs against cuBLAS on this GPU (issue 15): the lab's
// solution (the readable teaching kernel) and each tiling of its fast version
// (kernels/14-tensor-cores/right/fast.cu), on square n^3 products of device matrices
// whose sizes are whole tiles, timed with CUDA events (median of 3 warm-ups + up to 30
// runs) against cuBLAS in the same format in the same process, and checked against
// cuBLAS FP32 SGEMM: a kernel's largest error may be at most 4 times cuBLAS TF32's
// (+1e-3), else the row says WRONG.
//   tc_gemm_bench list                  the variant names
//   tc_gemm_bench VARIANT N [N...]      one row per size:
//   variant  n  ms  TFLOP/s  vendor_TFLOP/s  %vendor  max_err  vendor_err  ok  blocks/SM
// (the vendor: cuBLAS in the same format, cublasGemmEx TF32 or FP16 operands, FP32 sums)
// bench/tc_gemm_bench.sh builds it and runs every variant in its own process.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "gpu_util.cuh"

#include "tc_gemm_variants.cuh"

#define CKB(call)                                                                     \
    do {                                                                              \
        cublasStatus_t s_ = (call);                                                   \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                            \
            fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, (int)s_);  \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__global__ void fillUniform(float *x, size_t count, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        x[i] = (float)(h >> 8) / (float)(1 << 23) - 1.0f; // [-1, 1)
    }
}

// *err = max |x - y| as float bits (non-negative floats order as unsigned; NaN is above)
__global__ void maxAbsDiff(const float *x, const float *y, size_t count, unsigned *err)
{
    unsigned m = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        float d = fabsf(x[i] - y[i]);
        m = max(m, d != d ? 0x7fc00000u : __float_as_uint(d));
    }
    atomicMax(err, m);
}

static float maxErr(const float *x, const float *y, size_t count, unsigned *err_d)
{
    unsigned bits;
    CK(cudaMemset(err_d, 0, sizeof(unsigned)));
    maxAbsDiff<<<264, 256>>>(x, y, count, err_d);
    CK(cudaMemcpy(&bits, err_d, sizeof bits, cudaMemcpyDeviceToHost));
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

// Median ms of OP (CUDA events), after 3 warm-ups, over up to 30 runs or 1 s.
static double timeOp(const std::function<void()> &op)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        op();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    std::vector<float> ms;
    float total = 0;
    while (ms.size() < 30 && total < 1000) {
        CK(cudaEventRecord(a));
        op();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
        total += t;
    }
    CK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms[ms.size() / 2];
}

int main(int argc, char **argv)
{
    const int nv = sizeof variants / sizeof variants[0];
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (int i = 0; i < nv; i++)
            printf("%s\n", variants[i].name);
        return 0;
    }
    const variant *v = NULL;
    for (int i = 0; argc > 1 && i < nv; i++)
        if (!strcmp(argv[1], variants[i].name))
            v = &variants[i];
    if (!v || argc < 3) {
        fprintf(stderr, "usage: %s list | %s VARIANT N [N...]\n", argv[0], argv[0]);
        return 2;
    }
    if (!v->fns.launch) {
        fprintf(stderr, "%s: %s is not built into this binary (TC_ONLY=%d)\n", argv[0], v->name, TC_ONLY);
        return 2;
    }
    cublasHandle_t h;
    CKB(cublasCreate(&h));
    unsigned *err_d;
    CK(cudaMalloc(&err_d, sizeof(unsigned)));
    for (int a = 2; a < argc; a++) {
        int n = atoi(argv[a]);
        if (n <= 0 || n % v->tile) {
            printf("%s\t%d\tskipped: n must be a multiple of %d\n", v->name, n, v->tile);
            continue;
        }
        size_t count = (size_t)n * n;
        float *A, *B, *C, *ref, *ven;
        __half *Ah, *Bh;
        CK(cudaMalloc(&A, count * 4));
        CK(cudaMalloc(&B, count * 4));
        CK(cudaMalloc(&C, count * 4));
        CK(cudaMalloc(&ref, count * 4));
        CK(cudaMalloc(&ven, count * 4));
        CK(cudaMalloc(&Ah, count * 2));
        CK(cudaMalloc(&Bh, count * 2));
        fillUniform<<<264, 256>>>(A, count, 1);
        fillUniform<<<264, 256>>>(B, count, 2);
        to_half<<<264, 256>>>(A, Ah, count);
        to_half<<<264, 256>>>(B, Bh, count);
        const float one = 1, zero = 0;
        // row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets (B, A)
        CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_32F, n, A, CUDA_R_32F, n,
                         &zero, ref, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        auto vendor = [&] {
            if (v->half)
                CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, Bh, CUDA_R_16F, n, Ah, CUDA_R_16F, n,
                                 &zero, ven, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            else
                CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_32F, n, A, CUDA_R_32F, n,
                                 &zero, ven, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
        };
        double vms = timeOp(vendor);
        float verr = maxErr(ven, ref, count, err_d);
        CK(cudaMemset(C, 0xff, count * 4)); // NaNs where the kernel writes nothing
        double ms = timeOp([&] { v->fns.launch(A, B, C, n); });
        float err = maxErr(C, ref, count, err_d);
        double fl = 2.0 * n * n * (double)n;
        bool ok = err <= 4 * verr + 1e-3f; // false for NaN
        printf("%s\t%d\t%.4f\t%.1f\t%.1f\t%.1f\t%.2e\t%.2e\t%s\t%d\n", v->name, n, ms, fl / ms / 1e9,
               fl / vms / 1e9, 100 * vms / ms, err, verr, ok ? "ok" : "WRONG", v->fns.blocks());
        fflush(stdout);
        cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(ref), cudaFree(ven), cudaFree(Ah), cudaFree(Bh);
    }
    cublasDestroy(h);
    return 0;
}
