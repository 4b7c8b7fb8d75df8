/* exec_frames — a warp's call frames and SIMT reconvergence stack: frames created with
 * their special-register and immediate slots, calls and returns, and lanes retiring at
 * an early return. Separate from the loop, which reaches them only on calls, returns
 * and divergent branches.
 */
#include "exec_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h" /* issue 7 (panels) */

/* ---- frames --------------------------------------------------------------------- */

/* Fills the special-register and immediate slots of a new frame. */
static void frame_init_slots(struct block *b, struct warp *w, struct frame *fr)
{
	const struct ptx_func *f = fr->f;
	uint64_t *R = fr->regs;
	const struct emu_launch *l = b->L->l;
	if (w->nframes > 0) { /* a call: the specials are the caller's */
		memcpy(R, w->frames[w->nframes - 1].regs, (size_t)SR__COUNT * 32 * 8);
		for (unsigned lane = 0; lane < 32; lane++)
			R[SR_LOCALBASE * 32 + lane] = fr->local_base;
		goto imms;
	}
	struct emu_dim3 tid;
	thread_of(b, w->id * 32, &tid);
	for (unsigned lane = 0; lane < 32; lane++) {
		if (lane) { /* the next thread index, without divisions */
			if (++tid.x == l->block.x) {
				tid.x = 0;
				if (++tid.y == l->block.y) {
					tid.y = 0;
					tid.z++;
				}
			}
		}
		R[SR_ZERO * 32 + lane] = 0;
		R[SR_TID_X * 32 + lane] = tid.x;
		R[SR_TID_Y * 32 + lane] = tid.y;
		R[SR_TID_Z * 32 + lane] = tid.z;
		R[SR_NTID_X * 32 + lane] = l->block.x;
		R[SR_NTID_Y * 32 + lane] = l->block.y;
		R[SR_NTID_Z * 32 + lane] = l->block.z;
		R[SR_CTAID_X * 32 + lane] = b->bid.x;
		R[SR_CTAID_Y * 32 + lane] = b->bid.y;
		R[SR_CTAID_Z * 32 + lane] = b->bid.z;
		R[SR_NCTAID_X * 32 + lane] = l->grid.x;
		R[SR_NCTAID_Y * 32 + lane] = l->grid.y;
		R[SR_NCTAID_Z * 32 + lane] = l->grid.z;
		R[SR_LANEID * 32 + lane] = lane;
		R[SR_WARPID * 32 + lane] = w->id;
		R[SR_NWARPID * 32 + lane] = b->nwarps;
		R[SR_LANEMASK_EQ * 32 + lane] = 1u << lane;
		R[SR_LANEMASK_LT * 32 + lane] = (1u << lane) - 1;
		R[SR_LANEMASK_LE * 32 + lane] = (uint32_t)((2ull << lane) - 1);
		R[SR_LANEMASK_GT * 32 + lane] = (uint32_t)~((2ull << lane) - 1);
		R[SR_LANEMASK_GE * 32 + lane] = (uint32_t)~((1u << lane) - 1);
		R[SR_SMID * 32 + lane] = b->idx % b->L->nsm; /* breadth first, one block an SM */
		R[SR_NSMID * 32 + lane] = b->L->nsm;
		R[SR_GRIDID * 32 + lane] = 1;
		R[SR_LOCALBASE * 32 + lane] = fr->local_base;
		R[SR_ENVREG1 * 32 + lane] = b->L->grid_ws >> 32; /* 0: not cooperative */
		R[SR_ENVREG2 * 32 + lane] = b->L->grid_ws & 0xffffffffu;
	}
imms:
	for (unsigned i = 0; i < f->nimm; i++) {
		uint64_t *d = R + (size_t)f->imm_slots[i] * 32, v = f->imm_vals[i];
		for (unsigned lane = 0; lane < 32; lane++)
			d[lane] = v;
	}
}

int frame_push(struct block *b, struct warp *w, const struct ptx_func *f,
	       uint64_t local_base)
{
	if (w->nframes == MAX_CALL_DEPTH)
		return -E2BIG;
	struct frame *fr = &w->frames[w->nframes];
	fr->f = f;
	fr->local_base = local_base;
	size_t need = (size_t)f->nslots * 32 * 8 + f->fparam_size * 32 + 8;
	if (need > fr->cap) { /* buffers are kept for the next block and call */
		free(fr->regs);
		fr->regs = malloc(need);
		fr->cap = fr->regs ? need : 0;
		if (!fr->regs)
			return -ENOMEM;
	}
	fr->fparam = (unsigned char *)(fr->regs + (size_t)f->nslots * 32);
	memset(fr->fparam, 0, f->fparam_size * 32);
	frame_init_slots(b, w, fr);
	w->nframes++;
	return 0;
}

void frame_pop(struct warp *w)
{
	w->nframes--;
}

int stack_push(struct warp *w, uint32_t pc, uint32_t rpc, uint32_t mask)
{
	if (w->sp == w->scap) {
		unsigned nc = w->scap ? w->scap * 2 : 16;
		struct simt_entry *n = realloc(w->stack, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->stack = n;
		w->scap = nc;
	}
	w->stack[w->sp++] = (struct simt_entry){ pc, rpc, mask };
	return 0;
}

/* ---- calls and returns ---------------------------------------------------------- */

/* The function an indirect call of lanes *m reaches, from the address in s[0] of the
 * first of them. The lanes whose address differs call theirs after these return, as a
 * GPU serialises them: an entry that runs the call again for them is pushed under the
 * callee's (the entry on top has moved past the call), and *m keeps the others. NULL
 * after a fault: the address is not one of the module's device functions. */
static const struct ptx_func *icall_target(struct block *b, struct warp *w,
					   const struct ptx_insn *in, uint32_t *m)
{
	const uint64_t *a = w->frames[w->nframes - 1].regs + (size_t)in->s[0] * 32;
	unsigned first = (unsigned)__builtin_ctz(*m);
	uint64_t addr = a[first];
	uint32_t same = 0;
	for (uint32_t mm = *m; mm; mm &= mm - 1) {
		unsigned l = (unsigned)__builtin_ctz(mm);
		same |= (uint32_t)(a[l] == addr) << l;
	}
	const struct ptx_func *f = ptx_func_at(b->L->m, addr);
	if (!f || f->is_entry) {
		fault_set(b, w, first, in, EMU_FAULT_PC, -EFAULT,
			  "call through a pointer that is not a device function (0x%llx%s): a "
			  "GPU jumps there and stops the kernel with an invalid program counter",
			  (unsigned long long)addr,
			  addr == 0 ? ", a null pointer" : ptx_is_code_addr(addr)
			  ? ", a kernel or a function of another .cu file" : ", data");
		return NULL;
	}
	if (same != *m) {
		uint32_t after = w->stack[w->sp - 1].pc;
		if (stack_push(w, after - 1, after, *m & ~same)) {
			fault_set(b, w, 0, in, EMU_FAULT_LIMIT, -ENOMEM, "out of memory for a call");
			return NULL;
		}
		*m = same;
	}
	return f;
}

int warp_call(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t m)
{
	const struct ptx_module *mod = b->L->m;
	const struct ptx_func *callee = in->target == PTX_CALL_INDIRECT
						? icall_target(b, w, in, &m)
						: &mod->funcs[in->target];
	if (!callee)
		return b->fault_rc;
#if EMU_HOOKS
	const struct emu_hooks *hooks = b->L->hooks;
	if (in->target == PTX_CALL_INDIRECT && hooks && hooks->on_icall)
		hooks->on_icall(hooks->ctx, b->idx, w->id, m, (unsigned)(callee - mod->funcs));
#endif
	struct frame *fr = &w->frames[w->nframes - 1];
	uint64_t base = fr->local_base + ((fr->f->local_size + 15) & ~(size_t)15);
	if (base + callee->local_size > b->local_per_thread || w->nframes == MAX_CALL_DEPTH)
		return fault_set(b, w, (unsigned)__builtin_ctz(m), in, EMU_FAULT_LIMIT, -E2BIG,
				 "the call to %s nests too deep (recursion?): the emulator allows "
				 "%u levels and %u bytes of stack per thread", callee->name,
				 MAX_CALL_DEPTH, (unsigned)b->local_per_thread);
	int rc = frame_push(b, w, callee, base);
	if (rc)
		return fault_set(b, w, 0, in, EMU_FAULT_LIMIT, rc, "out of memory for a call");
	struct frame *nf = &w->frames[w->nframes - 1];
	for (unsigned i = 0; i < in->ns && i < callee->nparams; i++) {
		uint32_t src = mod->callargs[in->off + i];
		size_t sz = callee->params[i].size, dst = callee->params[i].offset;
		for (uint32_t mm = m; mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			memcpy(nf->fparam + l * callee->fparam_size + dst,
			       fr->fparam + l * fr->f->fparam_size + src, sz);
		}
	}
	nf->retval_off = in->d[0];
	nf->call = in;
	nf->call_mask = m;
	nf->stack_base = w->sp;
	return stack_push(w, 0, PTX_NOPC, m);
}

/* Where lanes going to pc end, when they do nothing else on the way: the pc of the
 * unguarded exit, or ret of the kernel, that pc reaches through unconditional branches
 * only (nvcc -O0 jumps to the final ret through a chain of bra.uni), else PTX_NOPC. */
uint32_t exit_via(const struct warp *w, const struct ptx_insn *code, uint32_t pc)
{
	for (unsigned hops = 0; hops < 8; hops++) {
		const struct ptx_insn *t = &code[pc];
		if (t->guard >= 0)
			return PTX_NOPC;
		if (t->op == OP_EXIT || (t->op == OP_RET && w->nframes == 1))
			return pc;
		if (t->op != OP_BRA)
			return PTX_NOPC;
		pc = t->target;
	}
	return PTX_NOPC;
}

/* The lanes of a divergent branch that go straight to the kernel's end (an early
 * return) end at the branch, as on Volta and later GPUs, where threads that exited no
 * longer count at __syncthreads(): parked at the branch's reconvergence point (often
 * that ret) they would make a barrier after an early return look divergent. Hooks and
 * trace see the ret (at pc) they skip to. */
void warp_retire(struct block *b, struct warp *w, uint32_t lanes, uint32_t pc,
		 uint64_t *count)
{
	const struct ptx_insn *ret = &w->frames[w->nframes - 1].f->code[pc];
#if EMU_HOOKS
	const struct emu_hooks *hooks = b->L->hooks;
	if (hooks && hooks->on_insn)
		hooks->on_insn(hooks->ctx, b->idx, w->id, lanes, pc, ret->line);
#endif
	if (b->tsm) /* issue 7 (panels) */
		emu_trace_insn(b->tsm, w->id, lanes, ret);
	*count += popcount32(lanes);
	w->live &= ~lanes;
}

/* The frame's base entry emptied: copy the return value and resume the caller. */
void warp_return(struct warp *w)
{
	struct frame *cf = &w->frames[w->nframes - 1], *caller = &w->frames[w->nframes - 2];
	const struct ptx_func *f = cf->f;
	if (f->has_ret && cf->retval_off != PTX_NOPC) {
		for (uint32_t mm = cf->call_mask & w->live; mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			memcpy(caller->fparam + l * caller->f->fparam_size + cf->retval_off,
			       cf->fparam + l * f->fparam_size + f->ret.offset, f->ret.size);
		}
	}
	w->sp = cf->stack_base;
	frame_pop(w);
}
