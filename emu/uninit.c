/* uninit — registers read before they are written (see uninit.h).
 *
 * Per function: the registers (slots that are neither special registers nor immediates)
 * numbered densely; the basic blocks, their successors (as uniformity.c and ptx_cfg.c
 * see them) and dominators; one bitset per block of the registers some path from the
 * entry that takes no back edge may have written at its start (a union, solved in
 * reverse postorder); then one pass over each reachable block comparing every read with
 * the running set.
 */
#include "uninit.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

/* The most registers one instruction names: an mma's a, b, c and d lists, its guard. */
#define MAX_OPS 40

struct un_fn {
	const struct ptx_module *m;
	const struct ptx_func *f;
	uint32_t *reg;        /* per slot: dense register index + 1, 0 for no register */
	unsigned nreg, words; /* registers; 64-bit words of a bitset of them */
	unsigned nb;          /* basic blocks */
	uint32_t *start;      /* per block: its first pc (start[nb] = ncode) */
	uint32_t *bb_of;      /* per pc: its block */
	uint32_t (*succ)[2];  /* per block: successors */
	unsigned char *nsucc;
	uint64_t *gen, *in;   /* per block: bitsets (words each) */
	unsigned *order;      /* the reached blocks in reverse postorder */
	unsigned nord;
	int *rpo;             /* per block: its place in order, -1 when unreached */
	unsigned *idom;       /* per block: its immediate dominator (nb: not known) */
	uint32_t *work;       /* BFS stack (blocks) */
	unsigned char *seen;  /* BFS visited (blocks) */
};

static int is_exit_op(unsigned op)
{
	return op == OP_RET || op == OP_EXIT || op == OP_TRAP || op == OP_BRKPT;
}

static int is_call_op(unsigned op)
{
	return op == OP_CALL || op == OP_VPRINTF || op == OP_ASSERTFAIL ||
	       op == OP_SETCONDITIONAL || op == OP_MALLOC || op == OP_FREE || op == OP_CDP;
}

/* What instruction in reads (uses) and writes (defs), as slots; counts in *nu, *nd.
 * Calls keep .param offsets, not slots, in d[] and s[] (ptx_insn.c's decode_call): only
 * an indirect call's address register is read; results come back by ld.param. bar.red
 * keeps its predicate in s[1] with ns 0. Matrix and texture instructions keep their
 * register lists in the module's descriptions. */
static void operands(const struct ptx_module *m, const struct ptx_insn *in, uint32_t *uses,
		     unsigned *nu, uint32_t *defs, unsigned *nd)
{
	unsigned u = 0, d = 0;
	if (in->guard >= 0)
		uses[u++] = (uint32_t)in->guard;
	if (is_call_op(in->op)) {
		if (in->op == OP_CALL && in->target == PTX_CALL_INDIRECT)
			uses[u++] = in->s[0];
		*nu = u;
		*nd = 0;
		return;
	}
	if (in->op == OP_BAR || in->op == OP_BARRIER) {
		if (in->mod != BAR_SYNC && in->mod != BAR_ARRIVE) {
			uses[u++] = in->s[1];
			defs[d++] = in->d[0];
		}
		*nu = u;
		*nd = d;
		return;
	}
	for (unsigned i = 0; i < in->ns && i < 6; i++)
		uses[u++] = in->s[i];
	for (unsigned i = 0; i < in->nd && i < 4; i++)
		defs[d++] = in->d[i];
	if (in->op == OP_MMA && in->target < m->nmmas) {
		const struct ptx_mma *mm = &m->mmas[in->target];
		for (unsigned i = 0; i < mm->na && i < 8; i++)
			uses[u++] = mm->a[i];
		for (unsigned i = 0; i < mm->nb && i < 8; i++)
			uses[u++] = mm->b[i];
		for (unsigned i = 0; i < mm->nc && i < 8; i++)
			uses[u++] = mm->c[i];
		/* the d list: what a store or stmatrix reads, what the others write */
		int stores = mm->kind == MMA_STORE || mm->kind == MMA_STMATRIX;
		for (unsigned i = 0; i < mm->nd && i < 8; i++) {
			if (stores)
				uses[u++] = mm->d[i];
			else
				defs[d++] = mm->d[i];
		}
	} else if (in->op == OP_TEX && in->target < m->ntexs) {
		/* unused fields are SR_ZERO (the description starts zeroed) */
		const struct ptx_tex *tx = &m->texs[in->target];
		uses[u++] = tx->layer;
		uses[u++] = tx->lod;
		for (unsigned i = 0; i < 3; i++) {
			uses[u++] = tx->c[i];
			uses[u++] = tx->dx[i];
			uses[u++] = tx->dy[i];
		}
		if (tx->kind == TX_SUST)
			for (unsigned i = 0; i < tx->vec && i < 4; i++)
				uses[u++] = tx->v[i];
	}
	*nu = u;
	*nd = d;
}

/* The dense index + 1 of slot, or 0 when it is not a register. */
static uint32_t reg_of(const struct un_fn *u, uint32_t slot)
{
	return slot < u->f->nslots ? u->reg[slot] : 0;
}

static void set_bit(uint64_t *bs, uint32_t r)
{
	bs[r / 64] |= 1ull << (r % 64);
}

static int has_bit(const uint64_t *bs, uint32_t r)
{
	return (int)((bs[r / 64] >> (r % 64)) & 1);
}

/* Writes of instruction in into the bitset bs (an unsupported one: every register). */
static void add_defs(const struct un_fn *u, const struct ptx_insn *in, uint64_t *bs)
{
	if (in->op == OP_UNSUPPORTED) {
		memset(bs, 0xff, u->words * 8);
		return;
	}
	uint32_t uses[MAX_OPS], defs[MAX_OPS];
	unsigned nu, nd;
	operands(u->m, in, uses, &nu, defs, &nd);
	for (unsigned i = 0; i < nd; i++) {
		uint32_t r = reg_of(u, defs[i]);
		if (r)
			set_bit(bs, r - 1);
	}
}

/* The basic blocks and their successors. */
static void build_cfg(struct un_fn *u, unsigned char *leader)
{
	const struct ptx_func *f = u->f;
	leader[0] = 1;
	for (unsigned pc = 0; pc < f->ncode; pc++) {
		const struct ptx_insn *in = &f->code[pc];
		if (in->op == OP_BRA && in->target < f->ncode)
			leader[in->target] = 1;
		if ((in->op == OP_BRA || is_exit_op(in->op)) && pc + 1 < f->ncode)
			leader[pc + 1] = 1;
	}
	u->nb = 0;
	for (unsigned pc = 0; pc < f->ncode; pc++) {
		if (leader[pc])
			u->start[u->nb++] = pc;
		u->bb_of[pc] = u->nb - 1;
	}
	u->start[u->nb] = f->ncode;
	for (unsigned b = 0; b < u->nb; b++) {
		unsigned last = u->start[b + 1] - 1, k = 0;
		const struct ptx_insn *in = &f->code[last];
		int falls = last + 1 < f->ncode;
		if (in->op == OP_BRA) {
			if (in->target < f->ncode)
				u->succ[b][k++] = u->bb_of[in->target];
			if (in->guard >= 0 && falls)
				u->succ[b][k++] = b + 1;
		} else if (is_exit_op(in->op)) {
			if (in->guard >= 0 && falls)
				u->succ[b][k++] = b + 1;
		} else if (falls) {
			u->succ[b][k++] = b + 1;
		}
		u->nsucc[b] = (unsigned char)k;
	}
}

/* Reverse postorder of the blocks reached from the entry (u->order, u->nord; rpo[b]:
 * b's place, -1 when no path reaches it), then the immediate dominators (Cooper, Harvey
 * and Kennedy's iteration over the predecessors). Returns 0 or -ENOMEM. */
static int dominators(struct un_fn *u)
{
	unsigned nb = u->nb, top = 0, k = 0;
	unsigned *pcount = calloc(nb + 1, sizeof(unsigned)), *preds = malloc(2 * nb * sizeof(unsigned));
	unsigned *next = calloc(nb, sizeof(unsigned));
	if (!pcount || !preds || !next) {
		free(pcount);
		free(preds);
		free(next);
		return -ENOMEM;
	}
	/* iterative DFS: work[] holds the path, next[b] the successor to try next */
	for (unsigned b = 0; b < nb; b++)
		u->rpo[b] = -1;
	unsigned post = nb;
	memset(u->seen, 0, nb);
	u->seen[0] = 1;
	u->work[top++] = 0;
	while (top) {
		unsigned b = u->work[top - 1];
		if (next[b] < u->nsucc[b]) {
			unsigned s = u->succ[b][next[b]++];
			if (!u->seen[s]) {
				u->seen[s] = 1;
				u->work[top++] = s;
			}
			continue;
		}
		top--;
		u->order[--post] = b;
	}
	u->nord = nb - post;
	memmove(u->order, u->order + post, u->nord * sizeof(unsigned));
	for (unsigned i = 0; i < u->nord; i++)
		u->rpo[u->order[i]] = (int)i;
	/* predecessors of reached blocks, as counts then lists */
	for (unsigned b = 0; b < nb; b++)
		for (unsigned j = 0; u->rpo[b] >= 0 && j < u->nsucc[b]; j++)
			pcount[u->succ[b][j] + 1]++;
	for (unsigned b = 0; b < nb; b++)
		pcount[b + 1] += pcount[b];
	memset(next, 0, nb * sizeof(unsigned));
	for (unsigned b = 0; b < nb; b++)
		for (unsigned j = 0; u->rpo[b] >= 0 && j < u->nsucc[b]; j++) {
			unsigned s = u->succ[b][j];
			preds[pcount[s] + next[s]++] = b;
		}
	u->idom[0] = 0;
	for (int changed = 1; changed;) {
		changed = 0;
		for (unsigned i = 1; i < u->nord; i++) {
			unsigned b = u->order[i], nd = nb; /* nb: none yet */
			for (k = pcount[b]; k < pcount[b + 1]; k++) {
				unsigned p = preds[k];
				if (p != 0 && u->idom[p] == nb)
					continue; /* not processed yet */
				if (nd == nb) {
					nd = p;
					continue;
				}
				unsigned a = p, c = nd;
				while (a != c) {
					while (u->rpo[a] > u->rpo[c])
						a = u->idom[a];
					while (u->rpo[c] > u->rpo[a])
						c = u->idom[c];
				}
				nd = a;
			}
			if (nd != nb && u->idom[b] != nd) {
				u->idom[b] = nd;
				changed = 1;
			}
		}
	}
	free(pcount);
	free(preds);
	free(next);
	return 0;
}

/* Does block d dominate block b (both reached)? */
static int dominates(const struct un_fn *u, unsigned d, unsigned b)
{
	for (;;) {
		if (b == d)
			return 1;
		if (b == 0 || u->idom[b] == u->nb)
			return 0;
		b = u->idom[b];
	}
}

/* What may be written at each block's start on a path from the entry that takes no
 * back edge (an edge to a block dominating its source): the registers a loop's first
 * pass has seen written. A union, so it only grows; RPO makes one pass enough for
 * reducible graphs, the loop covers the others. */
static void solve(struct un_fn *u, uint64_t *out)
{
	unsigned w = u->words;
	for (int changed = 1; changed;) {
		changed = 0;
		for (unsigned i = 0; i < u->nord; i++) {
			unsigned b = u->order[i];
			const uint64_t *in = u->in + (size_t)b * w, *gen = u->gen + (size_t)b * w;
			for (unsigned j = 0; j < w; j++)
				out[j] = in[j] | gen[j];
			for (unsigned k = 0; k < u->nsucc[b]; k++) {
				unsigned s = u->succ[b][k];
				if (dominates(u, s, b))
					continue;
				uint64_t *si = u->in + (size_t)s * w;
				for (unsigned j = 0; j < w; j++)
					if ((si[j] | out[j]) != si[j]) {
						si[j] |= out[j];
						changed = 1;
					}
			}
		}
	}
}

/* 1 when block to can be reached from block from by a path of at least one edge. */
static int reaches(struct un_fn *u, unsigned from, unsigned to)
{
	unsigned top = 0;
	memset(u->seen, 0, u->nb);
	for (unsigned k = 0; k < u->nsucc[from]; k++)
		if (!u->seen[u->succ[from][k]]) {
			u->seen[u->succ[from][k]] = 1;
			u->work[top++] = u->succ[from][k];
		}
	while (top) {
		unsigned b = u->work[--top];
		if (b == to)
			return 1;
		for (unsigned k = 0; k < u->nsucc[b]; k++)
			if (!u->seen[u->succ[b][k]]) {
				u->seen[u->succ[b][k]] = 1;
				u->work[top++] = u->succ[b][k];
			}
	}
	return 0;
}

/* Does instruction in write slot? */
static int writes(const struct un_fn *u, const struct ptx_insn *in, uint32_t slot)
{
	uint32_t uses[MAX_OPS], defs[MAX_OPS];
	unsigned nu, nd;
	operands(u->m, in, uses, &nu, defs, &nd);
	for (unsigned i = 0; i < nd; i++)
		if (defs[i] == slot)
			return 1;
	return 0;
}

static int copy_file(const struct ptx_module *m, const struct ptx_insn *in, char **out)
{
	const char *s = in->line ? ptx_module_file(m, in->file) : NULL;
	*out = s ? strdup(s) : NULL;
	return s && !*out ? -ENOMEM : 0;
}

/* Why slot is unwritten at pc: a loop that writes it later (and the branch closing that
 * loop), a write on another path, or none at all. */
static int classify(struct un_fn *u, struct uninit_read *r, uint32_t slot)
{
	const struct ptx_func *f = u->f;
	unsigned rb = u->bb_of[r->pc];
	int loop_write = -1, path_write = -1;
	for (unsigned pc = 0; pc < f->ncode && loop_write < 0; pc++) {
		if (!writes(u, &f->code[pc], slot) || u->rpo[u->bb_of[pc]] < 0)
			continue;
		unsigned wb = u->bb_of[pc];
		/* from the write to the read, and from the read back to the write */
		int w2r = (wb == rb && pc < r->pc) || reaches(u, wb, rb);
		if (!w2r)
			continue;
		if ((wb == rb && pc >= r->pc) || reaches(u, rb, wb))
			loop_write = (int)pc;
		else if (path_write < 0)
			path_write = (int)pc;
	}
	if (loop_write < 0 && path_write < 0) {
		r->kind = UNINIT_NEVER;
		return 0;
	}
	const struct ptx_insn *w = &f->code[loop_write >= 0 ? loop_write : path_write];
	r->write_line = w->line;
	if (copy_file(u->m, w, &r->write_file))
		return -ENOMEM;
	if (loop_write < 0) {
		r->kind = UNINIT_PATH;
		return 0;
	}
	r->kind = UNINIT_LOOP;
	/* the back edge: a branch at or after the read to a block at or before it, on a
	 * cycle through the read */
	for (unsigned pc = r->pc; pc < f->ncode; pc++) {
		const struct ptx_insn *in = &f->code[pc];
		if (in->op != OP_BRA || in->target > r->pc || in->target >= f->ncode)
			continue;
		unsigned bb = u->bb_of[pc], tb = u->bb_of[in->target];
		if ((bb == rb || reaches(u, rb, bb)) && (tb == rb || reaches(u, tb, rb))) {
			r->loop_line = in->line;
			return copy_file(u->m, in, &r->loop_file);
		}
	}
	return 0;
}

/* Does block rb run on every pass of some loop: a back edge b -> h (h dominates b) with h
 * dominating rb and rb dominating b? */
static int every_pass(const struct un_fn *u, unsigned rb)
{
	for (unsigned i = 0; i < u->nord; i++) {
		unsigned b = u->order[i];
		for (unsigned k = 0; k < u->nsucc[b]; k++) {
			unsigned h = u->succ[b][k];
			if (dominates(u, h, b) && dominates(u, h, rb) && dominates(u, rb, b))
				return 1;
		}
	}
	return 0;
}

/* Records the unwritten reads of reachable blocks, at most UNINIT_MAX_PER_FUNC. */
static int scan(struct un_fn *u, uint64_t *cur, struct uninit_report *rep, unsigned *cap)
{
	const struct ptx_func *f = u->f;
	unsigned found = 0;
	for (unsigned b = 0; b < u->nb && found < UNINIT_MAX_PER_FUNC; b++) {
		if (u->rpo[b] < 0)
			continue;
		memcpy(cur, u->in + (size_t)b * u->words, u->words * 8);
		for (unsigned pc = u->start[b]; pc < u->start[b + 1]; pc++) {
			const struct ptx_insn *in = &f->code[pc];
			uint32_t uses[MAX_OPS];
			unsigned nu = 0, bad = 0, acc = 0;
			uint32_t first = 0;
			if (in->op != OP_UNSUPPORTED) {
				uint32_t defs[MAX_OPS];
				unsigned nd;
				operands(u->m, in, uses, &nu, defs, &nd);
			}
			for (unsigned i = 0; i < nu; i++) {
				uint32_t r = reg_of(u, uses[i]);
				if (!r || has_bit(cur, r - 1))
					continue;
				/* the value a shuffle moves: cub shuffles a struct word by word,
				 * its padding too (tuple<bool, long>), and drops what it got */
				if (in->op == OP_SHFL && uses[i] == in->s[0] &&
				    (in->guard < 0 || (uint32_t)in->guard != uses[i]))
					continue;
				unsigned dup = 0;
				for (unsigned j = 0; j < i; j++)
					dup |= uses[j] == uses[i];
				if (dup)
					continue;
				if (!bad++)
					first = uses[i];
				if (in->op == OP_MMA && in->target < u->m->nmmas) {
					const struct ptx_mma *mm = &u->m->mmas[in->target];
					for (unsigned j = 0; j < mm->nc && j < 8; j++)
						acc |= mm->c[j] == uses[i];
				}
			}
			if (bad && found < UNINIT_MAX_PER_FUNC) {
				if (rep->n == *cap) {
					unsigned nc = *cap ? *cap * 2 : 8;
					struct uninit_read *nr = realloc(rep->reads, nc * sizeof(*nr));
					if (!nr)
						return -ENOMEM;
					rep->reads = nr;
					*cap = nc;
				}
				struct uninit_read *r = &rep->reads[rep->n++];
				memset(r, 0, sizeof(*r));
				r->pc = pc;
				r->line = in->line;
				r->op = ptx_opcode_name(in->op);
				r->is_entry = f->is_entry;
				r->slot = first;
				r->nregs = bad;
				r->mma_acc = (int)acc;
				if (!(r->func = strdup(f->name)) || copy_file(u->m, in, &r->file) ||
				    classify(u, r, first))
					return -ENOMEM;
				/* a value that only comes round a loop is a mistake when its read
				 * runs on every pass, the first too; a read under a condition
				 * (if (i > 0) use(prev); prev = x;) may be skipped on the first */
				if (r->kind != UNINIT_NEVER && (in->guard >= 0 || !every_pass(u, b))) {
					free(r->func);
					free(r->file);
					free(r->loop_file);
					free(r->write_file);
					rep->n--;
				} else {
					found++;
				}
			}
			add_defs(u, in, cur);
		}
	}
	return 0;
}

static int analyze_fn(const struct ptx_module *m, const struct ptx_func *f,
		      struct uninit_report *rep, unsigned *cap)
{
	struct un_fn u = { .m = m, .f = f };
	if (!f->ncode)
		return 0;
	int rc = -ENOMEM;
	size_t n = f->ncode;
	unsigned char *leader = calloc(n, 1);
	uint64_t *tmp = NULL;
	u.reg = calloc(f->nslots ? f->nslots : 1, sizeof(uint32_t));
	u.start = malloc((n + 1) * sizeof(uint32_t));
	u.bb_of = malloc(n * sizeof(uint32_t));
	u.succ = malloc(n * sizeof(*u.succ));
	u.nsucc = calloc(n, 1);
	u.order = malloc(n * sizeof(unsigned));
	u.rpo = malloc(n * sizeof(int));
	u.idom = malloc(n * sizeof(unsigned));
	u.work = malloc(n * sizeof(uint32_t));
	u.seen = malloc(n);
	if (!leader || !u.reg || !u.start || !u.bb_of || !u.succ || !u.nsucc || !u.order || !u.rpo || !u.idom ||
	    !u.work || !u.seen)
		goto out;
	/* registers: every slot past the specials that no immediate holds */
	for (unsigned s = SR__COUNT; s < f->nslots; s++)
		u.reg[s] = 1;
	for (unsigned i = 0; i < f->nimm; i++)
		if (f->imm_slots[i] < f->nslots)
			u.reg[f->imm_slots[i]] = 0;
	for (unsigned s = SR__COUNT; s < f->nslots; s++)
		if (u.reg[s])
			u.reg[s] = ++u.nreg;
	u.words = (u.nreg + 63) / 64 ? (u.nreg + 63) / 64 : 1;
	build_cfg(&u, leader);
	u.gen = calloc((size_t)u.nb * u.words, 8);
	u.in = calloc((size_t)u.nb * u.words, 8);
	tmp = malloc((size_t)u.words * 8);
	if (!u.gen || !u.in || !tmp)
		goto out;
	for (unsigned b = 0; b < u.nb; b++)
		for (unsigned pc = u.start[b]; pc < u.start[b + 1]; pc++)
			add_defs(&u, &f->code[pc], u.gen + (size_t)b * u.words);
	for (unsigned b = 0; b < u.nb; b++)
		u.idom[b] = u.nb;
	if (dominators(&u))
		goto out;
	solve(&u, tmp);
	rc = scan(&u, tmp, rep, cap);
out:
	free(leader);
	free(tmp);
	free(u.reg);
	free(u.start);
	free(u.bb_of);
	free(u.succ);
	free(u.nsucc);
	free(u.gen);
	free(u.in);
	free(u.order);
	free(u.rpo);
	free(u.idom);
	free(u.work);
	free(u.seen);
	return rc;
}

int uninit_analyze(const struct ptx_module *m, struct uninit_report **out)
{
	struct uninit_report *r = calloc(1, sizeof(*r));
	unsigned cap = 0;
	if (!r)
		return -ENOMEM;
	for (unsigned i = 0; i < m->nfuncs; i++) {
		const struct ptx_func *f = &m->funcs[i];
		if (!f->defined || f->builtin)
			continue;
		int rc = analyze_fn(m, f, r, &cap);
		if (rc) {
			uninit_report_free(r);
			return rc;
		}
	}
	*out = r;
	return 0;
}

int uninit_analyze_file(const char *path, struct uninit_report **out, char *err, size_t errlen)
{
	struct ptx_module *m;
	int rc = ptx_module_load_file(path, &m, err, errlen);
	if (rc)
		return rc;
	rc = uninit_analyze(m, out);
	ptx_module_free(m);
	return rc;
}

void uninit_report_free(struct uninit_report *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->n; i++) {
		free(r->reads[i].func);
		free(r->reads[i].file);
		free(r->reads[i].loop_file);
		free(r->reads[i].write_file);
	}
	free(r->reads);
	free(r);
}
