/* exec_loop — the interpreter loop: one warp's instructions, each for all 32 lanes at
 * once, until a barrier, the end, a fault or the end of its timeslice. It holds the
 * control flow (branches and their divergence, calls, returns, exits, barriers, the
 * clocks) and hands each other instruction to its family: exec_alu.c, exec_compare.c,
 * exec_access.c, exec_crosslane.c, exec_devcalls.c and the sm_80/sm_90 families. Without
 * hooks or trace, exec_fast.c runs the common instructions first.
 */
#include "exec_internal.h"

#include <errno.h>
#include <time.h>

#include "exec_access.h"
#include "exec_alu.h"
#include "exec_compare.h"
#include "exec_crosslane.h"
#include "exec_devcalls.h"
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
		const uint8_t *fops = !hooks && fr->f == b->L->kf ? b->L->fops : NULL;
		do {
		if (fops && fops[pc]) { /* exec_fast.c: up to an instruction it leaves to us */
			pc = (tsm ? fast_run_traced : fast_run)(b, w, R, code, fops, pc, rpc, emask,
								&budget, &count);
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
		if (__builtin_expect(in->flags & PF_CARRY, 0)) {
			carry_op(in, R, m);
			continue;
		}
		switch (in->op) {
		CASE(MOV) CASE(ADD) CASE(SUB) CASE(MUL) CASE(MAD) CASE(MUL24) CASE(MAD24)
		CASE(FMA) CASE(SAD) CASE(DIV) CASE(REM) CASE(ABS) CASE(NEG) CASE(MIN)
		CASE(MAX) CASE(RCP) CASE(SQRT) CASE(RSQRT) CASE(SIN) CASE(COS) CASE(LG2)
		CASE(EX2) CASE(TANH) CASE(COPYSIGN) CASE(AND) CASE(OR) CASE(XOR) CASE(NOT)
		CASE(CNOT) CASE(LOP3) CASE(SHL) CASE(SHR) CASE(SHF) CASE(BFE) CASE(BFI)
		CASE(BREV) CASE(CLZ) CASE(POPC) CASE(BFIND) CASE(BMSK) CASE(PRMT)
		CASE(DP4A) CASE(CVT) CASE(CVTA) CASE(ISSPACEP) CASE(UNPACK) CASE(PACK) {
			alu_exec(in, R, m); /* exec_alu.c */
			NEXT;
		}
		CASE(SETP) {
			setp_exec(in, R, m); /* exec_compare.c */
			NEXT;
		}
		CASE(SET) CASE(SELP) CASE(SLCT) CASE(TESTP) {
			compare_exec(in, R, m); /* exec_compare.c */
			NEXT;
		}
		CASE(LD) CASE(ST) CASE(ATOM) CASE(RED) {
			/* exec_access.c; parked at the grid barrier (exec_grid.c): the load again at
			 * the warp's next turn, its lanes not counted */
			if (__builtin_expect((rc = access_exec(b, w, in, R, m)) != 0, 0)) {
				if (rc == ACCESS_PARKED) {
					count -= m == FULL ? 32 : popcount32(m);
					e->pc = pc - 1;
					rc = 0;
				}
				goto out;
			}
			NEXT;
		}
		CASE(SHFL) CASE(VOTE) CASE(MATCH) CASE(REDUX) CASE(ACTIVEMASK) {
			crosslane_exec(in, R, m); /* exec_crosslane.c */
			NEXT;
		}
		CASE(VPRINTF) CASE(SETCONDITIONAL) CASE(MALLOC) CASE(FREE) CASE(ASSERTFAIL) {
			if ((rc = devcall_exec(b, w, in, m, fr))) /* exec_devcalls.c */
				goto out;
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
		CASE(CDP) { /* dynamic parallelism's device runtime (exec_cdp.c) */
			if ((rc = cdp_exec(b, w, in, m, fr)))
				goto out;
			NEXT;
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
