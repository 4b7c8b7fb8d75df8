/* mma_fast — the tensor-core products on whole matrices, the fast way (mma_fast.h).
 *
 * mma_model.c's model sums each element of D as the H100 does: the f16/bf16/tf32 products
 * and C cut toward zero to a fixed point whose last bit is 2^(emax - 25), emax the largest
 * exponent among C's and the products'. Where no term has a set bit below that point
 * nothing is cut and the model's sum is the exact sum, computed here in double: a product
 * of two inputs of at most 24 significant bits is exact, and the terms of one element then
 * span at most 32 bits, so every partial sum is exact too, in any order (vector FMAs along
 * D's rows). The exact sum is then rounded as the model rounds it. Whether nothing is cut
 * is decided from bounds, for every element at once: the products' exponents are at most
 * EA + EB (the largest of A's and of B's) and their lowest set bits at least LA + LB (the
 * lowest of any element of A, of B: an odd significand times an odd one is odd); C's
 * element by element. NVIDIA's GEMM samples (small integers, C scaled by a float) always
 * pass; random floats over many binades do not, and go to the model.
 *
 * Integers: int32 sums (32 products of two 8-bit values fit), wrapped or clamped as the
 * model does. f64: fused multiply-adds in k order, as the model; its NaN rules only
 * matter for a NaN result, which goes back to it.
 */
#include "mma_fast.h"

#include <cpuid.h>
#include <math.h>
#include <string.h>
#include <fenv.h>

#if EMU_CLONES
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default"))) /* emu/meson.build */
#else
#define CLONES
#endif

#define MD MMA_MAXD
enum { NOBIT = 16000 }; /* a zero's exponent (-NOBIT) and lowest bit (NOBIT): no extreme */

static inline uint64_t dbits(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

static inline double dfrom(uint64_t u)
{
	double d;
	memcpy(&d, &u, 8);
	return d;
}

/* GCC's vector extensions (clang has them too): 8 lanes of 32 bits, 4 of 64. In the
 * x86-64-v3 clone each is one AVX2 register, elsewhere two SSE2 ones; the compiler's own
 * vectoriser left these loops scalar (their selects and reductions). */
/* the helpers taking and giving 32-byte vectors are static and always inlined: no ABI
 * (GCC and clang both know the warning) */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef int32_t v8si __attribute__((vector_size(32)));
typedef uint32_t v8su __attribute__((vector_size(32)));
typedef float v8sf __attribute__((vector_size(32)));
typedef uint16_t v8hu __attribute__((vector_size(16)));
typedef float v4sf __attribute__((vector_size(16)));
typedef int32_t v4si __attribute__((vector_size(16)));
typedef double v4df __attribute__((vector_size(32)));
typedef int64_t v4di __attribute__((vector_size(32)));
typedef uint64_t v4du __attribute__((vector_size(32)));

#define LOADV(T, p) ({ T v_; memcpy(&v_, (p), sizeof v_); v_; })
#define STOREV(p, v) do { __typeof__(v) v_ = (v); memcpy((p), &v_, sizeof v_); } while (0)

/* 8 inputs of type t (f16, bf16 or tf32 bits) as the f32 bits of the same values (NaN
 * and infinities apart: *special gets a lane's -1). */
static inline __attribute__((always_inline)) v8su as_f32(unsigned t, const void *p, v8si *special)
{
	if (t == MT_TF32) {
		v8su u = LOADV(v8su, p);
		*special |= (v8si)((u & 0x7f800000) == 0x7f800000);
		return u & 0xffffe000u;
	}
	v8su h = __builtin_convertvector(LOADV(v8hu, p), v8su);
	if (t == MT_BF16) {
		*special |= (v8si)((h & 0x7f80) == 0x7f80);
		return h << 16;
	}
	*special |= (v8si)((h & 0x7c00) == 0x7c00);
	/* the 15 magnitude bits where f32's go, then scaled by the biases' difference */
	v8sf f = (v8sf)((h & 0x7fff) << 13) * 0x1p112f;
	return (v8su)f | (h & 0x8000) << 16;
}

/* Of f32 bits u: the exponent the model aligns on (field-based: a subnormal counts as the
 * smallest normal exponent, emin of the input's own format), and the weight of the
 * lowest set bit; a zero's: -NOBIT and NOBIT. */
static inline __attribute__((always_inline)) v8si f32_expo(v8su u, int emin)
{
	v8si ef = (v8si)(u >> 23 & 0xff), e = ef - 127 + ((ef == 0) & 1);
	v8si low = e < emin, zero = (v8si)((u & 0x7fffffff) == 0);
	e = (low & emin) | (~low & e);
	return (zero & -NOBIT) | (~zero & e);
}

static inline __attribute__((always_inline)) v8si f32_lsb(v8su u)
{
	v8si ef = (v8si)(u >> 23 & 0xff), normal = ef != 0;
	v8su m = (u & 0x7fffff) | ((v8su)normal & 0x800000);
	/* m's lowest set bit alone, a power of two, as a float: its exponent is m's zero count */
	v8sf lowbit = __builtin_convertvector((v8si)(m & -m), v8sf);
	v8si tz = ((v8si)lowbit >> 23) - 127;
	v8si l = ef + (~normal & 1) - 150 + tz, zero = (v8si)((u & 0x7fffffff) == 0);
	return (zero & NOBIT) | (~zero & l);
}

/* The m x k inputs X of type t (A, or B with m and k its own k and n) as floats (exact),
 * with the largest exponent (as the model counts it), the lowest set bit, and whether a
 * NaN or an infinity is among them. k: 4, 8 or 16 (the lanes past k of a row of 4 are
 * loaded and not used). */
static inline __attribute__((always_inline)) void convert(unsigned t, const union mma_mat *X,
							  unsigned m, unsigned k, float (*a)[MD],
							  int *emax, int *lmin, int *spec)
{
	v8si big = {0}, lo = {0}, sp = {0};
	lo += NOBIT;
	v8si valid = {-1, -1, -1, -1, -(k > 4), -(k > 4), -(k > 4), -(k > 4)};
	for (unsigned r = 0; r < m; r++)
		for (unsigned i = 0; i < k; i += 8) {
			const void *p = t == MT_TF32 ? (const void *)&X->u32[r][i] : (const void *)&X->u16[r][i];
			v8si s = {0};
			v8su u = as_f32(t, p, &s);
			/* the largest magnitude has the largest exponent */
			v8si mag = (v8si)(u & 0x7fffffff) & valid, l = f32_lsb(u);
			l = (valid & l) | (~valid & NOBIT);
			v8si gt = mag > big, lt = l < lo;
			big = (gt & mag) | (~gt & big);
			lo = (lt & l) | (~lt & lo);
			sp |= s & valid;
			if (k > 4)
				STOREV(&a[r][i], (v8sf)u);
			else
				STOREV(&a[r][i], ((v4sf){((v8sf)u)[0], ((v8sf)u)[1], ((v8sf)u)[2], ((v8sf)u)[3]}));
		}
	int B = 0, L = NOBIT, S = 0;
	for (unsigned j = 0; j < 8; j++) {
		B = big[j] > B ? big[j] : B;
		L = lo[j] < L ? lo[j] : L;
		S |= sp[j];
	}
	const v8su bv = {(uint32_t)B}; /* lane 0 is the one read */
	const int emin = t == MT_F16 ? -14 : -126;
	*emax = f32_expo(bv, emin)[0];
	*lmin = L, *spec = S;
}

/* 8 elements of C (f32 bits) whose sums with the products nothing cuts: C's lowest bit
 * at or above the model's fixed point, the products' (LAB) too. The exponent alone
 * decides it where it can (C at least 2^(EAB - 2): its lowest bit is at most 23 below),
 * the lowest bit where not. NaN and infinities never. */
static inline __attribute__((always_inline)) v8si c_ok(v8su u, int EAB, int LAB)
{
	int lo = EAB - 2 + 127, hi = LAB + 25 + 127;
	lo = lo < 1 ? 1 : lo > 255 ? 255 : lo;
	hi = hi > 254 ? 254 : hi;
	v8si e = (v8si)(u >> 23 & 0xff), zero = (v8si)((u & 0x7fffffff) == 0);
	v8si ok = zero | ((e >= lo) & (e <= hi));
	int all = 1;
	for (unsigned j = 0; j < 8; j++)
		all &= ok[j] != 0;
	if (all)
		return ok;
	return (v8si)((u & 0x7f800000) != 0x7f800000) & (f32_lsb(u) >= EAB - 25) &
	       (LAB >= f32_expo(u, -126) - 25);
}

/* Row R of C as N/8 vectors, each lane still "the fast sum is the model's" (OK). */
static inline __attribute__((always_inline)) void row_load(const struct mma_mats *x, unsigned r,
							   unsigned N, v8su *cv, v8si *ok)
{
	for (unsigned j = 0; j < N / 8; j++)
		cv[j] = LOADV(v8su, &x->c.u32[r][8 * j]), ok[j] = (v8si){0} - 1;
}

/* Row R of D from CV; the lanes not OK are left to the model (done 0): how many. */
static inline __attribute__((always_inline)) unsigned
row_store(struct mma_mats *x, unsigned r, unsigned N, const v8su *cv, const v8si *ok)
{
	unsigned left = 0;
	for (unsigned j = 0; j < N / 8; j++) {
		STOREV(&x->d.u32[r][8 * j], cv[j]);
		for (unsigned c = 0; c < 8; c++) {
			x->done[r][8 * j + c] = (uint8_t)(ok[j][c] & 1);
			left += !ok[j][c];
		}
	}
	return left;
}

/* f16, bf16 or tf32 (t) with f32 C and D, M x N x K: see the top. Row by row of D, 8
 * elements (4 in double) at a time. */
static inline __attribute__((always_inline)) unsigned
float_product(unsigned t, unsigned M, unsigned N, unsigned K, struct mma_mats *x)
{
	float a[MD][MD], b[MD][MD];
	int EA, EB, LA, LB, sa, sb;
	convert(t, &x->a, M, K, a, &EA, &LA, &sa);
	convert(t, &x->b, K, N, b, &EB, &LB, &sb);
	int EAB = EA + EB, LAB = LA + LB;
	if (sa | sb || LAB < EAB - 25) {
		for (unsigned r = 0; r < M; r++)
			memset(x->done[r], 0, N);
		return M * N;
	}
	/* tf32: four products at a time, each partial sum rounded (exec_mma.c) */
	unsigned G = t == MT_TF32 ? 4 : K, left = 0;
	/* the products and their sums exact in float too (every one a multiple of 2^LAB
	 * below 2^(EAB + 2 + log2 G), inside float's range): then float vectors of 8 */
	int lg = G > 8 ? 4 : G > 4 ? 3 : 2;
	int in_float = LAB >= -149 && EAB + 2 + lg - LAB <= 24 && EAB + 2 + lg < 127;
	double bd[MD][MD];
	if (!in_float)
		for (unsigned i = 0; i < K; i++)
			for (unsigned c = 0; c < N; c++)
				bd[i][c] = b[i][c];
	if (in_float) {
		/* the products' sum is exact in float; C + it rounded once toward zero in
		 * float's own rounding mode is the model's exact sum cut to f32: no double
		 * vectors (a third of the product's time); results of the largest binade
		 * (where the rounding mode's overflow is not the model's) and subnormal ones
		 * left to the model, as before; a zero sum is +0 (RZ: x + -x = +0) */
		int mode = fegetround();
		fesetround(FE_TOWARDZERO);
		for (unsigned r = 0; r < M; r++) {
			v8su cv[MD / 8];
			v8si ok[MD / 8];
			row_load(x, r, N, cv, ok);
			for (unsigned k0 = 0; k0 < K; k0 += G) {
				v8sf P[MD / 8] = {{0}};
				for (unsigned i = k0; i < k0 + G; i++) {
					v8sf ai = (v8sf){0} + a[r][i];
					for (unsigned j = 0; j < N / 8; j++)
						P[j] += ai * LOADV(v8sf, &b[i][8 * j]);
				}
				for (unsigned j = 0; j < N / 8; j++) {
					ok[j] &= c_ok(cv[j], EAB, LAB);
					v8sf d = (v8sf)cv[j] + P[j];
					v8si e = (v8si)((v8su)d >> 23 & 0xff);
					ok[j] &= (d == 0) | ((e >= 1) & (e <= 253));
					cv[j] = (v8su)d;
				}
			}
			left += row_store(x, r, N, cv, ok);
		}
		fesetround(mode);
		return left;
	}
	for (unsigned r = 0; r < M; r++) {
		v8su cv[MD / 8];
		v8si ok[MD / 8];
		row_load(x, r, N, cv, ok);
		for (unsigned k0 = 0; k0 < K; k0 += G) {
			v4df S[MD / 4];
			for (unsigned j = 0; j < N / 8; j++) {
				ok[j] &= c_ok(cv[j], EAB, LAB);
				v8sf f = (v8sf)cv[j];
				S[2 * j] = __builtin_convertvector(((v4sf){f[0], f[1], f[2], f[3]}), v4df);
				S[2 * j + 1] = __builtin_convertvector(((v4sf){f[4], f[5], f[6], f[7]}), v4df);
			}
			for (unsigned i = k0; i < k0 + G; i++) {
				v4df ai = (v4df){0} + (double)a[r][i];
				for (unsigned j = 0; j < N / 4; j++)
					S[j] += ai * LOADV(v4df, &bd[i][4 * j]);
			}
			/* toward zero to f32: S is exact, so its low 29 significand bits go; a
			 * zero is +0 (the model's fixed point has no sign); subnormal and
			 * overflowing sums are left to the model */
			for (unsigned j = 0; j < N / 8; j++) {
				v4si f[2], in[2];
				for (unsigned h = 0; h < 2; h++) {
					v4df s = S[2 * j + h];
					v4di z = s == 0;
					v4df ax = (v4df)((v4di)s & 0x7fffffffffffffffll);
					v4di inr = z | ((ax >= 0x1p-126) & (ax < 0x1p128));
					v4sf cut = __builtin_convertvector(
						(v4df)((v4di)s & ~(v4di){0x1fffffff, 0x1fffffff, 0x1fffffff, 0x1fffffff}), v4sf);
					f[h] = (v4si)cut & ~__builtin_convertvector(z, v4si);
					in[h] = __builtin_convertvector(inr, v4si);
				}
				cv[j] = (v8su)(v8si){f[0][0], f[0][1], f[0][2], f[0][3],
						     f[1][0], f[1][1], f[1][2], f[1][3]};
				ok[j] &= (v8si){in[0][0], in[0][1], in[0][2], in[0][3],
						in[1][0], in[1][1], in[1][2], in[1][3]};
			}
		}
		left += row_store(x, r, N, cv, ok);
	}
	return left;
}

/* The shapes as constants, so that each loop is unrolled to its vectors and D's rows
 * stay in registers; others (none the decoder takes today) through the general loop. */
#define FLOAT_SHAPE(t, M, N, K)                                                           \
	if (m == (M) && n == (N) && k == (K))                                             \
		return float_product(t, M, N, K, x);
#define FLOAT_SHAPES(t)                                                                   \
	do {                                                                              \
		if ((t) == MT_TF32) {                                                     \
			FLOAT_SHAPE(t, 16, 16, 8)                                         \
			FLOAT_SHAPE(t, 16, 8, 8)                                          \
			FLOAT_SHAPE(t, 16, 8, 4)                                          \
		} else {                                                                  \
			FLOAT_SHAPE(t, 16, 16, 16)                                        \
			FLOAT_SHAPE(t, 32, 8, 16)                                         \
			FLOAT_SHAPE(t, 8, 32, 16)                                         \
			FLOAT_SHAPE(t, 16, 8, 16)                                         \
			FLOAT_SHAPE(t, 16, 8, 8)                                          \
		}                                                                         \
		return float_product(t, m, n, k, x);                                      \
	} while (0)

static CLONES unsigned float_products(unsigned t, unsigned m, unsigned n, unsigned k,
				      struct mma_mats *x)
{
	switch (t) {
	case MT_F16: FLOAT_SHAPES(MT_F16);
	case MT_BF16: FLOAT_SHAPES(MT_BF16);
	default: FLOAT_SHAPES(MT_TF32);
	}
}

/* s8/u8 (sa, sb: A, B signed): exact int32 sums, C added wrapping, or clamped with
 * .satfinite. Row by row of D, 8 elements at a time (N: 8, 16 or 32). */
typedef int8_t v8qi __attribute__((vector_size(8)));
typedef uint8_t v8qu __attribute__((vector_size(8)));
typedef int64_t v8di __attribute__((vector_size(64)));

static inline __attribute__((always_inline)) void
int_product(unsigned M, unsigned N, unsigned K, int sa, int sb, int sat, struct mma_mats *x)
{
	v8si b[MD][MD / 8];
	for (unsigned i = 0; i < K; i++)
		for (unsigned j = 0; j < N / 8; j++)
			b[i][j] = sb ? __builtin_convertvector(LOADV(v8qi, &x->b.u8[i][8 * j]), v8si)
				     : __builtin_convertvector(LOADV(v8qu, &x->b.u8[i][8 * j]), v8si);
	for (unsigned r = 0; r < M; r++) {
		v8si p[MD / 8] = {{0}};
		for (unsigned i = 0; i < K; i++) {
			int32_t a = sa ? (int8_t)x->a.u8[r][i] : x->a.u8[r][i];
			for (unsigned j = 0; j < N / 8; j++)
				p[j] += a * b[i][j];
		}
		for (unsigned j = 0; j < N / 8; j++) {
			v8si c = LOADV(v8si, &x->c.u32[r][8 * j]);
			if (sat) {
				v8di s = __builtin_convertvector(c, v8di) + __builtin_convertvector(p[j], v8di);
				v8di hi = s > INT32_MAX, lo = s < INT32_MIN;
				s = (hi & INT32_MAX) | (lo & INT32_MIN) | (~(hi | lo) & s);
				STOREV(&x->d.u32[r][8 * j], __builtin_convertvector(s, v8si));
			} else
				STOREV(&x->d.u32[r][8 * j], (v8si)((v8su)c + (v8su)p[j]));
		}
	}
}

static CLONES void int_products(const struct ptx_mma *mm, struct mma_mats *x)
{
	int sa = mm->atype == MT_S8, sb = mm->btype == MT_S8, sat = mm->satfinite;
	if (mm->m == 16 && mm->n == 16 && mm->k == 16 && sa && sb) /* wmma's s8, u8 */
		int_product(16, 16, 16, 1, 1, sat, x);
	else if (mm->m == 16 && mm->n == 16 && mm->k == 16 && !sa && !sb)
		int_product(16, 16, 16, 0, 0, sat, x);
	else
		int_product(mm->m, mm->n, mm->k, sa, sb, sat, x);
}

/* f64: the model's fused multiply-adds in k order; NaN results left to it. */
static CLONES unsigned f64_products(unsigned M, unsigned N, unsigned K, struct mma_mats *x,
				    uint8_t (*done)[MD])
{
	double a[MD][MD], b[MD][MD], d[MD][MD];
	for (unsigned r = 0; r < M; r++)
		for (unsigned i = 0; i < K; i++)
			a[r][i] = dfrom(x->a.u64[r][i]);
	for (unsigned i = 0; i < K; i++)
		for (unsigned c = 0; c < N; c++)
			b[i][c] = dfrom(x->b.u64[i][c]);
	unsigned left = 0;
	for (unsigned r = 0; r < M; r++) {
		for (unsigned c = 0; c < N; c++)
			d[r][c] = dfrom(x->c.u64[r][c]);
		for (unsigned i = 0; i < K; i++)
			for (unsigned c = 0; c < N; c++)
				d[r][c] = __builtin_fma(a[r][i], b[i][c], d[r][c]);
		for (unsigned c = 0; c < N; c++) {
			int ok = !isnan(d[r][c]);
			x->d.u64[r][c] = dbits(d[r][c]);
			done[r][c] = (uint8_t)ok;
			left += !ok;
		}
	}
	return left;
}

/* m8n8k4 f64: lane l = 4g + t holds A[g][t] (register a[0]), B[t][g] (b[0]) and C[g][2t],
 * C[g][2t + 1] (c[0], c[1]; D likewise): A's register is A by row, B's is B by column, and
 * C's two are C's even and odd columns, each by row (frag_pos in mma_layout.c). So row g
 * of D's even columns is lanes 4g..4g+3 of d[0]: C's four there plus A[g][k] times row k
 * of B's even columns, k = 0..3, each an IEEE fma rounded once, as the model's chain. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

static __attribute__((target("avx2,fma"))) int dmma_avx2(uint64_t *R, const struct ptx_mma *mm)
{
	const double *A = (const double *)(R + (size_t)mm->a[0] * 32);
	const double *B = (const double *)(R + (size_t)mm->b[0] * 32);
	const double *Ce = (const double *)(R + (size_t)mm->c[0] * 32);
	const double *Co = (const double *)(R + (size_t)mm->c[1] * 32);
	/* B's rows k, even and odd columns: B[k][2t] at lane 8t + k, B[k][2t + 1] at 8t + 4 + k */
	__m256d be[4], bo[4];
	for (unsigned k = 0; k < 4; k++) {
		be[k] = _mm256_set_pd(B[24 + k], B[16 + k], B[8 + k], B[k]);
		bo[k] = _mm256_set_pd(B[28 + k], B[20 + k], B[12 + k], B[4 + k]);
	}
	__m256d de[8], dodd[8], nan = _mm256_setzero_pd();
	for (unsigned g = 0; g < 8; g++) {
		__m256d e = _mm256_loadu_pd(Ce + 4 * g), o = _mm256_loadu_pd(Co + 4 * g);
		for (unsigned k = 0; k < 4; k++) {
			__m256d a = _mm256_broadcast_sd(A + 4 * g + k);
			e = _mm256_fmadd_pd(a, be[k], e);
			o = _mm256_fmadd_pd(a, bo[k], o);
		}
		nan = _mm256_or_pd(nan, _mm256_cmp_pd(e, o, _CMP_UNORD_Q));
		de[g] = e, dodd[g] = o;
	}
	if (_mm256_movemask_pd(nan))
		return 0;
	/* after every read: D's registers may be A's, B's or C's */
	double *De = (double *)(R + (size_t)mm->d[0] * 32), *Do = (double *)(R + (size_t)mm->d[1] * 32);
	for (unsigned g = 0; g < 8; g++) {
		_mm256_storeu_pd(De + 4 * g, de[g]);
		_mm256_storeu_pd(Do + 4 * g, dodd[g]);
	}
	return 1;
}

/* The 16 x 16 f16 or bf16 (t) inputs X as floats f (exact), with the largest exponent
 * and the lowest set bit as convert() counts them; 0 where a NaN or an infinity is among
 * them, or an element's lowest bit lies 24 or more below the largest exponent (then no
 * sum of the product is exact in float: float16_avx2 gives up anyway). Scaled by
 * 2^(23 - emax), every element is then an integer below 2^24, and the lowest set bit of
 * them all is that of their OR. */
static inline __attribute__((always_inline, target("avx2,fma,f16c"))) int
convert16(unsigned t, const union mma_mat *X, float (*f)[16], int *emax, int *lmin)
{
	const __m256i magm = _mm256_set1_epi16(0x7fff);
	const __m256i expm = _mm256_set1_epi16(t == MT_F16 ? 0x7c00 : 0x7f80);
	__m256i h[16], mx = _mm256_setzero_si256(), sp = _mm256_setzero_si256();
	for (unsigned r = 0; r < 16; r++) {
		h[r] = _mm256_loadu_si256((const __m256i *)&X->u16[r][0]);
		mx = _mm256_max_epu16(mx, _mm256_and_si256(h[r], magm));
		sp = _mm256_or_si256(sp, _mm256_cmpeq_epi16(_mm256_and_si256(h[r], expm), expm));
	}
	if (!_mm256_testz_si256(sp, sp))
		return 0;
	/* the largest magnitude: the smallest complement */
	__m128i m8 = _mm_max_epu16(_mm256_castsi256_si128(mx), _mm256_extracti128_si256(mx, 1));
	unsigned big = 0xffffu - ((unsigned)_mm_cvtsi128_si32(_mm_minpos_epu16(
						  _mm_xor_si128(m8, _mm_set1_epi16(-1)))) & 0xffffu);
	if (!big) {
		memset(f, 0, 16 * sizeof *f);
		*emax = -NOBIT, *lmin = NOBIT;
		return 1;
	}
	int sh = t == MT_F16 ? 10 : 7, bias = t == MT_F16 ? 15 : 127;
	int E = (int)(big >> sh), EA = E ? E - bias : 1 - bias;
	if (EA < -100) /* 2^(23 - EA) is no float */
		return 0;
	const __m256 scale = _mm256_castsi256_ps(_mm256_set1_epi32((150 - EA) << 23));
	__m256i ors = _mm256_setzero_si256(), bad = _mm256_setzero_si256();
	for (unsigned r = 0; r < 16; r++)
		for (unsigned j = 0; j < 2; j++) {
			__m128i hj = j ? _mm256_extracti128_si256(h[r], 1) : _mm256_castsi256_si128(h[r]);
			__m256 v = t == MT_F16 ? _mm256_cvtph_ps(hj)
					       : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(hj), 16));
			_mm256_storeu_ps(&f[r][8 * j], v);
			__m256 y = _mm256_mul_ps(v, scale);
			__m256i yi = _mm256_cvttps_epi32(y);
			/* not an integer, or a nonzero element gone to zero */
			__m256 ne = _mm256_cmp_ps(_mm256_cvtepi32_ps(yi), y, _CMP_NEQ_UQ);
			__m256 lost = _mm256_andnot_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_EQ_OQ),
						       _mm256_cmp_ps(y, _mm256_setzero_ps(), _CMP_EQ_OQ));
			bad = _mm256_or_si256(bad, _mm256_castps_si256(_mm256_or_ps(ne, lost)));
			ors = _mm256_or_si256(ors, yi);
		}
	if (!_mm256_testz_si256(bad, bad))
		return 0;
	__m128i o4 = _mm_or_si128(_mm256_castsi256_si128(ors), _mm256_extracti128_si256(ors, 1));
	o4 = _mm_or_si128(o4, _mm_shuffle_epi32(o4, _MM_SHUFFLE(1, 0, 3, 2)));
	o4 = _mm_or_si128(o4, _mm_shuffle_epi32(o4, _MM_SHUFFLE(2, 3, 0, 1)));
	*emax = EA, *lmin = EA - 23 + __builtin_ctz((unsigned)_mm_cvtsi128_si32(o4));
	return 1;
}

/* c_ok of the 8 elements of C at C8, into OK8, through memory: a vector argument from
 * the AVX2 code to a function built for the base ISA changes the ABI (clang refuses it);
 * only the rare elements whose lowest bit decides come here. */
static __attribute__((noinline)) void c_ok_at(const uint32_t *c8, int EAB, int LAB, int32_t *ok8)
{
	v8su u;
	memcpy(&u, c8, sizeof u);
	v8si ok = c_ok(u, EAB, LAB);
	memcpy(ok8, &ok, sizeof ok);
}

/* m16n16k16 f16 or bf16 (t) with f32 C and D, all 256 elements where float_product's
 * in_float case holds for the whole product (the samples' products), none otherwise (0):
 * the products along D's rows as vector FMAs (exact here: every partial sum is), C added
 * once toward zero; no per-element bookkeeping. */
/* X's 16 x 16 elements of type t as convert16 gives them: from the entry of E (N of
 * them) holding the same bits, or converted into entry *next (round robin). */
static inline __attribute__((always_inline, target("avx2,fma,f16c"))) const struct mma_conv16 *
converted16(unsigned t, const union mma_mat *X, struct mma_conv16 *e, unsigned n, unsigned *next)
{
	__m256i r0 = _mm256_loadu_si256((const __m256i *)&X->u16[0][0]);
	for (unsigned i = 0; i < n; i++) {
		if (e[i].t != t + 1)
			continue;
		/* the first row apart: where it differs, the rest is not read */
		__m256i d = _mm256_xor_si256(r0, _mm256_load_si256((const __m256i *)e[i].raw[0]));
		if (!_mm256_testz_si256(d, d))
			continue;
		for (unsigned r = 1; r < 16; r++)
			d = _mm256_or_si256(d, _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)&X->u16[r][0]),
								 _mm256_load_si256((const __m256i *)e[i].raw[r])));
		if (_mm256_testz_si256(d, d))
			return &e[i];
	}
	struct mma_conv16 *c = &e[*next % n];
	*next = (*next + 1) % n;
	c->t = t + 1;
	c->ok = convert16(t, X, c->f, &c->emax, &c->lmin);
	for (unsigned r = 0; r < 16; r++)
		_mm256_store_si256((__m256i *)c->raw[r], _mm256_loadu_si256((const __m256i *)&X->u16[r][0]));
	return c;
}

static __attribute__((target("avx2,fma,f16c"))) int float16_avx2(unsigned t, struct mma_mats *x)
{
	unsigned zero = 0;
	const struct mma_conv16 *ca = converted16(t, &x->a, x->conv_a, MMA_CONV_A, &zero);
	const struct mma_conv16 *cb = converted16(t, &x->b, x->conv_b, MMA_CONV_B, &x->conv_b_next);
	if (!ca->ok || !cb->ok)
		return 0;
	const float (*a)[16] = ca->f, (*b)[16] = cb->f;
	int EA = ca->emax, EB = cb->emax, LA = ca->lmin, LB = cb->lmin;
	int EAB = EA + EB, LAB = LA + LB;
	/* float_product's conditions, G = K = 16 */
	if (LAB < EAB - 25 || LAB < -149 || EAB + 6 - LAB > 24 || EAB + 6 >= 127)
		return 0;
	/* c_ok's exponent bounds as magnitudes: C in [2^(lo - 127), 2^(hi - 126)) or zero;
	 * D a normal below 2^127 or zero (else the model's overflow and subnormal rules) */
	int lo = EAB - 2 + 127, hi = LAB + 25 + 127;
	lo = lo < 1 ? 1 : lo > 255 ? 255 : lo;
	hi = hi > 254 ? 254 : hi;
	const __m256 clo = _mm256_castsi256_ps(_mm256_set1_epi32(lo << 23));
	const __m256 chi = _mm256_castsi256_ps(_mm256_set1_epi32(hi < 0 ? 0 : (hi + 1) << 23));
	const __m256 dlo = _mm256_set1_ps(0x1p-126f), dhi = _mm256_set1_ps(0x1p127f);
	const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), z = _mm256_setzero_ps();
	int mode = fegetround();
	fesetround(FE_TOWARDZERO);
	__m256 ok = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
	for (unsigned r = 0; r < 16; r++) {
		__m256 p[2] = {z, z};
#pragma GCC unroll 16
		for (unsigned k = 0; k < 16; k++) {
			__m256 ak = _mm256_broadcast_ss(&a[r][k]);
			p[0] = _mm256_fmadd_ps(ak, _mm256_loadu_ps(&b[k][0]), p[0]);
			p[1] = _mm256_fmadd_ps(ak, _mm256_loadu_ps(&b[k][8]), p[1]);
		}
		for (unsigned j = 0; j < 2; j++) {
			__m256 c = _mm256_loadu_ps((const float *)&x->c.u32[r][8 * j]);
			__m256 d = _mm256_add_ps(c, p[j]), ac = _mm256_and_ps(c, absm), ad = _mm256_and_ps(d, absm);
			__m256 okc = _mm256_or_ps(_mm256_and_ps(_mm256_cmp_ps(ac, clo, _CMP_GE_OQ),
								 _mm256_cmp_ps(ac, chi, _CMP_LT_OQ)),
						  _mm256_cmp_ps(ac, z, _CMP_EQ_OQ));
			if (_mm256_movemask_ps(okc) != 0xff) { /* C's lowest bit decides */
				int32_t okv[8];
				c_ok_at(&x->c.u32[r][8 * j], EAB, LAB, okv);
				okc = _mm256_loadu_ps((const float *)okv);
			}
			__m256 okd = _mm256_or_ps(_mm256_and_ps(_mm256_cmp_ps(ad, dlo, _CMP_GE_OQ),
								 _mm256_cmp_ps(ad, dhi, _CMP_LT_OQ)),
						  _mm256_cmp_ps(ad, z, _CMP_EQ_OQ));
			ok = _mm256_and_ps(ok, _mm256_and_ps(okc, okd));
			_mm256_storeu_ps((float *)&x->d.u32[r][8 * j], d);
		}
	}
	fesetround(mode);
	return _mm256_movemask_ps(ok) == 0xff;
}

/* m16n16k16 s8/u8 (sa, sb: A, B signed): B's rows in pairs (2k, 2k + 1) interleaved to 16
 * bits, so that each 32-bit lane of a vpmaddwd is A[r][2k] B[2k][c] + A[r][2k + 1]
 * B[2k + 1][c] (at most 2 x 255 x 255: no overflow); eight of them the exact int32 sum;
 * C added wrapping or, with .satfinite, clamped (int_product's results). */
static __attribute__((target("avx2"))) void int16_avx2(int sa, int sb, int sat, struct mma_mats *x)
{
	__m256i bp[8][2];
	for (unsigned kp = 0; kp < 8; kp++) {
		__m128i r0 = _mm_loadu_si128((const __m128i *)x->b.u8[2 * kp]);
		__m128i r1 = _mm_loadu_si128((const __m128i *)x->b.u8[2 * kp + 1]);
		__m128i lo = _mm_unpacklo_epi8(r0, r1), hi = _mm_unpackhi_epi8(r0, r1);
		bp[kp][0] = sb ? _mm256_cvtepi8_epi16(lo) : _mm256_cvtepu8_epi16(lo);
		bp[kp][1] = sb ? _mm256_cvtepi8_epi16(hi) : _mm256_cvtepu8_epi16(hi);
	}
	for (unsigned r = 0; r < 16; r++) {
		__m128i ar = _mm_loadu_si128((const __m128i *)x->a.u8[r]);
		int32_t ap[8];
		_mm256_storeu_si256((__m256i *)ap, sa ? _mm256_cvtepi8_epi16(ar) : _mm256_cvtepu8_epi16(ar));
		__m256i p[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
#pragma GCC unroll 8
		for (unsigned kp = 0; kp < 8; kp++) {
			__m256i ak = _mm256_set1_epi32(ap[kp]);
			p[0] = _mm256_add_epi32(p[0], _mm256_madd_epi16(ak, bp[kp][0]));
			p[1] = _mm256_add_epi32(p[1], _mm256_madd_epi16(ak, bp[kp][1]));
		}
		for (unsigned j = 0; j < 2; j++) {
			__m256i c = _mm256_loadu_si256((const __m256i *)&x->c.u32[r][8 * j]);
			__m256i d = _mm256_add_epi32(c, p[j]);
			if (sat) { /* overflow: c and p of one sign, d of the other */
				__m256i ovf = _mm256_andnot_si256(_mm256_xor_si256(c, p[j]), _mm256_xor_si256(c, d));
				__m256i lim = _mm256_xor_si256(_mm256_srai_epi32(c, 31), _mm256_set1_epi32(INT32_MAX));
				d = _mm256_blendv_epi8(d, lim, _mm256_srai_epi32(ovf, 31));
			}
			_mm256_storeu_si256((__m256i *)&x->d.u32[r][8 * j], d);
		}
	}
}

static int int16(const struct ptx_mma *mm, struct mma_mats *x)
{
	if (!__builtin_cpu_supports("avx2"))
		return 0;
	int16_avx2(mm->atype == MT_S8, mm->btype == MT_S8, mm->satfinite, x);
	return 1;
}

/* F16C from CPUID leaf 1 (clang's __builtin_cpu_supports does not know "f16c"), read
 * once; the workers race only to store the same answer. */
static int has_f16c(void)
{
	static int known; /* 0: not read yet, 1: no, 2: yes */
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (!v) {
		unsigned a, b, c, d;
		v = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) ? 2 : 1;
		__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	}
	return v == 2;
}

static int float16(unsigned t, struct mma_mats *x)
{
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c())
		return float16_avx2(t, x);
	return 0;
}

int mma_fast_dmma(uint64_t *R, const struct ptx_mma *mm)
{
	/* two bits of libgcc's CPU model, read: cheap */
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return dmma_avx2(R, mm);
	return 0;
}
#else
static int float16(unsigned t, struct mma_mats *x)
{
	(void)t, (void)x;
	return 0;
}

static int int16(const struct ptx_mma *mm, struct mma_mats *x)
{
	(void)mm, (void)x;
	return 0;
}

int mma_fast_dmma(uint64_t *R, const struct ptx_mma *mm)
{
	(void)R, (void)mm;
	return 0;
}
#endif

unsigned mma_fast(const struct ptx_mma *mm, struct mma_mats *x)
{
	uint8_t (*done)[MD] = x->done;
	unsigned M = mm->m, N = mm->n, K = mm->k;
	switch (mm->atype) {
	case MT_S8: case MT_U8:
		if (!(M == 16 && N == 16 && K == 16 && int16(mm, x)))
			int_products(mm, x);
		return 0; /* every element: done[] unread */
	case MT_F64:
		return f64_products(M, N, K, x, done);
	}
	if ((mm->atype == MT_F16 || mm->atype == MT_BF16 || mm->atype == MT_TF32) &&
	    mm->ctype == MT_F32 && mm->dtype == MT_F32) {
		if (mm->atype != MT_TF32 && M == 16 && N == 16 && K == 16 && float16(mm->atype, x))
			return 0;
		return float_products(mm->atype, M, N, K, x);
	}
	for (unsigned r = 0; r < M; r++)
		memset(done[r], 0, N);
	return M * N;
}
