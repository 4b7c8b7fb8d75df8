/* uniformity — static barrier analysis of a decoded PTX module (see uniformity.h).
 *
 * A fixpoint over two facts that feed each other: which register slots may hold
 * thread-dependent values (nu[slot], as enum uniformity_source bits), and which
 * instructions are control-dependent on a thread-dependent branch (div[pc]): the pcs
 * reachable from such a branch before its reconvergence point (the immediate
 * post-dominator the decoder computed). Both only grow, so the loop ends.
 */
#include "uniformity.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

/* Per-function analysis state. */
struct uni_fn {
	const struct ptx_module *m;
	const struct ptx_func *f;
	uint32_t *nu;        /* per slot: source bits, 0 = uniform */
	unsigned char *lp;   /* per slot: may hold an address of .local memory (the stack) */
	uint32_t *lbits;     /* per slot: bits of its definition earlier in the current block */
	uint32_t *stamp;     /* per slot: the block lbits is for (block number + 1) */
	uint32_t *touched;   /* slots defined in the current block */
	unsigned ntouched;
	uint32_t cur;        /* current block number + 1 */
	unsigned char *leader; /* per pc: starts a basic block */
	uint32_t *gb;        /* per pc: bits of its guard predicate where it is read */
	uint32_t *div;       /* per pc: source bits of the branches it is control-dependent on */
	uint32_t *cause;     /* per pc: pc of the first such branch, or PTX_NOPC */
	uint32_t *marked;    /* per pc (branches): bits already propagated to its region */
	uint32_t *work;      /* BFS stack */
	unsigned char *seen; /* BFS visited */
	uint32_t local_nu;   /* bits of values stored to .local (or generic) memory */
	uint32_t fparam_nu;  /* bits of values stored to .param memory */
};

static int is_exit_op(unsigned op)
{
	return op == OP_RET || op == OP_EXIT || op == OP_TRAP || op == OP_BRKPT;
}

/* Successors of pc in the function's control-flow graph; returns their count. */
static unsigned successors(const struct ptx_func *f, unsigned pc, uint32_t out[2])
{
	const struct ptx_insn *in = &f->code[pc];
	unsigned k = 0;
	if (in->op == OP_BRA) {
		out[k++] = in->target;
		if (in->guard >= 0 && pc + 1 < f->ncode)
			out[k++] = pc + 1;
	} else if (is_exit_op(in->op)) {
		if (in->guard >= 0 && pc + 1 < f->ncode)
			out[k++] = pc + 1;
	} else if (pc + 1 < f->ncode) {
		out[k++] = pc + 1;
	}
	return k;
}

/* The bits of slot as read here: its definition earlier in the same basic block if
 * there is one, else the union of all its definitions that end a block. Registers
 * reused for unrelated values (nvcc's scoped %tmp) thus stay apart. */
static uint32_t rd(const struct uni_fn *u, uint32_t slot)
{
	if (slot >= u->f->nslots)
		return 0;
	return u->stamp[slot] == u->cur ? u->lbits[slot] : u->nu[slot];
}

/* Defines slot with bits in the current block (a guarded definition keeps the old
 * value for some lanes, so it adds to it). */
static void taint(struct uni_fn *u, uint32_t slot, uint32_t bits, int guarded)
{
	if (slot < SR__COUNT || slot >= u->f->nslots)
		return; /* zero, sink and special registers hold nothing to track */
	if (guarded)
		bits |= rd(u, slot);
	if (u->stamp[slot] != u->cur) {
		u->stamp[slot] = u->cur;
		u->touched[u->ntouched++] = slot;
	}
	u->lbits[slot] = bits;
}

/* Ends the current block: its last definitions flow to the rest of the function.
 * Returns 1 when a fact grew. */
static int block_end(struct uni_fn *u)
{
	int grew = 0;
	for (unsigned i = 0; i < u->ntouched; i++) {
		uint32_t sl = u->touched[i];
		if ((u->nu[sl] | u->lbits[sl]) != u->nu[sl]) {
			u->nu[sl] |= u->lbits[sl];
			grew = 1;
		}
	}
	u->ntouched = 0;
	u->cur++;
	return grew;
}

static uint32_t src_bits(const struct uni_fn *u, const struct ptx_insn *in, unsigned from)
{
	uint32_t b = 0;
	for (unsigned i = from; i < in->ns && i < 6; i++)
		b |= rd(u, in->s[i]);
	return b;
}

/* Applies the transfer function of instruction pc; returns 1 when a fact other than
 * the block-local definitions grew. */
static int transfer(struct uni_fn *u, unsigned pc)
{
	int changed = 0;
	const struct ptx_insn *in = &u->f->code[pc];
	uint32_t ctrl = u->div[pc];
	int guarded = in->guard >= 0;
	if (guarded) {
		uint32_t g = rd(u, (uint32_t)in->guard);
		if ((u->gb[pc] | g) != u->gb[pc]) {
			u->gb[pc] |= g;
			changed = 1;
		}
		ctrl |= g;
	}
	uint32_t val;
	int grew = changed;
	/* local-pointer provenance: generic accesses through it reach the stack */
	if (in->op != OP_LD && in->op != OP_ATOM) {
		unsigned char lp = in->op == OP_CVTA && in->space == SP_LOCAL;
		for (unsigned i = 0; i < in->ns && i < 6; i++)
			if (in->s[i] < u->f->nslots)
				lp |= u->lp[in->s[i]];
		for (unsigned i = 0; lp && i < in->nd && i < 4; i++)
			if (in->d[i] >= SR__COUNT && in->d[i] < u->f->nslots && !u->lp[in->d[i]])
				grew = u->lp[in->d[i]] = 1;
	}
	int local = in->space == SP_LOCAL ||
		    (in->space == SP_GENERIC && in->ns && u->lp[in->s[0]]);
	switch (in->op) {
	case OP_LD:
		val = in->ns ? rd(u, in->s[0]) : 0;
		val = val ? (val | UNI_SRC_LOAD) : 0;
		if (local)
			val |= u->local_nu;
		if (in->space == SP_FPARAM)
			val |= u->fparam_nu;
		break;
	case OP_ST: {
		uint32_t b = src_bits(u, in, 0) | ctrl;
		uint32_t *sp = local ? &u->local_nu : in->space == SP_FPARAM ? &u->fparam_nu : NULL;
		if (sp && (*sp | b) != *sp) {
			*sp |= b;
			return 1;
		}
		return grew;
	}
	case OP_ATOM:
		val = UNI_SRC_ATOMIC;
		break;
	case OP_VOTE: case OP_MATCH: case OP_ACTIVEMASK:
		val = UNI_SRC_WARP;
		break;
	case OP_SHFL:
		/* the value moved is as uniform as its source; the "valid" predicate is not */
		taint(u, in->d[0], src_bits(u, in, 0) | ctrl, guarded);
		if (in->nd > 1)
			taint(u, in->d[1], UNI_SRC_LANE, guarded);
		return grew;
	case OP_CLOCK:
		val = UNI_SRC_CLOCK;
		break;
	case OP_BAR:
		val = 0; /* bar.red: the block-wide result is the same for every thread */
		break;
	case OP_CALL:
		/* results come back through ld.param of the return value */
		if ((u->fparam_nu | ctrl) != u->fparam_nu) {
			u->fparam_nu |= ctrl;
			return 1;
		}
		return grew;
	default:
		val = src_bits(u, in, 0);
		break;
	}
	for (unsigned i = 0; i < in->nd && i < 4; i++)
		taint(u, in->d[i], val | ctrl, guarded);
	return grew;
}

/* Marks the region of the thread-dependent branch (or guarded exit) at pc: everything
 * reachable from it before its reconvergence point. Returns 1 when a fact grew. */
static int mark_region(struct uni_fn *u, unsigned pc, uint32_t bits)
{
	const struct ptx_func *f = u->f;
	const struct ptx_insn *in = &f->code[pc];
	uint32_t stop = in->op == OP_BRA ? in->reconv : PTX_NOPC;
	uint32_t succ[2];
	unsigned top = 0, n = successors(f, pc, succ);
	int grew = 0;
	memset(u->seen, 0, f->ncode);
	for (unsigned k = 0; k < n; k++)
		if (succ[k] != stop && !u->seen[succ[k]]) {
			u->seen[succ[k]] = 1;
			u->work[top++] = succ[k];
		}
	while (top) {
		unsigned p = u->work[--top];
		if ((u->div[p] | bits) != u->div[p]) {
			u->div[p] |= bits;
			grew = 1;
		}
		if (u->cause[p] == PTX_NOPC)
			u->cause[p] = pc;
		n = successors(f, p, succ);
		for (unsigned k = 0; k < n; k++)
			if (succ[k] != stop && !u->seen[succ[k]]) {
				u->seen[succ[k]] = 1;
				u->work[top++] = succ[k];
			}
	}
	return grew;
}

static void solve(struct uni_fn *u)
{
	const struct ptx_func *f = u->f;
	u->lp[SR_LOCALBASE] = 1;
	u->nu[SR_TID_X] = u->nu[SR_TID_Y] = u->nu[SR_TID_Z] = UNI_SRC_TID;
	u->nu[SR_WARPID] = UNI_SRC_TID;
	u->nu[SR_LANEID] = UNI_SRC_LANE;
	for (unsigned s = SR_LANEMASK_EQ; s <= SR_LANEMASK_GE; s++)
		u->nu[s] = UNI_SRC_LANE;
	for (int changed = 1; changed;) {
		changed = 0;
		for (unsigned pc = 0; pc < f->ncode; pc++) {
			if (u->leader[pc])
				changed |= block_end(u);
			changed |= transfer(u, pc);
		}
		changed |= block_end(u);
		for (unsigned pc = 0; pc < f->ncode; pc++) {
			const struct ptx_insn *in = &f->code[pc];
			if (in->guard < 0 || (in->op != OP_BRA && !is_exit_op(in->op)))
				continue;
			uint32_t bits = u->gb[pc];
			if (!bits || (u->marked[pc] | bits) == u->marked[pc])
				continue;
			u->marked[pc] |= bits;
			changed |= mark_region(u, pc, bits);
		}
	}
}

/* 1 when a thread taking the branch at pc can leave the function before stop. */
static int region_exits(struct uni_fn *u, unsigned pc)
{
	const struct ptx_func *f = u->f;
	const struct ptx_insn *in = &f->code[pc];
	if (is_exit_op(in->op))
		return 1;
	uint32_t stop = in->reconv, succ[2];
	if (stop == PTX_NOPC || is_exit_op(f->code[stop].op))
		return 1;
	unsigned top = 0, n = successors(f, pc, succ);
	memset(u->seen, 0, f->ncode);
	for (unsigned k = 0; k < n; k++)
		if (succ[k] != stop && !u->seen[succ[k]]) {
			u->seen[succ[k]] = 1;
			u->work[top++] = succ[k];
		}
	while (top) {
		unsigned p = u->work[--top];
		if (is_exit_op(f->code[p].op))
			return 1;
		n = successors(f, p, succ);
		for (unsigned k = 0; k < n; k++)
			if (succ[k] != stop && !u->seen[succ[k]]) {
				u->seen[succ[k]] = 1;
				u->work[top++] = succ[k];
			}
	}
	return 0;
}

/* Copies the file name of in into *out; -ENOMEM, or 0 (NULL when unknown). */
static int file_of(const struct ptx_module *m, const struct ptx_insn *in, char **out)
{
	const char *s = in->line ? ptx_module_file(m, in->file) : NULL;
	*out = s ? strdup(s) : NULL;
	return s && !*out ? -ENOMEM : 0;
}

static int bar_kind(const struct ptx_module *m, const struct ptx_insn *in,
		    enum uniformity_bar_kind *k)
{
	if (in->op == OP_CALL && in->target < m->nfuncs) {
		/* nvcc -O0 keeps __syncwarp() (and user functions) as calls: a call of a
		 * function with a barrier is a barrier at the call site */
		const struct ptx_func *f = &m->funcs[in->target];
		for (unsigned pc = 0; pc < f->ncode; pc++)
			if (f->code[pc].op != OP_CALL && bar_kind(m, &f->code[pc], k))
				return 1;
		return 0;
	}
	if (in->op == OP_BARWARP) {
		*k = UNI_BAR_WARP;
		return 1;
	}
	if (in->op != OP_BAR && in->op != OP_BARRIER)
		return 0;
	*k = in->mod == BAR_ARRIVE ? UNI_BAR_ARRIVE : in->mod == BAR_SYNC ? UNI_BAR_SYNC
										  : UNI_BAR_RED;
	return 1;
}

/* Fills k->barriers from the solved facts of u. */
static int collect(struct uni_fn *u, struct uniformity_kernel *k)
{
	const struct ptx_func *f = u->f;
	unsigned n = 0;
	enum uniformity_bar_kind kind;
	for (unsigned pc = 0; pc < f->ncode; pc++)
		n += (unsigned)bar_kind(u->m, &f->code[pc], &kind);
	if (!n)
		return 0;
	k->barriers = calloc(n, sizeof(*k->barriers));
	if (!k->barriers)
		return -ENOMEM;
	for (unsigned pc = 0; pc < f->ncode; pc++) {
		const struct ptx_insn *in = &f->code[pc];
		if (!bar_kind(u->m, in, &kind))
			continue;
		struct uniformity_barrier *b = &k->barriers[k->nbarriers++];
		b->pc = pc;
		b->kind = kind;
		b->line = in->line;
		if (file_of(u->m, in, &b->file))
			return -ENOMEM;
		b->cond_pc = PTX_NOPC;
		if (kind == UNI_BAR_SYNC || kind == UNI_BAR_RED)
			k->nblock_barriers++;
		if (kind == UNI_BAR_WARP || kind == UNI_BAR_ARRIVE)
			continue;
		uint32_t gbits = in->guard >= 0 ? u->gb[pc] : 0;
		if (!gbits && !u->div[pc])
			continue;
		b->divergent = 1;
		k->ndivergent++;
		b->cond_pc = gbits ? pc : u->cause[pc];
		const struct ptx_insn *c = &f->code[b->cond_pc];
		b->cond_sources = gbits ? gbits : u->gb[b->cond_pc];
		b->cond_line = c->line;
		b->cond_exits = gbits ? 0 : region_exits(u, b->cond_pc);
		if (file_of(u->m, c, &b->cond_file))
			return -ENOMEM;
	}
	return 0;
}

static int analyze_fn(const struct ptx_module *m, const struct ptx_func *f,
		      struct uniformity_kernel *k)
{
	struct uni_fn u = { .m = m, .f = f };
	int rc = -ENOMEM;
	if (!(k->name = strdup(f->name)))
		return -ENOMEM;
	k->is_entry = f->is_entry;
	size_t n = f->ncode ? f->ncode : 1;
	u.nu = calloc(f->nslots > SR__COUNT ? f->nslots : SR__COUNT, sizeof(uint32_t));
	size_t ns = f->nslots > SR__COUNT ? f->nslots : SR__COUNT;
	u.lp = calloc(ns, 1);
	u.lbits = calloc(ns, sizeof(uint32_t));
	u.stamp = calloc(ns, sizeof(uint32_t));
	u.touched = calloc(ns, sizeof(uint32_t));
	u.leader = calloc(n, 1);
	u.gb = calloc(n, sizeof(uint32_t));
	u.cur = 1;
	u.div = calloc(n, sizeof(uint32_t));
	u.cause = malloc(n * sizeof(uint32_t));
	u.marked = calloc(n, sizeof(uint32_t));
	u.work = malloc(n * sizeof(uint32_t));
	u.seen = malloc(n);
	if (!u.nu || !u.lp || !u.lbits || !u.stamp || !u.touched || !u.leader || !u.gb ||
	    !u.div || !u.cause || !u.marked || !u.work || !u.seen)
		goto out;
	for (size_t i = 0; i < n; i++)
		u.cause[i] = PTX_NOPC;
	u.leader[0] = 1;
	for (unsigned pc = 0; pc < f->ncode; pc++) {
		const struct ptx_insn *in = &f->code[pc];
		if (in->op == OP_BRA && in->target < f->ncode)
			u.leader[in->target] = 1;
		if ((in->op == OP_BRA || is_exit_op(in->op)) && pc + 1 < f->ncode)
			u.leader[pc + 1] = 1;
	}
	solve(&u);
	rc = collect(&u, k);
out:
	free(u.nu);
	free(u.lp);
	free(u.lbits);
	free(u.stamp);
	free(u.touched);
	free(u.leader);
	free(u.gb);
	free(u.div);
	free(u.cause);
	free(u.marked);
	free(u.work);
	free(u.seen);
	return rc;
}

int uniformity_analyze(const struct ptx_module *m, struct uniformity_report **out)
{
	struct uniformity_report *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->kernels = calloc(m->nfuncs ? m->nfuncs : 1, sizeof(*r->kernels));
	if (!r->kernels) {
		free(r);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < m->nfuncs; i++) {
		const struct ptx_func *f = &m->funcs[i];
		if (!f->defined || f->builtin)
			continue;
		int rc = analyze_fn(m, f, &r->kernels[r->nkernels++]);
		if (rc) {
			uniformity_report_free(r);
			return rc;
		}
	}
	*out = r;
	return 0;
}

int uniformity_analyze_file(const char *path, struct uniformity_report **out, char *err,
			    size_t errlen)
{
	struct ptx_module *m;
	int rc = ptx_module_load_file(path, &m, err, errlen);
	if (rc)
		return rc;
	rc = uniformity_analyze(m, out);
	ptx_module_free(m);
	return rc;
}

void uniformity_report_free(struct uniformity_report *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->nkernels; i++) {
		struct uniformity_kernel *k = &r->kernels[i];
		for (unsigned j = 0; j < k->nbarriers; j++) {
			free(k->barriers[j].file);
			free(k->barriers[j].cond_file);
		}
		free(k->barriers);
		free(k->name);
	}
	free(r->kernels);
	free(r);
}

const struct uniformity_kernel *uniformity_find_kernel(const struct uniformity_report *r,
							const char *name)
{
	char want[256];
	snprintf(want, sizeof want, "%zu%s", strlen(name), name);
	for (unsigned i = 0; i < r->nkernels; i++)
		if (!strcmp(r->kernels[i].name, name))
			return &r->kernels[i];
	for (unsigned i = 0; i < r->nkernels; i++) {
		const char *at = strstr(r->kernels[i].name, want);
		/* the length prefix must not be the tail of a longer number */
		if (at && (at == r->kernels[i].name || at[-1] < '0' || at[-1] > '9'))
			return &r->kernels[i];
	}
	return NULL;
}

const char *uniformity_source_name(unsigned s)
{
	if (s & UNI_SRC_TID)
		return "threadIdx";
	if (s & UNI_SRC_LANE)
		return "the lane index";
	if (s & UNI_SRC_LOAD)
		return "a value loaded from a thread-dependent address";
	if (s & UNI_SRC_ATOMIC)
		return "the value returned by an atomic";
	if (s & UNI_SRC_WARP)
		return "a warp-level vote or shuffle";
	if (s & UNI_SRC_CLOCK)
		return "clock()";
	return "a thread-dependent value";
}
