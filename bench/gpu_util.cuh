// What the GPU benchmarks (gpu_baselines.cu, tc_gemm_bench.cu) share: a CUDA call that
// must succeed, and the rounding of float data to half on the device.
#ifndef PMPPLAB_BENCH_GPU_UTIL_CUH
#define PMPPLAB_BENCH_GPU_UTIL_CUH

#include <cstdio>
#include <cstdlib>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CK(call)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

__global__ void to_half(const float *in, __half *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = __float2half_rn(in[i]);
}

#endif
