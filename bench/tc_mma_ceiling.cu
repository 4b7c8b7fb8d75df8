// tc_mma_ceiling: how fast wmma::mma_sync alone runs on this GPU (issue 15), the ceiling
// of any wmma GEMM (bench/tc_gemm_bench.sh) whatever its tiling: each warp multiplies
// fragments it loaded once, into FM x FN accumulators (as a warp tile of the GEMM), with
// no memory traffic in the loop, for several warps per SM. Build and run on a GPU:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o tc_mma_ceiling bench/tc_mma_ceiling.cu && ./tc_mma_ceiling
// One line per case: precision, warp tile, warps per SM, TFLOP/s (median of 5 runs).
// "tf32 mma": each 16 x 16 x 8 product as two PTX mma.sync m16n8k8 (fast.cu's fastMma
// with MMA: HMMA.1688, where nvcc builds wmma's TF32 mma_sync from four HMMA.1684).
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "gpu_util.cuh"

#define TC_GEMM_BENCH // fast.cu without the lab's entry point: its fastMma
namespace fast {
#include "../kernels/14-tensor-cores/right/fast.cu"
}
#undef CHECK

using namespace nvcuda;

template <bool HALF> struct Prec;
template <> struct Prec<false> {
    typedef float in;
    typedef wmma::precision::tf32 frag;
    static const int K = 8;
};
template <> struct Prec<true> {
    typedef __half in;
    typedef __half frag;
    static const int K = 16;
};

// ITER rounds of FM x FN mma_sync a warp; the operands read once from X (ldm 16), the
// accumulators written to Y so that nothing is left out.
template <bool HALF, int FM, int FN, bool MMA>
__global__ void __launch_bounds__(256) ceilingKernel(const typename Prec<HALF>::in *X, float *Y, int iters)
{
    typedef Prec<HALF> P;
    wmma::fragment<wmma::matrix_a, 16, 16, P::K, typename P::frag, wmma::row_major> a[FM];
    wmma::fragment<wmma::matrix_b, 16, 16, P::K, typename P::frag, wmma::row_major> b[FN];
    wmma::fragment<wmma::accumulator, 16, 16, P::K, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
        wmma::load_matrix_sync(a[i], X + i * 16 * 16, 16);
#pragma unroll
    for (int j = 0; j < FN; ++j)
        wmma::load_matrix_sync(b[j], X + j * 16 * 16, 16);
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);
    for (int it = 0; it < iters; ++it)
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; ++j)
                fast::fastMma<MMA>(acc[i][j], a[i], b[j]);
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
            wmma::store_matrix_sync(Y + ((size_t)warp * FM * FN + i * FN + j) * 256, acc[i][j], 16,
                                    wmma::mem_row_major);
}

template <bool HALF, int FM, int FN, bool MMA = false> static void run(int sms, int warpsPerSM)
{
    typedef typename Prec<HALF>::in In;
    const int iters = 4096, threads = 128;
    int blocks = sms * warpsPerSM / (threads / 32);
    In *X;
    float *Y;
    CK(cudaMalloc(&X, 16 * 16 * 8 * sizeof(In)));
    CK(cudaMemset(X, 0x3c, 16 * 16 * 8 * sizeof(In))); // small nonzero values either way
    CK(cudaMalloc(&Y, (size_t)blocks * threads / 32 * FM * FN * 256 * sizeof(float)));
    cudaEvent_t s, e;
    CK(cudaEventCreate(&s));
    CK(cudaEventCreate(&e));
    std::vector<float> ms;
    for (int r = 0; r < 6; r++) {
        CK(cudaEventRecord(s));
        ceilingKernel<HALF, FM, FN, MMA><<<blocks, threads>>>(X, Y, iters);
        CK(cudaEventRecord(e));
        CK(cudaEventSynchronize(e));
        CK(cudaGetLastError());
        float t;
        CK(cudaEventElapsedTime(&t, s, e));
        if (r) // the first is a warm-up
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    double flops = 2.0 * 16 * 16 * Prec<HALF>::K * FM * FN * (double)iters * blocks * (threads / 32);
    printf("%-8s warp tile %3dx%-3d %2d warps/SM  %7.1f TFLOP/s\n", HALF ? "fp16" : MMA ? "tf32 mma" : "tf32", FM * 16, FN * 16,
           warpsPerSM, flops / ms[ms.size() / 2] / 1e9);
    cudaFree(X), cudaFree(Y);
}

int main()
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("%s, %d SMs: wmma::mma_sync alone (no memory traffic), the ceiling of a wmma GEMM\n", p.name,
           p.multiProcessorCount);
    for (int w : {4, 8, 12}) // 64 x 64 tiles take ~170 registers: at most 12 warps an SM
        run<false, 4, 4>(p.multiProcessorCount, w);
    for (int w : {8, 16})
        run<false, 4, 2>(p.multiProcessorCount, w);
    for (int w : {4, 8})
        run<false, 4, 4, true>(p.multiProcessorCount, w);
    run<true, 4, 4>(p.multiProcessorCount, 8);
    return 0;
}
