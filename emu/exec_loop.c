/* exec_loop — the interpreter loop: one warp's instructions, each for all 32 lanes at
 * once, until a barrier, the end, a fault or the end of its timeslice. Its own file
 * because it is one long switch; what its cases call lives in exec_arith.c,
 * exec_frames.c, exec_memory.c and exec_printf.c.
 */
#include "exec_internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "trace.h" /* issue 7 (panels) */

/* ---- the interpreter loop ------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The clocks (issue 18): %globaltimer counts nanoseconds and %clock64 cycles at the
 * emulated GPU's clock rate (emu_device.h; what cudaDevAttrClockRate says, so cycles over
 * the clock rate is the time a program computes), both of the host's monotonic clock;
 * %clock is %clock64's low 32 bits. Spin loops read one every few instructions, and
 * clock_gettime costs as much as 50 interpreted instructions: so a warp reads the host
 * clock at its first read after it is scheduled, then again once CLOCK_INSNS of its
 * instructions have run; a read in between adds half a nanosecond (about a cycle) for
 * each instruction the warp ran since. An interpreted instruction takes longer than that,
 * so no value passes the host clock: a warp's reads never go back, and its first read
 * after another warp of the block ran is the host's, that warp's time included. */
#define CLOCK_INSNS 256

struct clock_cache {
	uint64_t ns;     /* the host clock at the warp's last read of it; 0: none this run */
	unsigned budget; /* the warp's budget then (warp_exec's, counting down) */
};

static uint64_t clock_read(struct clock_cache *c, unsigned budget, int which, unsigned khz)
{
	if (!c->ns || c->budget - budget >= CLOCK_INSNS) {
		c->ns = now_ns();
		c->budget = budget;
	}
	uint64_t half_ns = 2 * c->ns + (c->budget - budget);
	if (which == 3) /* %globaltimer */
		return half_ns / 2;
	uint64_t cycles = (uint64_t)((unsigned __int128)half_ns * khz / 2000000u);
	return which == 1 ? cycles & 0xffffffffu : cycles; /* %clock : %clock64 */
}

/* dispatch: a switch; CASE/NEXT keep the bodies independent of the dispatch method */
#define CASE(op) case OP_##op:
#define NEXT break

/* Executes warp w until it reaches a barrier, ends, faults (negative return) or has
 * used its timeslice. */
#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
int warp_exec(struct block *b, struct warp *w)
{
	const struct emu_hooks *hooks = EMU_HOOKS ? b->L->hooks : NULL;
	struct emu_trace_sm *tsm = b->tsm; /* issue 7 (panels) */
	if (__builtin_expect(tsm != NULL, 0))
		emu_trace_warp_state(tsm, w->id, EMU_TW_ISSUING);
	struct frame *fr = &w->frames[w->nframes - 1];
	const struct ptx_insn *code = fr->f->code;
	uint64_t *R = fr->regs;
	uint64_t count = 0;
	int rc = 0;
	struct clock_cache clk = {0, 0};
	for (unsigned budget = b->L->slice;;) {
		if (w->sp == 0) {
			w->state = W_DONE;
			break;
		}
		struct simt_entry *e = &w->stack[w->sp - 1];
		uint32_t emask = e->mask & w->live;
		if (emask == 0 || e->pc == e->rpc || e->pc == PTX_NOPC) {
			if (w->nframes > 1 && w->sp - 1 == fr->stack_base) {
				warp_return(w);
				fr = &w->frames[w->nframes - 1];
				code = fr->f->code;
				R = fr->regs;
			} else {
				w->sp--;
			}
			continue;
		}
		if (budget == 0)
			break;
		/* A straight run: the instructions up to the entry's reconvergence point, with
		 * the pc in a register. The cases that change control flow (branches, calls,
		 * exits, barriers) store it back themselves and go to `reload`. */
		uint32_t pc = e->pc;
		const uint32_t rpc = e->rpc;
		const uint8_t *fops = !hooks && !tsm && fr->f == b->L->kf ? b->L->fops : NULL;
		do {
		if (fops && fops[pc]) { /* exec_fast.c: up to an instruction it leaves to us */
			pc = fast_run(b, w, R, code, fops, pc, rpc, emask, &budget, &count);
			if (pc == rpc || !budget)
				break;
		}
		budget--;
		const struct ptx_insn *in = &code[pc];
		uint32_t m = emask;
		if (in->guard >= 0)
			m = (pred_read(R, (uint32_t)in->guard) ^ (in->guard_neg ? FULL : 0)) & emask;
#if EMU_HOOKS
		if (__builtin_expect(hooks != NULL, 0) && hooks->on_insn)
			hooks->on_insn(hooks->ctx, b->idx, w->id, m, pc, in->line);
#endif
		if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels): lanes that issue it */
			emu_trace_insn(tsm, w->id, emask, in);
		count += m == FULL ? 32 : popcount32(m);
		pc++;
		if (m == 0 && in->op != OP_BRA)
			continue;
		unsigned sz = ptx_tsize(in->type);
		uint64_t wm = ptx_tmask(in->type);
		if (__builtin_expect(in->flags & PF_CARRY, 0)) {
			carry_op(in, R, m);
			continue;
		}
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
		CASE(HALF) CASE(SIMD) CASE(VIDEO) CASE(DP2A) CASE(FNS) { /* exec_half.c, exec_simd.c */
			family_exec(in, R, m);
			NEXT;
		}
		CASE(MMA) { /* exec_mma.c: the whole warp's fragments at once */
			if ((rc = mma_exec(b, w, in, R, m)))
				goto out;
			NEXT;
		}
		CASE(TEX) { /* exec_tex.c */
			if ((rc = tex_exec(b, w, in, R, m)))
				goto out;
			NEXT;
		}
		CASE(CPASYNC) { /* exec_async.c */
			if ((rc = async_exec(b, w, in, R, m)))
				goto out;
			NEXT;
		}
		CASE(MBAR) { /* exec_async.c */
			if ((rc = mbar_exec(b, w, in, R, m)) == MBAR_BLOCKED) {
				e->pc = pc - 1; /* the wait again, at the warp's next turn */
				rc = 0;
				goto out;
			}
			if (rc)
				goto out;
			NEXT;
		}
		CASE(SETP) {
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
		CASE(LD) {
			const uint64_t *a = SS(0);
			if (__builtin_expect(in->xmod & PX_POLL, 0) && b->L->grid_ws &&
			    grid_poll(b, w, in, a, m)) {
				/* parked before the load, which runs again when the grid
				 * barrier has opened (exec_grid.c) */
				count -= m == FULL ? 32 : popcount32(m);
				e->pc = pc - 1;
				goto out;
			}
			int64_t off = in->off;
			unsigned n = in->vec, tot = sz * n, sp = in->space;
			if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
				emu_trace_mem(tsm, in, (int)sp, a, off, tot, m, 0);
			int sg = is_signed_t(in->type);
			uint64_t *d0 = DS(0);
			uintptr_t p0, w0;
			if (sp == SP_KPARAM && !hooks) {
				/* a kernel parameter, the same value for every lane: at an immediate
				 * address, or one register holds for all of them (an array in a
				 * __grid_constant__ parameter indexed in a loop: LargeKernelParameter) */
				uint64_t x = a[__builtin_ctz(m)] + (uint64_t)off, apart = 0;
				if (in->s[0] != SR_ZERO && !(in->imm & 1)) /* a register: compare */
					LANES(apart |= a[l] != a[__builtin_ctz(m)]);
				if (!apart && x <= b->L->kparam_size && tot <= b->L->kparam_size - x) {
					for (unsigned k = 0; k < n; k++) {
						uint64_t v = load_n(b->L->kparams + x + k * sz, sz, sg), *dk = DS(k);
						LANES(dk[l] = v);
					}
					NEXT;
				}
			}
			uint64_t ends[4];
			int shape;
			if (!hooks && n == 1 && sz == 4 && m == FULL && sp != SP_LOCAL && sp < SP_KPARAM &&
			    (shape = span_shape(a, ends)) &&
			    (p0 = warp_span(b, w, (int)sp, ends, off, 4, 0xf, &w0))) {
				span_load_shape(d0, a[0], a[16], p0, sg, shape);
				NEXT;
			}
			if (!hooks && (p0 = warp_span(b, w, (int)sp, a, off, tot, m, &w0))) {
				if (n == 1)
					span_load(d0, a, p0, sz, sg, m);
				else { /* a vector: the addresses first, a destination may be their register */
					uint64_t ta[32];
					memcpy(ta, a, sizeof ta);
					for (unsigned k = 0; k < n; k++) {
						uint64_t *dk = DS(k);
						uintptr_t pk = p0 + k * sz;
						LANES(dk[l] = load_n((const void *)(pk + ta[l]), sz, sg));
					}
				}
				NEXT;
			}
			for (uint32_t mm = m; mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t addr = (a[l] + (uint64_t)off) & space_addr_mask((int)sp);
				const unsigned char *p = mem_at(b, w, l, in, (int)sp, addr, tot, 0);
				if (!p) {
					rc = -EFAULT;
					goto out;
				}
#if EMU_HOOKS
				if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
					hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, tot, 0, in->line);
#endif
				if (n == 1) {
					d0[l] = load_n(p, sz, sg);
				} else {
					for (unsigned k = 0; k < n; k++)
						R[(size_t)in->d[k] * 32 + l] = load_n(p + k * sz, sz, sg);
				}
			}
			NEXT;
		}
		CASE(ST) {
			const uint64_t *a = SS(0);
			int64_t off = in->off;
			unsigned n = in->vec, tot = sz * n, sp = in->space;
			if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
				emu_trace_mem(tsm, in, (int)sp, a, off, tot, m, 1);
			uintptr_t p0, w0;
			uint64_t ends[4];
			int shape;
			if (!hooks && n == 1 && sz == 4 && m == FULL && sp != SP_LOCAL && sp < SP_KPARAM &&
			    (shape = span_shape(a, ends)) &&
			    (p0 = warp_span(b, w, (int)sp, ends, off, 4, 0xf, &w0))) {
				span_store_shape(SS(1), a[0], a[16], p0, w0, shape);
				NEXT;
			}
			if (!hooks && (p0 = warp_span(b, w, (int)sp, a, off, tot, m, &w0))) {
				for (unsigned k = 0; k < n; k++)
					span_store(a, SS(1 + k), p0 + k * sz, sz, m);
				if (w0)
					span_written(a, w0, tot, m);
				NEXT;
			}
			for (uint32_t mm = m; mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t addr = (a[l] + (uint64_t)off) & space_addr_mask((int)sp);
				unsigned char *p = mem_at(b, w, l, in, (int)sp, addr, tot, 1);
				if (!p) {
					rc = -EFAULT;
					goto out;
				}
#if EMU_HOOKS
				if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
					hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, tot, 1, in->line);
#endif
				for (unsigned k = 0; k < n; k++)
					store_n(p + k * sz, sz, R[(size_t)in->s[1 + k] * 32 + l]);
				mem_mark_written(w, p, tot);
			}
			NEXT;
		}
		CASE(ATOM) CASE(RED) {
			int red = in->op == OP_RED;
			const uint64_t *a = SS(0), *bv = SS(1), *cv = in->ns > 2 ? SS(2) : SS(1);
			uint64_t *d = red ? NULL : DS(0);
			unsigned sp = in->space;
			if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
				emu_trace_mem(tsm, in, (int)sp, a, in->off, sz, m, 1);
			/* every lane on one address (a counter, a flag): one update (atom_warp) */
			uint64_t a0 = a[__builtin_ctz(m)];
			uint32_t apart = 0;
			LANES(apart |= a[l] != a0);
			if (!apart && (m & (m - 1)) && !(EMU_HOOKS && hooks && hooks->on_access)) {
				unsigned l0 = (unsigned)__builtin_ctz(m);
				uint64_t addr = (a0 + (uint64_t)in->off) & space_addr_mask((int)sp);
				void *p = mem_at(b, w, l0, in, (int)sp, addr, sz, 1);
				if (!p) {
					rc = -EFAULT;
					goto out;
				}
				if (atom_warp(in, p, bv, cv, m, d)) {
					mem_mark_written(w, p, sz);
					NEXT;
				}
			}
			for (uint32_t mm = m; mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t addr = (a[l] + (uint64_t)in->off) & space_addr_mask((int)sp);
				void *p = mem_at(b, w, l, in, (int)sp, addr, sz, 1);
				if (!p) {
					rc = -EFAULT;
					goto out;
				}
#if EMU_HOOKS
				if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
					hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, sz, 2, in->line);
#endif
				uint64_t old = atom_one(in, p, bv[l], cv[l]);
				mem_mark_written(w, p, sz);
				if (d)
					d[l] = old;
			}
			NEXT;
		}
		CASE(SHFL) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *bb = SS(1), *cc = SS(2);
			uint64_t src[32];
			memcpy(src, a, sizeof src);
			unsigned md = in->mod;
			uint32_t oks = 0;
			LANES(int lane = (int)l, bval = (int)(bb[l] & 0x1f), cval = (int)(cc[l] & 0x1f);
			      int seg = (int)((cc[l] >> 8) & 0x1f);
			      int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j, ok;
			      switch (md) {
			      case SHFL_UP: j = lane - bval; ok = j >= maxl; break;
			      case SHFL_DOWN: j = lane + bval; ok = j <= maxl; break;
			      case SHFL_BFLY: j = lane ^ bval; ok = j <= maxl; break;
			      default: j = minl | (bval & ~seg); ok = j <= maxl; break;
			      }
			      if (!ok) j = lane;
			      d[l] = src[j] & 0xffffffffu;
			      oks |= (uint32_t)ok << l);
			if (in->d[1] != SR_SINK)
				pred_write(R, in->d[1], oks, m);
			NEXT;
		}
		CASE(VOTE) {
			uint64_t *d = DS(0);
			uint32_t bal = (pred_src(in, R, 0) ^ (in->neg_c ? FULL : 0)) & m, grp[32];
			member_groups(in, R, m, 1, grp);
			if (in->mod == VOTE_BALLOT) {
				LANES(d[l] = bal & grp[l]);
				NEXT;
			}
			uint32_t res = 0;
			LANES(uint32_t v = bal & grp[l];
			      res |= (uint32_t)(in->mod == VOTE_ALL ? v == grp[l] : in->mod == VOTE_ANY
						? v != 0 : v == 0 || v == grp[l]) << l);
			pred_write(R, in->d[0], res, m);
			NEXT;
		}
		CASE(MATCH) {
			match_lanes(in, R, m);
			NEXT;
		}
		CASE(REDUX) {
			redux_lanes(in, R, m);
			NEXT;
		}
		CASE(ACTIVEMASK) {
			uint64_t *d = DS(0);
			LANES(d[l] = m);
			NEXT;
		}
		CASE(CLOCK) {
			uint64_t *d = DS(0), t = clock_read(&clk, budget, in->mod, b->L->clock_khz);
			LANES(d[l] = t);
			NEXT;
		}
		CASE(BRA) {
			uint32_t taken = m, nt = emask & ~m, x;
			if (in->guard < 0 || nt == 0) { /* uniform: the run goes on */
				pc = in->target;
				NEXT;
			}
			if (taken == 0) /* falls through: pc is already the next one */
				NEXT;
			pc--; /* the branch's own pc, as exit_via and stack_push below want it */
			e->pc = pc + 1;
			if (!b->L->strict_exits &&
				   (x = exit_via(w, code, in->target)) != PTX_NOPC) {
				warp_retire(b, w, taken, x, &count); /* the rest falls through */
			} else if (!b->L->strict_exits && (x = exit_via(w, code, pc + 1)) != PTX_NOPC) {
				warp_retire(b, w, nt, x, &count); /* the rest jumps */
				e->pc = in->target;
			} else if (in->reconv == e->rpc) {
				e->mask = nt;
				if (stack_push(w, in->target, in->reconv, taken)) {
					rc = fault_set(b, w, 0, in, EMU_FAULT_LIMIT, -ENOMEM, "out of memory");
					goto out;
				}
			} else {
				uint32_t rv = in->reconv;
				e->pc = rv;
				if (stack_push(w, pc + 1, rv, nt) || stack_push(w, in->target, rv, taken)) {
					rc = fault_set(b, w, 0, in, EMU_FAULT_LIMIT, -ENOMEM, "out of memory");
					goto out;
				}
			}
			goto reload;
		}
		CASE(CALL) {
			e->pc = pc;
			rc = warp_call(b, w, in, m);
			if (rc)
				goto out;
			fr = &w->frames[w->nframes - 1];
			code = fr->f->code;
			R = fr->regs;
			goto reload;
		}
		CASE(RET) CASE(EXIT) {
			e->pc = pc;
			if (in->op == OP_EXIT || w->nframes == 1) {
				w->live &= ~m;
			} else {
				for (unsigned k = fr->stack_base; k < w->sp; k++)
					w->stack[k].mask &= ~m;
			}
			goto reload;
		}
		CASE(BAR) {
			if (in->mod == BAR_ARRIVE)
				NEXT;
			e->pc = pc;
			if (m != w->live) {
				rc = fault_set(b, w, (unsigned)__builtin_ctz(w->live & ~m), in,
					       EMU_FAULT_BARRIER, -EDEADLK,
					       "__syncthreads() was reached by only some threads of warp "
					       "%u (lanes 0x%08x of 0x%08x): a barrier inside divergent "
					       "code hangs or misbehaves on a GPU", w->id, m, w->live);
				goto out;
			}
			if (in->mod != BAR_SYNC) {
				uint32_t v = (pred_src(in, R, 1) ^ (in->neg_c ? FULL : 0)) & m;
				b->red_popc += popcount32(v);
				b->red_and &= v == m;
				b->red_or |= v != 0;
				w->red_pending = in->mod;
				w->red_slot = in->d[0];
			}
#if EMU_HOOKS
			if (__builtin_expect(hooks != NULL, 0) && hooks->on_barrier)
				hooks->on_barrier(hooks->ctx, b->idx, w->id, m, in->line);
#endif
			if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
				emu_trace_barrier(tsm, w->id, in);
			w->state = W_BARRIER;
			goto out;
		}
		CASE(BARRIER) CASE(BARWARP) CASE(MEMBAR) CASE(FENCE) CASE(NOP) {
			NEXT;
		}
		CASE(VPRINTF) {
			const struct ptx_module *mod = b->L->m;
			uint32_t o0 = mod->callargs[in->off], o1 = mod->callargs[in->off + 1];
			size_t fs = fr->f->fparam_size;
			for (uint32_t mm = m; mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t fp, ap;
				memcpy(&fp, fr->fparam + l * fs + o0, 8);
				memcpy(&ap, fr->fparam + l * fs + o1, 8);
				int nargs = 0;
				if (do_printf(b, w, l, in, fp, ap, &nargs)) {
					rc = -EFAULT;
					goto out;
				}
				if (in->d[0] != PTX_NOPC) {
					int32_t r = nargs;
					memcpy(fr->fparam + l * fs + in->d[0], &r, 4);
				}
			}
			NEXT;
		}
		CASE(SETCONDITIONAL) {
			/* cudaGraphSetConditional(handle, value): the handle is the address of
			 * 4 bytes of device memory (cudart_graph.c); the last lane's value wins */
			const struct ptx_module *mod = b->L->m;
			size_t fs = fr->f->fparam_size;
			for (uint32_t mm = m; in->ns >= 2 && mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t h;
				uint32_t v;
				memcpy(&h, fr->fparam + l * fs + mod->callargs[in->off], 8);
				memcpy(&v, fr->fparam + l * fs + mod->callargs[in->off + 1], 4);
				char *p = mem_at(b, w, l, in, SP_GLOBAL, h, 4, 1);
				if (!p) {
					rc = -EFAULT;
					goto out;
				}
				memcpy(p, &v, 4);
			}
			NEXT;
		}
		CASE(MALLOC) CASE(FREE) {
			/* malloc(size) / free(p) of the device heap (exec_memory.c), lane by lane */
			const struct ptx_module *mod = b->L->m;
			size_t fs = fr->f->fparam_size;
			for (uint32_t mm = m; in->ns >= 1 && mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t x;
				memcpy(&x, fr->fparam + l * fs + mod->callargs[in->off], 8);
				if (in->op == OP_FREE && heap_free(w, x) != 0) {
					rc = fault_set(b, w, l, in, EMU_FAULT_OOB, -EFAULT,
						       "free(0x%llx): not a block that malloc or new in a "
						       "kernel returned, or freed already",
						       (unsigned long long)x);
					goto out;
				}
				if (in->op == OP_MALLOC) {
					uint64_t p = heap_malloc(x);
					if (in->d[0] != PTX_NOPC)
						memcpy(fr->fparam + l * fs + in->d[0], &p, 8);
				}
			}
			NEXT;
		}
		CASE(CDP) { /* dynamic parallelism's device runtime (exec_cdp.c) */
			if ((rc = cdp_exec(b, w, in, m, fr)))
				goto out;
			NEXT;
		}
		CASE(ASSERTFAIL) {
			const struct ptx_module *mod = b->L->m;
			unsigned l = (unsigned)__builtin_ctz(m);
			size_t fs = fr->f->fparam_size;
			uint64_t msgp = 0, filep = 0;
			uint32_t line = 0;
			char msg[256] = "?", file[256] = "?";
			if (in->ns >= 3) {
				memcpy(&msgp, fr->fparam + l * fs + mod->callargs[in->off], 8);
				memcpy(&filep, fr->fparam + l * fs + mod->callargs[in->off + 1], 8);
				memcpy(&line, fr->fparam + l * fs + mod->callargs[in->off + 2], 4);
				read_cstr(b, w, l, in, msgp, msg, sizeof msg);
				b->faulted = 0;
				read_cstr(b, w, l, in, filep, file, sizeof file);
				b->faulted = 0;
			}
			rc = fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
				       "device-side assertion `%s' failed (%s:%u)", msg, file, line);
			goto out;
		}
		CASE(TRAP) CASE(BRKPT) {
			rc = fault_set(b, w, (unsigned)__builtin_ctz(m), in, EMU_FAULT_TRAP, -ECANCELED,
				       "%s", grid_trap_message(b->L));
			goto out;
		}
		CASE(UNSUPPORTED) {
			rc = fault_set(b, w, (unsigned)__builtin_ctz(m), in, EMU_FAULT_UNSUPPORTED,
				       -ENOTSUP, "%s", b->L->m->messages[in->target]);
			goto out;
		}
		default:
			rc = fault_set(b, w, 0, in, EMU_FAULT_UNSUPPORTED, -ENOTSUP,
				       "the decoded opcode %s is not implemented; run with --backend gpu",
				       ptx_opcode_name(in->op));
			goto out;
		}
		} while (pc != rpc && budget);
		e->pc = pc;
	reload:;
	}
out:
	w->insns += count;
	return rc;
}
