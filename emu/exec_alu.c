/* exec_alu — the arithmetic, logic, bit-field, conversion and move instructions: each
 * for all lanes of its mask at once, a register's 32 lane values contiguous so the lane
 * loops vectorise. Out of warp_exec's switch (exec_loop.c), so its loops do not share
 * the registers of the whole loop; the common ones run in exec_fast.c when no hooks
 * and no trace are on.
 */
#include "exec_alu.h"

#include <math.h>

#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
void alu_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	unsigned sz = ptx_tsize(in->type);
	uint64_t wm = ptx_tmask(in->type);
	switch (in->op) {
	CASE(MOV) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0);
		if (in->type == PT_PRED)
			pred_write(R, in->d[0], pred_src(in, R, 0), m);
		else
			LANES(d[l] = a[l]);
		NEXT;
	}
	CASE(ADD) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		if (FLOAT_SLOW(in)) {
			float_slow(in, FROUND_ADD, d, a, c, NULL, m);
		} else if (in->type == PT_F32) {
			LANES(d[l] = mkf32(f32(a[l]) + f32(c[l])));
		} else if (in->type == PT_F64) {
			LANES(d[l] = mkf64(f64(a[l]) + f64(c[l])));
		} else if (in->flags & PF_SAT) {
			LANES(int64_t s = (int64_t)(int32_t)a[l] + (int32_t)c[l];
			      s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
			      d[l] = (uint32_t)s);
		} else {
			LANES_CV(in->imm & 2, c, d[l] = (a[l] + cv) & wm);
		}
		NEXT;
	}
	CASE(SUB) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		if (FLOAT_SLOW(in)) {
			float_slow(in, FROUND_SUB, d, a, c, NULL, m);
		} else if (in->type == PT_F32) {
			LANES(d[l] = mkf32(f32(a[l]) - f32(c[l])));
		} else if (in->type == PT_F64) {
			LANES(d[l] = mkf64(f64(a[l]) - f64(c[l])));
		} else if (in->flags & PF_SAT) {
			LANES(int64_t s = (int64_t)(int32_t)a[l] - (int32_t)c[l];
			      s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
			      d[l] = (uint32_t)s);
		} else {
			LANES_CV(in->imm & 2, c, d[l] = (a[l] - cv) & wm);
		}
		NEXT;
	}
	CASE(MUL) CASE(MAD) CASE(MUL24) CASE(MAD24) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		const uint64_t *ad = in->op == OP_MAD || in->op == OP_MAD24 ? SS(2) : R;
		int mad = in->op == OP_MAD || in->op == OP_MAD24;
		if (FLOAT_SLOW(in)) {
			float_slow(in, mad ? FROUND_FMA : FROUND_MUL, d, a, c, mad ? ad : NULL, m);
		} else if (in->type == PT_F32) {
			if (mad)
				LANES(d[l] = mkf32(fma32(f32(a[l]), f32(c[l]), f32(ad[l]))));
			else
				LANES(d[l] = mkf32(f32(a[l]) * f32(c[l])));
		} else if (in->type == PT_F64) {
			if (mad)
				LANES(d[l] = mkf64(fma(f64(a[l]), f64(c[l]), f64(ad[l]))));
			else
				LANES(d[l] = mkf64(f64(a[l]) * f64(c[l])));
		} else if (in->op == OP_MUL24 || in->op == OP_MAD24) {
			int sg = is_signed_t(in->type);
			LANES(int64_t x = sg ? sext(a[l] & 0xffffff, 3) : (int64_t)(a[l] & 0xffffff);
			      int64_t y = sg ? sext(c[l] & 0xffffff, 3) : (int64_t)(c[l] & 0xffffff);
			      uint64_t p = (uint64_t)(x * y);
			      p = in->mod == MUL_HI ? p >> 16 : p;
			      d[l] = (p + (mad ? ad[l] : 0)) & 0xffffffffu);
		} else if (in->mod == MUL_LO) {
			if (mad)
				LANES(d[l] = (a[l] * c[l] + ad[l]) & wm);
			else
				LANES_CV(in->imm & 2, c, d[l] = (a[l] * cv) & wm);
		} else if (in->mod == MUL_WIDE) {
			uint64_t wm2 = width_mask(sz * 2);
			if (in->type == PT_S32 && !mad) /* the common index * size: one vector op */
				LANES_CV(in->imm & 2, c, d[l] = (uint64_t)((int64_t)(int32_t)a[l] * (int32_t)cv));
			else if (in->type == PT_U32 && !mad)
				LANES_CV(in->imm & 2, c, d[l] = (uint64_t)(uint32_t)a[l] * (uint32_t)cv);
			else if (is_signed_t(in->type))
				LANES(d[l] = ((uint64_t)(sext(a[l], sz) * sext(c[l], sz)) +
					      (mad ? ad[l] : 0)) & wm2);
			else
				LANES(d[l] = ((a[l] & wm) * (c[l] & wm) + (mad ? ad[l] : 0)) & wm2);
		} else if (mad && (in->flags & PF_SAT)) { /* mad.hi.sat.s32 */
			LANES(int64_t h = (sext(a[l], 4) * sext(c[l], 4)) >> 32;
			      h += sext(ad[l], 4);
			      h = h > INT32_MAX ? INT32_MAX : h < INT32_MIN ? INT32_MIN : h;
			      d[l] = (uint32_t)h);
		} else { /* hi */
			int sg = is_signed_t(in->type);
			LANES(uint64_t h;
			      if (sz == 8) {
				      h = sg ? (uint64_t)(((__int128)(int64_t)a[l] * (int64_t)c[l]) >> 64)
					     : (uint64_t)(((unsigned __int128)a[l] * c[l]) >> 64);
			      } else {
				      h = sg ? (uint64_t)((sext(a[l], sz) * sext(c[l], sz)) >> (sz * 8))
					     : ((a[l] & wm) * (c[l] & wm)) >> (sz * 8);
			      }
			      d[l] = (h + (mad ? ad[l] : 0)) & wm);
		}
		NEXT;
	}
	CASE(FMA) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1), *ad = SS(2);
		if (FLOAT_SLOW(in)) {
			float_slow(in, FROUND_FMA, d, a, c, ad, m);
		} else if (in->type == PT_F32) {
			LANES(d[l] = mkf32(fma32(f32(a[l]), f32(c[l]), f32(ad[l]))));
		} else {
			LANES(d[l] = mkf64(fma(f64(a[l]), f64(c[l]), f64(ad[l]))));
		}
		NEXT;
	}
	CASE(SAD) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1), *ad = SS(2);
		int sg = is_signed_t(in->type);
		LANES(uint64_t diff = sg ? (uint64_t)(sext(a[l], sz) > sext(c[l], sz)
						  ? sext(a[l], sz) - sext(c[l], sz)
						  : sext(c[l], sz) - sext(a[l], sz))
				       : ((a[l] & wm) > (c[l] & wm) ? (a[l] & wm) - (c[l] & wm)
								    : (c[l] & wm) - (a[l] & wm));
		      d[l] = (diff + ad[l]) & wm);
		NEXT;
	}
	CASE(DIV) CASE(REM) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		int rem = in->op == OP_REM;
		if (FLOAT_SLOW(in)) {
			float_slow(in, FROUND_DIV, d, a, c, NULL, m);
		} else if (in->type == PT_F32) {
			LANES(d[l] = mkf32(f32(a[l]) / f32(c[l])));
		} else if (in->type == PT_F64) {
			LANES(d[l] = mkf64(f64(a[l]) / f64(c[l])));
		} else if (is_signed_t(in->type)) {
			LANES(int64_t x = sext(a[l], sz), y = sext(c[l], sz), r;
			      if (y == 0) r = rem ? x : -1;
			      else if (y == -1) r = rem ? 0 : (int64_t)(0 - (uint64_t)x);
			      else r = rem ? x % y : x / y;
			      d[l] = (uint64_t)r & wm);
		} else {
			LANES(uint64_t x = a[l] & wm, y = c[l] & wm;
			      d[l] = y == 0 ? (rem ? x : wm) : rem ? x % y : x / y);
		}
		NEXT;
	}
	CASE(ABS) CASE(NEG) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0);
		int neg = in->op == OP_NEG;
		if (in->type == PT_F32)
			LANES(d[l] = neg ? (a[l] ^ 0x80000000u) & 0xffffffffu : a[l] & 0x7fffffffu);
		else if (in->type == PT_F64)
			LANES(d[l] = neg ? a[l] ^ (1ull << 63) : a[l] & ~(1ull << 63));
		else if (neg)
			LANES(d[l] = (0 - a[l]) & wm);
		else
			LANES(int64_t x = sext(a[l], sz); d[l] = (uint64_t)(x < 0 ? -x : x) & wm);
		NEXT;
	}
	CASE(MIN) CASE(MAX) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		int mx = in->op == OP_MAX;
		if (in->type == PT_F32)
			LANES(d[l] = mkf32(mx ? fmaxf(f32(a[l]), f32(c[l])) : fminf(f32(a[l]), f32(c[l]))));
		else if (in->type == PT_F64)
			LANES(d[l] = mkf64(mx ? fmax(f64(a[l]), f64(c[l])) : fmin(f64(a[l]), f64(c[l]))));
		else if (is_signed_t(in->type))
			LANES(int64_t x = sext(a[l], sz), y = sext(c[l], sz);
			      d[l] = (uint64_t)(mx ? (x > y ? x : y) : (x < y ? x : y)) & wm);
		else
			LANES(uint64_t x = a[l] & wm, y = c[l] & wm;
			      d[l] = mx ? (x > y ? x : y) : (x < y ? x : y));
		NEXT;
	}
	CASE(RCP) CASE(SQRT) CASE(RSQRT) CASE(SIN) CASE(COS) CASE(LG2) CASE(EX2) CASE(TANH) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0);
		unsigned op = in->op;
		if ((op == OP_RCP || op == OP_SQRT) && FLOAT_SLOW(in)) {
			float_slow(in, op == OP_RCP ? FROUND_RCP : FROUND_SQRT, d, a, NULL, NULL, m);
		} else if (in->type == PT_F32) {
			LANES(float x = f32(a[l]), r;
			      switch (op) {
			      case OP_RCP: r = 1.0f / x; break;
			      case OP_SQRT: r = sqrtf(x); break;
			      case OP_RSQRT: r = 1.0f / sqrtf(x); break;
			      case OP_SIN: r = sinf(x); break;
			      case OP_COS: r = cosf(x); break;
			      case OP_LG2: r = log2f(x); break;
			      case OP_EX2: r = exp2f(x); break;
			      default: r = tanhf(x); break;
			      }
			      d[l] = mkf32(r));
		} else {
			LANES(double x = f64(a[l]), r;
			      switch (op) {
			      case OP_RCP: r = 1.0 / x; break;
			      case OP_SQRT: r = sqrt(x); break;
			      case OP_RSQRT: r = 1.0 / sqrt(x); break;
			      case OP_SIN: r = sin(x); break;
			      case OP_COS: r = cos(x); break;
			      case OP_LG2: r = log2(x); break;
			      case OP_EX2: r = exp2(x); break;
			      default: r = tanh(x); break;
			      }
			      d[l] = mkf64(r));
		}
		NEXT;
	}
	CASE(COPYSIGN) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		if (in->type == PT_F32)
			LANES(d[l] = mkf32(copysignf(f32(c[l]), f32(a[l]))));
		else
			LANES(d[l] = mkf64(copysign(f64(c[l]), f64(a[l]))));
		NEXT;
	}
	CASE(AND) CASE(OR) CASE(XOR) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		if (in->type == PT_PRED) {
			uint32_t x = pred_src(in, R, 0), y = pred_src(in, R, 1);
			pred_write(R, in->d[0], in->op == OP_AND ? x & y : in->op == OP_OR ? x | y : x ^ y, m);
		} else if (in->op == OP_AND)
			LANES_CV(in->imm & 2, c, d[l] = a[l] & cv & wm);
		else if (in->op == OP_OR)
			LANES_CV(in->imm & 2, c, d[l] = (a[l] | cv) & wm);
		else
			LANES_CV(in->imm & 2, c, d[l] = (a[l] ^ cv) & wm);
		NEXT;
	}
	CASE(NOT) CASE(CNOT) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0);
		if (in->type == PT_PRED)
			pred_write(R, in->d[0], ~pred_src(in, R, 0), m);
		else if (in->op == OP_CNOT)
			LANES(d[l] = (a[l] & wm) == 0);
		else
			LANES(d[l] = ~a[l] & wm);
		NEXT;
	}
	CASE(LOP3) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1), *e3 = SS(2), *lut = SS(3);
		LANES(uint32_t r = 0, x = (uint32_t)a[l], y = (uint32_t)c[l], z = (uint32_t)e3[l];
		      uint32_t t = (uint32_t)lut[l];
		      for (unsigned i = 0; i < 8; i++)
			      if (t >> i & 1)
				      r |= ((i & 4) ? x : ~x) & ((i & 2) ? y : ~y) & ((i & 1) ? z : ~z);
		      d[l] = r);
		NEXT;
	}
	CASE(SHL) CASE(SHR) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		unsigned bits = sz * 8;
		/* Below 64 bits a count clamped to 63 gives the same result (every bit
		 * shifted out is masked away) and the loops vectorise without a branch. */
		if (sz < 8 && in->op == OP_SHL)
			LANES_CV(in->imm & 2, c, uint64_t n = (uint32_t)cv;
				 d[l] = (a[l] << (n > 63 ? 63 : n)) & wm);
		else if (sz < 8 && !is_signed_t(in->type))
			LANES_CV(in->imm & 2, c, uint64_t n = (uint32_t)cv;
				 d[l] = (a[l] & wm) >> (n > 63 ? 63 : n));
		else if (in->op == OP_SHL)
			LANES(uint32_t n = (uint32_t)c[l]; d[l] = n >= bits ? 0 : (a[l] << n) & wm);
		else if (is_signed_t(in->type))
			LANES(uint32_t n = (uint32_t)c[l]; int64_t x = sext(a[l], sz);
			      d[l] = (uint64_t)(x >> (n >= bits ? bits - 1 : n)) & wm);
		else
			LANES(uint32_t n = (uint32_t)c[l]; d[l] = n >= bits ? 0 : (a[l] & wm) >> n);
		NEXT;
	}
	CASE(SHF) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1), *e3 = SS(2);
		unsigned left = in->flags & PF_SHF_LEFT, wrap = in->flags & PF_SHF_WRAP;
		LANES(uint32_t n = (uint32_t)e3[l];
		      n = wrap ? n & 31 : (n > 32 ? 32 : n);
		      uint64_t x = ((uint64_t)(uint32_t)c[l] << 32) | (uint32_t)a[l];
		      d[l] = left ? (uint32_t)((x << n) >> 32) : (uint32_t)(x >> n));
		NEXT;
	}
	CASE(BFE) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1), *e3 = SS(2);
		unsigned ty = in->type;
		LANES(d[l] = bfe_one(ty, a[l], c[l], e3[l]));
		NEXT;
	}
	CASE(BFI) {
		uint64_t *d = DS(0);
		const uint64_t *f = SS(0), *c = SS(1), *ps = SS(2), *ln = SS(3);
		unsigned bits = sz * 8;
		LANES(unsigned pos = (unsigned)(ps[l] & 0xff), len = (unsigned)(ln[l] & 0xff);
		      uint64_t r = c[l] & wm;
		      if (len && pos < bits) {
			      uint64_t mk = (len >= 64 ? ~0ull : (1ull << len) - 1) << pos;
			      r = ((r & ~mk) | ((f[l] << pos) & mk)) & wm;
		      }
		      d[l] = r);
		NEXT;
	}
	CASE(BREV) CASE(CLZ) CASE(POPC) CASE(BFIND) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0);
		unsigned bits = sz * 8, op = in->op;
		int sg = is_signed_t(in->type);
		LANES(uint64_t x = a[l] & wm, r = 0;
		      switch (op) {
		      case OP_BREV:
			      for (unsigned i = 0; i < bits; i++)
				      r |= (x >> i & 1) << (bits - 1 - i);
			      break;
		      case OP_CLZ: r = x ? (unsigned)__builtin_clzll(x) - (64 - bits) : bits; break;
		      case OP_POPC: r = (unsigned)__builtin_popcountll(x); break;
		      default:
			      if (sg && (x >> (bits - 1) & 1))
				      x = ~x & wm;
			      r = x ? 63 - (unsigned)__builtin_clzll(x) : 0xffffffffu;
			      if (x && in->mod == BFIND_SHIFTAMT) /* the shift that makes it the MSB */
				      r = bits - 1 - r;
			      break;
		      }
		      d[l] = r);
		NEXT;
	}
	CASE(BMSK) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		int wrap = in->mod == BMSK_WRAP;
		LANES(d[l] = bmsk_one((uint32_t)a[l], (uint32_t)c[l], wrap));
		NEXT;
	}
	CASE(PRMT) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1), *s3 = SS(2);
		if (in->mod) { /* .f4e .b4e .rc8 .ecl .ecr .rc16: exec_simd.c */
			family_exec(in, R, m);
			NEXT;
		}
		LANES(uint64_t x = ((uint64_t)(uint32_t)c[l] << 32) | (uint32_t)a[l];
		      uint32_t sel = (uint32_t)s3[l], r = 0;
		      for (unsigned i = 0; i < 4; i++) {
			      unsigned s = sel >> (4 * i) & 0xf;
			      uint32_t by = (uint32_t)(x >> ((s & 7) * 8)) & 0xff;
			      if (s & 8)
				      by = (by & 0x80) ? 0xff : 0;
			      r |= by << (8 * i);
		      }
		      d[l] = r);
		NEXT;
	}
	CASE(DP4A) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1), *ad = SS(2);
		int sa = is_signed_t(in->type), sb = is_signed_t(in->type2);
		LANES(int64_t acc = (int32_t)ad[l];
		      for (unsigned i = 0; i < 4; i++) {
			      uint32_t x = (uint32_t)(a[l] >> (8 * i)) & 0xff, y = (uint32_t)(c[l] >> (8 * i)) & 0xff;
			      acc += (sa ? (int64_t)(int8_t)x : (int64_t)x) * (sb ? (int64_t)(int8_t)y : (int64_t)y);
		      }
		      d[l] = (uint32_t)acc);
		NEXT;
	}
	CASE(CVT) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0);
		if (in->type == PT_U64 && in->type2 == PT_U32)
			LANES(d[l] = (uint32_t)a[l]);
		else if (in->type == PT_S64 && in->type2 == PT_S32)
			LANES(d[l] = (uint64_t)(int64_t)(int32_t)a[l]);
		else
			LANES(d[l] = cvt_one(in, a[l]));
		NEXT;
	}
	CASE(CVTA) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0);
		uint64_t win = space_window(in->space);
		if (in->cvta_to)
			LANES(d[l] = (a[l] - win) & wm);
		else
			LANES(d[l] = (a[l] & (sz == 4 ? 0xffffffffull : ~0ull)) + win);
		NEXT;
	}
	CASE(ISSPACEP) {
		const uint64_t *a = SS(0);
		int sp = in->space;
		uint32_t res = 0;
		LANES(uint64_t w8 = a[l] & WIN_MASK;
		      res |= (uint32_t)(sp == SP_SHARED ? w8 == SHARED_WIN
					: sp == SP_LOCAL ? w8 == LOCAL_WIN
					: sp == SP_KPARAM ? w8 == PARAM_WIN
					: (w8 != SHARED_WIN && w8 != LOCAL_WIN)) << l);
		pred_write(R, in->d[0], res, m);
		NEXT;
	}
	CASE(UNPACK) {
		const uint64_t *a = SS(0);
		unsigned n = in->vec, eb = sz * 8 / n;
		uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1;
		for (unsigned k = 0; k < n; k++) {
			uint64_t *d = DS(k);
			if (in->d[k] == SR_SINK)
				continue;
			LANES(d[l] = (a[l] >> (k * eb)) & em);
		}
		NEXT;
	}
	CASE(PACK) {
		uint64_t *d = DS(0);
		unsigned n = in->vec, eb = sz * 8 / n;
		uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1;
		uint64_t tmp[32];
		LANES(tmp[l] = 0);
		for (unsigned k = 0; k < n; k++) {
			const uint64_t *a = SS(k);
			LANES(tmp[l] |= (a[l] & em) << (k * eb));
		}
		LANES(d[l] = tmp[l]);
		NEXT;
	}
	default:
		break;
	}
}
