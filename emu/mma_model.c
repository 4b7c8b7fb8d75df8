/* mma_model — the tensor cores' sums of products, the H100's way, element by element:
 * what mma_fast.c computes faster where the sums are exact, and everything else.
 *
 * How the products are summed is not IEEE and the PTX ISA leaves it to the hardware.
 * This is the H100's, fitted to its results on 16384 random products with every input
 * type and found bit-exact on all of them (tests/emu/programs/mma_rounding.cu):
 * f16/bf16 inputs: the k products of one instruction (16 for m16n8k16 and wmma's k16, 8
 * for m16n8k8) are exact; each, and C, is cut toward zero to a fixed point whose last
 * bit is 2^(e-25), e the largest of C's exponent and the products' exponent sums (e(a) +
 * e(b), so a product's significand may reach 4); the fixed-point sum is rounded toward
 * zero to f32, or to nearest to f16 for an f16 accumulator. tf32: the inputs' low 13
 * bits are ignored and the products are summed four at a time in that way, each partial
 * result rounded toward zero to f32. NaN in gives the canonical NaN, an infinity (not met
 * by its opposite) stays one, as the H100 does (mma_specials.cu). f64: fused
 * multiply-adds in k order. Integers: exact, wrapping, or clamped with .satfinite.
 */
#include "mma_model.h"

#include <string.h>

#include "exec_internal.h"
#include "mma_fast.h"

#define MAXD MMA_MAXD

/* An input of the tensor cores' floating-point sum, decoded once per instruction:
 * significand * 2^e, and the exponent the alignment uses (field-based: a subnormal
 * counts as the smallest normal exponent). */
enum { TV_NUM, TV_ZERO, TV_NAN, TV_PINF, TV_NINF };
/* A zero's exponent: below every number's, so that the largest exponent of a sum and the
 * terms' shifts need no test of the kind (its mag is 0: it adds nothing). */
enum { TV_ZERO_EXPO = -16000 };
struct tv {
	uint32_t mag;
	int16_t e, expo;
	uint8_t kind, neg;
};

static inline __attribute__((always_inline)) struct tv decode_tv(unsigned t, uint64_t bits)
{
	unsigned mb, eb;
	uint32_t u;
	switch (t) {
	case MT_F16: mb = 10, eb = 5, u = (uint32_t)bits & 0xffff; break;
	case MT_BF16: mb = 7, eb = 8, u = (uint32_t)bits & 0xffff; break;
	case MT_TF32: mb = 10, eb = 8, u = (uint32_t)bits >> 13; break; /* 19 of the 32 bits */
	default: mb = 23, eb = 8, u = (uint32_t)bits; break;
	}
	uint32_t m = u & ((1u << mb) - 1), ex = u >> mb & ((1u << eb) - 1);
	int bias = (1 << (eb - 1)) - 1;
	struct tv v = {m, 0, 0, TV_NUM, (uint8_t)(u >> (mb + eb) & 1)};
	if (ex == (1u << eb) - 1)
		v.kind = m ? TV_NAN : v.neg ? TV_NINF : TV_PINF;
	else if (!ex && !m)
		v.kind = TV_ZERO;
	if (ex)
		v.mag |= 1u << mb;
	v.expo = (int16_t)(v.kind == TV_ZERO ? TV_ZERO_EXPO : (ex ? (int)ex : 1) - bias);
	v.e = (int16_t)(v.expo - (int)mb);
	return v;
}

/* The result for inputs with a NaN or an infinity, as IEEE says: NaN in (or inf - inf,
 * or 0 * inf), the canonical NaN out; otherwise the infinity. */
static uint64_t special_sum(const struct tv *a, const struct tv *b, unsigned n, struct tv c,
			    unsigned dt)
{
	int nan = c.kind == TV_NAN, pinf = c.kind == TV_PINF, ninf = c.kind == TV_NINF;
	for (unsigned i = 0; i < n; i++) {
		int ia = a[i].kind >= TV_PINF, ib = b[i].kind >= TV_PINF;
		if (a[i].kind == TV_NAN || b[i].kind == TV_NAN ||
		    (ia && b[i].kind == TV_ZERO) || (ib && a[i].kind == TV_ZERO))
			nan = 1;
		else if (ia || ib) {
			if (a[i].neg ^ b[i].neg)
				ninf = 1;
			else
				pinf = 1;
		}
	}
	if (nan || (pinf && ninf))
		return dt == MT_F16 ? 0x7fffu : 0x7fffffffu;
	return dt == MT_F16 ? (pinf ? 0x7c00u : 0xfc00u) : (pinf ? 0x7f800000u : 0xff800000u);
}

/* p * 2^sh cut toward zero (sh is at most 25 - 2 x the significand's stored bits, for a
 * product of numbers; a zero's is far below -64). */
static inline uint64_t shift_rz(uint64_t p, int sh)
{
	return sh >= 0 ? p << sh : p >> (-sh > 63 ? 63 : -sh);
}

/* c + the n products a[i] b[i] as the tensor core sums them (see the top), rounded
 * toward zero to f32, or to nearest to f16 (dt). `special`: some input may be a NaN or
 * an infinity (the caller knows it by row and column). */
static uint64_t tc_group(const struct tv *a, const struct tv *b, unsigned n, struct tv c,
			 unsigned dt, int special)
{
	if (special) {
		special = c.kind >= TV_NAN;
		for (unsigned i = 0; i < n; i++)
			special |= a[i].kind >= TV_NAN || b[i].kind >= TV_NAN;
		if (special)
			return special_sum(a, b, n, c, dt);
	}
	/* the numbers only: a zero's exponent loses to every number's (TV_ZERO_EXPO) */
	int emax = c.expo;
	for (unsigned i = 0; i < n; i++) {
		int x = a[i].expo + b[i].expo;
		emax = x > emax ? x : emax;
	}
	int g = emax - 25;
	uint64_t qc = shift_rz(c.mag, c.e - g);
	int64_t s = c.neg ? -(int64_t)qc : (int64_t)qc;
	for (unsigned i = 0; i < n; i++) {
		uint64_t q = shift_rz((uint64_t)a[i].mag * b[i].mag, a[i].e + b[i].e - g);
		s += (a[i].neg ^ b[i].neg) ? -(int64_t)q : (int64_t)q;
	}
	uint64_t mag = s < 0 ? (uint64_t)-s : (uint64_t)s;
	if (dt == MT_F16)
		return fmt_pack(FMT_F16, s < 0, mag, g, RND_RN, 0);
	return fmt_pack(FMT_F32, s < 0, mag, g, RND_RZ, 0);
}

/* The inputs of one row of A or column of B, as separate arrays so that the sums of
 * f16 and bf16 products vectorise (fast_sum). */
struct tv_rows {
	int32_t expo[MAXD][MAXD];
	uint32_t mag[MAXD][MAXD];
	uint32_t neg[MAXD][MAXD];
};

static void tv_split(struct tv_rows *S, struct tv (*T)[MAXD], unsigned rows, unsigned k)
{
	for (unsigned r = 0; r < rows; r++)
		for (unsigned i = 0; i < k; i++) {
			S->expo[r][i] = T[r][i].expo;
			S->mag[r][i] = T[r][i].mag;
			S->neg[r][i] = T[r][i].neg;
		}
}

/* tc_group of k f16 or bf16 products (mb stored significand bits) with no NaN or
 * infinity among them or in c, on the split rows: the same sum, term for term. */
#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
static uint64_t fast_sum(const int32_t *xa, const uint32_t *ma, const uint32_t *na,
			 const int32_t *xb, const uint32_t *mbv, const uint32_t *nb, unsigned k,
			 int mb, struct tv c, unsigned dt)
{
	int emax = c.expo;
	for (unsigned i = 0; i < k; i++) {
		int x = xa[i] + xb[i];
		emax = x > emax ? x : emax;
	}
	int g = emax - 25, base = g + 2 * mb;
	uint64_t qc = shift_rz(c.mag, c.e - g);
	int64_t s = c.neg ? -(int64_t)qc : (int64_t)qc;
	for (unsigned i = 0; i < k; i++) {
		int sh = xa[i] + xb[i] - base;
		uint64_t p = (uint64_t)ma[i] * mbv[i];
		uint64_t q = sh >= 0 ? p << (sh & 63) : p >> (-sh > 63 ? 63 : -sh);
		s += (na[i] ^ nb[i]) ? -(int64_t)q : (int64_t)q;
	}
	uint64_t mag = s < 0 ? (uint64_t)-s : (uint64_t)s;
	if (dt == MT_F16)
		return fmt_pack(FMT_F16, s < 0, mag, g, RND_RN, 0);
	return fmt_pack(FMT_F32, s < 0, mag, g, RND_RZ, 0);
}

/* One step of the f64 mma: a fused multiply-add, and the H100's NaNs (mma_specials.cu):
 * a NaN operand is passed on made quiet, B's before C's before A's; an invalid operation
 * (0 x inf, inf - inf) gives 0xfff8000000000000. */
static uint64_t dmma_fma(uint64_t a, uint64_t b, uint64_t c)
{
	const uint64_t quiet = 1ull << 51;
	if (isnan(f64(b)))
		return b | quiet;
	if (isnan(f64(c)))
		return c | quiet;
	if (isnan(f64(a)))
		return a | quiet;
	double r = fma(f64(a), f64(b), f64(c));
	return isnan(r) ? 0xfff8000000000000ull : mkf64(r);
}

/* One element of D from row a[] of A, column b[] of B (k elements) and c (bits). The
 * floating-point inputs come decoded (ta, tb; `special`: with a NaN or an infinity among
 * them), the others as bits. */
static uint64_t dot(const struct ptx_mma *mm, const uint64_t *a, const uint64_t *b,
		    const struct tv *ta, const struct tv *tb, int special, unsigned k, uint64_t c)
{
	unsigned it = mm->atype, dt = mm->dtype;
	if (it == MT_F64) {
		uint64_t acc = c;
		for (unsigned i = 0; i < k; i++)
			acc = dmma_fma(a[i], b[i], acc);
		return acc;
	}
	if (it == MT_S8 || it == MT_U8) {
		int sa = it == MT_S8, sb = mm->btype == MT_S8;
		int64_t acc = (int32_t)c;
		for (unsigned i = 0; i < k; i++)
			acc += (sa ? (int64_t)(int8_t)a[i] : (int64_t)(uint8_t)a[i]) *
			       (sb ? (int64_t)(int8_t)b[i] : (int64_t)(uint8_t)b[i]);
		if (mm->satfinite)
			acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
		return (uint32_t)acc;
	}
	unsigned group = it == MT_TF32 ? 4 : k;
	struct tv tc = mm->ctype == MT_F16 ? decode_tv(MT_F16, c) : decode_tv(MT_F32, c);
	uint64_t acc = c;
	for (unsigned k0 = 0; k0 < k; k0 += group) {
		if (k0) /* tf32: the next four onto the rounded sum */
			tc = decode_tv(MT_F32, acc);
		acc = tc_group(ta + k0, tb + k0, group, tc, dt, special || tc.kind >= TV_NAN);
	}
	return acc;
}

/* rows x k inputs of type t decoded; special[r]: row r holds a NaN or an infinity. The
 * type is a constant in each loop, so decode_tv's switch goes. */
static void decode_rows(struct tv (*T)[MAXD], uint8_t *special, const uint64_t (*X)[MAXD],
			unsigned rows, unsigned k, unsigned t)
{
#define DECODE_AS(TYPE)                                                                   \
	for (unsigned r = 0; r < rows; r++) {                                             \
		unsigned sp = 0;                                                          \
		for (unsigned i = 0; i < k; i++) {                                        \
			T[r][i] = decode_tv(TYPE, X[r][i]);                               \
			sp |= T[r][i].kind >= TV_NAN;                                     \
		}                                                                         \
		special[r] = (uint8_t)sp;                                                 \
	}
	switch (t) {
	case MT_F16: DECODE_AS(MT_F16); break;
	case MT_BF16: DECODE_AS(MT_BF16); break;
	default: DECODE_AS(MT_TF32); break;
	}
#undef DECODE_AS
}

static uint64_t mat_get(const union mma_mat *X, unsigned es, unsigned r, unsigned c)
{
	return es == 1 ? X->u8[r][c] : es == 2 ? X->u16[r][c] : es == 4 ? X->u32[r][c] : X->u64[r][c];
}

static void model_products(const struct ptx_mma *mm, struct mma_mats *x, int model);

void mma_products(const struct ptx_mma *mm, struct mma_mats *x, int model)
{
	if (model)
		memset(x->done, 0, sizeof x->done);
	else if (!mma_fast(mm, x))
		return;
	model_products(mm, x, model);
}

/* The elements mma_fast left (all with `model`), the model's way. */
static __attribute__((noinline)) void model_products(const struct ptx_mma *mm, struct mma_mats *x,
						     int model)
{
	static _Thread_local uint64_t A[MAXD][MAXD], B[MAXD][MAXD], C[MAXD][MAXD];
	static _Thread_local struct tv TA[MAXD][MAXD], TB[MAXD][MAXD];
	static _Thread_local uint8_t SA[MAXD], SB[MAXD];
	static _Thread_local struct tv_rows XA, XB;
	unsigned it = mm->atype, M = mm->m, N = mm->n, K = mm->k;
	/* the model's own forms: every element in 64 bits, B by column */
	unsigned ie = ptx_mtype_bits(it) / 8, ce = ptx_mtype_bits(mm->ctype) / 8;
	unsigned de = ptx_mtype_bits(mm->dtype) / 8;
	for (unsigned r = 0; r < M; r++)
		for (unsigned i = 0; i < K; i++)
			A[r][i] = mat_get(&x->a, ie, r, i);
	for (unsigned i = 0; i < K; i++)
		for (unsigned c = 0; c < N; c++)
			B[c][i] = mat_get(&x->b, ie, i, c);
	for (unsigned r = 0; r < M; r++)
		for (unsigned c = 0; c < N; c++)
			C[r][c] = mat_get(&x->c, ce, r, c);
	if (it == MT_F16 || it == MT_BF16 || it == MT_TF32) {
		decode_rows(TA, SA, A, M, K, it);
		decode_rows(TB, SB, B, N, K, it);
	}
	int fast = !model && (it == MT_F16 || it == MT_BF16);
	for (unsigned r = 0; fast && r < M; r++)
		fast = !SA[r];
	for (unsigned c = 0; fast && c < N; c++)
		fast = !SB[c];
	if (fast) {
		tv_split(&XA, TA, M, K);
		tv_split(&XB, TB, N, K);
	}
	int mbits = it == MT_F16 ? 10 : 7;
	for (unsigned r = 0; r < M; r++)
		for (unsigned c = 0; c < N; c++) {
			if (x->done[r][c])
				continue;
			struct tv tc;
			uint64_t v;
			if (fast && (tc = mm->ctype == MT_F16 ? decode_tv(MT_F16, C[r][c])
							 : decode_tv(MT_F32, C[r][c])).kind < TV_NAN)
				v = fast_sum(XA.expo[r], XA.mag[r], XA.neg[r], XB.expo[c], XB.mag[c],
					     XB.neg[c], K, mbits, tc, mm->dtype);
			else
				v = dot(mm, A[r], B[c], TA[r], TB[c], SA[r] | SB[c], K, C[r][c]);
			if (de == 2)
				x->d.u16[r][c] = (uint16_t)v;
			else if (de == 4)
				x->d.u32[r][c] = (uint32_t)v;
			else
				x->d.u64[r][c] = v;
		}
}
