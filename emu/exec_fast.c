/* exec_fast — the instruction loop's common case: the kernel's own instructions that
 * make up the hot loops of most kernels (integer and f32 arithmetic, compares, address
 * conversions, loads and stores that stay inside one array, branches that do not
 * diverge), with no hooks (race checker, memory checks). Each instruction's
 * kind and type are folded into one code at the launch (fast_ops), so the loop does not
 * look at the instruction's type, modifiers or flags again; and it is a small function,
 * so its pc, budget, mask and registers stay in host registers (in warp_exec's switch
 * GCC keeps them on the stack).
 *
 * fast_run stops before the first instruction it does not take, and before one whose
 * case it finds it cannot do (a divergent branch, an access outside the array its first
 * lane is in): warp_exec runs that one, with every check, and comes back. So each case
 * here computes exactly what warp_exec's does for the same instruction. With the trace
 * on (the TUI's panels) the same loop runs as fast_run_traced, which tells the trace of
 * each instruction it ran, as warp_exec does; an instruction it leaves is told by
 * warp_exec alone.
 */
#include "exec_internal.h"

#include <stdlib.h>

#include "exec_compare.h"
#include "trace.h" /* issue 7 (panels) */

enum fast_op {
	F_SLOW, /* warp_exec's */
	F_MOV,
	F_ADD32, F_ADD64, F_SUB32, F_SUB64, F_ADDF32,
	F_MUL32, F_MUL64, F_MAD32, F_MAD64, F_MULWS, F_MULWU, F_FMAF32,
	F_SHL32, F_SHRU32,
	F_SETP,
	F_CVTA,
	F_LD, F_ST,
	F_BRA,
};

/* The fast code of one instruction, or F_SLOW. */
static uint8_t fast_op(const struct ptx_insn *in)
{
	unsigned ty = in->type, sz = ptx_tsize(ty);
	int i32 = ty == PT_U32 || ty == PT_S32 || ty == PT_B32;
	int i64 = ty == PT_U64 || ty == PT_S64 || ty == PT_B64;
	int fslow = FLOAT_SLOW(in);
	if (in->flags & PF_CARRY)
		return F_SLOW;
	switch (in->op) {
	case OP_MOV:
		return ty != PT_PRED ? F_MOV : F_SLOW;
	case OP_ADD:
	case OP_SUB:
		if (ty == PT_F32 && !fslow && in->op == OP_ADD)
			return F_ADDF32;
		if (in->flags & PF_SAT)
			return F_SLOW;
		if (i32)
			return in->op == OP_ADD ? F_ADD32 : F_SUB32;
		if (i64)
			return in->op == OP_ADD ? F_ADD64 : F_SUB64;
		return F_SLOW;
	case OP_MUL:
	case OP_MAD:
		if (ty == PT_F32 && !fslow && in->op == OP_MAD)
			return F_FMAF32;
		if (!i32 && !i64)
			return F_SLOW;
		if (in->mod == MUL_LO)
			return in->op == OP_MUL ? (i32 ? F_MUL32 : F_MUL64) : (i32 ? F_MAD32 : F_MAD64);
		if (in->mod == MUL_WIDE && in->op == OP_MUL && (ty == PT_S32 || ty == PT_U32))
			return ty == PT_S32 ? F_MULWS : F_MULWU;
		return F_SLOW;
	case OP_FMA:
		return ty == PT_F32 && !fslow ? F_FMAF32 : F_SLOW;
	case OP_SHL:
		return sz == 4 ? F_SHL32 : F_SLOW;
	case OP_SHR:
		return sz == 4 && !is_signed_t(ty) ? F_SHRU32 : F_SLOW;
	case OP_SETP:
		return F_SETP; /* warp_exec's own function */
	case OP_CVTA:
		return F_CVTA;
	case OP_LD:
	case OP_ST:
		if (in->vec != 1 || !sz || sz > 8 || (in->xmod & PX_POLL) ||
		    !(in->space == SP_GLOBAL || in->space == SP_SHARED || in->space == SP_GENERIC ||
		      in->space == SP_CONST || (in->space == SP_KPARAM && in->op == OP_LD)))
			return F_SLOW;
		return in->op == OP_LD ? F_LD : F_ST;
	case OP_BRA:
		return F_BRA;
	default:
		return F_SLOW;
	}
}

uint8_t *fast_ops(const struct ptx_func *f)
{
	uint8_t *ops = malloc(f->ncode ? f->ncode : 1);
	if (ops)
		for (unsigned pc = 0; pc < f->ncode; pc++)
			ops[pc] = fast_op(&f->code[pc]);
	return ops;
}

/* ld and st, out of line: their checks and calls would take fast_run's registers.
 * Returns 0, done; 1, warp_exec's (outside the array of the first lane, misaligned, or a
 * parameter the lanes read at different addresses). With the trace on, tells it of the
 * instruction (EMASK: the lanes that issue it) and its access once it is sure to do it,
 * before the copy (a load may overwrite its address register). */
#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
static __attribute__((noinline)) int fast_mem(struct block *b, struct warp *w,
					      const struct ptx_insn *in, uint64_t *R, uint32_t m,
					      uint32_t emask)
{
	unsigned sz = ptx_tsize(in->type), sp = in->space;
	uint64_t *d = DS(0);
	const uint64_t *a = SS(0), *c = SS(1);
	int sg = is_signed_t(in->type), ld = in->op == OP_LD;
	uintptr_t p0, w0;
	int shape;
#define FAST_TRACE(a)                                                                    \
	do {                                                                             \
		if (__builtin_expect(b->tsm != NULL, 0)) {                               \
			emu_trace_insn(b->tsm, w->id, emask, in);                       \
			emu_trace_mem(b->tsm, in, (int)sp, a, in->off, sz, m, !ld);     \
		}                                                                        \
	} while (0)
	if (sp == SP_KPARAM) { /* warp_exec's: the same value for every lane */
		uint64_t x = a[__builtin_ctz(m)] + (uint64_t)in->off, apart = 0;
		if (in->s[0] != SR_ZERO && !(in->imm & 1))
			LANES(apart |= a[l] != a[__builtin_ctz(m)]);
		if (apart || x > b->L->kparam_size || sz > b->L->kparam_size - x)
			return 1;
		FAST_TRACE(a);
		uint64_t v = load_n(b->L->kparams + x, sz, sg);
		LANES(d[l] = v);
		return 0;
	}
	if (sz == 4 && m == FULL && (shape = span_shape_at(b, w, (int)sp, a, in->off, &p0, &w0))) {
		FAST_TRACE(a);
		if (ld)
			span_load_shape(d, a[0], a[16], p0, sg, shape);
		else
			span_store_shape(c, a[0], a[16], p0, w0, shape);
		return 0;
	}
	if (!(p0 = warp_span(b, w, (int)sp, a, in->off, sz, m, &w0)))
		return 1;
	FAST_TRACE(a);
	if (ld) {
		span_load(d, a, p0, sz, sg, m);
	} else {
		span_store(a, c, p0, sz, m);
		if (w0)
			span_written(a, w0, sz, m);
	}
	return 0;
#undef FAST_TRACE
}

/* The operands of the case */
#define D0 uint64_t *d = DS(0)
#define S01 const uint64_t *a = SS(0), *c = SS(1)

/* The loop, inlined into fast_run (TSM NULL: no test of it at all) and fast_run_traced. */
static inline __attribute__((always_inline)) uint32_t
fast_loop(struct block *b, struct warp *w, uint64_t *R, const struct ptx_insn *code,
	  const uint8_t *ops, uint32_t pc, uint32_t rpc, uint32_t emask, unsigned *budgetp,
	  uint64_t *countp, struct emu_trace_sm *tsm)
{
	unsigned budget = *budgetp;
	uint64_t count = *countp;
	unsigned op;
	while (pc != rpc && budget && (op = ops[pc])) {
		const struct ptx_insn *in = &code[pc];
		uint32_t m = emask, next = pc + 1;
		if (in->guard >= 0) {
			m = (pred_read(R, (uint32_t)in->guard) ^ (in->guard_neg ? FULL : 0)) & emask;
			if (m == 0 && op != F_BRA)
				goto done;
		}
		switch (op) {
		case F_MOV: {
			D0;
			const uint64_t *a = SS(0);
			LANES(d[l] = a[l]);
			break;
		}
		case F_ADD32: {
			D0; S01;
			LANES_CV(in->imm & 2, c, d[l] = (a[l] + cv) & 0xffffffffu);
			break;
		}
		case F_ADD64: {
			D0; S01;
			LANES_CV(in->imm & 2, c, d[l] = a[l] + cv);
			break;
		}
		case F_SUB32: {
			D0; S01;
			LANES_CV(in->imm & 2, c, d[l] = (a[l] - cv) & 0xffffffffu);
			break;
		}
		case F_SUB64: {
			D0; S01;
			LANES_CV(in->imm & 2, c, d[l] = a[l] - cv);
			break;
		}
		case F_ADDF32: {
			D0; S01;
			LANES(d[l] = mkf32(f32(a[l]) + f32(c[l])));
			break;
		}
		case F_MUL32: {
			D0; S01;
			LANES_CV(in->imm & 2, c, d[l] = (a[l] * cv) & 0xffffffffu);
			break;
		}
		case F_MUL64: {
			D0; S01;
			LANES_CV(in->imm & 2, c, d[l] = a[l] * cv);
			break;
		}
		case F_MAD32: {
			D0; S01;
			const uint64_t *ad = SS(2);
			LANES(d[l] = (a[l] * c[l] + ad[l]) & 0xffffffffu);
			break;
		}
		case F_MAD64: {
			D0; S01;
			const uint64_t *ad = SS(2);
			LANES(d[l] = a[l] * c[l] + ad[l]);
			break;
		}
		case F_MULWS: {
			D0; S01;
			LANES_CV(in->imm & 2, c, d[l] = (uint64_t)((int64_t)(int32_t)a[l] * (int32_t)cv));
			break;
		}
		case F_MULWU: {
			D0; S01;
			LANES_CV(in->imm & 2, c, d[l] = (uint64_t)(uint32_t)a[l] * (uint32_t)cv);
			break;
		}
		case F_FMAF32: {
			D0; S01;
			const uint64_t *ad = SS(2);
			LANES(d[l] = mkf32(fma32(f32(a[l]), f32(c[l]), f32(ad[l]))));
			break;
		}
		case F_SHL32: {
			D0; S01;
			LANES_CV(in->imm & 2, c, uint64_t n = (uint32_t)cv;
				 d[l] = (a[l] << (n > 63 ? 63 : n)) & 0xffffffffu);
			break;
		}
		case F_SHRU32: {
			D0; S01;
			LANES_CV(in->imm & 2, c, uint64_t n = (uint32_t)cv;
				 d[l] = (a[l] & 0xffffffffu) >> (n > 63 ? 63 : n));
			break;
		}
		case F_SETP:
			setp_exec(in, R, m); /* exec_compare.c */
			break;
		case F_CVTA: {
			D0;
			const uint64_t *a = SS(0);
			uint64_t wm = ptx_tmask(in->type);
			uint64_t win = space_window(in->space);
			if (in->cvta_to)
				LANES(d[l] = (a[l] - win) & wm);
			else
				LANES(d[l] = (a[l] & (ptx_tsize(in->type) == 4 ? 0xffffffffull : ~0ull)) + win);
			break;
		}
		case F_LD:
		case F_ST:
			if (fast_mem(b, w, in, R, m, emask))
				goto out;
			goto traced; /* by fast_mem */
		case F_BRA:
			if (in->guard < 0 || (emask & ~m) == 0) /* uniform */
				next = in->target;
			else if (m != 0) /* divergent: warp_exec's */
				goto out;
			break;
		}
	done:
		if (tsm) /* issue 7 (panels): lanes that issue it, as warp_exec tells it */
			emu_trace_insn(tsm, w->id, emask, in);
	traced:
		budget--;
		count += (unsigned)__builtin_popcount(m);
		pc = next;
	}
out:
	*budgetp = budget;
	*countp = count;
	return pc;
}

#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
uint32_t fast_run(struct block *b, struct warp *w, uint64_t *R, const struct ptx_insn *code,
		  const uint8_t *ops, uint32_t pc, uint32_t rpc, uint32_t emask,
		  unsigned *budget, uint64_t *count)
{
	return fast_loop(b, w, R, code, ops, pc, rpc, emask, budget, count, NULL);
}

#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
uint32_t fast_run_traced(struct block *b, struct warp *w, uint64_t *R,
			 const struct ptx_insn *code, const uint8_t *ops, uint32_t pc,
			 uint32_t rpc, uint32_t emask, unsigned *budget, uint64_t *count)
{
	return fast_loop(b, w, R, code, ops, pc, rpc, emask, budget, count, b->tsm);
}
