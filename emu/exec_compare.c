/* exec_compare — the comparisons and selections: setp (a predicate's lane mask), set,
 * selp, slct and testp.
 */
#include "exec_compare.h"

#include <math.h>

/* setp in general: every type and mode, and the boolean combination with a third
 * predicate. */
#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
static __attribute__((noinline)) void setp_general(const struct ptx_insn *in, uint64_t *R,
						   uint32_t m)
{
	const uint64_t *a = SS(0), *c = SS(1);
	unsigned ty = in->type, md = in->mod, bo = in->mod2;
	uint32_t t = 0;
	if (!(ty == PT_S32 || ty == PT_U32 || ty == PT_F32) || md > CMP_HS ||
	    !setp_fast(&t, a, c, in->imm & 2, ty, md))
		LANES(t |= (uint32_t)cmp_typed(ty, md, a[l], c[l]) << l);
	uint32_t q = ~t;
	if (bo && in->ns > 2) { /* setp.cmp.bop d|q, a, b, {!}c */
		uint32_t cv = pred_src(in, R, 2) ^ (in->neg_c ? FULL : 0);
		t = bo == BOOL_AND ? t & cv : bo == BOOL_OR ? t | cv : t ^ cv;
		q = bo == BOOL_AND ? q & cv : bo == BOOL_OR ? q | cv : q ^ cv;
	}
	pred_write(R, in->d[0], t, m);
	if (in->nd > 1)
		pred_write(R, in->d[1], q, m);
}

/* setp, for warp_exec and exec_fast.c's loop alike. The common case, a 32-bit integer
 * compare (loop bounds, i < n, tid < stride) with no boolean combination, in a function
 * whose frame is only its vectors': with the other types' paths it saved six registers
 * and aligned a stack frame at every call, about half of a setp's 120 host
 * instructions. */
#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
void setp_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	unsigned ty = in->type, md = in->mod;
	uint32_t t;
	if ((ty == PT_S32 || ty == PT_U32) && md <= CMP_HS && !(in->mod2 && in->ns > 2) &&
	    setp_fast(&t, SS(0), SS(1), in->imm & 2, ty, md)) {
		pred_write(R, in->d[0], t, m);
		if (in->nd > 1)
			pred_write(R, in->d[1], ~t, m);
		return;
	}
	setp_general(in, R, m);
}

#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
void compare_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t wm = ptx_tmask(in->type);
	switch (in->op) {
	CASE(TESTP) {
		const uint64_t *a = SS(0);
		unsigned md = in->mod;
		uint32_t res = 0;
		LANES(double x = in->type == PT_F32 ? f32(a[l]) : f64(a[l]);
		      int c = fpclassify(in->type == PT_F32 ? (double)f32(a[l]) : x);
		      int r;
		      if (in->type == PT_F32) c = fpclassify(f32(a[l]));
		      switch (md) {
		      case TESTP_FINITE: r = isfinite(x); break;
		      case TESTP_INFINITE: r = isinf(x) != 0; break;
		      case TESTP_NUMBER: r = !isnan(x); break;
		      case TESTP_NOTANUMBER: r = isnan(x) != 0; break;
		      case TESTP_NORMAL: r = c == FP_NORMAL; break;
		      default: r = c == FP_SUBNORMAL; break;
		      }
		      res |= (uint32_t)r << l);
		pred_write(R, in->d[0], res, m);
		NEXT;
	}
	CASE(SET) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		unsigned ty = in->type2, md = in->mod, dt = in->type;
		LANES(int t = cmp_typed(ty, md, a[l], c[l]);
		      d[l] = dt == PT_F32 ? (t ? mkf32(1.0f) : 0) : (t ? wm : 0));
		NEXT;
	}
	CASE(SELP) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1);
		uint32_t p = pred_src(in, R, 2);
		LANES(d[l] = (p >> l & 1) ? a[l] : c[l]);
		NEXT;
	}
	CASE(SLCT) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *c = SS(1), *p3 = SS(2);
		int fl = in->type2 == PT_F32;
		LANES(int ge = fl ? f32(p3[l]) >= 0.0f : (int32_t)p3[l] >= 0;
		      d[l] = ge ? a[l] : c[l]);
		NEXT;
	}
	default:
		break;
	}
}
