// tc_gemm_check: every wmma GEMM of bench/tc_gemm_variants.cuh checked on the emulator
// (or a GPU) against a double-precision product on the host, with a bound derived from
// the formats rather than from another library (the emulator has no cuBLAS):
//   pmpplab run bench/tc_gemm_check.cu --backend emu [-- N [VARIANT...]]
// N (default 256) must be a multiple of every tile; no names: every variant.
// For C = A B with k terms, |C - exact| <= (2u + u^2 + k e) sum |a||b| per element, where u
// is the operands' unit roundoff (TF32 rounded to nearest: 2^-11; FP16: 2^-11; TF32
// truncated, the bench's unrounded variants: 2^-10) and e = 2^-23 bounds each FP32
// addition (2 ulps: the tensor cores' adders may truncate). A row says WRONG past it;
// "rounded" checks that the TF32 variants that round did: their error against the exact
// product of the TF32-rounded operands stays within the additions' share alone.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_util.cuh"

#include "tc_gemm_variants.cuh"

// x rounded to TF32 as cvt.rna.tf32.f32 does: to nearest, ties away from zero
static float roundTF32(float x)
{
    unsigned u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u)
        u = (u + 0x1000u) & 0xffffe000u;
    memcpy(&x, &u, 4);
    return x;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    if (n <= 0) {
        fprintf(stderr, "usage: %s [N [VARIANT...]]\n", argv[0]);
        return 2;
    }
    size_t count = (size_t)n * n;
    std::vector<float> A(count), B(count), C(count);
    unsigned h = 12345;
    for (size_t i = 0; i < count; i++) { // uniform in [-1, 1)
        h = h * 1664525u + 1013904223u;
        A[i] = (float)(h >> 8) / (float)(1 << 23) - 1.0f;
        h = h * 1664525u + 1013904223u;
        B[i] = (float)(h >> 8) / (float)(1 << 23) - 1.0f;
    }
    // exact (double) products of the operands as given, of them rounded to TF32, and the
    // sums of |a||b|
    std::vector<double> ref(count), refT(count, 0), mag(count, 0);
    for (int r = 0; r < n; r++)
        for (int q = 0; q < n; q++) {
            double s = 0, st = 0, m = 0;
            for (int p = 0; p < n; p++) {
                double a = A[(size_t)r * n + p], b = B[(size_t)p * n + q];
                s += a * b;
                st += (double)roundTF32((float)a) * roundTF32((float)b);
                m += fabs(a * b);
            }
            ref[(size_t)r * n + q] = s, refT[(size_t)r * n + q] = st, mag[(size_t)r * n + q] = m;
        }

    float *Ad, *Bd, *Cd;
    CK(cudaMalloc(&Ad, count * 4));
    CK(cudaMalloc(&Bd, count * 4));
    CK(cudaMalloc(&Cd, count * 4));
    CK(cudaMemcpy(Ad, A.data(), count * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(Bd, B.data(), count * 4, cudaMemcpyHostToDevice));
    const double e = ldexp(1, -23);
    int bad = 0, ran = 0;
    printf("%-27s %5s %10s %10s %s\n", "variant", "n", "err/bound", "errT/addn", "check");
    for (const variant &v : variants) {
        bool named = argc <= 2;
        for (int a = 2; a < argc; a++)
            named |= !strcmp(argv[a], v.name);
        if (!named || !v.fns.launch)
            continue;
        if (n % v.tile) {
            printf("%-27s %5d skipped: n must be a multiple of %d\n", v.name, n, v.tile);
            continue;
        }
        bool trunc = strstr(v.name, "unrounded") != NULL;
        double u = ldexp(1, trunc ? -10 : -11);
        CK(cudaMemset(Cd, 0xff, count * 4)); // NaNs where the kernel writes nothing
        v.fns.launch(Ad, Bd, Cd, n);
        CK(cudaGetLastError());
        CK(cudaMemcpy(C.data(), Cd, count * 4, cudaMemcpyDeviceToHost));
        double worst = 0, worstT = 0; // largest error over its bound
        for (size_t i = 0; i < count; i++) {
            double err = fabs(C[i] - ref[i]), bound = (2 * u + u * u + n * e) * mag[i];
            double errT = fabs(C[i] - refT[i]), addn = n * e * mag[i];
            if (!(err <= bound)) // NaN too
                worst = INFINITY;
            else
                worst = fmax(worst, err / bound);
            worstT = fmax(worstT, errT / addn);
        }
        // the rounded TF32 variants: only the additions' error (the operands are exact)
        bool roundedOk = v.half || trunc || worstT <= 1;
        bool ok = worst <= 1 && roundedOk;
        printf("%-27s %5d %10.3g %10.3g %s\n", v.name, n, worst, worstT,
               ok ? "ok" : worst > 1 ? "WRONG (past the bound)" : "WRONG (operands not rounded to TF32)");
        fflush(stdout);
        bad += !ok;
        ran++;
    }
    cudaFree(Ad), cudaFree(Bd), cudaFree(Cd);
    if (!ran) {
        fprintf(stderr, "%s: no variant of that name (bench/tc_gemm_variants.cuh)\n", argv[0]);
        return 2;
    }
    return bad ? 1 : 0;
}
