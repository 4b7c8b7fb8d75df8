/* exec_half — the 16- and 19-bit floating-point formats: f16, bf16 and tf32 (and f32
 * where the same rounding is needed). Rounding any exact value into them in every mode
 * PTX has (fmt_pack), the conversions to and from them (cvt), the arithmetic and
 * comparisons of f16, f16x2, bf16 and bf16x2 (OP_HALF) and their atomics.
 *
 * Results are the H100's, bit for bit (tests/emu/programs/half_*.cu, bf16_math.cu,
 * tf32_convert.cu): a NaN result is the canonical 0x7fff (0x7fffffff from f32 and tf32
 * conversions), min/max order -0 below +0, .relu and .sat turn -0 into +0, cvt.rna.tf32
 * rounds the bits without looking at NaN or infinity. Arithmetic is computed in double
 * and rounded once: exact for add, sub and mul of these formats, and for fma wherever
 * the double's rounding could matter (the products have at most 22 significant bits, so
 * a term too small for the double is far below the result's half unit). The .approx
 * functions (ex2, tanh) are the exact function rounded, where the GPU's approximation
 * may differ in the last bit (emu/README.md).
 */
#include "exec_internal.h"

#include <math.h>
#include <string.h>

#include "exec_compare.h"

/* ---- formats ---------------------------------------------------------------------- */

struct fmt {
	int p;        /* significand bits, the hidden one included */
	int emax;     /* largest exponent (= the bias) */
	int mbits;    /* stored mantissa bits */
	int ebits;
	int shift;    /* tf32 sits in the high bits of an f32 */
	uint32_t nan; /* the canonical NaN */
};

static const struct fmt fmts[] = {
	[FMT_F16] = {11, 15, 10, 5, 0, 0x7fffu},
	[FMT_BF16] = {8, 127, 7, 8, 0, 0x7fffu},
	[FMT_TF32] = {11, 127, 10, 8, 13, 0x7fffe000u},
	[FMT_F32] = {24, 127, 23, 8, 0, 0x7fffffffu},
};

static unsigned bitlen(unsigned __int128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);
	return hi ? 128u - (unsigned)__builtin_clzll(hi) : x ? 64u - (unsigned)__builtin_clzll((uint64_t)x) : 0;
}

uint32_t fmt_pack(unsigned f, int neg, uint64_t mag, int e, unsigned mode, int satfinite)
{
	const struct fmt *F = &fmts[f];
	uint32_t sign = neg ? 1u << (F->mbits + F->ebits + F->shift) : 0;
	if (!mag)
		return sign;
	int emin = 1 - F->emax, E = e + (int)bitlen(mag) - 1;
	int q = (E < emin ? emin : E) - (F->p - 1);
	unsigned __int128 n = mag, rem = 0, half = 0;
	int sh = q - e;
	if (sh < 0) {
		n <<= -sh;
	} else if (sh > 0) {
		if (sh >= 120) {
			n = 0, rem = 1, half = 2; /* far below half a unit */
		} else {
			n = (unsigned __int128)mag >> sh;
			rem = (unsigned __int128)mag & (((unsigned __int128)1 << sh) - 1);
			half = (unsigned __int128)1 << (sh - 1);
		}
	}
	int up = 0;
	switch (mode) {
	case RND_RZ: break;
	case RND_RM: up = neg && rem; break;
	case RND_RP: up = !neg && rem; break;
	case RND_RNA: up = rem && rem >= half; break;
	default: up = rem > half || (rem && rem == half && (n & 1)); break;
	}
	n += (unsigned)up;
	if (!n)
		return sign;
	int nb = (int)bitlen(n), E2 = q + nb - 1;
	uint32_t emask = (1u << F->ebits) - 1, mmask = (1u << F->mbits) - 1;
	if (E2 > F->emax) {
		int to_max = satfinite || mode == RND_RZ || (mode == RND_RM && !neg) ||
			     (mode == RND_RP && neg);
		uint32_t r = to_max ? ((emask - 1) << F->mbits) | mmask : emask << F->mbits;
		return sign | r << F->shift;
	}
	uint32_t r;
	if (E2 < emin)
		r = (uint32_t)n; /* subnormal: n is the mantissa */
	else
		r = ((uint32_t)(E2 + F->emax) << F->mbits) | ((uint32_t)(n >> (nb - F->p)) & mmask);
	return sign | r << F->shift;
}

/* Bits of format f as (sign, magnitude, exponent) or a special. */
struct xval {
	int kind; /* 0 finite, 1 infinity, 2 NaN */
	int neg;
	uint64_t mag;
	int e;
};

static struct xval fmt_unpack(unsigned f, uint32_t bits)
{
	const struct fmt *F = &fmts[f];
	bits >>= F->shift;
	uint32_t m = bits & ((1u << F->mbits) - 1), ex = (bits >> F->mbits) & ((1u << F->ebits) - 1);
	struct xval x = {0, (int)(bits >> (F->mbits + F->ebits)) & 1, m, 0};
	if (ex == (1u << F->ebits) - 1) {
		x.kind = m ? 2 : 1;
		return x;
	}
	if (ex)
		x.mag |= 1u << F->mbits;
	x.e = (ex ? (int)ex : 1) - F->emax - F->mbits;
	return x;
}

static struct xval dbl_unpack(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	uint64_t m = u & ((1ull << 52) - 1);
	unsigned ex = (unsigned)(u >> 52) & 0x7ff;
	struct xval x = {0, (int)(u >> 63), m, 0};
	if (ex == 0x7ff) {
		x.kind = m ? 2 : 1;
		return x;
	}
	if (ex)
		x.mag |= 1ull << 52;
	x.e = (ex ? (int)ex : 1) - 1075;
	return x;
}

static uint32_t inf_bits(unsigned f, int neg)
{
	const struct fmt *F = &fmts[f];
	uint32_t r = ((1u << F->ebits) - 1) << F->mbits;
	if (neg)
		r |= 1u << (F->mbits + F->ebits);
	return r << F->shift;
}

/* A double rounded into format f; NaN gives the canonical NaN. */
static uint32_t fmt_from_double(double d, unsigned f, unsigned mode, int satfinite)
{
	struct xval x = dbl_unpack(d);
	if (x.kind == 2)
		return fmts[f].nan;
	if (x.kind == 1)
		return satfinite ? fmt_pack(f, x.neg, 1, 1000, RND_RZ, 1) : inf_bits(f, x.neg);
	return fmt_pack(f, x.neg, x.mag, x.e, mode, satfinite);
}

double fmt_to_double(unsigned f, uint32_t bits)
{
	struct xval x = fmt_unpack(f, bits);
	if (x.kind == 2)
		return NAN;
	if (x.kind == 1)
		return x.neg ? -INFINITY : INFINITY;
	double v = ldexp((double)x.mag, x.e);
	return x.neg ? -v : v;
}

/* ---- conversions (cvt) ---------------------------------------------------------------- */

static unsigned fmt_of(unsigned t)
{
	switch (t) {
	case PT_F16: case PT_F16X2: return FMT_F16;
	case PT_BF16: case PT_BF16X2: return FMT_BF16;
	case PT_TF32: return FMT_TF32;
	default: return FMT_F32;
	}
}

int half_type(unsigned t)
{
	return t == PT_F16 || t == PT_F16X2 || t == PT_BF16 || t == PT_BF16X2 || t == PT_TF32;
}

static double int_to_exact(uint64_t v, unsigned t, int *neg, uint64_t *mag)
{
	unsigned sz = ptx_tsize(t);
	int64_t s = is_signed_t(t) ? sext(v, sz) : 0;
	*neg = is_signed_t(t) && s < 0;
	*mag = is_signed_t(t) ? (*neg ? (uint64_t)0 - (uint64_t)s : (uint64_t)s) : v & width_mask(sz);
	return 0;
}

/* A half-precision source to an integer: rounded as mode says (default rz), saturated;
 * NaN gives 0, or the smallest value for 64-bit destinations, as the H100 does. */
static uint64_t half_to_int(double x, unsigned dt, unsigned mode)
{
	if (isnan(x) && ptx_tsize(dt) == 8)
		return 1ull << 63;
	if (isnan(x))
		return 0;
	switch (mode) {
	case RND_RNI: case RND_RN: x = nearbyint(x); break;
	case RND_RMI: case RND_RM: x = floor(x); break;
	case RND_RPI: case RND_RP: x = ceil(x); break;
	default: x = trunc(x); break;
	}
	unsigned sz = ptx_tsize(dt);
	if (is_signed_t(dt)) {
		double hi = ldexp(1.0, (int)sz * 8 - 1);
		if (x >= hi)
			return width_mask(sz) >> 1;
		if (x <= -hi)
			return (1ull << (sz * 8 - 1)) & width_mask(sz);
		return (uint64_t)(int64_t)x & width_mask(sz);
	}
	if (x <= 0)
		return 0;
	return x >= ldexp(1.0, (int)sz * 8) ? width_mask(sz) : (uint64_t)x;
}

uint64_t half_cvt(const struct ptx_insn *in, uint64_t v)
{
	unsigned dt = in->type, st = in->type2, mode = in->mod2;
	int sat = in->flags & PF_SAT; /* a float result clamped to [0, 1]; NaN and -0 give +0 */
	int dh = half_type(dt), sh = half_type(st);
	if (dt == PT_TF32) { /* from f32 */
		uint32_t u = (uint32_t)v;
		if (mode == RND_RNA) { /* the bits rounded, whatever they encode */
			uint32_t r = (u + 0x1000u) & ~0x1fffu;
			if (in->xmod & PX_SATFINITE && (r & 0x7fffffffu) >= 0x7f800000u)
				r -= 0x2000u;
			return r;
		}
		return fmt_from_double(f32(v), FMT_TF32, mode ? mode : RND_RN, 0);
	}
	double x;
	if (st == PT_BF16 && dt == PT_F32) /* the bits moved up, a NaN's payload too */
		return (uint32_t)(uint16_t)v << 16;
	if (sh) {
		x = fmt_to_double(fmt_of(st), (uint32_t)v);
	} else if (st == PT_F32) {
		x = f32(v);
	} else if (st == PT_F64) {
		x = f64(v);
		if (isnan(x) && dh && !sat) { /* f64 NaNs keep their payload's top bits, made quiet */
			unsigned f = fmt_of(dt);
			const struct fmt *F = &fmts[f];
			uint64_t u = v;
			uint32_t pay = (uint32_t)(u >> (52 - F->mbits)) & ((1u << F->mbits) - 1);
			pay |= 1u << (F->mbits - 1);
			return inf_bits(f, (int)(u >> 63)) | pay;
		}
	} else { /* an integer: rounded exactly from its own bits */
		int neg;
		uint64_t mag;
		int_to_exact(v, st, &neg, &mag);
		if (sat) {
			mag = neg ? 0 : mag > 1 ? 1 : mag;
			neg = 0;
		}
		return fmt_pack(fmt_of(dt), neg, mag, 0, mode ? mode : RND_RN, 0);
	}
	if (sat && (dh || dt == PT_F32 || dt == PT_F64))
		x = !(x > 0) ? 0.0 : x > 1 ? 1.0 : x;
	if (!dh) {
		if (dt == PT_F32 || dt == PT_F64) {
			if (isnan(x))
				return dt == PT_F32 ? 0x7fffffffu : 0x7fffffffe0000000ull;
			return dt == PT_F32 ? mkf32((float)x) : mkf64(x);
		}
		return half_to_int(x, dt, mode);
	}
	if (mode >= RND_RNI && mode <= RND_RPI) { /* to an integral value of the same format */
		if (isnan(x))
			return fmts[fmt_of(dt)].nan;
		x = mode == RND_RNI ? nearbyint(x) : mode == RND_RZI ? trunc(x)
		    : mode == RND_RMI ? floor(x) : ceil(x);
		mode = RND_RN;
	}
	uint32_t r = fmt_from_double(x, fmt_of(dt), mode ? mode : RND_RN, 0);
	if (in->xmod & PX_RELU && (r >> (fmt_of(dt) == FMT_F32 ? 31 : 15)) & 1 &&
	    r != fmts[fmt_of(dt)].nan)
		r = 0;
	return r;
}

/* ---- arithmetic (OP_HALF) -------------------------------------------------------------- */

static int is_nan_bits(unsigned f, uint32_t b)
{
	return fmt_unpack(f, b).kind == 2;
}

static uint32_t flush(unsigned f, uint32_t b)
{
	const struct fmt *F = &fmts[f];
	if (!((b >> F->mbits) & ((1u << F->ebits) - 1))) /* zero or subnormal */
		return b & (1u << (F->mbits + F->ebits));
	return b;
}

/* min/max: -0 orders below +0; a NaN operand loses, unless .NaN; .xorsign.abs. */
static uint32_t half_minmax(unsigned f, int mx, unsigned xmod, uint32_t a, uint32_t b)
{
	int na = is_nan_bits(f, a), nb = is_nan_bits(f, b);
	uint32_t sbit = 1u << (fmts[f].mbits + fmts[f].ebits);
	if ((na && nb) || ((na || nb) && (xmod & PX_NAN)))
		return fmts[f].nan;
	if (na || nb)
		return na ? b : a;
	uint32_t xs = (a ^ b) & sbit;
	if (xmod & PX_XORSIGN)
		a &= ~sbit, b &= ~sbit;
	double x = fmt_to_double(f, a), y = fmt_to_double(f, b);
	uint32_t r;
	if (x == y) /* zeros of both signs: -0 is the smaller */
		r = mx ? ((a & sbit) ? b : a) : ((a & sbit) ? a : b);
	else
		r = (x < y) == !mx ? a : b;
	return xmod & PX_XORSIGN ? (r & ~sbit) | xs : r;
}

/* One element of an arithmetic operation in format f. */
static uint32_t half_op1(const struct ptx_insn *in, unsigned f, uint32_t a, uint32_t b,
			 uint32_t c)
{
	unsigned op = in->target;
	int ftz = in->flags & PF_FTZ;
	if (ftz)
		a = flush(f, a), b = flush(f, b), c = flush(f, c);
	if (op == OP_MIN || op == OP_MAX)
		return half_minmax(f, op == OP_MAX, in->xmod, a, b);
	double x = fmt_to_double(f, a), y = fmt_to_double(f, b), r;
	switch (op) {
	case OP_ADD: r = x + y; break;
	case OP_SUB: r = x - y; break;
	case OP_MUL: r = x * y; break;
	case OP_FMA: r = fma(x, y, fmt_to_double(f, c)); break;
	case OP_NEG: r = -x; break;
	case OP_ABS: r = fabs(x); break;
	case OP_EX2: r = exp2(x); break;
	default: r = tanh(x); break; /* OP_TANH */
	}
	uint32_t res = fmt_from_double(r, f, RND_RN, 0);
	if (ftz)
		res = flush(f, res);
	uint32_t sbit = 1u << (fmts[f].mbits + fmts[f].ebits);
	if (in->flags & PF_SAT) { /* [0, 1]; NaN and -0 become +0 */
		double v = isnan(r) ? 0 : r < 0 ? 0 : r > 1 ? 1 : r;
		res = fmt_from_double(v, f, RND_RN, 0) & ~sbit;
	}
	if (in->xmod & PX_RELU && res != fmts[f].nan && (res & sbit))
		res = 0;
	return res;
}

/* setp/set on one element pair: the comparison's truth. */
static int half_cmp1(const struct ptx_insn *in, unsigned f, uint32_t a, uint32_t b)
{
	if (in->flags & PF_FTZ)
		a = flush(f, a), b = flush(f, b);
	return cmp_f(in->mod, fmt_to_double(f, a), fmt_to_double(f, b));
}

void half_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	unsigned t = in->type, f = fmt_of(t), pair = t == PT_F16X2 || t == PT_BF16X2;
	unsigned op = in->target;
	const uint64_t *a = SS(0), *b = in->ns > 1 ? SS(1) : SS(0), *c = in->ns > 2 ? SS(2) : SS(0);
	if (op == OP_CVT) { /* cvt.rn{.relu}{.satfinite}.f16x2.f32 d, hi, lo */
		uint64_t *d = DS(0);
		unsigned df = fmt_of(in->type);
		LANES(uint32_t hi = fmt_from_double(f32(a[l]), df, in->mod2 ? in->mod2 : RND_RN, 0);
		      uint32_t lo = fmt_from_double(f32(b[l]), df, in->mod2 ? in->mod2 : RND_RN, 0);
		      if (in->xmod & PX_RELU) {
			      hi = (hi & 0x8000u) && hi != 0x7fffu ? 0 : hi;
			      lo = (lo & 0x8000u) && lo != 0x7fffu ? 0 : lo;
		      }
		      d[l] = hi << 16 | lo);
		return;
	}
	if (op == OP_SETP) {
		/* predicates are lane masks (exec_internal.h) */
		unsigned bo = in->mod2;
		uint32_t p = 0, q = 0;
		LANES(int t0 = half_cmp1(in, f, (uint32_t)a[l] & 0xffff, (uint32_t)b[l] & 0xffff);
		      int t1 = pair ? half_cmp1(in, f, (uint32_t)(a[l] >> 16) & 0xffff,
						(uint32_t)(b[l] >> 16) & 0xffff) : !t0;
		      p |= (uint32_t)t0 << l;
		      q |= (uint32_t)t1 << l);
		if (bo && in->ns > 2) {
			uint32_t cv = pred_src(in, R, 2) ^ (in->neg_c ? FULL : 0);
			p = bo == BOOL_AND ? p & cv : bo == BOOL_OR ? p | cv : p ^ cv;
			q = bo == BOOL_AND ? q & cv : bo == BOOL_OR ? q | cv : q ^ cv;
		}
		pred_write(R, in->d[0], p, m);
		if (in->nd > 1)
			pred_write(R, in->d[1], q, m);
		return;
	}
	if (op == OP_SET) { /* set.cmp.dtype.stype: dtype in type2 */
		uint64_t *d = DS(0);
		unsigned dt = in->type2;
		uint32_t one = dt == PT_F16 || dt == PT_F16X2 ? 0x3c00u
			       : dt == PT_BF16 || dt == PT_BF16X2 ? 0x3f80u : 0xffffu;
		LANES(int t0 = half_cmp1(in, f, (uint32_t)a[l] & 0xffff, (uint32_t)b[l] & 0xffff);
		      if (!pair) {
			      d[l] = t0 ? (dt == PT_F32 ? 0x3f800000u : half_type(dt) ? one
					   : width_mask(ptx_tsize(dt))) : 0;
		      } else {
			      int t1 = half_cmp1(in, f, (uint32_t)(a[l] >> 16) & 0xffff,
						 (uint32_t)(b[l] >> 16) & 0xffff);
			      d[l] = (t0 ? one : 0) | (uint64_t)(t1 ? one : 0) << 16;
		      });
		return;
	}
	uint64_t *d = DS(0);
	if (!pair) {
		uint32_t em = f == FMT_F32 ? 0xffffffffu : 0xffffu; /* f32: min/max.NaN */
		LANES(d[l] = half_op1(in, f, (uint32_t)a[l] & em, (uint32_t)b[l] & em,
				      (uint32_t)c[l] & em));
		return;
	}
	LANES(uint32_t lo = half_op1(in, f, (uint32_t)a[l] & 0xffff, (uint32_t)b[l] & 0xffff,
				     (uint32_t)c[l] & 0xffff);
	      uint32_t hi = half_op1(in, f, (uint32_t)(a[l] >> 16) & 0xffff,
				     (uint32_t)(b[l] >> 16) & 0xffff, (uint32_t)(c[l] >> 16) & 0xffff);
	      d[l] = hi << 16 | lo);
}

/* atom/red .add.noftz on f16, bf16 and their pairs: an atomic read-modify-write of the
 * 2 or 4 bytes, each half added in its format. Returns the old value. */
uint64_t half_atom(const struct ptx_insn *in, void *p, uint64_t bv)
{
	unsigned t = in->type, f = fmt_of(t);
	if (t == PT_F16X2 || t == PT_BF16X2) {
		uint32_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
		do {
			double lo = fmt_to_double(f, old & 0xffff) + fmt_to_double(f, (uint32_t)bv & 0xffff);
			double hi = fmt_to_double(f, old >> 16) + fmt_to_double(f, (uint32_t)(bv >> 16) & 0xffff);
			nv = fmt_from_double(hi, f, RND_RN, 0) << 16 | fmt_from_double(lo, f, RND_RN, 0);
		} while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
		return old;
	}
	uint16_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
	do {
		double s = fmt_to_double(f, old) + fmt_to_double(f, (uint32_t)bv & 0xffff);
		nv = (uint16_t)fmt_from_double(s, f, RND_RN, 0);
	} while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return old;
}
