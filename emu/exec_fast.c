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
	F_LDK, F_STK, /* ld and st in a chain of fast_link: the shape kept for the next */
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

/* Shapes found once for a run of accesses. The tiled matmul's 32 ld.shared of a tile
 * read two registers at 16 offsets each: the shape of a register's 32 addresses
 * (span_shape_of, about 60 host instructions) holds until the register is written. So
 * fast_ops links each full-warp candidate (an unguarded 4-byte ld or st outside the
 * parameters) to the one before it on the same register, when every path from that one
 * to it runs the instructions between in order (no branch lands between them) and none of
 * them writes the register; fast_run keeps the shape of the last two it ran, keyed by
 * pc (warp.seen). Within one fast_run an access at pc is reached only through the one it links to
 * (or from the run's start, with nothing kept), so a kept shape of that pc was found on
 * the register's present values. */
#define LINK_NONE 0xffffffffu /* not a candidate */
#define LINK_LOOK 16u         /* instructions looked back for the one linked to */
/* link[pc] of a candidate: bit 0, its entry in the shape_cache; above, 1 + the pc of
 * the candidate it links to, 0 for none. */
static const uint32_t *fast_links(const uint8_t *ops, unsigned ncode)
{
	return (const uint32_t *)(const void *)(ops + ((ncode + 3u) & ~3u));
}

static int link_candidate(const struct ptx_insn *in, uint8_t op)
{
	return (op == F_LD || op == F_ST || op == F_LDK || op == F_STK) && in->guard < 0 &&
	       ptx_tsize(in->type) == 4 &&
	       in->space != SP_KPARAM;
}

static int writes_slot(const struct ptx_insn *in, uint32_t slot)
{
	for (unsigned k = 0; k < in->nd && k < 4; k++)
		if (in->d[k] == slot)
			return 1;
	return 0;
}

static void fast_link(const struct ptx_func *f, uint8_t *ops, uint32_t *link)
{
	unsigned n = f->ncode, next = 0;
	uint8_t *target = calloc(n + 1, 1); /* a branch lands there */
	for (unsigned pc = 0; pc < n; pc++) {
		link[pc] = LINK_NONE;
		if (target && f->code[pc].op == OP_BRA && f->code[pc].target < n)
			target[f->code[pc].target] = 1;
	}
	for (unsigned pc = 0; pc < n; pc++) {
		const struct ptx_insn *in = &f->code[pc];
		if (!link_candidate(in, ops[pc]))
			continue;
		uint32_t r = in->s[0], to = 0;
		for (unsigned j = pc; target && !target[j] && j > 0 && pc - j < LINK_LOOK; j--) {
			const struct ptx_insn *p = &f->code[j - 1];
			if (!ops[j - 1] || writes_slot(p, r))
				break;
			if (link[j - 1] != LINK_NONE && p->s[0] == r && p->space == in->space) {
				to = j;
				break;
			}
		}
		link[pc] = to ? to << 1 | (link[to - 1] & 1) : (next++ & 1);
	}
	free(target);
	for (unsigned pc = 0; pc < n; pc++) /* the chains' accesses: fast_mem_link's */
		if (link[pc] != LINK_NONE && link[pc] >> 1) {
			ops[pc] = ops[pc] == F_LD ? F_LDK : F_STK;
			unsigned to = (link[pc] >> 1) - 1;
			ops[to] = ops[to] == F_LD || ops[to] == F_LDK ? F_LDK : F_STK;
		}
}

uint8_t *fast_ops(const struct ptx_func *f)
{
	unsigned n = f->ncode;
	uint8_t *ops = malloc(((n + 3u) & ~3u) + 4u * n + 1);
	if (ops) {
		for (unsigned pc = 0; pc < n; pc++)
			ops[pc] = fast_op(&f->code[pc]);
		fast_link(f, ops, (uint32_t *)(void *)(ops + ((n + 3u) & ~3u)));
	}
	return ops;
}

/* With the trace on, tells it of the instruction (EMASK: the lanes that issue it) and
 * its access once it is sure to do it, before the copy (a load may overwrite its address
 * register). */
#define FAST_TRACE(a)                                                                    \
	do {                                                                             \
		if (__builtin_expect(b->tsm != NULL, 0)) {                               \
			emu_trace_insn(b->tsm, w->id, emask, in);                       \
			emu_trace_mem(b->tsm, in, (int)in->space, a, in->off,           \
				      ptx_tsize(in->type), m, in->op != OP_LD);         \
		}                                                                        \
	} while (0)

/* ld and st, out of line: their checks and calls would take fast_run's registers.
 * Returns 0, done; 1, warp_exec's (outside the array of the first lane, misaligned, or a
 * parameter the lanes read at different addresses). */
static inline __attribute__((always_inline)) int
fast_mem_all(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	     uint32_t m, uint32_t emask, int chained)
{
	unsigned sz = ptx_tsize(in->type), sp = in->space;
	uint64_t *d = DS(0);
	const uint64_t *a = SS(0), *c = SS(1);
	int sg = is_signed_t(in->type), ld = in->op == OP_LD;
	uintptr_t p0, w0;
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
	struct shape_seen *seen = NULL;
	uint32_t pc = 0;
	if (chained) { /* (found again below, or the next one's link finds none) */
		const struct ptx_func *kf = b->L->kf;
		pc = (uint32_t)(in - kf->code);
		seen = &w->seen[fast_links(b->L->fops, kf->ncode)[pc] & 1];
		seen->pc = LINK_NONE;
	}
	int shape;
	struct span_region r;
	if (sz == 4 && m == FULL && (shape = span_shape_of(a)) &&
	    span_shape_in(b, w, (int)sp, a[0], a[16], in->off, shape, &r)) {
		if (seen)
			*seen = (struct shape_seen){ pc, shape, r };
		FAST_TRACE(a);
		span_at(&r, in->off, &p0, &w0);
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
}

#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
static __attribute__((noinline)) int fast_mem(struct block *b, struct warp *w,
					      const struct ptx_insn *in, uint64_t *R, uint32_t m,
					      uint32_t emask)
{
	return fast_mem_all(b, w, in, R, m, emask, 0);
}

/* ld and st of a chain: the access linked to a shape this run found (fast_link),
 * checked against the region kept with it; else fast_mem's, the shape kept. */
#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
static __attribute__((noinline)) int fast_mem_link(struct block *b, struct warp *w,
						   const struct ptx_insn *in, uint64_t *R,
						   uint32_t m, uint32_t emask)
{
	const struct ptx_func *kf = b->L->kf;
	uint32_t pc = (uint32_t)(in - kf->code), lk = fast_links(b->L->fops, kf->ncode)[pc];
	struct shape_seen *seen = &w->seen[lk & 1];
	if (m == FULL && lk != LINK_NONE && lk >> 1 && seen->pc == (lk >> 1) - 1) {
		const uint64_t *a = SS(0);
		uint64_t x0 = a[0] + (uint64_t)in->off, x1 = a[16] + (uint64_t)in->off;
		uint64_t lim = seen->r.span - (seen->shape == SPAN_ROWS ? 64 : 4);
		if (x0 - seen->r.base <= lim && x1 - seen->r.base <= lim && !((x0 | x1) & 3)) {
			uintptr_t p0, w0;
			seen->pc = pc;
			FAST_TRACE(a);
			span_at(&seen->r, in->off, &p0, &w0);
			if (in->op == OP_LD)
				span_load_shape(DS(0), a[0], a[16], p0, is_signed_t(in->type),
						seen->shape);
			else
				span_store_shape(SS(1), a[0], a[16], p0, w0, seen->shape);
			return 0;
		}
	}
	return fast_mem_all(b, w, in, R, m, emask, 1);
}
#undef FAST_TRACE

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
	w->seen[0].pc = w->seen[1].pc = LINK_NONE; /* none found yet in this run */
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
		case F_LDK:
		case F_STK:
			if (fast_mem_link(b, w, in, R, m, emask))
				goto out;
			goto traced;
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
