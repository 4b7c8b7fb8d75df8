// The wmma GEMMs that bench/tc_gemm_bench.cu times against cuBLAS on a GPU and
// bench/tc_gemm_check.cu checks on the emulator: lab 14's teaching solution and each
// tiling of its fast version (kernels/14-tensor-cores/right/fast.cu), by name.
#ifndef PMPPLAB_BENCH_TC_GEMM_VARIANTS_CUH
#define PMPPLAB_BENCH_TC_GEMM_VARIANTS_CUH

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#ifndef TC_ONLY
#define TC_ONLY -1 // every variant
#endif
#define TC_TEACH (TC_ONLY < 0 || TC_ONLY == 0 || TC_ONLY == 11) // the indices of teach-*

// The teaching solution, in its own namespace; its macros go before the next file.
#if TC_TEACH
namespace teach {
#include "../kernels/14-tensor-cores/solution.cu"
template <bool HALF> static void launch(const float *A, const float *B, float *C, int n)
{
    dim3 grid((n + BN - 1) / BN, (n + BM - 1) / BM);
    tcMatMulKernel<HALF><<<grid, THREADS>>>(A, B, C, n, n, n);
}
template <bool HALF> static int blocks()
{
    int b = 0;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, tcMatMulKernel<HALF>, THREADS, 0) ? -1 : b;
}
} // namespace teach
#undef BM
#undef BN
#undef BK
#undef WM
#undef WN
#undef WARPS
#undef THREADS
#undef PAD
#undef CHECK
#endif

#define TC_GEMM_BENCH // fast.cu without the lab's entry point (its default tiling)
namespace fast {
#include "../kernels/14-tensor-cores/right/fast.cu"
}
#undef CHECK

typedef void (*launch_fn)(const float *, const float *, float *, int);
// A variant's launch on n x n device matrices, and its blocks per SM (call it after a
// launch, which raises the kernel's shared-memory limit; -1 if the query fails).
struct gemm_fns {
    launch_fn launch;
    int (*blocks)();
};

// -DTC_ONLY=I builds variant I only (bench/tc_gemm_bench.sh compiles them in parallel,
// one binary each); the others' kernels are never instantiated.
template <bool HALF, class T> static int fastBlocks()
{
    int b = 0;
    size_t bytes = T::template Layout<typename fast::FastPrec<HALF>::elem>::BYTES;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, fast::tcFastKernel<HALF, T>, T::THREADS, bytes)
               ? -1
               : b;
}
template <int I, bool HALF, class T> static gemm_fns fastPick()
{
    if constexpr (TC_ONLY < 0 || TC_ONLY == I)
        return {[](const float *A, const float *B, float *C, int n) {
                    fast::tcFastLaunch<HALF, T>(A, B, C, n, n, n);
                },
                fastBlocks<HALF, T>};
    else
        return {NULL, NULL};
}

// The operands rounded to TF32 by a pass of their own into scratch buffers (timed with
// the product; T::BT: B transposed on the way), then tiling T, which rounds nothing:
// rounding once in device memory against rounding in shared memory or per fragment.
// PASS false: the pass runs once per pair of operands, untimed (the kernel alone).
template <int I, class T, bool PASS = true> static gemm_fns preroundPick()
{
    static_assert(T::ROUND == fast::ROUND_NONE, "the pass rounds");
    if constexpr (TC_ONLY < 0 || TC_ONLY == I)
        return {[](const float *A, const float *B, float *C, int n) {
                    static float *a, *b; // kept for the next run of this size
                    static size_t have;
                    static const float *from[2]; // the operands a and b hold (!PASS)
                    size_t count = (size_t)n * n;
                    if (have != count) {
                        cudaFree(a), cudaFree(b);
                        CK(cudaMalloc(&a, count * 4));
                        CK(cudaMalloc(&b, count * 4));
                        have = count, from[0] = from[1] = NULL;
                    }
                    if (PASS || from[0] != A || from[1] != B)
                        fast::tcFastPrepare<T>(A, B, a, b, n, n, n); // n: a multiple of 32
                    from[0] = A, from[1] = B;
                    fast::tcFastLaunch<false, T>(a, b, C, n, n, n);
                },
                fastBlocks<false, T>};
    else
        return {NULL, NULL};
}
template <int I, bool HALF> static gemm_fns teachPick()
{
#if TC_TEACH
    if constexpr (TC_ONLY < 0 || TC_ONLY == I)
        return {teach::launch<HALF>, teach::blocks<HALF>};
#endif
    return {NULL, NULL};
}

struct variant {
    const char *name;
    bool half; // FP16 operands (else TF32)
    int tile;  // n must be a multiple of it
    gemm_fns fns;
};
// In the order bench/tc_gemm_bench.sh runs them: the likeliest fastest first.
static const variant variants[] = {
    {"teach-tf32", false, 1, teachPick<0, false>()},
    // A interleaved by the pass (no moves into A's registers); PTX mma.sync in place of
    // wmma::mma_sync; the kernel alone (the pass once, untimed); unpadded swizzled rows
    // (4 stages of 128 x 256; 2 blocks an SM of 128 x 128)
    {"pipe3-128x256-idx-ilv", false, 256, preroundPick<44, fast::Fast128x256Pipe3IdxIlv>()},
    {"pipe3-128x256-idx4late-ilv", false, 256, preroundPick<45, fast::Fast128x256Pipe3Idx4LateIlv>()},
    {"pipe3-128x256-idx-ilv-mma", false, 256, preroundPick<46, fast::Fast128x256Pipe3IdxIlvMma>()},
    {"pipe3-128x256-idx4late-ilv-mma", false, 256, preroundPick<47, fast::Fast128x256Pipe3Idx4LateIlvMma>()},
    {"pipe4-128x256-idx4late-ilv-swz", false, 256, preroundPick<48, fast::Fast128x256Pipe4Idx4LateIlvSwz>()},
    {"pipe3-128x128w4-idx4late-ilv-swz", false, 128, preroundPick<49, fast::Fast128x128w4Pipe3Idx4LateIlvSwz>()},
    {"pipe3-128x128w4-idx-ilv-swz", false, 128, preroundPick<50, fast::Fast128x128w4Pipe3IdxIlvSwz>()},
    {"pipe3-128x256-idx-mma", false, 256, preroundPick<36, fast::Fast128x256Pipe3IdxMma>()},
    {"pipe3-128x256-idx4late-mma", false, 256, preroundPick<37, fast::Fast128x256Pipe3Idx4LateMma>()},
    {"pipe3-128x256-idx-kernel", false, 256, preroundPick<34, fast::Fast128x256Pipe3Idx, false>()},
    {"pipe3-128x256-idx4late-kernel", false, 256, preroundPick<35, fast::Fast128x256Pipe3Idx4Late, false>()},
    {"pipe3-128x256-idx4late-mma-kernel", false, 256, preroundPick<38, fast::Fast128x256Pipe3Idx4LateMma, false>()},
    {"pipe3-128x256-idx-swz", false, 256, preroundPick<39, fast::Fast128x256Pipe3IdxSwz>()},
    {"pipe4-128x256-idx-swz", false, 256, preroundPick<40, fast::Fast128x256Pipe4IdxSwz>()},
    {"pipe4-128x256-idx4late-swz", false, 256, preroundPick<41, fast::Fast128x256Pipe4Idx4LateSwz>()},
    {"pipe3-128x128w4-idx4late-swz", false, 128, preroundPick<42, fast::Fast128x128w4Pipe3Idx4LateSwz>()},
    {"pipe3-128x128w4-idx-swz", false, 128, preroundPick<43, fast::Fast128x128w4Pipe3IdxSwz>()},
    {"pipe3-128x256", false, 256, fastPick<13, false, fast::Fast128x256Pipe3>()},
    {"pipe4-128x256", false, 256, fastPick<14, false, fast::Fast128x256Pipe4>()},
    {"pipe3-128x128w4", false, 128, fastPick<15, false, fast::Fast128x128w4Pipe3>()},
    {"pipe4-128x128w4k16", false, 128, fastPick<16, false, fast::Fast128x128w4k16Pipe4>()},
    {"pipe6-128x256k16", false, 256, fastPick<17, false, fast::Fast128x256k16Pipe6>()},
    {"pipe3-256x128", false, 256, fastPick<18, false, fast::Fast256x128Pipe3>()},
    {"pipe3-128x128", false, 128, fastPick<19, false, fast::Fast128x128Pipe3>()},
    {"pipe3-128x256-fround", false, 256, fastPick<20, false, fast::Fast128x256Pipe3Fround>()},
    {"pipe3-128x256-unrounded", false, 256, fastPick<21, false, fast::Fast128x256Pipe3Unrounded>()},
    {"pipe3-128x256-preround", false, 256, preroundPick<23, fast::Fast128x256Pipe3Unrounded>()},
    {"pipe3-128x256-bt", false, 256, preroundPick<24, fast::Fast128x256Pipe3Bt>()},
    {"pipe2-128x256k64-bt", false, 256, preroundPick<25, fast::Fast128x256k64Pipe2Bt>()},
    {"pipe3-128x128w4-bt", false, 128, preroundPick<26, fast::Fast128x128w4Pipe3Bt>()},
    {"pipe2-128x256k64", false, 256, fastPick<27, false, fast::Fast128x256k64Pipe2>()},
    {"pipe3-128x256-idx", false, 256, preroundPick<28, fast::Fast128x256Pipe3Idx>()},
    {"pipe3-128x128w4-idx", false, 128, preroundPick<29, fast::Fast128x128w4Pipe3Idx>()},
    {"pipe3-128x256-idx4", false, 256, preroundPick<30, fast::Fast128x256Pipe3Idx4>()},
    {"pipe3-128x128w4-idx4", false, 128, preroundPick<31, fast::Fast128x128w4Pipe3Idx4>()},
    {"pipe3-128x256-idx4late", false, 256, preroundPick<32, fast::Fast128x256Pipe3Idx4Late>()},
    {"pipe3-128x128w4-idx4late", false, 128, preroundPick<33, fast::Fast128x128w4Pipe3Idx4Late>()},
    {"async3-128x256-sround", false, 256, fastPick<22, false, fast::Fast128x256Async3Sround>()},
    {"async3-128x256", false, 256, fastPick<1, false, fast::Fast128x256Async3>()},
    {"async3-128x128", false, 128, fastPick<2, false, fast::Fast128x128Async3>()},
    {"regs-128x128", false, 128, fastPick<3, false, fast::Fast128x128Regs>()},
    {"async4-128x128k16", false, 128, fastPick<4, false, fast::Fast128x128k16Async4>()},
    {"async3-256x128", false, 256, fastPick<5, false, fast::Fast256x128Async3>()},
    {"regs-128x128k16", false, 128, fastPick<6, false, fast::Fast128x128k16Regs>()},
    {"regs-128x256", false, 256, fastPick<7, false, fast::Fast128x256Regs>()},
    {"async3-128x128-unrolled", false, 128, fastPick<8, false, fast::Fast128x128Async3Unrolled>()},
    {"async4-128x128k16-unrolled", false, 128, fastPick<9, false, fast::Fast128x128k16Async4Unrolled>()},
    {"async3-128x256-unrounded", false, 256, fastPick<10, false, fast::Fast128x256Async3Unrounded>()},
    {"teach-fp16", true, 1, teachPick<11, true>()},
    {"regs-128x128-fp16", true, 128, fastPick<12, true, fast::Fast128x128Regs>()},
};

#endif
