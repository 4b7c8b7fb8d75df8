/* exec_compare.h — the comparisons and selections (exec_compare.c), and the compares of
 * one lane and of a whole warp's 32-bit values (setp_fast), inline for every lane loop
 * that compares (exec_fast.c, exec_half.c, exec_simd.c).
 */
#ifndef PMPPLAB_EMU_EXEC_COMPARE_H
#define PMPPLAB_EMU_EXEC_COMPARE_H

#include "exec_internal.h"

#pragma GCC visibility push(hidden)

static inline int cmp_u(unsigned mod, uint64_t a, uint64_t b)
{
	switch (mod) {
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b;
	case CMP_LT: case CMP_LO: return a < b;
	case CMP_LE: case CMP_LS: return a <= b;
	case CMP_GT: case CMP_HI: return a > b;
	case CMP_GE: case CMP_HS: return a >= b;
	default: return 0;
	}
}

static inline int cmp_s(unsigned mod, int64_t a, int64_t b)
{
	switch (mod) {
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b;
	case CMP_LT: return a < b;
	case CMP_LE: return a <= b;
	case CMP_GT: return a > b;
	case CMP_GE: return a >= b;
	default: return cmp_u(mod, (uint64_t)a, (uint64_t)b);
	}
}

static inline int cmp_f(unsigned mod, double a, double b)
{
	int un = isnan(a) || isnan(b);
	switch (mod) {
	case CMP_EQ: return !un && a == b;
	case CMP_NE: return !un && a != b;
	case CMP_LT: case CMP_LO: return !un && a < b;
	case CMP_LE: case CMP_LS: return !un && a <= b;
	case CMP_GT: case CMP_HI: return !un && a > b;
	case CMP_GE: case CMP_HS: return !un && a >= b;
	case CMP_EQU: return un || a == b;
	case CMP_NEU: return un || a != b;
	case CMP_LTU: return un || a < b;
	case CMP_LEU: return un || a <= b;
	case CMP_GTU: return un || a > b;
	case CMP_GEU: return un || a >= b;
	case CMP_NUM: return !un;
	case CMP_NAN: return un;
	default: return 0;
	}
}

static inline int cmp_typed(unsigned ty, unsigned mod, uint64_t a, uint64_t b)
{
	unsigned sz = ptx_tsize(ty);
	if (ty == PT_F32)
		return cmp_f(mod, f32(a), f32(b));
	if (ty == PT_F64)
		return cmp_f(mod, f64(a), f64(b));
	if (is_signed_t(ty))
		return cmp_s(mod, sext(a, sz), sext(b, sz));
	return cmp_u(mod, a & width_mask(sz), b & width_mask(sz));
}

/* setp for the common 32-bit types, the comparison chosen outside the lane loop: the
 * lanes' results as a mask in *res. Every lane is compared (a compare has no effects;
 * the caller keeps the active ones), so the loop is branch-free. The integer compares
 * run four 64-bit lanes at a time in GCC's vector extension, each lane's result (-1 or
 * 0) ANDed with its bit of the mask: no narrowing to 32 bits and no array of results.
 * A 32-bit value orders as a signed 64-bit one when it sits in the high half (signed)
 * or is zero-extended (unsigned). Returns 0 when the combination has no fast path. */
typedef int64_t i64x4_t __attribute__((vector_size(32)));
static inline __attribute__((always_inline)) int setp_fast(uint32_t *res, const uint64_t *a,
							   const uint64_t *c, int cimm,
							   unsigned ty, unsigned md)
{
	if (ty == PT_S32 || ty == PT_U32) {
		const int sg = ty == PT_S32;
		if (md >= CMP_LO && sg) /* lo ls hi hs on signed values: cmp_s's slow path */
			return 0;
		if (md >= CMP_LO) /* lo ls hi hs */
			md = md == CMP_LO ? CMP_LT : md == CMP_LS ? CMP_LE : md == CMP_HI ? CMP_GT : CMP_GE;
		const i64x4_t lo32 = { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff };
		i64x4_t acc = { 0, 0, 0, 0 }, cb = { 0, 0, 0, 0 };
		cb += (int64_t)(sg ? c[0] << 32 : c[0] & 0xffffffffu);
#define SETP_VLOOP(OP)                                                                   \
	for (unsigned k = 0; k < 8; k++) {                                               \
		i64x4_t x, y = cb;                                                       \
		const i64x4_t bit = { 1ll << (4 * k), 2ll << (4 * k), 4ll << (4 * k),      \
				      8ll << (4 * k) };                                    \
		memcpy(&x, a + 4 * k, sizeof x);                                         \
		x = sg ? x << 32 : x & lo32;                                             \
		if (!cimm) {                                                             \
			memcpy(&y, c + 4 * k, sizeof y);                                 \
			y = sg ? y << 32 : y & lo32;                                     \
		}                                                                        \
		acc |= (x OP y) & bit;                                                   \
	}                                                                                \
	break;
		switch (md) {
		case CMP_EQ: SETP_VLOOP(==)
		case CMP_NE: SETP_VLOOP(!=)
		case CMP_LT: SETP_VLOOP(<)
		case CMP_LE: SETP_VLOOP(<=)
		case CMP_GT: SETP_VLOOP(>)
		case CMP_GE: SETP_VLOOP(>=)
		default: return 0;
		}
#undef SETP_VLOOP
		*res = (uint32_t)(acc[0] | acc[1] | acc[2] | acc[3]);
		return 1;
	}
	if (ty != PT_F32 || md == CMP_NE) /* f32: the ordered compares; NaN gives false */
		return 0;
	const uint32_t m = FULL; /* LANES: all 32 */
	uint64_t t[32];
	switch (md) {
	case CMP_EQ: LANES_CV(cimm, c, t[l] = (f32(a[l]) == f32(cv))); break;
	case CMP_LT: LANES_CV(cimm, c, t[l] = (f32(a[l]) < f32(cv))); break;
	case CMP_LE: LANES_CV(cimm, c, t[l] = (f32(a[l]) <= f32(cv))); break;
	case CMP_GT: LANES_CV(cimm, c, t[l] = (f32(a[l]) > f32(cv))); break;
	case CMP_GE: LANES_CV(cimm, c, t[l] = (f32(a[l]) >= f32(cv))); break;
	default: return 0;
	}
	*res = mask_of(t);
	return 1;
}

/* setp for the lanes of M of the register file R (warp_exec and exec_fast.c). */
void setp_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m);
/* set, selp, slct and testp for the lanes of M of the register file R. */
void compare_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m);

#pragma GCC visibility pop

#endif
