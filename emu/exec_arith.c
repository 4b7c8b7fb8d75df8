/* exec_arith — what instructions compute beyond one C operator per lane: conversions
 * (cvt, half floats), atomics, bit fields, carries, directed rounding and .sat, and the
 * warp-wide match and redux. Separate from the loop, whose cases call these; the
 * comparisons it inlines are in exec_internal.h.
 */
#include "exec_internal.h"

#include <math.h>

/* ---- arithmetic helpers --------------------------------------------------------- */

static float half_to_float(uint16_t h)
{
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	uint32_t u;
	if (e == 0) {
		if (!m) {
			u = s;
		} else {
			float f = ldexpf((float)m, -24);
			return s ? -f : f;
		}
	} else if (e == 31) {
		u = s | 0x7f800000u | (m << 13);
	} else {
		u = s | ((e + 112) << 23) | (m << 13);
	}
	union { uint32_t u; float f; } x = { u };
	return x.f;
}

static uint16_t float_to_half(float f)
{
	union { float f; uint32_t u; } x = { f };
	uint32_t u = x.u, s = (u >> 16) & 0x8000;
	int e = (int)((u >> 23) & 0xff) - 127 + 15;
	uint32_t m = u & 0x7fffff;
	if (((u >> 23) & 0xff) == 0xff)
		return (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
	if (e >= 31)
		return (uint16_t)(s | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)s;
		m |= 0x800000;
		unsigned shift = (unsigned)(14 - e);
		uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (hm & 1)))
			hm++;
		return (uint16_t)(s | hm);
	}
	uint32_t hm = m >> 13, rem = m & 0x1fff;
	uint32_t r = (uint32_t)(s | ((uint32_t)e << 10) | hm);
	if (rem > 0x1000 || (rem == 0x1000 && (hm & 1)))
		r++;
	return (uint16_t)r;
}

/* Rounds an (exact) double to float in a directed mode (rz, rm, rp) or to nearest. */
static float round_f32(double x, unsigned mode)
{
	float f = (float)x;
	if (isnan(x) || isinf(x))
		return f;
	if ((mode == RND_RM && (double)f > x) || (mode == RND_RZ && x > 0 && (double)f > x))
		f = nextafterf(f, -INFINITY);
	else if ((mode == RND_RP && (double)f < x) || (mode == RND_RZ && x < 0 && (double)f < x))
		f = nextafterf(f, INFINITY);
	return f;
}

static double round_int(double x, unsigned mode)
{
	switch (mode) {
	case RND_RZI: case RND_RZ: return trunc(x);
	case RND_RMI: case RND_RM: return floor(x);
	case RND_RPI: case RND_RP: return ceil(x);
	default: return nearbyint(x);
	}
}

/* Float to integer of dst type: rounded, saturated, NaN gives 0 (as PTX defines). */
static uint64_t f_to_int(double x, unsigned dst, unsigned mode)
{
	unsigned sz = ptx_tsize(dst);
	if (isnan(x))
		return 0;
	x = round_int(x, mode ? mode : RND_RZI);
	if (is_signed_t(dst)) {
		double lo = -ldexp(1.0, (int)sz * 8 - 1), hi = ldexp(1.0, (int)sz * 8 - 1);
		if (x <= lo)
			return (uint64_t)(int64_t)lo & width_mask(sz);
		if (x >= hi)
			return (width_mask(sz) >> 1);
		return (uint64_t)(int64_t)x & width_mask(sz);
	}
	double hi = ldexp(1.0, (int)sz * 8);
	if (x <= 0)
		return 0;
	if (x >= hi)
		return width_mask(sz);
	return (uint64_t)x;
}

/* One lane of cvt. */
uint64_t cvt_one(const struct ptx_insn *in, uint64_t v)
{
	/* the conversions of index arithmetic (float(i), int(x)) first: the host's own give
	 * the same results for these (round to nearest; truncation of an in-range value) */
	if (!(in->flags & PF_SAT)) {
		if (in->type == PT_F32 && in->mod2 == RND_RN) {
			if (in->type2 == PT_S32)
				return mkf32((float)(int32_t)v);
			if (in->type2 == PT_U32)
				return mkf32((float)(uint32_t)v);
		}
		if (in->type2 == PT_F32 && in->mod2 == RND_RZI && in->type == PT_S32) {
			float f = f32(v);
			if (f > -2147483904.0f && f < 2147483648.0f) /* else NaN, out of range */
				return (uint32_t)(int32_t)f;
		}
	}
	if (half_type(in->type) || half_type(in->type2)) /* f16, bf16, tf32: exec_half.c */
		return half_cvt(in, v);
	unsigned dt = in->type, st = in->type2, mode = in->mod2;
	unsigned dsz = ptx_tsize(dt), ssz = ptx_tsize(st);
	int sat = in->flags & PF_SAT;
	int dflt = dt == PT_F32 || dt == PT_F64 || dt == PT_F16 || dt == PT_BF16;
	int sflt = st == PT_F32 || st == PT_F64 || st == PT_F16 || st == PT_BF16;
	double x = 0;
	if (sflt) {
		x = st == PT_F32 ? f32(v) : st == PT_F64 ? f64(v)
		    : st == PT_F16 ? half_to_float((uint16_t)v)
				   : f32((uint64_t)((uint32_t)(uint16_t)v << 16));
	}
	if (!sflt && !dflt) {
		if (is_signed_t(st)) {
			int64_t s = sext(v, ssz);
			if (sat) {
				if (is_signed_t(dt)) {
					int64_t hi = (int64_t)(width_mask(dsz) >> 1), lo = -hi - 1;
					s = s < lo ? lo : s > hi ? hi : s;
				} else {
					if (s < 0)
						s = 0;
					if ((uint64_t)s > width_mask(dsz))
						s = (int64_t)width_mask(dsz);
				}
			}
			return (uint64_t)s & width_mask(dsz);
		}
		uint64_t u = v & width_mask(ssz);
		if (sat) {
			uint64_t hi = is_signed_t(dt) ? width_mask(dsz) >> 1 : width_mask(dsz);
			if (u > hi)
				u = hi;
		}
		if (is_signed_t(dt) && !sat)
			return (uint64_t)sext(u, dsz < ssz ? dsz : 8) & width_mask(dsz);
		return u & width_mask(dsz);
	}
	if (sflt && !dflt)
		return f_to_int(x, dt, mode);
	if (!sflt) {
		x = is_signed_t(st) ? (double)sext(v, ssz) : (double)(v & width_mask(ssz));
		if (ssz == 8 && dt == PT_F64) {
			/* 64-bit integers are not exact in double; convert directly */
			x = is_signed_t(st) ? (double)(int64_t)v : (double)v;
		}
	}
	if (mode >= RND_RNI && mode <= RND_RPI)
		x = round_int(x, mode);
	if (sat)
		x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
	switch (dt) {
	case PT_F64: return mkf64(x);
	/* x is exact here (but for a 64-bit integer, already rounded to double), so
	 * round_f32 gives the mode's float: __int2float_ru, __double2float_rd... */
	case PT_F32: return mkf32(round_f32(x, mode));
	case PT_F16: return float_to_half((float)x);
	default: { /* bf16: round to nearest even */
		uint32_t u = (uint32_t)mkf32((float)x);
		u += 0x7fff + ((u >> 16) & 1);
		return u >> 16;
	}
	}
}

/* The value an atomic of in's kind leaves where OLD was, for operands B and C (the
 * 4- or 8-byte types; atom.add.noftz on f16/bf16 is half_atom's). */
static uint64_t atom_next(const struct ptx_insn *in, uint64_t old, uint64_t b, uint64_t c)
{
	unsigned ty = in->type;
	if (ptx_tsize(ty) == 4) {
		uint32_t o = (uint32_t)old, v = (uint32_t)b;
		switch (in->mod) {
		case AOP_ADD: return ty == PT_F32 ? (uint32_t)mkf32(f32(o) + f32(v)) : o + v;
		case AOP_MIN:
			return ty == PT_S32 ? ((int32_t)o < (int32_t)v ? o : v)
			       : ty == PT_F32 ? (uint32_t)mkf32(fminf(f32(o), f32(v))) : (o < v ? o : v);
		case AOP_MAX:
			return ty == PT_S32 ? ((int32_t)o > (int32_t)v ? o : v)
			       : ty == PT_F32 ? (uint32_t)mkf32(fmaxf(f32(o), f32(v))) : (o > v ? o : v);
		case AOP_INC: return o >= v ? 0 : o + 1;
		case AOP_DEC: return (o == 0 || o > v) ? v : o - 1;
		case AOP_AND: return o & v;
		case AOP_OR: return o | v;
		case AOP_XOR: return o ^ v;
		case AOP_EXCH: return v;
		case AOP_CAS: return o == v ? (uint32_t)c : o;
		default: return o;
		}
	}
	switch (in->mod) {
	case AOP_ADD: return ty == PT_F64 ? mkf64(f64(old) + f64(b)) : old + b;
	case AOP_MIN:
		return ty == PT_S64 ? ((int64_t)old < (int64_t)b ? old : b)
		       : ty == PT_F64 ? mkf64(fmin(f64(old), f64(b))) : (old < b ? old : b);
	case AOP_MAX:
		return ty == PT_S64 ? ((int64_t)old > (int64_t)b ? old : b)
		       : ty == PT_F64 ? mkf64(fmax(f64(old), f64(b))) : (old > b ? old : b);
	case AOP_INC: return old >= b ? 0 : old + 1;
	case AOP_DEC: return (old == 0 || old > b) ? b : old - 1;
	case AOP_AND: return old & b;
	case AOP_OR: return old | b;
	case AOP_XOR: return old ^ b;
	case AOP_EXCH: return b;
	case AOP_CAS: return old == b ? c : old;
	default: return old;
	}
}

uint64_t atom_one(const struct ptx_insn *in, void *p, uint64_t bv, uint64_t cv)
{
	if (half_type(in->type)) /* add.noftz on f16 and bf16 (pairs) */
		return half_atom(in, p, bv);
	unsigned ty = in->type;
	if (ptx_tsize(ty) == 4) {
		uint32_t *q = p, old, b = (uint32_t)bv;
		switch (in->mod) {
		case AOP_ADD:
			if (ty == PT_F32)
				break;
			return __atomic_fetch_add(q, b, __ATOMIC_RELAXED);
		case AOP_AND: return __atomic_fetch_and(q, b, __ATOMIC_RELAXED);
		case AOP_OR: return __atomic_fetch_or(q, b, __ATOMIC_RELAXED);
		case AOP_XOR: return __atomic_fetch_xor(q, b, __ATOMIC_RELAXED);
		case AOP_EXCH: return __atomic_exchange_n(q, b, __ATOMIC_RELAXED);
		case AOP_CAS: {
			uint32_t exp = b;
			__atomic_compare_exchange_n(q, &exp, (uint32_t)cv, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			return exp;
		}
		default: break;
		}
		old = __atomic_load_n(q, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(q, &old, (uint32_t)atom_next(in, old, bv, cv), 1,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		}
		return old;
	}
	uint64_t *q = p, old;
	switch (in->mod) {
	case AOP_ADD:
		if (ty == PT_F64)
			break;
		return __atomic_fetch_add(q, bv, __ATOMIC_RELAXED);
	case AOP_AND: return __atomic_fetch_and(q, bv, __ATOMIC_RELAXED);
	case AOP_OR: return __atomic_fetch_or(q, bv, __ATOMIC_RELAXED);
	case AOP_XOR: return __atomic_fetch_xor(q, bv, __ATOMIC_RELAXED);
	case AOP_EXCH: return __atomic_exchange_n(q, bv, __ATOMIC_RELAXED);
	case AOP_CAS: {
		uint64_t exp = bv;
		__atomic_compare_exchange_n(q, &exp, cv, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return exp;
	}
	default: break;
	}
	old = __atomic_load_n(q, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(q, &old, atom_next(in, old, bv, cv), 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
	}
	return old;
}

int atom_warp(const struct ptx_insn *in, void *p, const uint64_t *bv, const uint64_t *cv,
	      uint32_t m, uint64_t *d)
{
	if (half_type(in->type))
		return 0;
	uint64_t olds[32];
	if (ptx_tsize(in->type) == 4) {
		uint32_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED), v;
		do {
			v = old;
			LANES(olds[l] = v; v = (uint32_t)atom_next(in, v, bv[l], cv[l]));
		} while (!__atomic_compare_exchange_n(q, &old, v, 1, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
	} else {
		uint64_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED), v;
		do {
			v = old;
			LANES(olds[l] = v; v = atom_next(in, v, bv[l], cv[l]));
		} while (!__atomic_compare_exchange_n(q, &old, v, 1, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
	}
	if (d)
		LANES(d[l] = olds[l]);
	return 1;
}

uint64_t bfe_one(unsigned ty, uint64_t a, uint64_t b, uint64_t c)
{
	unsigned sz = ptx_tsize(ty), bits = sz * 8;
	unsigned pos = (unsigned)(b & 0xff), len = (unsigned)(c & 0xff);
	uint64_t wm = width_mask(sz);
	a &= wm;
	if (len == 0)
		return 0;
	int sgn = is_signed_t(ty);
	if (pos >= bits)
		return sgn && (a >> (bits - 1) & 1) ? wm : 0;
	uint64_t x = a >> pos;
	if (len < 64)
		x &= (1ull << len) - 1;
	if (sgn) {
		unsigned msb = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
		if ((a >> msb & 1) && len < 64)
			x |= ~((1ull << len) - 1);
	}
	return x & wm;
}

/* bmsk: b bits set from bit a, as the PTX ISA defines it (.clamp: a or b of 32 or more
 * clamp; .wrap: both taken modulo 32). */
uint32_t bmsk_one(uint32_t a, uint32_t b, int wrap)
{
	uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
	uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
	int overflow = sum >= 32;
	if (!wrap && a >= 32) {
		overflow = 1;
		mask0 = 0;
	}
	if (!wrap && b >= 32)
		overflow = 1;
	if (overflow)
		mask1 = 0;
	else if (b1 == 0)
		mask1 = ~0u;
	return mask0 & ~mask1;
}

/* add/sub/mad with .cc and addc/subc/madc: 32- or 64-bit, the carry per lane in SR_CC. */
void carry_op(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = R + (size_t)in->d[0] * 32, *cf = R + (size_t)SR_CC * 32;
	const uint64_t *a = R + (size_t)in->s[0] * 32, *b = R + (size_t)in->s[1] * 32;
	const uint64_t *c = in->ns > 2 ? R + (size_t)in->s[2] * 32 : NULL;
	unsigned sz = ptx_tsize(in->type), op = in->op, setcc = in->flags & PF_CC;
	int use_cf = op == OP_ADDC || op == OP_SUBC || op == OP_MADC;
	uint64_t wm = width_mask(sz);
	LANES(unsigned __int128 r; uint64_t ci = use_cf ? cf[l] & 1 : 0, x = a[l] & wm, y = b[l] & wm;
	      unsigned __int128 one = 1;
	      uint64_t co;
	      if (op == OP_SUB || op == OP_SUBC) {
		      r = (unsigned __int128)x - y - ci;
		      co = x < (unsigned __int128)y + ci; /* borrow */
	      } else {
		      unsigned __int128 base = (unsigned __int128)x + y;
		      if (op == OP_MAD || op == OP_MADC) {
			      unsigned __int128 p = (unsigned __int128)x * y;
			      base = in->mod == MUL_HI ? p >> (sz * 8) : p & wm;
			      base += c[l] & wm;
		      }
		      r = base + ci;
		      co = (uint64_t)((r >> (sz * 8)) & one);
	      }
	      d[l] = (uint64_t)r & wm;
	      if (setcc) cf[l] = co);
}

/* d = op(a, b, c) for the lanes of m, rounded as in says, then .sat: clamped to
 * [0, 1] with NaN giving 0. */
void float_slow(const struct ptx_insn *in, enum fround_op op, uint64_t *d,
		const uint64_t *a, const uint64_t *b, const uint64_t *c, uint32_t m)
{
	int dbl = in->type == PT_F64;
	fround_lanes(op, dbl, in->mod2, d, a, b, c, m);
	if (!(in->flags & PF_SAT))
		return;
	LANES(double x = dbl ? f64(d[l]) : f32(d[l]);
	      x = !(x > 0) ? 0 : x > 1 ? 1 : x;
	      d[l] = dbl ? mkf64(x) : mkf32((float)x));
}

/* ---- warp votes, matches and reductions ----------------------------------------- */

/* The lanes each lane of m computes a warp vote, match or reduction over: the
 * membermask operand (source k) limited to the lanes that execute the instruction (a
 * tiled_partition<16> names each half by its own mask); all of m without one. */
void member_groups(const struct ptx_insn *in, const uint64_t *R, uint32_t m,
		   unsigned k, uint32_t grp[32])
{
	const uint64_t *mk = in->ns > k ? R + (size_t)in->s[k] * 32 : NULL;
	if (mk)
		LANES(grp[l] = (uint32_t)mk[l] & m);
	else
		LANES(grp[l] = m);
}

/* match.any.sync: the lanes of the group with the same value; match.all.sync: the
 * group when all its lanes agree (and the predicate says so), else 0. */
void match_lanes(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = DS(0), vals[32];
	const uint64_t *a = SS(0);
	uint64_t vm = width_mask(ptx_tsize(in->type));
	uint32_t grp[32], res[32];
	LANES(vals[l] = a[l] & vm);
	member_groups(in, R, m, 1, grp);
	LANES(uint32_t same = 0;
	      for (uint32_t g = grp[l]; g; g &= g - 1) {
		      unsigned k = (unsigned)__builtin_ctz(g);
		      same |= (uint32_t)(vals[k] == vals[l]) << k;
	      }
	      res[l] = in->mod ? (same == grp[l] ? same : 0) : same);
	LANES(d[l] = res[l]);
	uint32_t pm = 0; /* the predicate, a lane mask (exec_internal.h) */
	LANES(pm |= (uint32_t)(res[l] != 0) << l);
	if (in->mod && in->d[1] != SR_SINK)
		pred_write(R, in->d[1], pm, m);
}

/* redux.sync: add/min/max/and/or/xor of the 32-bit values of each lane's group. */
void redux_lanes(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = DS(0);
	const uint64_t *a = SS(0);
	int sg = is_signed_t(in->type);
	uint32_t grp[32], res[32];
	member_groups(in, R, m, 1, grp);
	LANES(int64_t acc = in->mod == AOP_AND ? -1 : 0;
	      int first = 1;
	      for (uint32_t g = grp[l]; g; g &= g - 1, first = 0) {
		      unsigned k = (unsigned)__builtin_ctz(g);
		      int64_t v = sg ? (int32_t)a[k] : (int64_t)(uint32_t)a[k];
		      switch (in->mod) {
		      case AOP_ADD: acc += v; break;
		      case AOP_MIN: acc = first || v < acc ? v : acc; break;
		      case AOP_MAX: acc = first || v > acc ? v : acc; break;
		      case AOP_AND: acc &= v; break;
		      case AOP_OR: acc |= v; break;
		      default: acc ^= v; break;
		      }
	      }
	      res[l] = (uint32_t)acc);
	LANES(d[l] = res[l]);
}
