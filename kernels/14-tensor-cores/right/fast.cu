// Known-right, and lab 14's fast version: the solution's wmma product with what a tuned
// GEMM adds to it (bench/gpu_bench.sh times both against cuBLAS; bench/tc_gemm_bench.sh
// times every tiling below on a GPU, bench/tc_gemm_check.sh checks them on the emulator).
// What changes, and why:
//  - the next phase's tiles are read from global memory while the warps multiply the
//    current ones: into registers (REGS, 2 shared stages), or with cp.async straight into
//    one of 3-6 shared stages (ASYNC: no registers, no conversion on the way; TF32 only,
//    rounded to TF32 after each fragment's load, or once in shared memory: FastRound);
//  - PIPE: the next wmma step's fragments are loaded while the current ones multiply;
//  - global reads are float4s (16 bytes a thread, 512 bytes a warp), shared writes too;
//  - shared rows padded so that fragment loads hit 32 different banks: A's rows 16 bytes
//    longer (TF32: 36 floats, row r starts at bank 4r), B's 32 bytes (bank 8r);
//  - the matrices are copied into device buffers whose sizes are whole tiles (zeros
//    around), so the kernel has no bounds checks and every float4 is aligned; when the
//    sizes already are whole tiles (4096^3) nothing is padded;
//  - bigger tiles per warp where registers allow (64 x 64: 16 accumulator fragments), so
//    each fragment loaded from shared memory feeds more mma_sync;
//  - TF32 (FastTF32 below): a pass before the product rounds A and B to TF32 once,
//    transposes B and interleaves A's rows (ILV), and each lane fills its fragments
//    element by element, x[e], from float2 and float4 shared loads instead of
//    load_matrix_sync (IDX): half the load instructions, and each lane's A elements
//    already in register order. This fill relies on which elements each lane's x[e]
//    holds, a layout CUDA leaves unspecified: it is the H100's and H200's (sm_90 with
//    CUDA 13; the emulator reproduces it) and may differ on another GPU or CUDA version.
//    The portable choice is a tiling that loads with load_matrix_sync (Fast128x256Pipe3).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <stdio.h>
#include <type_traits>

using namespace nvcuda;

// A shared-memory address as PTX's st.shared takes it.
static __device__ __forceinline__ unsigned fastShared32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// The operand type in shared memory and the wmma shapes of each precision (as in the
// solution), and how 4 floats read from global memory are stored converted: one vector
// store, in PTX (written in C++, nvcc split it into four in the main loop, where it
// could not prove the address 16-byte aligned).
template <bool HALF> struct FastPrec;
template <> struct FastPrec<false> { // TF32: m16 n16 k8, operands kept as floats
    typedef float elem;
    typedef wmma::precision::tf32 frag;
    static const int FK = 8;
    __device__ static void store4(float *dst, float4 v)
    {
        asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(fastShared32(dst)),
                     "f"(wmma::__float_to_tf32(v.x)), "f"(wmma::__float_to_tf32(v.y)),
                     "f"(wmma::__float_to_tf32(v.z)), "f"(wmma::__float_to_tf32(v.w))
                     : "memory");
    }
};
template <> struct FastPrec<true> {  // FP16: m16 n16 k16
    typedef __half elem;
    typedef __half frag;
    static const int FK = 16;
    __device__ static void store4(__half *dst, float4 v)
    {
        __half2 lo = __floats2half2_rn(v.x, v.y), hi = __floats2half2_rn(v.z, v.w);
        asm volatile("st.shared.v2.b32 [%0], {%1, %2};\n" ::"r"(fastShared32(dst)),
                     "r"(*(unsigned *)&lo), "r"(*(unsigned *)&hi)
                     : "memory");
    }
};

enum FastCopy { REGS, ASYNC };
// Where a TF32 operand (cp.async copies raw floats) is rounded: each fragment after its
// load (FRAG), once in shared memory by the thread whose copy landed there (SHARED: one
// float4 read, converted and written back, instead of every fragment load converting),
// or not in the kernel (NONE: by a pass before it, tcFastPrepare, as tcFastRun does; the
// bench's -unrounded tilings skip the pass to measure what rounding costs, and their
// tensor cores see float bits that TF32 does not have). REGS rounds on its way into
// shared memory.
enum FastRound { ROUND_FRAG, ROUND_SHARED, ROUND_NONE };

// A tiling: BM x BN of C per block, BK deep per phase, WM x WN per warp, STAGES shared
// buffers, COPY how the next phase arrives, KU the wmma steps of a phase unrolled (0:
// all; unrolled steps let the compiler load fragments early, but need more registers).
// PIPE (ASYNC): the fragments of the next wmma step are loaded while the tensor cores
// work on the current ones (two sets in registers, every step unrolled), and the next
// phase's first fragments too: its wait and barrier come before the phase's last step,
// so the warps never stop with no product in flight.
// BT (PIPE; ROUND_NONE, the pass transposes B): B comes transposed (n x k, row-major:
// B's columns contiguous), kept so in shared memory and loaded as a col_major matrix_b
// fragment.
// IDX (BT): fragments filled element by element (x[e]) in the H100's
// fragment layout, two adjacent floats per load (float2, half the load instructions
// of load_matrix_sync): step s's k positions p and p + 4 of lane l hold k = 8s + 2(l % 4)
// and the next, the same for A and B, so the sum is the product's. Relies on a layout
// CUDA leaves unspecified (see the top of the file). IDX 2: float4s, each filling the
// fragments of two steps (k = 16u + 4(l % 4) + 2s' and the next, for steps 2u + s').
// MMA (IDX, bench only): each 16 x 16 x 8 product as two PTX mma.sync m16n8k8 on the
// fragments' registers (one HMMA.1688 each) instead of wmma::mma_sync (which nvcc 13
// builds from four HMMA.1684 for TF32): does wmma's lowering cap the throughput?
// SWZ (IDX, BK 32, bench only): rows unpadded, float4 q of row r stored at q ^ s(r)
// (s(r) = 4 (r & 1) + (r & 2)): the fragment loads and the copies still hit 32 banks,
// and a stage is a third smaller (IDX 2: 4 stages of 128 x 256 fit, 2 blocks of 128 x 128).
// With ILV, B's rows only (A's, of 64 floats, stay padded).
// ILV (IDX): A comes from the pass with rows g and g + 8 of each 16
// interleaved (row 8(r / 16) + r % 8, k at 2k + r % 16 / 8): one float4 holds a whole
// m16n8k8 A tile of a lane, in register order (the float2/float4 fill needs moves).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, FastCopy COPY_, int KU_ = 1,
          FastRound ROUND_ = ROUND_FRAG, bool PIPE_ = false, bool BT_ = false, int IDX_ = 0,
          bool MMA_ = false, bool SWZ_ = false, bool ILV_ = false>
struct FastTiling {
    static const int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_, KU = KU_;
    static const FastRound ROUND = ROUND_;
    static const FastCopy COPY = COPY_;
    static const bool PIPE = PIPE_, BT = BT_;
    static const int IDX = IDX_;
    static const bool MMA = MMA_, SWZ = SWZ_, ILV = ILV_;
    // A's tile in shared memory: AR rows of AK (ILV: BM / 2 rows of 2 BK)
    static const int AR = ILV ? BM / 2 : BM, AK = ILV ? 2 * BK : BK;
    static const int THREADS = (BM / WM) * (BN / WN) * 32;
    // at most 64K registers per SM: 2 blocks of 256 threads get 128 each, of 128 threads 255
    static const int MIN_BLOCKS = WM * WN <= 64 * 32 || THREADS <= 128 ? 2 : 1;
    template <class E> struct Layout {
        // + 16 bytes: row r at bank 4r (IDX 1: + 32, bank 8r: a half-warp's float2s, rows
        // g..g+3 x 8 floats, hit 32 banks; IDX 2: + 64, bank 16r, a quarter-warp's float4s)
        // (ILV: a quarter-warp's rows g and g + 1 16 bytes apart for IDX 2's float4 pairs,
        // 64 for IDX 1's single float4s; SWZ: no padding)
        static const int PADB = SWZ ? 0 : IDX == 2 ? 64 : IDX ? 32 : 16;
        static const int LDA = AK + (ILV ? IDX == 2 ? 16 : 64 : PADB) / (int)sizeof(E);
        static_assert(!ILV || BT, "ILV: B transposed");
        // + 32 bytes: row r at bank 8r (BT: rows of k as A's)
        static const int LDB = BT ? BK + PADB / (int)sizeof(E) : BN + 32 / (int)sizeof(E);
        static const int A_STAGE = AR * LDA, B_STAGE = BT ? BN * LDB : BK * LDB;
        static const size_t BYTES = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(E);
    };
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0, "warp tiles");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                  "every thread copies the same number of float4s");
    static_assert(STAGES >= 2 && (COPY == ASYNC || STAGES == 2), "REGS uses 2 stages");
    static_assert(!BT || PIPE, "BT: PIPE only");
    static_assert(!IDX || BT, "IDX: BT only");
    static_assert(IDX != 2 || BK % 32 == 0, "IDX 2: an even number of two-step groups a phase");
    static_assert(!MMA || IDX, "MMA: IDX only (fragments in the H100's layout)");
    static_assert(!(SWZ || ILV) || (IDX && BK == 32), "SWZ, ILV: IDX, rows of 32 floats");
    static_assert(!PIPE || (COPY == ASYNC && BK % 16 == 0),
                  "PIPE: cp.async, an even number of wmma steps a phase (each step's set fixed)");
};

// cp.async of 16 bytes, global to shared, around L1 (.cg), and its group operations.
// static: a kernel that does not call them has no cp.async in its PTX (the emulator
// refuses the instruction when it loads the module, called or not).
static __device__ __forceinline__ void fastCopyAsync16(void *shared, const void *global)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(shared);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(global));
}
static __device__ __forceinline__ void fastCommit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> static __device__ __forceinline__ void fastWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// acc += a b (TF32 16 x 16 x 8): wmma::mma_sync, or (MMA) the two m16n8k8 mma.sync it
// stands for in the H100's layout: acc.x[0..3] and b.x[0..1] columns 0-7, x[4..7] and
// b.x[2..3] columns 8-15, a.x[0..3] the m16n8k8 A tile.
template <bool MMA, class Acc, class FA, class FB>
static __device__ __forceinline__ void fastMma(Acc &acc, const FA &a, const FB &b)
{
    if constexpr (MMA) {
#pragma unroll
        for (int h = 0; h < 2; ++h)
            asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                "{%8, %9}, {%0, %1, %2, %3};\n"
                : "+f"(acc.x[4 * h]), "+f"(acc.x[4 * h + 1]), "+f"(acc.x[4 * h + 2]), "+f"(acc.x[4 * h + 3])
                : "r"(__float_as_uint(a.x[0])), "r"(__float_as_uint(a.x[1])), "r"(__float_as_uint(a.x[2])),
                  "r"(__float_as_uint(a.x[3])), "r"(__float_as_uint(b.x[2 * h])),
                  "r"(__float_as_uint(b.x[2 * h + 1])));
    } else {
        wmma::mma_sync(acc, a, b, acc);
    }
}

// C (m x n) = A (m x k) * B (k x n), row-major, m, n and k multiples of BM, BN and BK
// (the host pads). Block (x, y) computes C's tile (y, x) with its warps in a grid of
// (BM / WM) x (BN / WN), each WM x WN of it as 16 x 16 accumulator fragments.
template <bool HALF, class T>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
tcFastKernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
             int k, int n)
{
    typedef FastPrec<HALF> P;
    typedef typename P::elem E;
    typedef typename T::template Layout<E> L;
    const int FK = P::FK, FM = T::WM / 16, FN = T::WN / 16;
    const int A_VECS = T::BM * T::BK / 4 / T::THREADS, B_VECS = T::BK * T::BN / 4 / T::THREADS;
    static_assert(T::COPY == REGS || !HALF, "cp.async copies floats: TF32 only");
    extern __shared__ __align__(128) unsigned char fastShared[];
    E *As = (E *)fastShared, *Bs = As + T::STAGES * L::A_STAGE;

    int t = threadIdx.x, warp = t / 32;
    int wr = warp / (T::BN / T::WN), wc = warp % (T::BN / T::WN);
    const size_t lda = T::ILV ? 2 * k : k; // floats between rows of A (ILV: of A interleaved)
    const float *Ab = A + (size_t)blockIdx.y * T::AR * lda; // the block's rows of A
    // the block's columns of B (BT: its rows of B transposed)
    const float *Bb = B + (size_t)blockIdx.x * T::BN * (T::BT ? k : 1);
    int phases = k / T::BK;

    // Thread t copies float4 number t + i * THREADS of each tile: a warp reads whole rows,
    // and a thread's float4s are A_STEP (B_STEP) rows apart. eachA(ph, f) calls f(i, its
    // global address, its shared offset in a stage) for this thread's float4s of phase ph's
    // tile of A: one pointer walked down the rows (addresses precomputed for every float4
    // took registers the fragments need).
    static_assert(T::THREADS % (T::AK / 4) == 0 && T::THREADS % (T::BN / 4) == 0, "whole rows");
    static_assert(T::BT ? T::BN * T::BK / 4 % T::THREADS == 0 : true, "whole rows");
    const int B_ROW4 = (T::BT ? T::BK : T::BN) / 4; // float4s in a row of B's tile
    const int A_STEP = T::THREADS / (T::AK / 4), B_STEP = T::THREADS / B_ROW4;
    const int aRow = t / (T::AK / 4), aCol = t % (T::AK / 4) * 4;
    const int bRow = t / B_ROW4, bCol = t % B_ROW4 * 4;
    const size_t ldb = T::BT ? k : n; // floats between rows of B (BT: of B transposed)
    const float *Ag = Ab + (size_t)aRow * lda + aCol, *Bg = Bb + (size_t)bRow * ldb + bCol;
    // SWZ: float s(r) of row r's tile holds its float (q ^ s(r)); A_STEP and B_STEP are
    // multiples of 4, so a thread's rows share s
    static_assert(!T::SWZ || (A_STEP % 4 == 0 && B_STEP % 4 == 0), "SWZ: rows 4 apart");
    auto swz = [](int r) { return T::SWZ ? 4 * (4 * (r & 1) + (r & 2)) : 0; };
    const int aSwz = T::ILV ? aCol : aCol ^ swz(aRow), bSwz = bCol ^ swz(bRow);
    auto eachA = [&](int ph, auto f) {
        const float *g = Ag + ph * T::AK;
#pragma unroll
        for (int i = 0; i < A_VECS; ++i, g += (size_t)A_STEP * lda)
            f(i, g, (aRow + i * A_STEP) * L::LDA + aSwz);
    };
    auto eachB = [&](int ph, auto f) {
        const float *g = Bg + (T::BT ? ph * T::BK : (size_t)ph * T::BK * n);
#pragma unroll
        for (int i = 0; i < B_VECS; ++i, g += B_STEP * ldb)
            f(i, g, (bRow + i * B_STEP) * L::LDB + bSwz);
    };
    auto stageA = [&](int ph) { return As + (unsigned)ph % T::STAGES * L::A_STAGE; };
    auto stageB = [&](int ph) { return Bs + (unsigned)ph % T::STAGES * L::B_STAGE; };
    // generic (auto ph): instantiated only where called, under if constexpr (ASYNC)
    auto issueAsync = [&](auto ph) { // phase ph's tiles into stage ph % STAGES
        if (ph < phases) {
            E *as = stageA(ph), *bs = stageB(ph);
            eachA(ph, [&](int, const float *g, int s) { fastCopyAsync16(as + s, g); });
            eachB(ph, [&](int, const float *g, int s) { fastCopyAsync16(bs + s, g); });
        }
        fastCommit(); // an empty group past the last phase keeps the count of groups
    };
    float4 ra[T::COPY == REGS ? A_VECS : 1], rb[T::COPY == REGS ? B_VECS : 1];
    auto loadRegs = [&](auto ph) {
        eachA(ph, [&](int i, const float *g, int) { ra[i] = *(const float4 *)g; });
        eachB(ph, [&](int i, const float *g, int) { rb[i] = *(const float4 *)g; });
    };
    auto storeRegs = [&](auto ph) { // converted to the operand format on the way
        E *as = stageA(ph), *bs = stageB(ph);
        eachA(ph, [&](int i, const float *, int s) { P::store4(as + s, ra[i]); });
        eachB(ph, [&](int i, const float *, int s) { P::store4(bs + s, rb[i]); });
    };
    // ROUND_SHARED: this thread's copies of phase ph, landed, rounded to TF32 in place
    // (only it wrote them; the barrier after shows them to the others)
    auto roundOwn = [&](auto ph) {
        if constexpr (T::COPY == ASYNC && T::ROUND == ROUND_SHARED) {
            if (ph < phases) {
                E *as = stageA(ph), *bs = stageB(ph);
                eachA(ph, [&](int, const float *, int s) { P::store4(as + s, *(const float4 *)(as + s)); });
                eachB(ph, [&](int, const float *, int s) { P::store4(bs + s, *(const float4 *)(bs + s)); });
            }
        }
    };

    typedef wmma::fragment<wmma::matrix_a, 16, 16, FK, typename P::frag, wmma::row_major> FragA;
    typedef typename std::conditional<T::BT, wmma::col_major, wmma::row_major>::type LayoutB;
    typedef wmma::fragment<wmma::matrix_b, 16, 16, FK, typename P::frag, LayoutB> FragB;
    // a fragment of raw floats (cp.async, ROUND_FRAG) rounded to TF32 after its load
    auto load = [&](auto &f, const E *p, int ldm) {
        wmma::load_matrix_sync(f, p, ldm);
        if constexpr (T::COPY == ASYNC && T::ROUND == ROUND_FRAG)
#pragma unroll
            for (int e = 0; e < f.num_elements; ++e)
                f.x[e] = wmma::__float_to_tf32(f.x[e]);
    };
    wmma::fragment<wmma::accumulator, 16, 16, FK, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    if constexpr (T::IDX == 2) {
        // Fragments of two steps a group (16 k), group u of phase ph into set u % 2:
        // loaded after the group before has used its first step's, so at most one and a
        // half groups live (KU 1: after both steps', one group live).
        const int SETS = T::KU == 1 ? 1 : 2; // KU 1: one set, overwritten after its use
        FragA fa[SETS][2][FM];
        FragB fb[SETS][2][FN];
        auto loadGroup = [&](int set, int ph, int kk) {
            // the lane's row (B: column) g and k (kk + c, SWZ: where it went: rows g + 8 and
            // 16 j + g share g's s)
            int g = t % 32 / 4, c = (kk + t % 4 * 4) ^ swz(g);
            const E *bs = stageB(ph) + wc * T::WN * L::LDB + c;
#pragma unroll
            for (int j = 0; j < FN; ++j) {
                float4 lo = *(const float4 *)(bs + (j * 16 + g) * L::LDB);
                float4 hi = *(const float4 *)(bs + (j * 16 + g + 8) * L::LDB);
                fb[set][0][j].x[0] = lo.x, fb[set][0][j].x[1] = lo.y, fb[set][0][j].x[2] = hi.x, fb[set][0][j].x[3] = hi.y;
                fb[set][1][j].x[0] = lo.z, fb[set][1][j].x[1] = lo.w, fb[set][1][j].x[2] = hi.z, fb[set][1][j].x[3] = hi.w;
            }
            if constexpr (T::ILV) { // rows 16 i + g and + 8 in row 8 i + g, k at 2 k
                const E *as = stageA(ph) + (wr * T::WM / 2 + g) * L::LDA + 2 * (kk + t % 4 * 4);
#pragma unroll
                for (int i = 0; i < FM; ++i) {
                    float4 s0 = *(const float4 *)(as + i * 8 * L::LDA);
                    float4 s1 = *(const float4 *)(as + i * 8 * L::LDA + 4);
                    fa[set][0][i].x[0] = s0.x, fa[set][0][i].x[1] = s0.y, fa[set][0][i].x[2] = s0.z, fa[set][0][i].x[3] = s0.w;
                    fa[set][1][i].x[0] = s1.x, fa[set][1][i].x[1] = s1.y, fa[set][1][i].x[2] = s1.z, fa[set][1][i].x[3] = s1.w;
                }
            } else {
                const E *as = stageA(ph) + wr * T::WM * L::LDA + c;
#pragma unroll
                for (int i = 0; i < FM; ++i) {
                    float4 lo = *(const float4 *)(as + (i * 16 + g) * L::LDA);
                    float4 hi = *(const float4 *)(as + (i * 16 + g + 8) * L::LDA);
                    fa[set][0][i].x[0] = lo.x, fa[set][0][i].x[1] = hi.x, fa[set][0][i].x[2] = lo.y, fa[set][0][i].x[3] = hi.y;
                    fa[set][1][i].x[0] = lo.z, fa[set][1][i].x[1] = hi.z, fa[set][1][i].x[2] = lo.w, fa[set][1][i].x[3] = hi.w;
                }
            }
        };
        auto products = [&](FragA *a, FragB *b) {
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j)
                    fastMma<T::MMA>(acc[i][j], a[i], b[j]);
        };
        for (int s = 0; s < T::STAGES; ++s)
            issueAsync(s);
        fastWait<T::STAGES - 1>();
        roundOwn(0);
        __syncthreads();
        loadGroup(0, 0, 0);
        const int GROUPS = T::BK / 16;
        for (int ph = 0; ph < phases; ++ph) {
#pragma unroll
            for (int u = 0; u < GROUPS; ++u) {
                products(fa[u % SETS][0], fb[u % SETS][0]);
                if constexpr (T::KU == 1) // the next group's loads after both steps: fewer registers
                    products(fa[u % SETS][1], fb[u % SETS][1]);
                if (u + 1 < GROUPS) {
                    loadGroup((u + 1) % SETS, ph, (u + 1) * 16);
                } else {
                    fastWait<T::STAGES - 2>();
                    roundOwn(ph + 1);
                    __syncthreads(); // this stage's fragments are all in registers
                    if (ph + 1 < phases)
                        loadGroup(0, ph + 1, 0);
                }
                if constexpr (T::KU != 1)
                    products(fa[u % SETS][1], fb[u % SETS][1]);
                if (u + 1 == GROUPS)
                    issueAsync(ph + T::STAGES);
            }
        }
    } else if constexpr (T::PIPE) {
        // The fragments of wmma step kk of phase ph (stage ph % STAGES) into set s.
        FragA fa[2][FM];
        FragB fb[2][FN];
        auto loadStep = [&](int s, int ph, int kk) {
            const E *as = stageA(ph) + wr * T::WM * L::LDA + kk;
            // B's fragment j: 16 columns from wc * WN + j * 16, k from kk
            const E *bs = stageB(ph) + (T::BT ? wc * T::WN * L::LDB + kk : kk * L::LDB + wc * T::WN);
            if constexpr (T::IDX == 1) {
                // the lane's row (B: column) g and k (kk + c; SWZ: where it went)
                int g = t % 32 / 4, c = (kk + t % 4 * 2) ^ swz(g);
                const E *bl = stageB(ph) + wc * T::WN * L::LDB + c;
#pragma unroll
                for (int j = 0; j < FN; ++j) {
                    float2 lo = *(const float2 *)(bl + (j * 16 + g) * L::LDB);
                    float2 hi = *(const float2 *)(bl + (j * 16 + g + 8) * L::LDB);
                    fb[s][j].x[0] = lo.x, fb[s][j].x[1] = lo.y, fb[s][j].x[2] = hi.x, fb[s][j].x[3] = hi.y;
                }
                if constexpr (T::ILV) { // rows 16 i + g and + 8 in row 8 i + g, k at 2 k
                    const E *al = stageA(ph) + (wr * T::WM / 2 + g) * L::LDA + 2 * (kk + t % 4 * 2);
#pragma unroll
                    for (int i = 0; i < FM; ++i) {
                        float4 v = *(const float4 *)(al + i * 8 * L::LDA);
                        fa[s][i].x[0] = v.x, fa[s][i].x[1] = v.y, fa[s][i].x[2] = v.z, fa[s][i].x[3] = v.w;
                    }
                } else {
                    const E *al = stageA(ph) + wr * T::WM * L::LDA + c;
#pragma unroll
                    for (int i = 0; i < FM; ++i) {
                        float2 lo = *(const float2 *)(al + (i * 16 + g) * L::LDA);
                        float2 hi = *(const float2 *)(al + (i * 16 + g + 8) * L::LDA);
                        fa[s][i].x[0] = lo.x, fa[s][i].x[1] = hi.x, fa[s][i].x[2] = lo.y, fa[s][i].x[3] = hi.y;
                    }
                }
            } else {
#pragma unroll
                for (int j = 0; j < FN; ++j)
                    load(fb[s][j], bs + j * 16 * (T::BT ? L::LDB : 1), L::LDB);
#pragma unroll
                for (int i = 0; i < FM; ++i)
                    load(fa[s][i], as + i * 16 * L::LDA, L::LDA);
            }
        };
        // Every stage filled at the start; phase ph + STAGES goes into ph's stage as soon as
        // its last fragments are in registers: STAGES - 1 phases in flight while one is used.
        for (int s = 0; s < T::STAGES; ++s)
            issueAsync(s);
        fastWait<T::STAGES - 1>(); // this thread's copies of phase 0 have landed
        roundOwn(0);
        __syncthreads();
        loadStep(0, 0, 0);
        const int STEPS = T::BK / FK;
        for (int ph = 0; ph < phases; ++ph) {
#pragma unroll
            for (int step = 0; step < STEPS; ++step) {
                if (step + 1 < STEPS) {
                    loadStep((step + 1) % 2, ph, (step + 1) * FK);
                } else {
                    fastWait<T::STAGES - 2>(); // this thread's copies of phase ph + 1 have landed
                    roundOwn(ph + 1);
                    __syncthreads(); // everyone's have, and no warp reads stage ph % STAGES again
                    if (ph + 1 < phases)
                        loadStep(0, ph + 1, 0); // STEPS is even: step 0 always uses set 0
                }
#pragma unroll
                for (int i = 0; i < FM; ++i)
#pragma unroll
                    for (int j = 0; j < FN; ++j)
                        fastMma<T::MMA>(acc[i][j], fa[step % 2][i], fb[step % 2][j]);
                if (step + 1 == STEPS) // after the products: their fragments come first
                    issueAsync(ph + T::STAGES);
            }
        }
    } else {
        if constexpr (T::COPY == ASYNC) {
            for (int s = 0; s < T::STAGES - 1; ++s)
                issueAsync(s);
        } else {
            loadRegs(0);
            storeRegs(0);
            __syncthreads(); // phase 0's tiles are complete
        }

        for (int ph = 0; ph < phases; ++ph) {
            if constexpr (T::COPY == ASYNC) {
                fastWait<T::STAGES - 2>(); // this thread's copies of phase ph have landed
                roundOwn(ph);
                __syncthreads(); // everyone's have, and stage (ph - 1) % STAGES is free
                issueAsync(ph + T::STAGES - 1);
            } else {
                if (ph + 1 < phases)
                    loadRegs(ph + 1); // in flight while the warps multiply
            }
            const E *as = stageA(ph) + wr * T::WM * L::LDA;
            const E *bs = stageB(ph) + wc * T::WN;
#pragma unroll(T::KU ? T::KU : T::BK / FK)
            for (int kk = 0; kk < T::BK; kk += FK) {
                // B's fragments first; then each fragment of A, used at once against them:
                // fewer fragments live at a time than loading all of A's too
                FragB b[FN];
#pragma unroll
                for (int j = 0; j < FN; ++j)
                    load(b[j], bs + kk * L::LDB + j * 16, L::LDB);
#pragma unroll
                for (int i = 0; i < FM; ++i) {
                    FragA a;
                    load(a, as + i * 16 * L::LDA + kk, L::LDA);
#pragma unroll
                    for (int j = 0; j < FN; ++j)
                        wmma::mma_sync(acc[i][j], a, b[j], acc[i][j]);
                }
            }
            if constexpr (T::COPY == REGS) {
                if (ph + 1 < phases) {
                    // the other stage was last read in phase ph - 1, before the last barrier
                    storeRegs(ph + 1);
                    __syncthreads(); // phase ph + 1's tiles are complete
                }
            }
        }
    }

    // every tile is whole: each fragment goes straight to C (rows n floats apart)
    float *Cw = C + ((size_t)blockIdx.y * T::BM + wr * T::WM) * n + blockIdx.x * T::BN + wc * T::WN;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
            wmma::store_matrix_sync(Cw + (size_t)i * 16 * n + j * 16, acc[i][j], n, wmma::mem_row_major);
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

// The tilings the bench compares (bench/tc_gemm_bench.cu).
typedef FastTiling<128, 128, 32, 64, 32, 2, REGS> Fast128x128Regs;
typedef FastTiling<128, 128, 16, 64, 32, 2, REGS> Fast128x128k16Regs;
typedef FastTiling<128, 256, 32, 64, 64, 2, REGS> Fast128x256Regs;
typedef FastTiling<128, 128, 32, 64, 32, 3, ASYNC> Fast128x128Async3;
typedef FastTiling<128, 128, 32, 64, 32, 3, ASYNC, 0> Fast128x128Async3Unrolled;
typedef FastTiling<128, 128, 16, 64, 32, 4, ASYNC> Fast128x128k16Async4;
typedef FastTiling<128, 128, 16, 64, 32, 4, ASYNC, 0> Fast128x128k16Async4Unrolled;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC> Fast128x256Async3;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 1, ROUND_NONE> Fast128x256Async3Unrounded;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 1, ROUND_SHARED> Fast128x256Async3Sround;
// PIPE: fragments double-buffered, the next phase's wait before the last step
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_SHARED, true> Fast128x256Pipe3;
typedef FastTiling<128, 256, 32, 64, 64, 4, ASYNC, 0, ROUND_SHARED, true> Fast128x256Pipe4;
typedef FastTiling<128, 256, 16, 64, 64, 6, ASYNC, 0, ROUND_SHARED, true> Fast128x256k16Pipe6;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_FRAG, true> Fast128x256Pipe3Fround;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true> Fast128x256Pipe3Unrounded;
typedef FastTiling<256, 128, 32, 64, 64, 3, ASYNC, 0, ROUND_SHARED, true> Fast256x128Pipe3;
// BK 64: half the phases (barriers, waits) of BK 32, two stages of 102 KB
typedef FastTiling<128, 256, 64, 64, 64, 2, ASYNC, 0, ROUND_SHARED, true> Fast128x256k64Pipe2;
// B transposed and both operands rounded beforehand (the bench's pass): B's fragments load
// as col_major, A's as row_major, both with k contiguous in shared memory
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true> Fast128x256Pipe3Bt;
typedef FastTiling<128, 256, 64, 64, 64, 2, ASYNC, 0, ROUND_NONE, true, true> Fast128x256k64Pipe2Bt;
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true> Fast128x128w4Pipe3Bt;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, true> Fast128x256Pipe3Idx;
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, true> Fast128x128w4Pipe3Idx;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, 2> Fast128x256Pipe3Idx4;
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, 2> Fast128x128w4Pipe3Idx4;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 1, ROUND_NONE, true, true, 2> Fast128x256Pipe3Idx4Late;
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 1, ROUND_NONE, true, true, 2> Fast128x128w4Pipe3Idx4Late;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, 1, true> Fast128x256Pipe3IdxMma;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 1, ROUND_NONE, true, true, 2, true> Fast128x256Pipe3Idx4LateMma;
// SWZ: unpadded rows, swizzled; ILV: A interleaved by the pass (no moves into A's registers)
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, 1, false, true> Fast128x256Pipe3IdxSwz;
typedef FastTiling<128, 256, 32, 64, 64, 4, ASYNC, 0, ROUND_NONE, true, true, 1, false, true> Fast128x256Pipe4IdxSwz;
typedef FastTiling<128, 256, 32, 64, 64, 4, ASYNC, 1, ROUND_NONE, true, true, 2, false, true> Fast128x256Pipe4Idx4LateSwz;
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 1, ROUND_NONE, true, true, 2, false, true> Fast128x128w4Pipe3Idx4LateSwz;
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, 1, false, true> Fast128x128w4Pipe3IdxSwz;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, 1, false, false, true> Fast128x256Pipe3IdxIlv;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 1, ROUND_NONE, true, true, 2, false, false, true> Fast128x256Pipe3Idx4LateIlv;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, 1, true, false, true> Fast128x256Pipe3IdxIlvMma;
typedef FastTiling<128, 256, 32, 64, 64, 3, ASYNC, 1, ROUND_NONE, true, true, 2, true, false, true> Fast128x256Pipe3Idx4LateIlvMma;
typedef FastTiling<128, 256, 32, 64, 64, 4, ASYNC, 1, ROUND_NONE, true, true, 2, false, true, true> Fast128x256Pipe4Idx4LateIlvSwz;
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 1, ROUND_NONE, true, true, 2, false, true, true> Fast128x128w4Pipe3Idx4LateIlvSwz;
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 0, ROUND_NONE, true, true, 1, false, true, true> Fast128x128w4Pipe3IdxIlvSwz;
// 4 warps of 64 x 64: two blocks an SM (255 registers each), so one block's barrier
// leaves the other's warps working
typedef FastTiling<128, 128, 32, 64, 64, 3, ASYNC, 0, ROUND_SHARED, true> Fast128x128w4Pipe3;
typedef FastTiling<128, 128, 16, 64, 64, 4, ASYNC, 0, ROUND_SHARED, true> Fast128x128w4k16Pipe4;
typedef FastTiling<128, 128, 32, 64, 32, 3, ASYNC, 0, ROUND_SHARED, true> Fast128x128Pipe3;
typedef FastTiling<256, 128, 32, 64, 64, 3, ASYNC> Fast256x128Async3;
// The lab's. TF32: rounded, B transposed and A interleaved by the pass (tcFastPrepare),
// then cp.async straight into 3 shared stages of 128 x 256, 64 x 64 per warp, fragments
// double-buffered and filled from float2/float4 loads (IDX, ILV: the layout caveat at the
// top of the file). H200, 2026-11-28, 4096^3, the pass timed with the product
// (TC_VARIANTS='pipe3-128x256-idx(4late)?(-ilv|-ilv-mma|-mma|-kernel)?|...' (16 variants)
// bash bench/tc_gemm_bench.sh 4096):
// 169.4 TFLOP/s, 46.6% of cuBLAS TF32 (363.5 in that process), against 130.2 (34.0%) for
// the same without the interleave (Fast128x256Pipe3Idx); Fast128x256Pipe3, the fastest
// with load_matrix_sync (portable), ran at 98.2 (24.2%) on the same H200 at 03:40.
// wmma::mma_sync alone reaches 241 (bench/tc_mma_ceiling.cu). PTX mma.sync in place of
// wmma::mma_sync (MMA: outside the wmma API the lab teaches) goes further: 200.2 (52.7%)
// for this tiling, 215.1 (55.6%) for Fast128x256Pipe3Idx4LateIlvMma; mma.sync alone 320.
// FP16 through registers, converted to half on the way.
typedef Fast128x256Pipe3IdxIlv FastTF32;
typedef Fast128x128Regs FastFP16;

// count4 float4s rounded to TF32 (out may be in)
__global__ void fastRoundTF32(const float4 *in, float4 *out, size_t count4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count4; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = in[i];
        out[i] = make_float4(wmma::__float_to_tf32(v.x), wmma::__float_to_tf32(v.y),
                             wmma::__float_to_tf32(v.z), wmma::__float_to_tf32(v.w));
    }
}
// in (rows x cols, multiples of 32) rounded to TF32 and transposed into out (cols x rows):
// 32 x 32 tiles through shared memory, both sides' accesses coalesced
__global__ void fastTransposeTF32(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[32][33]; // + 1: a column of the tile hits 32 banks
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int r = 0; r < 32; r += 8)
        tile[threadIdx.y + r][threadIdx.x] = wmma::__float_to_tf32(in[(size_t)(y + r) * cols + x]);
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x, y = blockIdx.x * 32 + threadIdx.y;
    for (int r = 0; r < 32; r += 8)
        out[(size_t)(y + r) * rows + x] = tile[threadIdx.x][threadIdx.y + r];
}
// in (rows x cols, rows a multiple of 16) rounded to TF32 into out with rows r and r + 8
// of each 16 interleaved (ILV): out row 8 (r / 16) + r % 8 holds at 2c and 2c + 1 the
// elements (r, c) and (r + 8, c); rows / 2 x 2 cols, both sides' accesses coalesced
__global__ void fastInterleaveTF32(const float *in, float2 *out, int rows, int cols)
{
    size_t half = (size_t)rows / 2 * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < half; i += (size_t)gridDim.x * blockDim.x) {
        size_t ro = i / cols, c = i % cols, r = ro / 8 * 16 + ro % 8;
        out[i] = make_float2(wmma::__float_to_tf32(in[r * cols + c]), wmma::__float_to_tf32(in[(r + 8) * cols + c]));
    }
}
// The operands as a tiling that rounds nothing (ROUND_NONE) takes them: A (m x k) rounded
// to TF32 into a (interleaved where T::ILV), B (k x n) into b, transposed (n x k) where
// T::BT; m, k and n multiples of 32. a may be A unless T::ILV; b may be B unless T::BT.
template <class T>
void tcFastPrepare(const float *A, const float *B, float *a, float *b, int m, int k, int n,
                   cudaStream_t stream = 0)
{
    // a grid-stride pass over count items: a thread each, at most 1056 blocks (8 an SM)
    auto blocks = [](size_t count) {
        size_t b = (count + 255) / 256;
        return (unsigned)(b < 1056 ? b : 1056);
    };
    auto round = [&](const float *in, float *out, size_t count) {
        fastRoundTF32<<<blocks(count / 4), 256, 0, stream>>>((const float4 *)in, (float4 *)out, count / 4);
    };
    if constexpr (T::ILV)
        fastInterleaveTF32<<<blocks((size_t)m / 2 * k), 256, 0, stream>>>(A, (float2 *)a, m, k);
    else
        round(A, a, (size_t)m * k);
    if constexpr (T::BT)
        fastTransposeTF32<<<dim3(n / 32, k / 32), dim3(32, 8), 0, stream>>>(B, b, k, n);
    else
        round(B, b, (size_t)k * n);
}

// Launches the kernel on device matrices whose sizes are whole tiles of T (ROUND_NONE:
// operands rounded, and B transposed where T::BT: tcFastPrepare).
template <bool HALF, class T>
void tcFastLaunch(const float *A_d, const float *B_d, float *C_d, int m, int k, int n,
                  cudaStream_t stream = 0)
{
    size_t bytes = T::template Layout<typename FastPrec<HALF>::elem>::BYTES;
    static bool allowed; // more than 48 KiB of shared memory: asked once per kernel
    if (!allowed) {
        CHECK(cudaFuncSetAttribute(tcFastKernel<HALF, T>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        // all of L1 as shared memory (cp.async.cg bypasses L1): else the driver may carve
        // out room for one block an SM where MIN_BLOCKS asks for two
        CHECK(cudaFuncSetAttribute(tcFastKernel<HALF, T>,
                                   cudaFuncAttributePreferredSharedMemoryCarveout,
                                   cudaSharedmemCarveoutMaxShared));
    }
    allowed = true;
    dim3 grid(n / T::BN, m / T::BM);
    tcFastKernel<HALF, T><<<grid, T::THREADS, bytes, stream>>>(A_d, B_d, C_d, k, n);
}

#ifndef TC_GEMM_BENCH // bench/tc_gemm_bench.cu launches the tilings itself
// A rows x cols host matrix into a device buffer rows_p x cols_p (zeros around it).
static float *toDevicePadded(const float *h, int rows, int cols, int rows_p, int cols_p)
{
    float *d;
    size_t bytes = (size_t)rows_p * cols_p * sizeof(float);
    CHECK(cudaMalloc((void **)&d, bytes));
    if (rows_p != rows || cols_p != cols)
        CHECK(cudaMemset(d, 0, bytes));
    CHECK(cudaMemcpy2D(d, cols_p * sizeof(float), h, cols * sizeof(float),
                       cols * sizeof(float), rows, cudaMemcpyHostToDevice));
    return d;
}

static int roundUp(int x, int to) { return (x + to - 1) / to * to; }

// C = A B on the host's matrices with tiling T: padded to whole tiles and back.
template <bool HALF, class T>
static void tcFastRun(const float *A_h, const float *B_h, float *C_h, int m, int k, int n)
{
    int mp = roundUp(m, T::BM), kp = roundUp(k, T::BK), np = roundUp(n, T::BN);
    float *A_d = toDevicePadded(A_h, m, k, mp, kp);
    float *B_d = toDevicePadded(B_h, k, n, kp, np);
    float *C_d;
    CHECK(cudaMalloc((void **)&C_d, (size_t)mp * np * sizeof(float)));
    if constexpr (!HALF && T::ROUND == ROUND_NONE) { // rounded (rearranged) here, once
        float *a = A_d, *b = B_d;
        if (T::ILV)
            CHECK(cudaMalloc((void **)&a, (size_t)mp * kp * sizeof(float)));
        if (T::BT)
            CHECK(cudaMalloc((void **)&b, (size_t)kp * np * sizeof(float)));
        tcFastPrepare<T>(A_d, B_d, a, b, mp, kp, np);
        if (a != A_d) {
            CHECK(cudaFree(A_d));
            A_d = a;
        }
        if (b != B_d) {
            CHECK(cudaFree(B_d));
            B_d = b;
        }
    }

    tcFastLaunch<HALF, T>(A_d, B_d, C_d, mp, kp, np);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy2D(C_h, n * sizeof(float), C_d, np * sizeof(float), n * sizeof(float), m,
                       cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}

void tcMatMul(const float *A_h, const float *B_h, float *C_h, int m, int k, int n, int precision)
{
    if (precision == 16)
        tcFastRun<true, FastFP16>(A_h, B_h, C_h, m, k, n);
    else
        tcFastRun<false, FastTF32>(A_h, B_h, C_h, m, k, n);
}
#endif
