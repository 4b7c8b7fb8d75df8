/* The tensor-core products' fast ways (mma_fast.c) against the H100's model (exec_mma.c)
 * on random matrices of every shape and type the decoder takes, bit for bit: small
 * integers (NVIDIA's GEMM samples), integers with C scaled by a float, integers whose sums
 * need more than float's 24 bits (with C both larger and smaller), values over narrow
 * and wide ranges of exponents, subnormals, NaN and infinities, sums that cancel to zero,
 * sums past f32's range, and for integers C near the int32 limits with and without
 * .satfinite. The model itself is checked against an H100's bits by the programs
 * mma_rounding.cu and mma_specials.cu; the fragments' layouts by wmma_*.cu, mma_sync.cu. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "exec_internal.h"
#include "mma_fast.h"
#include "mma_frag16.h"
#include "mma_model.h"

#define MD MMA_MAXD
#define TRIALS 400 /* random products per shape and type */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd32(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 32);
}
static unsigned below(unsigned n) { return rnd32() % n; }

enum mode { SMALL_INT, SCALED_C, NARROW, WIDE, SPECIALS, CANCEL, HUGE, TINY, SPREAD_INT, EDGE, NMODES };

/* A value of format f: sign, a significand of `bits` random bits, exponent in [lo, hi]
 * (rounded to the format by the model's own packer). */
static uint32_t fval(unsigned f, int bits, int lo, int hi)
{
	uint64_t mag = ((uint64_t)rnd32() << 32 | rnd32()) & ((1ull << bits) - 1);
	mag |= 1ull << (bits - 1);
	int e = lo + (int)below((unsigned)(hi - lo + 1)) - (bits - 1);
	return fmt_pack(f, (int)(rnd32() & 1), mag, e, RND_RN, 0);
}

static uint64_t special_bits(unsigned t)
{
	static const uint32_t f16[] = {0x7c00, 0xfc00, 0x7e00, 0x8000, 0x0001, 0x03ff, 0x7bff};
	static const uint32_t b16[] = {0x7f80, 0xff80, 0x7fc0, 0x8000, 0x0001, 0x007f, 0x7f7f};
	static const uint32_t f32[] = {0x7f800000, 0xff800000, 0x7fc00000, 0x80000000,
				       0x00000001, 0x007fffff, 0x7f7fffff};
	static const uint64_t f64[] = {0x7ff0000000000000ull, 0xfff0000000000000ull,
				       0x7ff8000000000000ull, 0x8000000000000000ull, 1,
				       0x7fefffffffffffffull, 0x7ff4000000000001ull};
	unsigned i = below(7);
	return t == MT_F16 ? f16[i] : t == MT_BF16 ? b16[i] : t == MT_F64 ? f64[i] : f32[i];
}

static int flat; /* this product's A and B (SPREAD_INT): all of the largest exponent */
/* EDGE: this product's A and B are `span`-bit integers times 2^0..2^spread, so that the
 * largest exponent and the lowest bit of each (and so whether the sums of a whole
 * product are exact in float) lie around float's 24 bits; C small integers */
static int span, spread;

/* One input of type t (an element of A or B when !is_c) in the given mode. */
static uint64_t value(unsigned t, enum mode md, int is_c)
{
	unsigned f = t == MT_F16 ? FMT_F16 : t == MT_BF16 ? FMT_BF16 : t == MT_TF32 ? FMT_TF32 : FMT_F32;
	int p = t == MT_F16 ? 11 : t == MT_BF16 ? 8 : 24;
	int emax = t == MT_F16 ? 15 : 127, emin = t == MT_F16 ? -14 : -126;
	if (t == MT_F64) {
		double d;
		switch (md) {
		case SMALL_INT: case CANCEL: d = (double)below(5) - 1; break;
		case SCALED_C: d = is_c ? (double)below(3) * 1.2 : (double)below(3); break;
		case WIDE: case HUGE: d = ldexp((double)(int32_t)rnd32(), (int)below(1900) - 1000); break;
		case TINY: d = ldexp((double)(int32_t)rnd32(), (int)below(60) - 1100); break;
		default: d = ldexp((double)(int32_t)rnd32(), (int)below(20) - 40); break;
		}
		uint64_t u;
		memcpy(&u, &d, 8);
		return md == SPECIALS && !below(6) ? special_bits(t) : u;
	}
	if (t == MT_S8 || t == MT_U8)
		return md == SMALL_INT ? below(3) : rnd32() & 0xff;
	if (t == MT_S32) { /* C of an integer product */
		uint32_t big[] = {0x7fffffff, 0x80000000, 0x7fff0000, 0x80010000};
		return md == HUGE ? big[below(4)] - below(1000) : md == SMALL_INT ? below(3) : rnd32();
	}
	if (is_c && t != MT_F16)
		f = FMT_F32, p = 24, emax = 127, emin = -126;
	switch (md) {
	case SMALL_INT:
	case CANCEL:
		return below(4) ? fmt_pack(f, (int)(rnd32() & 1), below(4), 0, RND_RN, 0) : 0;
	case SCALED_C: /* the samples: C times beta (1.2f), and later sums of it */
		if (!is_c)
			return fmt_pack(f, 0, below(3), 0, RND_RN, 0);
		return fmt_pack(f, 0, (uint64_t)below(3) * 10066330ull * (1 + below(300)), -23,
				RND_RN, 0);
	case NARROW: {
		uint32_t v = fval(f, p, -4, 4);
		/* tf32 inputs with the low 13 bits the tensor core ignores */
		return t == MT_TF32 && !is_c && (rnd32() & 1) ? v | (rnd32() & 0x1fff) : v;
	}
	case WIDE: return below(5) ? fval(f, p, emin - 10, emax) : 0;
	case SPECIALS: return below(6) ? fval(f, (int)below((unsigned)p) + 1, -3, 3) : special_bits(t);
	case HUGE: return fval(f, (int)below((unsigned)p) + 1, emax - 8, emax);
	case SPREAD_INT: { /* integers whose sums need more than float's 24 bits (all of a sign,
			    so that they do); C an integer, 2^-10 to 2^20 with all 24 bits, or past 2^26 */
		if (!below(5))
			return 0;
		if (is_c) {
			unsigned kind = below(3);
			return fmt_pack(f, (int)(rnd32() & 1), rnd32() & (kind ? 0xffffffu : 0xffffu),
					kind == 0 ? (int)below(9) : kind == 1 ? -33 + (int)below(30)
								  : 3 + (int)below(9), RND_RN, 0);
		}
		unsigned bits = t == MT_TF32 ? 8 : (unsigned)p - 2;
		unsigned up = t == MT_F16 ? 3 : t == MT_BF16 ? 7 : 5;
		if (flat) /* every product near the largest: the bounds' edge */
			return fmt_pack(f, 0, (rnd32() | 1u << (bits - 1)) & ((1u << bits) - 1),
					(int)up - 1, RND_RN, 0);
		return fmt_pack(f, 0, rnd32() & ((1u << bits) - 1), (int)below(up), RND_RN, 0);
	}
	case TINY: return fval(f, (int)below((unsigned)p) + 1, emin - 12, emin + 6);
	case EDGE: {
		if (is_c)
			return fmt_pack(f, 0, below(4), 0, RND_RN, 0);
		uint32_t m = rnd32() & ((1u << span) - 1);
		return fmt_pack(f, 0, flat ? m | 1u << (span - 1) : m, (int)below((unsigned)spread + 1),
				RND_RN, 0);
	}
	default: return 0;
	}
}

struct shape {
	const char *name;
	uint8_t kind, m, n, k, at, bt, ct, dt, sat;
};

static const struct shape shapes[] = {
	{"wmma m16n16k16 f16 f32", MMA_WMMA, 16, 16, 16, MT_F16, MT_F16, MT_F32, MT_F32, 0},
	{"wmma m32n8k16 f16 f32", MMA_WMMA, 32, 8, 16, MT_F16, MT_F16, MT_F32, MT_F32, 0},
	{"wmma m8n32k16 f16 f32", MMA_WMMA, 8, 32, 16, MT_F16, MT_F16, MT_F32, MT_F32, 0},
	{"wmma m16n16k16 f16 f16", MMA_WMMA, 16, 16, 16, MT_F16, MT_F16, MT_F16, MT_F16, 0},
	{"wmma m16n16k16 f16 c16 d32", MMA_WMMA, 16, 16, 16, MT_F16, MT_F16, MT_F16, MT_F32, 0},
	{"wmma m16n16k16 bf16", MMA_WMMA, 16, 16, 16, MT_BF16, MT_BF16, MT_F32, MT_F32, 0},
	{"wmma m32n8k16 bf16", MMA_WMMA, 32, 8, 16, MT_BF16, MT_BF16, MT_F32, MT_F32, 0},
	{"wmma m8n32k16 bf16", MMA_WMMA, 8, 32, 16, MT_BF16, MT_BF16, MT_F32, MT_F32, 0},
	{"wmma m16n16k8 tf32", MMA_WMMA, 16, 16, 8, MT_TF32, MT_TF32, MT_F32, MT_F32, 0},
	{"wmma m8n8k4 f64", MMA_WMMA, 8, 8, 4, MT_F64, MT_F64, MT_F64, MT_F64, 0},
	{"wmma m16n16k16 s8", MMA_WMMA, 16, 16, 16, MT_S8, MT_S8, MT_S32, MT_S32, 0},
	{"wmma m16n16k16 u8 satfinite", MMA_WMMA, 16, 16, 16, MT_U8, MT_U8, MT_S32, MT_S32, 1},
	{"wmma m32n8k16 s8 satfinite", MMA_WMMA, 32, 8, 16, MT_S8, MT_S8, MT_S32, MT_S32, 1},
	{"wmma m8n32k16 u8", MMA_WMMA, 8, 32, 16, MT_U8, MT_U8, MT_S32, MT_S32, 0},
	{"mma m16n8k16 f16", MMA_SYNC, 16, 8, 16, MT_F16, MT_F16, MT_F32, MT_F32, 0},
	{"mma m16n8k8 f16 f16", MMA_SYNC, 16, 8, 8, MT_F16, MT_F16, MT_F16, MT_F16, 0},
	{"mma m16n8k16 bf16", MMA_SYNC, 16, 8, 16, MT_BF16, MT_BF16, MT_F32, MT_F32, 0},
	{"mma m16n8k8 bf16", MMA_SYNC, 16, 8, 8, MT_BF16, MT_BF16, MT_F32, MT_F32, 0},
	{"mma m16n8k8 tf32", MMA_SYNC, 16, 8, 8, MT_TF32, MT_TF32, MT_F32, MT_F32, 0},
	{"mma m16n8k4 tf32", MMA_SYNC, 16, 8, 4, MT_TF32, MT_TF32, MT_F32, MT_F32, 0},
	{"mma m8n8k4 f64", MMA_SYNC, 8, 8, 4, MT_F64, MT_F64, MT_F64, MT_F64, 0},
	{"mma m16n8k32 s8 u8 satfinite", MMA_SYNC, 16, 8, 32, MT_S8, MT_U8, MT_S32, MT_S32, 1},
	{"mma m16n8k16 u8 s8", MMA_SYNC, 16, 8, 16, MT_U8, MT_S8, MT_S32, MT_S32, 0},
	{"mma m8n8k16 s8", MMA_SYNC, 8, 8, 16, MT_S8, MT_S8, MT_S32, MT_S32, 0},
};

static uint64_t A[MD][MD], B[MD][MD], C[MD][MD], D0[MD][MD], D1[MD][MD], D2[MD][MD];
static uint8_t done[MD][MD];
static struct mma_mats x;

static void put(union mma_mat *X, unsigned t, unsigned r, unsigned c, uint64_t v)
{
	switch (ptx_mtype_bits(t)) {
	case 8: X->u8[r][c] = (uint8_t)v; break;
	case 16: X->u16[r][c] = (uint16_t)v; break;
	case 32: X->u32[r][c] = (uint32_t)v; break;
	default: X->u64[r][c] = v; break;
	}
}

static uint64_t get(const union mma_mat *X, unsigned t, unsigned r, unsigned c)
{
	switch (ptx_mtype_bits(t)) {
	case 8: return X->u8[r][c];
	case 16: return X->u16[r][c];
	case 32: return X->u32[r][c];
	default: return X->u64[r][c];
	}
}

/* D = A B + C (B here by column: B[n][k]) the model's way (model) or mma_products'; *done
 * and the return value: mma_fast's alone (fast). */
static unsigned product(const struct ptx_mma *mm, uint64_t (*D)[MD], int how)
{
	memset(&x, 0x5a, sizeof x);
	for (unsigned r = 0; r < MD; r++)
		for (unsigned c = 0; c < MD; c++) {
			put(&x.a, mm->atype, r, c, A[r][c]), put(&x.b, mm->btype, c, r, B[r][c]);
			put(&x.c, mm->ctype, r, c, C[r][c]);
		}
	unsigned left = 0;
	if (how == 2 && !(left = mma_fast(mm, &x)))
		memset(x.done, 1, sizeof x.done); /* all computed: done[] not written */
	else if (how != 2)
		mma_products(mm, &x, how);
	for (unsigned r = 0; r < mm->m; r++)
		for (unsigned c = 0; c < mm->n; c++)
			D[r][c] = get(&x.d, mm->dtype, r, c);
	memcpy(done, x.done, sizeof done);
	return left;
}

/* C = -(A B) exactly where it is representable: sums that cancel to zero. */
static void cancel_c(const struct ptx_mma *mm)
{
	for (unsigned r = 0; r < mm->m; r++)
		for (unsigned c = 0; c < mm->n; c++) {
			double s = 0;
			for (unsigned i = 0; i < mm->k; i++) {
				unsigned f = mm->atype == MT_F16 ? FMT_F16 : mm->atype == MT_BF16 ? FMT_BF16 : FMT_TF32;
				if (mm->atype == MT_F64) {
					double x, y;
					memcpy(&x, &A[r][i], 8), memcpy(&y, &B[c][i], 8);
					s += x * y;
				} else
					s += fmt_to_double(f, (uint32_t)A[r][i]) * fmt_to_double(f, (uint32_t)B[c][i]);
			}
			if (mm->ctype == MT_F64) {
				double x = -s;
				memcpy(&C[r][c], &x, 8);
			} else if (mm->ctype == MT_F32) {
				float x = (float)-s;
				uint32_t u;
				memcpy(&u, &x, 4);
				C[r][c] = u;
			}
		}
}

static void test_fast_matches_model(void **state)
{
	(void)state;
	for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; s++) {
		const struct shape *sh = &shapes[s];
		struct ptx_mma mm = {.kind = sh->kind, .m = sh->m, .n = sh->n, .k = sh->k,
				     .atype = sh->at, .btype = sh->bt, .ctype = sh->ct,
				     .dtype = sh->dt, .satfinite = sh->sat};
		unsigned long fast = 0, all = 0, small_left = 0;
		for (unsigned trial = 0; trial < TRIALS; trial++) {
			enum mode md = (enum mode)(trial % NMODES);
			flat = trial / NMODES % 2;
			span = 3 + (int)below(sh->at == MT_F16 ? 9 : sh->at == MT_BF16 ? 6 : 9);
			spread = 8 + (int)below(3) - span;
			spread = spread < 0 ? 0 : spread;
			for (unsigned r = 0; r < MD; r++)
				for (unsigned i = 0; i < MD; i++) {
					A[r][i] = value(sh->at, md, 0), B[r][i] = value(sh->bt, md, 0);
					C[r][i] = value(sh->ct, md, 1);
				}
			if (md == CANCEL)
				cancel_c(&mm);
						product(&mm, D0, 1);
			product(&mm, D1, 0);
			unsigned left = product(&mm, D2, 2);
			fast += sh->m * sh->n - left, all += sh->m * sh->n;
			if (md == SMALL_INT && sh->ct == sh->dt && sh->ct != MT_F16)
				small_left += left;
			for (unsigned r = 0; r < sh->m; r++)
				for (unsigned c = 0; c < sh->n; c++) {
					if (D1[r][c] != D0[r][c] || (done[r][c] && D2[r][c] != D0[r][c]))
						fail_msg("%s, trial %u (mode %d), D[%u][%u]: model 0x%llx, "
							 "mma_products 0x%llx, mma_fast 0x%llx (%s)",
							 sh->name, trial, (int)md, r, c,
							 (unsigned long long)D0[r][c],
							 (unsigned long long)D1[r][c],
							 (unsigned long long)D2[r][c],
							 done[r][c] ? "done" : "left");
				}
		}
		/* the fast ways must be taken where they apply, or the test tests nothing */
		if (small_left)
			fail_msg("%s: %lu elements of small integer products left to the model",
				 sh->name, small_left);
		print_message("%-32s %5.1f%% of the elements the fast way\n", sh->name,
			      100.0 * (double)fast / (double)all);
	}
}

/* m8n8k4 f64 on the registers (mma_fast_dmma) against the model on the matrices that
 * its layout (lane 4g + t: A[g][t], B[t][g], C and D [g][2t] and [g][2t + 1]) gives, in
 * every mode; D's registers both apart from C's and the same (D += A B in place). A NaN
 * result must be left to the model: nothing written, 0. */
static void test_dmma_registers(void **state)
{
	(void)state;
	struct ptx_mma mm = {.kind = MMA_SYNC, .m = 8, .n = 8, .k = 4, .atype = MT_F64,
			     .btype = MT_F64, .ctype = MT_F64, .dtype = MT_F64,
			     .na = 1, .nb = 1, .nc = 2, .nd = 2, .a = {0}, .b = {1}, .c = {2, 3}};
	static uint64_t R[6 * 32], R0[6 * 32];
	unsigned fast = 0;
	for (unsigned trial = 0; trial < TRIALS; trial++) {
		enum mode md = (enum mode)(trial % NMODES);
		int in_place = trial & 1;
		mm.d[0] = in_place ? 2 : 4, mm.d[1] = in_place ? 3 : 5;
		for (unsigned i = 0; i < 6 * 32; i++)
			R[i] = value(MT_F64, md, i >= 64);
		if (md == CANCEL) /* D = 0 exactly: C = -(A B) */
			for (unsigned l = 0; l < 32; l++)
				for (unsigned h = 0; h < 2; h++) {
					unsigned g = l / 4, c = 2 * (l % 4) + h;
					double s = 0, x, y;
					for (unsigned k = 0; k < 4; k++) {
						memcpy(&x, &R[4 * g + k], 8), memcpy(&y, &R[32 + 4 * c + k], 8);
						s += x * y;
					}
					s = -s;
					memcpy(&R[(2 + h) * 32 + l], &s, 8);
				}
		memset(&x, 0, sizeof x);
		for (unsigned l = 0; l < 32; l++) {
			unsigned g = l / 4, t = l % 4;
			x.a.u64[g][t] = R[l], x.b.u64[t][g] = R[32 + l];
			x.c.u64[g][2 * t] = R[64 + l], x.c.u64[g][2 * t + 1] = R[96 + l];
		}
		mma_products(&mm, &x, 1);
		memcpy(R0, R, sizeof R);
		if (!mma_fast_dmma(R, &mm)) {
			if (memcmp(R, R0, sizeof R))
				fail_msg("trial %u: mma_fast_dmma declined but wrote registers", trial);
			continue;
		}
		fast++;
		for (unsigned l = 0; l < 32; l++)
			for (unsigned h = 0; h < 2; h++) {
				uint64_t want = x.d.u64[l / 4][2 * (l % 4) + h], got = R[mm.d[h] * 32 + l];
				if (isnan(f64(want)))
					fail_msg("trial %u: a NaN result (0x%llx) not left to the model",
						 trial, (unsigned long long)want);
				if (got != want)
					fail_msg("trial %u (mode %d%s), lane %u, D[%u][%u]: model 0x%llx, "
						 "registers 0x%llx", trial, (int)md, in_place ? ", in place" : "",
						 l, l / 4, 2 * (l % 4) + h, (unsigned long long)want,
						 (unsigned long long)got);
			}
	}
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
		skip(); /* no FMA vectors here: the general way runs, tested above */
	if (fast < TRIALS / 2)
		fail_msg("only %u of %u f64 products on the registers", fast, (unsigned)TRIALS);
}

/* Where element i of lane l = 4g + t of a wmma m16n16k16 fragment lies (the PTX ISA's
 * m16n8 tiles, two along n; 16-bit A and B: registers 4..7 repeat 0..3): row, column. */
static void wmma16_pos(unsigned frag, unsigned bits, unsigned l, unsigned i, unsigned *r,
		       unsigned *c)
{
	unsigned g = l / 4, t = l % 4;
	if (frag == MF_A && bits == 16)
		*r = g + 8 * (i >> 1 & 1), *c = 2 * t + (i & 1) + 8 * (i >> 2 & 1);
	else if (frag == MF_B && bits == 16)
		*r = 2 * t + (i & 1) + 8 * (i >> 1 & 1), *c = g + 8 * (i >> 2 & 1);
	else if (frag == MF_A)
		*r = g + 8 * (i >> 2), *c = 4 * t + (i & 3);
	else if (frag == MF_B)
		*r = 4 * t + (i & 3), *c = g + 8 * (i >> 2);
	else
		*r = g + 8 * (i >> 1 & 1), *c = 2 * t + (i & 1) + 8 * (i >> 2);
}

/* wmma m16n16k16 f16, bf16, s8 and u8 with 32-bit C and D between the registers and the
 * matrices (mma_frag16_gather, mma_frag16_scatter) with mma_products, against the model on
 * the matrices that the layout above gives, in every mode; D apart from C and in place;
 * junk above the registers' 32 bits and in the repeated registers. */
static void test_wmma16_registers(void **state)
{
	(void)state;
	static const uint8_t types[][3] = {{MT_F16, MT_F32, 0}, {MT_BF16, MT_F32, 0},
					   {MT_S8, MT_S32, 0}, {MT_U8, MT_S32, 1}};
	enum { NA = 8, NC = 8, SLOTS = 2 * NA + 2 * NC };
	static uint64_t R[SLOTS * 32], W[SLOTS * 32];
	static struct mma_mats y;
	for (unsigned ty = 0; ty < sizeof types / sizeof *types; ty++) {
		unsigned it = types[ty][0], bits = ptx_mtype_bits(it), per = 32 / bits;
		unsigned na = 16 * 16 / 32 / per;
		struct ptx_mma mm = {.kind = MMA_WMMA, .m = 16, .n = 16, .k = 16, .atype = (uint8_t)it,
				     .btype = (uint8_t)it, .ctype = types[ty][1], .dtype = types[ty][1],
				     .satfinite = types[ty][2], .na = (uint8_t)na, .nb = (uint8_t)na,
				     .nc = NC, .nd = NC};
		for (unsigned q = 0; q < NA; q++)
			mm.a[q] = q, mm.b[q] = NA + q;
		for (unsigned q = 0; q < NC; q++)
			mm.c[q] = 2 * NA + q;
		for (unsigned trial = 0; trial < TRIALS; trial++) {
			enum mode md = (enum mode)(trial % NMODES);
			int in_place = trial & 1;
			for (unsigned q = 0; q < NC; q++)
				mm.d[q] = (uint8_t)(in_place ? mm.c[q] : 2 * NA + NC + q);
			for (unsigned i = 0; i < SLOTS * 32; i++)
				R[i] = (uint64_t)rnd32() << 32 | rnd32();
			memset(&x, 0, sizeof x);
			for (unsigned l = 0; l < 32; l++)
				for (unsigned f = MF_A; f <= MF_C; f++) {
					for (unsigned i = 0; i < 8; i++) { /* A, B: 4 or 2 registers */
						unsigned r, c, b = f == MF_C ? 32 : bits;
						wmma16_pos(f, bits, l, i, &r, &c);
						uint64_t v = value(f == MF_C ? mm.ctype : it, md, f == MF_C);
						uint32_t slot = f == MF_A ? mm.a[i * b / 32] : f == MF_B ? mm.b[i * b / 32] : mm.c[i];
						unsigned sh = b * (i % (32 / b));
						uint64_t *p = &R[slot * 32 + l];
						*p = (*p & ~((b == 32 ? 0xffffffffull : (1ull << b) - 1) << sh)) |
						     v << sh;
						put(f == MF_A ? &x.a : f == MF_B ? &x.b : &x.c,
						    f == MF_C ? mm.ctype : it, r, c, v);
					}
				}
			mma_products(&mm, &x, 1);
			memcpy(W, R, sizeof R);
			memset(&y, 0x5a, sizeof y);
			mma_frag16_gather(W, &mm, &y);
			mma_products(&mm, &y, 0);
			mma_frag16_scatter(W, &mm, &y);
			for (unsigned l = 0; l < 32; l++)
				for (unsigned i = 0; i < NC; i++) {
					unsigned r, c;
					wmma16_pos(MF_D, 32, l, i, &r, &c);
					uint64_t want = x.d.u32[r][c], got = W[mm.d[i] * 32 + l];
					if (got != want)
						fail_msg("type %u, trial %u (mode %d%s), lane %u, D[%u][%u]: model "
							 "0x%llx, registers 0x%llx", it, trial, (int)md,
							 in_place ? ", in place" : "", l, r, c,
							 (unsigned long long)want, (unsigned long long)got);
				}
		}
	}
}

/* float16's converted inputs by their bits (struct mma_conv16): products in a row on one
 * mma_mats, as the samples' k-steps give them (A again with new B and C, B again after
 * four others), A changed in its last element only, and the same bits as the other
 * 16-bit type: each against the model. */
static void test_conv16_cache(void **state)
{
	(void)state;
	static struct mma_mats y, z;
	static uint16_t a[3][16][16], b[6][16][16]; /* b: by row (k, n) */
	memset(&y, 0, sizeof y);
	unsigned hits = 0;
	for (unsigned trial = 0; trial < TRIALS / 4; trial++) {
		for (unsigned m = 0; m < 2; m++)
			for (unsigned r = 0; r < 16; r++)
				for (unsigned c = 0; c < 16; c++)
					a[m][r][c] = (uint16_t)value(MT_F16, SMALL_INT, 0);
		for (unsigned m = 0; m < 5; m++)
			for (unsigned r = 0; r < 16; r++)
				for (unsigned c = 0; c < 16; c++)
					b[m][r][c] = (uint16_t)value(MT_F16, SMALL_INT, 0);
		memcpy(a[2], a[0], sizeof a[0]);
		a[2][15][15] = a[2][15][15] == 0x3c00 ? 0x4000 : 0x3c00; /* 1 or 2 */
		/* (A, B, type): B 0..3 with A 0, A 1, A 0 changed last, B 0 again, as bf16 */
		static const uint8_t seq[][3] = {{0, 0, MT_F16}, {0, 1, MT_F16}, {0, 2, MT_F16},
						 {0, 3, MT_F16}, {1, 0, MT_F16}, {1, 4, MT_F16},
						 {2, 1, MT_F16}, {0, 1, MT_F16}, {0, 1, MT_BF16},
						 {2, 4, MT_BF16}, {0, 4, MT_BF16}, {0, 4, MT_F16}};
		for (unsigned i = 0; i < sizeof seq / sizeof *seq; i++) {
			unsigned t = seq[i][2];
			struct ptx_mma mm = {.kind = MMA_WMMA, .m = 16, .n = 16, .k = 16, .atype = (uint8_t)t,
					     .btype = (uint8_t)t, .ctype = MT_F32, .dtype = MT_F32};
			for (unsigned r = 0; r < 16; r++)
				for (unsigned c = 0; c < 16; c++) {
					y.a.u16[r][c] = a[seq[i][0]][r][c];
					y.b.u16[r][c] = b[seq[i][1]][r][c];
					y.c.u32[r][c] = (uint32_t)value(MT_F32, SCALED_C, 1);
				}
			z = y;
			mma_products(&mm, &z, 1);
			unsigned before = y.conv_b_next, left = mma_fast(&mm, &y);
			/* f16's small integers: all of them the fast way (their bits as bf16 may not) */
			if (left && t == MT_F16)
				fail_msg("trial %u, product %u: left elements to the model", trial, i);
			hits += y.conv_b_next == before;
			for (unsigned r = 0; r < 16; r++)
				for (unsigned c = 0; c < 16; c++)
					if ((!left || y.done[r][c]) && y.d.u32[r][c] != z.d.u32[r][c])
						fail_msg("trial %u, product %u (A %u, B %u, %s), D[%u][%u]: model "
							 "0x%08x, mma_fast 0x%08x", trial, i, seq[i][0], seq[i][1],
							 t == MT_F16 ? "f16" : "bf16", r, c, z.d.u32[r][c], y.d.u32[r][c]);
		}
	}
	if (!hits && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		fail_msg("no B was found converted: the cache is not used");
}

/* wmma.load and wmma.store of m16n16k16 fragments straight between memory and registers
 * (mma_frag16_ldst): A by row, B by column (16 and 8-bit), 32-bit C loaded and D stored
 * by row, with a leading dimension past the matrix's, against the layout above; what it
 * does not take (A by column, B by row, C by column, an f16 C) it declines untouched;
 * f16's registers 4..7 repeat 0..3. */
static void test_wmma16_ldst(void **state)
{
	(void)state;
	enum { LD = 24 };
	static const uint8_t cases[][4] = { /* frag, type, row-major, taken */
		{MF_A, MT_F16, 1, 1}, {MF_B, MT_BF16, 0, 1}, {MF_A, MT_S8, 1, 1}, {MF_B, MT_U8, 0, 1},
		{MF_C, MT_F32, 1, 1}, {MF_D, MT_S32, 1, 1}, {MF_A, MT_F16, 0, 0}, {MF_B, MT_S8, 1, 0},
		{MF_C, MT_F32, 0, 0}, {MF_C, MT_F16, 1, 0}};
	static uint8_t mem[16 * LD * 4], mem0[sizeof mem];
	static uint64_t R[16 * 32], R0[16 * 32];
	for (unsigned ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
		unsigned f = cases[ci][0], t = cases[ci][1], rowm = cases[ci][2];
		unsigned bits = ptx_mtype_bits(t), es = bits / 8, per = 32 / bits;
		unsigned nd = f >= MF_C ? 8 : bits == 16 ? 8 : 2;
		struct ptx_mma mm = {.kind = f == MF_D ? MMA_STORE : MMA_LOAD, .m = 16, .n = 16, .k = 16,
				     .atype = t, .frag = (uint8_t)f, .arow = (uint8_t)rowm, .nd = (uint8_t)nd};
		for (unsigned q = 0; q < nd; q++)
			mm.d[q] = 15 - 2 * q; /* scattered, descending */
		for (unsigned i = 0; i < sizeof mem; i++)
			mem[i] = (uint8_t)rnd32();
		for (unsigned i = 0; i < 16 * 32; i++)
			R[i] = (uint64_t)rnd32() << 32 | rnd32();
		memcpy(mem0, mem, sizeof mem), memcpy(R0, R, sizeof R);
		int took = mma_frag16_ldst(R, &mm, mem, LD);
		if (took != cases[ci][3])
			fail_msg("case %u: taken %d, expected %d", ci, took, cases[ci][3]);
		if (!took) {
			if (memcmp(R, R0, sizeof R) || memcmp(mem, mem0, sizeof mem))
				fail_msg("case %u: declined but moved something", ci);
			continue;
		}
		for (unsigned l = 0; l < 32; l++)
			for (unsigned i = 0; i < nd * per; i++) {
				unsigned r, c;
				wmma16_pos(f, f >= MF_C ? 32 : bits, l, i, &r, &c);
				size_t off = (rowm ? r * LD + c : c * LD + r) * es;
				uint64_t inmem = 0, inreg = R[mm.d[i / per] * 32 + l] >> (bits * (i % per)) &
							   ((1ull << bits) - 1);
				memcpy(&inmem, mem + off, es);
				if (inreg != inmem)
					fail_msg("case %u, lane %u, element %u ([%u][%u]): register 0x%llx, "
						 "memory 0x%llx", ci, l, i, r, c, (unsigned long long)inreg,
						 (unsigned long long)inmem);
			}
		if (f != MF_D)
			for (unsigned q = 0; q < nd; q++)
				for (unsigned l = 0; l < 32; l++)
					if (R[mm.d[q] * 32 + l] >> 32)
						fail_msg("case %u: register %u lane %u not zero above 32 bits", ci, q, l);
		/* the store writes the matrix only: the gaps past column 16 keep their bytes */
		for (unsigned r = 0; f == MF_D && r < 16; r++)
			if (memcmp(mem + (r * LD + 16) * es, mem0 + (r * LD + 16) * es, (LD - 16) * es))
				fail_msg("case %u: row %u's gap written", ci, r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_matches_model),
		cmocka_unit_test(test_dmma_registers),
		cmocka_unit_test(test_wmma16_registers),
		cmocka_unit_test(test_wmma16_ldst),
		cmocka_unit_test(test_conv16_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
