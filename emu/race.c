/* race — dynamic barrier and shared-memory hazard checker (see race.h).
 *
 * The hooks run on the interpreter's worker threads. A worker runs one block at a time
 * to completion, so each worker thread keeps the state of its current block in a
 * thread-local slot: when a hook names another block, the previous block is finished
 * (its last barrier generation checked) and the slot reused. Only new findings take
 * the tracker's lock.
 */
#include "race.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

/* Generic addresses of shared memory: the window exec.c maps them into (exec_internal.h). */
#define RACE_SHARED_WIN 0xfe00000000000000ull
#define RACE_WIN_MASK 0xff00000000000000ull
#define RACE_MAX_FINDINGS 64
#define RACE_SEEN 64

enum { A_NONE, A_PLAIN, A_ATOMIC };

/* A source position: WHERE_LINE | line when only the line is known, else the function
 * index << WHERE_FSHIFT | pc (of the user's code: calls into toolkit headers are
 * attributed to their call site). */
#define WHERE_LINE 0x80000000u
#define WHERE_FSHIFT 20
#define WHERE_PCMASK ((1u << WHERE_FSHIFT) - 1)
#define RACE_MAX_DEPTH 16

/* One access remembered in the shadow of a shared byte. */
struct acc {
	uint32_t epoch, wsync, where;
	uint32_t pass;    /* loop headers the thread had entered (struct rwarp) */
	uint32_t marr;    /* the thread's mbarrier arrivals before it (struct rmbar) */
	uint16_t tid;
	uint8_t kind;
	uint8_t pad;
};

struct shadow {
	struct acc w, r1, r2; /* last write; two reads of the current epoch by different threads */
};

/* A call the warp is inside (nvcc -O0 keeps atomicAdd, __syncwarp... as calls). */
struct rframe {
	const struct ptx_func *f;
	uint32_t call_where; /* where of the call instruction */
	uint32_t mask, returned; /* lanes that entered, lanes that returned */
};

struct rwarp {
	uint32_t epoch;   /* block barriers passed */
	uint32_t wsync;   /* __syncwarp()s executed */
	uint32_t where;   /* the instruction being executed (from on_insn), user-visible */
	unsigned op;      /* its opcode */
	unsigned depth;   /* calls entered; deeper than RACE_MAX_DEPTH: positions by line */
	struct rframe fr[RACE_MAX_DEPTH];
	uint32_t exited;  /* lanes that returned */
	uint32_t exit_where;
	uint32_t exit_epoch; /* barriers passed when it first exited */
	uint32_t lanes;   /* lanes that exist */
	/* per lane: the times it entered a loop header of the kernel, so two accesses can
	 * be told to be in the same pass of a loop or in different ones */
	uint32_t pass[32];
};

/* An mbarrier of the block (cuda::barrier, a block-scope cuda::pipeline), for the order
 * it makes: an access by thread T happens before an access by a thread of warp W when T
 * arrived on a phase after it and W's wait saw that phase complete. Per thread, the
 * arrivals so far (rblock.arr); per warp, per thread, the latest arrival of that thread
 * whose phase the warp saw complete (rblock.vc); per mbarrier, each thread's arrival on
 * the current phase and on the last completed one. A phase that completed long before a
 * wait counts as the last one: fewer findings, never a false one. */
#define RACE_MAX_MBAR 16
struct rmbar {
	uint32_t off;
	uint32_t gen;        /* phases completed */
	uint32_t merged[32]; /* per warp: gen + 1 of the phase its vc holds */
	uint32_t *cur, *done;
};

struct rblock {
	struct race_tracker *t;
	struct rblock *next; /* the tracker's list of per-thread states */
	int open;
	unsigned idx;
	struct emu_dim3 bid;
	struct shadow *sh;
	struct rwarp *w;
	/* the current barrier generation: up to two distinct barriers and their threads */
	int gen_valid;
	uint32_t gen_epoch, gen_where[2];
	unsigned gen_threads[2], gen_n;
	uint64_t seen[RACE_SEEN];
	unsigned nseen;
	uint32_t *arr, *vc; /* NULL until the block's first mbarrier operation */
	struct rmbar mb[RACE_MAX_MBAR];
	unsigned nmb;
};

struct race_tracker {
	const struct emu_launch *l;
	const struct ptx_module *m;
	const struct ptx_func *kf;
	unsigned id;
	unsigned nthreads, nwarps;
	size_t shared_size;
	const char *main_file;  /* for findings located by line only */
	struct emu_hooks hooks;
	pthread_mutex_t lock;
	struct rblock *blocks;
	struct race_finding f[RACE_MAX_FINDINGS];
	uint64_t keys[RACE_MAX_FINDINGS];
	struct gap_region { uint32_t fn, lo, hi; int known; } region[RACE_MAX_FINDINGS];
	unsigned nf;
	uint8_t *header;        /* per pc of the kernel: the target of a backward branch */
};

/* The two accesses of a hazard, for working out where its barrier is missing. */
struct gap_in {
	uint32_t where1, where2, pass1, pass2;
	int warp;               /* a __syncwarp() orders them too (same warp) */
};

static _Atomic unsigned race_ids = 1;
static _Thread_local struct {
	unsigned id;
	struct rblock *rb;
} race_tls;

/* ---- findings ------------------------------------------------------------------ */

static void thread_xyz(const struct race_tracker *t, unsigned tid, struct emu_dim3 *o)
{
	const struct emu_dim3 *b = &t->l->block;
	o->x = tid % b->x;
	o->y = (tid / b->x) % b->y;
	o->z = tid / (b->x * b->y);
}

static const struct ptx_insn *insn_of(const struct race_tracker *t, uint32_t where)
{
	if (where & WHERE_LINE)
		return NULL;
	unsigned fi = where >> WHERE_FSHIFT, pc = where & WHERE_PCMASK;
	if (fi >= t->m->nfuncs || pc >= t->m->funcs[fi].ncode)
		return NULL;
	return &t->m->funcs[fi].code[pc];
}

static void where_of(const struct race_tracker *t, uint32_t where, const char **file,
		     unsigned *line)
{
	const struct ptx_insn *in = insn_of(t, where);
	if (in) {
		*line = in->line;
		*file = in->line ? ptx_module_file(t->m, in->file) : NULL;
	} else {
		*line = where & ~WHERE_LINE;
		*file = *line ? t->main_file : NULL;
	}
}

/* Names the shared variable holding byte off; fills var and *rel (offset inside it). */
static void shared_var(const struct race_tracker *t, uint64_t off, char *var, size_t len,
		       uint64_t *rel, uint64_t *bytes)
{
	*bytes = 0;
	const struct ptx_module *m = t->m;
	var[0] = 0;
	*rel = off;
	for (unsigned i = 0; i < m->nsyms; i++) {
		const struct ptx_symbol *s = &m->syms[i];
		if (s->space != SP_SHARED)
			continue;
		int dyn = s->size == 0 && s->addr == m->shared_total;
		if ((s->size && off >= s->addr && off < s->addr + s->size) ||
		    (dyn && off >= s->addr)) {
			ptx_var_name(s->name, var, len);
			*rel = off - s->addr;
			*bytes = s->size;
			return;
		}
	}
}

/* ---- where the barrier is missing ---------------------------------------------- */

/* Does the instruction wait for the block (or, warp: for the warp)? A call does when
 * its function has such a barrier (nvcc -O0 keeps __syncwarp() as a call). */
static int is_barrier(const struct ptx_module *m, const struct ptx_insn *in, int warp)
{
	if (in->op == OP_CALL && in->target < m->nfuncs) {
		const struct ptx_func *f = &m->funcs[in->target];
		for (unsigned pc = 0; pc < f->ncode; pc++)
			if (f->code[pc].op != OP_CALL && is_barrier(m, &f->code[pc], warp))
				return 1;
		return 0;
	}
	if (in->op == OP_BARWARP)
		return warp;
	return (in->op == OP_BAR || in->op == OP_BARRIER) && in->mod != BAR_ARRIVE;
}

/* The successors of pc in f: fills s[0..1], returns how many. */
static unsigned successors(const struct ptx_func *f, unsigned pc, unsigned s[2])
{
	const struct ptx_insn *in = &f->code[pc];
	unsigned n = 0;
	int ends = in->op == OP_BRA || in->op == OP_RET || in->op == OP_EXIT ||
		   in->op == OP_TRAP || in->op == OP_BRKPT;
	if (in->op == OP_BRA && in->target < f->ncode)
		s[n++] = in->target;
	if ((!ends || in->guard >= 0) && pc + 1 < f->ncode)
		s[n++] = pc + 1;
	return n;
}

/* Is there a path from pc a to pc b in f that passes no barrier (forward: without a
 * backward branch)? parent[] (f->ncode entries) gets the path. */
static int free_path(const struct ptx_module *m, const struct ptx_func *f, unsigned a,
		     unsigned b, int forward, int warp, unsigned *parent, unsigned *queue)
{
	unsigned head = 0, tail = 0, s[2];
	for (unsigned pc = 0; pc < f->ncode; pc++)
		parent[pc] = UINT32_MAX;
	for (unsigned i = successors(f, a, s); i-- > 0;)
		if (!forward || s[i] > a) {
			parent[s[i]] = a;
			queue[tail++] = s[i];
		}
	while (head < tail) {
		unsigned u = queue[head++];
		if (u == b)
			return 1;
		if (is_barrier(m, &f->code[u], warp))
			continue;
		for (unsigned i = successors(f, u, s); i-- > 0;)
			if ((!forward || s[i] > u) && parent[s[i]] == UINT32_MAX) {
				parent[s[i]] = u;
				queue[tail++] = s[i];
			}
	}
	return 0;
}

/* Fills f's gap fields (and region) for a hazard between the accesses of g. */
static void gap_classify(const struct race_tracker *t, const struct gap_in *g,
			 struct race_finding *f, struct gap_region *region)
{
	const struct ptx_module *m = t->m;
	uint32_t w1 = g->where1, w2 = g->where2;
	memset(region, 0, sizeof *region);
	if ((w1 & WHERE_LINE) || (w2 & WHERE_LINE) || w1 >> WHERE_FSHIFT != w2 >> WHERE_FSHIFT ||
	    w1 >> WHERE_FSHIFT >= m->nfuncs)
		return;
	const struct ptx_func *fn = &m->funcs[w1 >> WHERE_FSHIFT];
	unsigned p1 = w1 & WHERE_PCMASK, p2 = w2 & WHERE_PCMASK;
	if (p1 >= fn->ncode || p2 >= fn->ncode)
		return;
	unsigned *parent = malloc(2 * fn->ncode * sizeof(unsigned));
	if (!parent)
		return;
	/* the access of the earlier pass first: the barrier goes between it and the later
	 * pass's access; then the forward ways within one pass; then any way round */
	struct way { unsigned from, to; int forward; } c[5];
	unsigned nc = 0;
	if (g->pass1 != g->pass2)
		c[nc++] = g->pass1 < g->pass2 ? (struct way){ p1, p2, 0 }
					      : (struct way){ p2, p1, 0 };
	c[nc++] = (struct way){ p1, p2, 1 };
	c[nc++] = (struct way){ p2, p1, 1 };
	c[nc++] = (struct way){ p1, p2, 0 };
	c[nc++] = (struct way){ p2, p1, 0 };
	unsigned i = 0;
	while (i < nc && !free_path(m, fn, c[i].from, c[i].to, c[i].forward, g->warp, parent,
				    parent + fn->ncode))
		i++;
	region->fn = w1 >> WHERE_FSHIFT;
	region->known = 1;
	if (i == nc) {
		f->gap = p1 == p2 ? RACE_GAP_BETWEEN : RACE_GAP_UNKNOWN; /* one instruction */
		f->gap_line1 = f->gap_line2 = fn->code[p1].line;
		region->lo = region->hi = p1;
		region->known = p1 == p2;
		free(parent);
		return;
	}
	unsigned from = c[i].from, to = c[i].to;
	f->gap_from_write = from == p1 ? f->write1 : f->write2;
	f->gap_line1 = fn->code[from].line;
	f->gap_line2 = fn->code[to].line;
	/* the outermost backward branch on the path, if any */
	unsigned head = UINT32_MAX, br = 0;
	for (unsigned v = to, n = 0; n <= fn->ncode; n++) {
		unsigned u = parent[v];
		if (u == UINT32_MAX)
			break;
		if (v <= u && v < head) {
			head = v;
			br = u;
		}
		if (u == from)
			break;
		v = u;
	}
	free(parent);
	if (head == UINT32_MAX) {
		f->gap = RACE_GAP_BETWEEN;
		region->lo = from;
		region->hi = to;
		return;
	}
	f->gap = RACE_GAP_LOOP;
	f->ahead = to == p1 ? 1 : 2;
	region->lo = head;
	region->hi = br;
	uint16_t file = fn->code[from].file;
	for (unsigned pc = head; pc <= br; pc++) {
		const struct ptx_insn *in = &fn->code[pc];
		if (!in->line || in->file != file)
			continue;
		if (!f->loop_first || in->line < f->loop_first)
			f->loop_first = in->line;
		if (in->line > f->loop_last)
			f->loop_last = in->line;
	}
	/* the barrier that orders the two within one pass */
	for (unsigned pc = to < from ? to + 1 : from + 1; pc < (to < from ? from : to); pc++)
		if (is_barrier(m, &fn->code[pc], 0) && fn->code[pc].line) {
			f->bar_line = fn->code[pc].line;
			break;
		}
}

static void fmt_thread(char *buf, size_t len, const struct emu_dim3 *d)
{
	snprintf(buf, len, "(%u,%u,%u)", d->x, d->y, d->z);
}

/* A hazard between two passes of a loop: which thread ran ahead, and that the barrier
 * missing is the one between the earlier pass's access and the next pass's. */
static void loop_message(struct race_finding *f, const char *t1, const char *t2,
			 const char *b, const char *elem, const char *sync, const char *who)
{
	char ahead[96], order[160] = "";
	snprintf(ahead, sizeof ahead, ", already in a later pass of the loop of lines %u-%u,",
		 f->loop_first, f->loop_last);
	const char *a1 = f->ahead == 1 ? ahead : "", *a2 = f->ahead == 2 ? ahead : "";
	if (f->bar_line)
		snprintf(order, sizeof order, " (the one at line %u only orders the accesses of "
			 "one pass)", f->bar_line);
	static const char *const verb2[] = { "read", "overwrote", "wrote" };
	static const char *const verb1[] = { "wrote", "still read", "wrote" };
	static const char *const then[] = {
		"it may read the old or the new value", "the reader may get the new value",
		"which value remains depends on timing" };
	unsigned k = f->kind == RACE_RAW ? 0 : f->kind == RACE_WAR ? 1 : 2;
	snprintf(f->message, sizeof f->message,
		 "thread %s of block %s%s %s %s at line %u while %s %s%s %s it at line %u, with "
		 "no %s between them: none between line %u and the loop's next pass at line "
		 "%u%s, so %s", t2, b, a2, verb2[k], elem, f->line2, who, t1, a1, verb1[k],
		 f->line1, sync, f->gap_line1, f->gap_line2, order, then[k]);
}

static void hazard_message(struct race_finding *f)
{
	char t1[40], t2[40], b[40], elem[96];
	fmt_thread(t1, sizeof t1, &f->thread1);
	fmt_thread(t2, sizeof t2, &f->thread2);
	fmt_thread(b, sizeof b, &f->block);
	if (f->var[0] && f->size && f->offset % f->size == 0)
		snprintf(elem, sizeof elem, "%s[%llu]", f->var,
			 (unsigned long long)(f->offset / f->size));
	else if (f->var[0])
		snprintf(elem, sizeof elem, "%s (byte %llu)", f->var,
			 (unsigned long long)f->offset);
	else
		snprintf(elem, sizeof elem, "shared memory at byte %llu",
			 (unsigned long long)f->offset);
	const char *sync = f->intra_warp ? "__syncwarp()" : "__syncthreads()";
	const char *who = f->intra_warp ? "another thread of its warp" : "thread";
	if (f->gap == RACE_GAP_LOOP && f->kind != RACE_UNINIT) {
		loop_message(f, t1, t2, b, elem, sync, who);
		return;
	}
	switch (f->kind) {
	case RACE_RAW:
		snprintf(f->message, sizeof f->message,
			 "thread %s of block %s read %s at line %u while %s %s wrote it at line %u "
			 "with no %s between, so it may read the old or the new value",
			 t2, b, elem, f->line2, who, t1, f->line1, sync);
		break;
	case RACE_WAR:
		snprintf(f->message, sizeof f->message,
			 "thread %s of block %s overwrote %s at line %u while %s %s still read it "
			 "at line %u with no %s between, so the reader may get the new value",
			 t2, b, elem, f->line2, who, t1, f->line1, sync);
		break;
	case RACE_WAW:
		snprintf(f->message, sizeof f->message,
			 "thread %s of block %s wrote %s at line %u after %s %s wrote it at line %u "
			 "with no %s between, so which value remains depends on timing",
			 t2, b, elem, f->line2, who, t1, f->line1, sync);
		break;
	case RACE_UNINIT:
		snprintf(f->message, sizeof f->message,
			 "thread %s of block %s %s %s at line %u, which no thread of the block had "
			 "written: shared memory starts with undefined contents",
			 t2, b, f->write2 ? "updated" : "read", elem, f->line2);
		break;
	default:
		break;
	}
}

static void barrier_message(struct race_finding *f)
{
	char b[40];
	fmt_thread(b, sizeof b, &f->block);
	if (f->kind == RACE_BAR_DIVERGENT)
		snprintf(f->message, sizeof f->message,
			 "in block %s, %u threads waited at the __syncthreads() at line %u while %u "
			 "waited at the one at line %u: every thread of a block must reach the same "
			 "barrier", b, f->threads1, f->line1, f->threads2, f->line2);
	else if (f->line2)
		snprintf(f->message, sizeof f->message,
			 "the __syncthreads() at line %u was reached by %u of the %u threads of "
			 "block %s; the other %u had already exited (line %u), which a GPU does not "
			 "guarantee to handle", f->line1, f->threads1, f->nthreads, b, f->threads2,
			 f->line2);
	else
		snprintf(f->message, sizeof f->message,
			 "the __syncthreads() at line %u was reached by %u of the %u threads of "
			 "block %s; the other %u had already exited", f->line1, f->threads1,
			 f->nthreads, b, f->threads2);
}

/* Completes f (where its barrier is missing, its message) and stores it as finding i. */
static void store(struct race_tracker *t, unsigned i, struct rblock *rb, struct race_finding *f,
		  const struct gap_in *g)
{
	f->kernel = t->kf->name;
	f->block = rb->bid;
	f->nthreads = t->nthreads;
	t->region[i].known = 0;
	if (g)
		gap_classify(t, g, f, &t->region[i]);
	if (f->kind >= RACE_BAR_DIVERGENT)
		barrier_message(f);
	else
		hazard_message(f);
	t->f[i] = *f;
}

/* Records finding f (key identifies it; g: a hazard's accesses, else NULL) unless this
 * block or the tracker has it. */
static void report(struct rblock *rb, uint64_t key, struct race_finding *f,
		   const struct gap_in *g)
{
	struct race_tracker *t = rb->t;
	for (unsigned i = 0; i < rb->nseen; i++)
		if (rb->seen[i] == key)
			return;
	if (rb->nseen < RACE_SEEN)
		rb->seen[rb->nseen++] = key;
	pthread_mutex_lock(&t->lock);
	unsigned i;
	for (i = 0; i < t->nf; i++)
		if (t->keys[i] == key)
			break;
	if (i < t->nf) {
		t->f[i].count++;
		/* keep the example of the lowest block, so runs agree whatever the schedule */
		if (rb->idx < t->f[i].block.x + t->l->grid.x * (t->f[i].block.y +
		    t->l->grid.y * t->f[i].block.z)) {
			unsigned c = t->f[i].count;
			store(t, i, rb, f, g);
			t->f[i].count = c;
		}
	} else if (t->nf < RACE_MAX_FINDINGS) {
		f->count = 1;
		t->keys[t->nf] = key;
		store(t, t->nf++, rb, f, g);
	}
	pthread_mutex_unlock(&t->lock);
}

static uint64_t make_key(enum race_kind k, int intra, uint32_t a, uint32_t b)
{
	return (uint64_t)k << 61 | (uint64_t)(intra & 1) << 60 | (uint64_t)(a & 0x3fffffff) << 30 |
	       (b & 0x3fffffff);
}

/* ---- barrier generations ------------------------------------------------------- */

/* Checks the barrier generation that just completed. */
static void gen_close(struct rblock *rb)
{
	struct race_tracker *t = rb->t;
	if (!rb->gen_valid)
		return;
	rb->gen_valid = 0;
	struct race_finding f;
	memset(&f, 0, sizeof f);
	f.nthreads = t->nthreads;
	if (rb->gen_n > 1) {
		f.kind = RACE_BAR_DIVERGENT;
		where_of(t, rb->gen_where[0], &f.file1, &f.line1);
		where_of(t, rb->gen_where[1], &f.file2, &f.line2);
		f.threads1 = rb->gen_threads[0];
		f.threads2 = rb->gen_threads[1];
		report(rb, make_key(f.kind, 0, rb->gen_where[0], rb->gen_where[1]), &f, NULL);
		return;
	}
	if (rb->gen_threads[0] >= t->nthreads)
		return;
	f.kind = RACE_BAR_EXITED;
	where_of(t, rb->gen_where[0], &f.file1, &f.line1);
	f.threads1 = rb->gen_threads[0];
	f.threads2 = t->nthreads - rb->gen_threads[0];
	uint32_t ex = 0;
	for (unsigned i = 0; i < t->nwarps; i++)
		if (rb->w[i].exited && rb->w[i].exit_epoch <= rb->gen_epoch) {
			ex = rb->w[i].exit_where;
			thread_xyz(t, i * 32 + (unsigned)__builtin_ctz(rb->w[i].exited), &f.thread2);
			break;
		}
	if (ex != UINT32_MAX)
		where_of(t, ex, &f.file2, &f.line2);
	report(rb, make_key(f.kind, 0, rb->gen_where[0], 0), &f, NULL);
}

static void block_close(struct rblock *rb)
{
	if (!rb->open)
		return;
	gen_close(rb);
	rb->open = 0;
}

static void block_open(struct rblock *rb, unsigned idx)
{
	struct race_tracker *t = rb->t;
	const struct emu_launch *l = t->l;
	rb->open = 1;
	rb->idx = idx;
	rb->bid.x = idx % l->grid.x;
	rb->bid.y = (idx / l->grid.x) % l->grid.y;
	rb->bid.z = idx / (l->grid.x * l->grid.y);
	rb->gen_valid = 0;
	rb->nseen = 0;
	memset(rb->sh, 0, t->shared_size * sizeof(*rb->sh));
	if (rb->arr) {
		memset(rb->arr, 0, t->nthreads * sizeof *rb->arr);
		memset(rb->vc, 0, (size_t)t->nwarps * t->nthreads * sizeof *rb->vc);
	}
	rb->nmb = 0;
	for (unsigned i = 0; i < t->nwarps; i++) {
		unsigned n = t->nthreads - i * 32 < 32 ? t->nthreads - i * 32 : 32;
		memset(&rb->w[i], 0, sizeof(rb->w[i]));
		rb->w[i].lanes = n == 32 ? 0xffffffffu : (1u << n) - 1;
		rb->w[i].exit_where = UINT32_MAX;
	}
}

/* This worker thread's state for block idx, or NULL when out of memory. */
static struct rblock *block_get(struct race_tracker *t, unsigned idx)
{
	struct rblock *rb = race_tls.id == t->id ? race_tls.rb : NULL;
	if (!rb) {
		rb = calloc(1, sizeof(*rb));
		if (!rb)
			return NULL;
		rb->t = t;
		rb->sh = calloc(t->shared_size ? t->shared_size : 1, sizeof(*rb->sh));
		rb->w = calloc(t->nwarps, sizeof(*rb->w));
		if (!rb->sh || !rb->w) {
			free(rb->sh);
			free(rb->w);
			free(rb);
			return NULL;
		}
		pthread_mutex_lock(&t->lock);
		rb->next = t->blocks;
		t->blocks = rb;
		pthread_mutex_unlock(&t->lock);
		race_tls.id = t->id;
		race_tls.rb = rb;
	}
	if (!rb->open || rb->idx != idx) {
		block_close(rb);
		block_open(rb, idx);
	}
	return rb;
}

/* ---- hooks --------------------------------------------------------------------- */

/* Follows the warp into and out of calls, so that pc names an instruction. */
static const struct ptx_func *warp_func(struct race_tracker *t, struct rwarp *w)
{
	while (w->depth && w->depth <= RACE_MAX_DEPTH &&
	       (w->fr[w->depth - 1].returned & w->fr[w->depth - 1].mask) ==
		       w->fr[w->depth - 1].mask)
		w->depth--;
	if (w->depth > RACE_MAX_DEPTH)
		return NULL;
	return w->depth ? w->fr[w->depth - 1].f : t->kf;
}

/* The warp's lanes ACTIVE enter function FUNC at the call at WHERE. */
static void enter_call(struct race_tracker *t, struct rwarp *w, unsigned func, uint32_t where,
		       uint32_t active)
{
	if (w->depth < RACE_MAX_DEPTH && func < t->m->nfuncs)
		w->fr[w->depth] = (struct rframe){ &t->m->funcs[func], where, active, 0 };
	w->depth++; /* past RACE_MAX_DEPTH: counted, positions by line */
}

static void hook_insn(void *ctx, unsigned block, unsigned warp, uint32_t active, unsigned pc,
		      unsigned line)
{
	struct race_tracker *t = ctx;
	struct rblock *rb = block_get(t, block);
	if (!rb || warp >= t->nwarps)
		return;
	struct rwarp *w = &rb->w[warp];
	const struct ptx_func *f = warp_func(t, w);
	if (!f || pc >= f->ncode) {
		w->where = WHERE_LINE | line;
		w->op = OP_NOP;
		return;
	}
	const struct ptx_insn *in = &f->code[pc];
	uint32_t where = (uint32_t)(f - t->m->funcs) << WHERE_FSHIFT | pc;
	/* inside a toolkit function: the position is the user's call */
	for (unsigned d = w->depth; d > 0 && d <= RACE_MAX_DEPTH; d--) {
		const struct ptx_insn *at = insn_of(t, where);
		if (at && at->line && !ptx_file_is_system(ptx_module_file(t->m, at->file)))
			break;
		where = w->fr[d - 1].call_where;
	}
	w->where = where;
	w->op = in->op;
	if (!active)
		return;
	if (f == t->kf && t->header && t->header[pc])
		for (uint32_t a = active; a; a &= a - 1)
			w->pass[__builtin_ctz(a)]++;
	switch (in->op) {
	case OP_CALL:
		if (in->target == PTX_CALL_INDIRECT) /* hook_icall follows, with the callee */
			break;
		enter_call(t, w, in->target, where, active);
		break;
	case OP_RET:
		if (w->depth) {
			if (w->depth <= RACE_MAX_DEPTH)
				w->fr[w->depth - 1].returned |= active;
			else
				w->depth--; /* approximate: leaves the untracked frame */
			break;
		}
		__attribute__((fallthrough)); /* ret of the kernel: the lanes exit */
	case OP_EXIT:
		if (w->exit_where == UINT32_MAX) {
			w->exit_where = where;
			w->exit_epoch = w->epoch;
		}
		w->exited |= active;
		for (unsigned d = 0; d < w->depth && d < RACE_MAX_DEPTH; d++)
			w->fr[d].returned |= active;
		break;
	case OP_BARWARP:
		w->wsync++;
		break;
	default:
		break;
	}
}

static void hook_icall(void *ctx, unsigned block, unsigned warp, uint32_t active,
		       unsigned func)
{
	struct race_tracker *t = ctx;
	struct rblock *rb = block_get(t, block);
	if (!rb || warp >= t->nwarps)
		return;
	struct rwarp *w = &rb->w[warp];
	if (w->op == OP_CALL) /* hook_insn followed the call (not past RACE_MAX_DEPTH) */
		enter_call(t, w, func, w->where, active);
}

static void hook_barrier(void *ctx, unsigned block, unsigned warp, uint32_t active,
			 unsigned line)
{
	struct race_tracker *t = ctx;
	struct rblock *rb = block_get(t, block);
	if (!rb || warp >= t->nwarps)
		return;
	struct rwarp *w = &rb->w[warp];
	(void)line;
	uint32_t where = w->where, e = w->epoch++;
	unsigned n = (unsigned)__builtin_popcount(active);
	if (rb->gen_valid && rb->gen_epoch != e)
		gen_close(rb);
	if (!rb->gen_valid) {
		rb->gen_valid = 1;
		rb->gen_epoch = e;
		rb->gen_n = 1;
		rb->gen_where[0] = where;
		rb->gen_threads[0] = n;
		rb->gen_threads[1] = 0;
		return;
	}
	if (where == rb->gen_where[0]) {
		rb->gen_threads[0] += n;
	} else if (rb->gen_n == 1 || where == rb->gen_where[1]) {
		rb->gen_where[1] = where;
		rb->gen_threads[1] += n;
		rb->gen_n = 2;
	} else {
		rb->gen_threads[1] += n; /* a third barrier: counted with the second */
	}
}

/* Does the earlier access a conflict with thread tid's access now? 0 none, 1 between
 * warps, 2 inside one warp without __syncwarp. */
static int conflicts(const struct acc *a, unsigned tid, uint32_t epoch, uint32_t wsync,
		     int atomic, const uint32_t *vc)
{
	if (a->kind == A_NONE || a->tid == tid || a->epoch != epoch)
		return 0;
	if (vc && vc[a->tid] > a->marr) /* ordered by an mbarrier phase (struct rmbar) */
		return 0;
	if (atomic && a->kind == A_ATOMIC)
		return 0;
	if (a->tid / 32 != tid / 32)
		return 1;
	return a->wsync == wsync ? 2 : 0;
}

static void hazard(struct rblock *rb, enum race_kind k, int how, const struct acc *a,
		   int a_write, const struct acc *me, int write, uint64_t off, unsigned size)
{
	unsigned tid = me->tid;
	uint32_t where = me->where;
	struct gap_in g = { a->where, where, a->pass, me->pass, how == 2 };
	struct race_tracker *t = rb->t;
	struct race_finding f;
	memset(&f, 0, sizeof f);
	f.kind = k;
	f.intra_warp = how == 2;
	f.size = size;
	thread_xyz(t, a->tid, &f.thread1);
	thread_xyz(t, tid, &f.thread2);
	where_of(t, a->where, &f.file1, &f.line1);
	where_of(t, where, &f.file2, &f.line2);
	f.write1 = a_write;
	f.write2 = write;
	shared_var(t, off, f.var, sizeof f.var, &f.offset, &f.var_bytes);
	/* one finding per pair of source lines: unrolled loops repeat an access at many pcs */
	report(rb, make_key(k, f.intra_warp, f.line1, f.line2), &f, &g);
}

static void hook_access(void *ctx, unsigned block, unsigned warp, unsigned lane, int space,
			uint64_t addr, unsigned size, int is_write, unsigned line)
{
	struct race_tracker *t = ctx;
	uint64_t off;
	if (space == SP_SHARED)
		off = addr;
	else if (space == SP_GENERIC && (addr & RACE_WIN_MASK) == RACE_SHARED_WIN)
		off = addr - RACE_SHARED_WIN;
	else
		return;
	if (off + size > t->shared_size || off + size < off)
		return;
	struct rblock *rb = block_get(t, block);
	if (!rb || warp >= t->nwarps)
		return;
	struct rwarp *w = &rb->w[warp];
	unsigned tid = warp * 32 + lane;
	(void)line;
	uint32_t where = w->where;
	int atomic = is_write == 2 || w->op == OP_ATOM || w->op == OP_RED;
	int write = is_write != 0;
	struct acc me = { .epoch = w->epoch, .wsync = w->wsync, .where = where,
			  .pass = w->pass[lane], .marr = rb->arr ? rb->arr[tid] : 0,
			  .tid = (uint16_t)tid, .kind = atomic ? A_ATOMIC : A_PLAIN };
	const uint32_t *vc = rb->arr ? rb->vc + (size_t)warp * t->nthreads : NULL;
	int reported = 0;
	for (unsigned i = 0; i < size; i++) {
		struct shadow *s = &rb->sh[off + i];
		int how;
		if (!reported && s->w.kind == A_NONE && (!write || atomic)) {
			struct race_finding f;
			memset(&f, 0, sizeof f);
			f.kind = RACE_UNINIT;
			f.size = size;
			f.write2 = write;
			thread_xyz(t, tid, &f.thread2);
			where_of(t, where, &f.file2, &f.line2);
			shared_var(t, off, f.var, sizeof f.var, &f.offset, &f.var_bytes);
			report(rb, make_key(RACE_UNINIT, 0, f.line2, 0), &f, NULL);
			reported = 1;
		}
		if (!write) {
			if (!reported && (how = conflicts(&s->w, tid, me.epoch, me.wsync, 0, vc))) {
				hazard(rb, RACE_RAW, how, &s->w, 1, &me, 0, off, size);
				reported = 1;
			}
			if (s->r1.kind == A_NONE || s->r1.epoch != me.epoch) {
				s->r1 = me;
				s->r2.kind = A_NONE;
			} else if (s->r1.tid != tid && (s->r2.kind == A_NONE ||
							s->r2.epoch != me.epoch)) {
				s->r2 = me;
			}
			continue;
		}
		if (!reported && (how = conflicts(&s->w, tid, me.epoch, me.wsync, atomic, vc))) {
			hazard(rb, RACE_WAW, how, &s->w, 1, &me, 1, off, size);
			reported = 1;
		}
		for (int r = 0; r < 2 && !reported; r++) {
			const struct acc *ra = r ? &s->r2 : &s->r1;
			if ((how = conflicts(ra, tid, me.epoch, me.wsync, 0, vc))) {
				hazard(rb, RACE_WAR, how, ra, 0, &me, 1, off, size);
				reported = 1;
			}
		}
		s->w = me;
	}
}

/* The block's mbarrier at shared offset off (a new one at its first use), or NULL when
 * out of memory or past RACE_MAX_MBAR (its order is then not seen: findings it would
 * have ordered may be reported). */
static struct rmbar *mbar_of(struct rblock *rb, uint32_t off)
{
	unsigned n = rb->t->nthreads;
	if (!rb->arr) {
		rb->arr = calloc(n, sizeof *rb->arr);
		rb->vc = calloc((size_t)rb->t->nwarps * n, sizeof *rb->vc);
		if (!rb->arr || !rb->vc) {
			free(rb->arr);
			free(rb->vc);
			rb->arr = rb->vc = NULL;
			return NULL;
		}
	}
	for (unsigned i = 0; i < rb->nmb; i++)
		if (rb->mb[i].off == off)
			return &rb->mb[i];
	if (rb->nmb == RACE_MAX_MBAR)
		return NULL;
	struct rmbar *e = &rb->mb[rb->nmb];
	if (!e->cur)
		e->cur = malloc(n * sizeof *e->cur);
	if (!e->done)
		e->done = malloc(n * sizeof *e->done);
	if (!e->cur || !e->done)
		return NULL;
	rb->nmb++;
	e->off = off;
	e->gen = 0;
	memset(e->merged, 0, sizeof e->merged);
	memset(e->cur, 0, n * sizeof *e->cur);
	memset(e->done, 0, n * sizeof *e->done);
	return e;
}

static void hook_mbarrier(void *ctx, unsigned block, unsigned warp, unsigned lane, uint32_t off,
			  int what)
{
	struct race_tracker *t = ctx;
	struct rblock *rb = block_get(t, block);
	unsigned tid = warp * 32 + lane, n = t->nthreads;
	struct rmbar *e = rb && tid < n ? mbar_of(rb, off) : NULL;
	if (!e)
		return;
	switch (what) {
	case EMU_MBAR_INIT:
		e->gen = 0;
		memset(e->merged, 0, sizeof e->merged);
		memset(e->cur, 0, n * sizeof *e->cur);
		memset(e->done, 0, n * sizeof *e->done);
		break;
	case EMU_MBAR_ARRIVE:
		e->cur[tid] = ++rb->arr[tid];
		break;
	case EMU_MBAR_COMPLETE:
		memcpy(e->done, e->cur, n * sizeof *e->cur);
		memset(e->cur, 0, n * sizeof *e->cur);
		e->gen++;
		break;
	default: { /* EMU_MBAR_WAITED: the warp learns the phase's arrivals (once a phase) */
		if (e->merged[warp] == e->gen + 1)
			break;
		e->merged[warp] = e->gen + 1;
		uint32_t *vc = rb->vc + (size_t)warp * n;
		for (unsigned i = 0; i < n; i++)
			vc[i] = e->done[i] > vc[i] ? e->done[i] : vc[i];
		break;
	}
	}
}

/* ---- public -------------------------------------------------------------------- */

struct race_tracker *race_new(const struct emu_launch *l)
{
	struct race_tracker *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->l = l;
	t->m = l->module;
	t->kf = &l->kernel->f;
	t->id = atomic_fetch_add(&race_ids, 1);
	t->nthreads = l->block.x * l->block.y * l->block.z;
	t->nwarps = (t->nthreads + 31) / 32;
	t->shared_size = t->m->shared_total + l->dyn_shmem;
	t->header = calloc(t->kf->ncode ? t->kf->ncode : 1, 1); /* NULL: passes not told */
	for (unsigned pc = 0; pc < t->kf->ncode; pc++) {
		const struct ptx_insn *in = &t->kf->code[pc];
		if (!t->main_file && in->line)
			t->main_file = ptx_module_file(t->m, in->file);
		if (t->header && in->op == OP_BRA && in->target <= pc)
			t->header[in->target] = 1;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->hooks.ctx = t;
	t->hooks.on_insn = hook_insn;
	t->hooks.on_access = hook_access;
	t->hooks.on_barrier = hook_barrier;
	t->hooks.on_icall = hook_icall;
	t->hooks.on_mbarrier = hook_mbarrier;
	t->hooks.strict_exits = 1; /* an early return before a barrier stays a finding */
	return t;
}

void race_free(struct race_tracker *t)
{
	if (!t)
		return;
	for (struct rblock *rb = t->blocks, *nx; rb; rb = nx) {
		nx = rb->next;
		free(rb->sh);
		free(rb->w);
		free(rb->arr);
		free(rb->vc);
		for (unsigned i = 0; i < RACE_MAX_MBAR; i++) {
			free(rb->mb[i].cur);
			free(rb->mb[i].done);
		}
		free(rb);
	}
	pthread_mutex_destroy(&t->lock);
	free(t->header);
	free(t);
}

const struct emu_hooks *race_hooks(struct race_tracker *t)
{
	return &t->hooks;
}

/* Is hazard i inside one warp and its missing barrier where a hazard between warps
 * needs one too: their regions overlap, or they are between the same two lines (the
 * copies of an unrolled loop)? */
static int covered(const struct race_tracker *t, unsigned i)
{
	const struct gap_region *a = &t->region[i];
	const struct race_finding *f = &t->f[i];
	if (!f->intra_warp || f->kind > RACE_WAW)
		return 0;
	for (unsigned j = 0; j < t->nf; j++) {
		const struct gap_region *b = &t->region[j];
		const struct race_finding *g = &t->f[j];
		if (g->intra_warp || g->kind > RACE_WAW)
			continue;
		if (a->known && b->known && b->fn == a->fn && b->lo <= a->hi && a->lo <= b->hi)
			return 1;
		if ((g->line1 == f->line1 && g->line2 == f->line2) ||
		    (g->line1 == f->line2 && g->line2 == f->line1))
			return 1;
	}
	return 0;
}

/* Two threads writing one element in the same statement (bins[b]++) lose updates in
 * any pass, the same one included: the hazards of that statement are its, not a
 * missing barrier between passes of a loop. */
static void statement_hazards(struct race_tracker *t)
{
	for (unsigned i = 0; i < t->nf; i++) {
		struct race_finding *f = &t->f[i];
		if (f->kind > RACE_WAW || f->gap != RACE_GAP_LOOP || f->line1 != f->line2)
			continue;
		for (unsigned j = 0; j < t->nf; j++) {
			const struct race_finding *w = &t->f[j];
			if (w->kind != RACE_WAW || w->line1 != f->line1 || w->line2 != f->line1 ||
			    w->intra_warp != f->intra_warp)
				continue;
			f->gap = RACE_GAP_BETWEEN;
			f->ahead = 0;
			f->loop_first = f->loop_last = f->bar_line = 0;
			hazard_message(f);
			break;
		}
	}
}

void race_finish(struct race_tracker *t)
{
	for (struct rblock *rb = t->blocks; rb; rb = rb->next)
		block_close(rb);
	statement_hazards(t);
	unsigned n = 0;
	uint8_t drop[RACE_MAX_FINDINGS];
	for (unsigned i = 0; i < t->nf; i++)
		drop[i] = (uint8_t)covered(t, i);
	for (unsigned i = 0; i < t->nf; i++)
		if (!drop[i]) {
			t->f[n] = t->f[i];
			t->keys[n] = t->keys[i];
			t->region[n++] = t->region[i];
		}
	t->nf = n;
}

int race_run(struct race_tracker *t, struct emu_fault *fault)
{
	emu_set_hooks(race_hooks(t));
	int rc = emu_run(t->l, fault);
	emu_set_hooks(NULL);
	race_finish(t);
	return rc;
}

unsigned race_nfindings(const struct race_tracker *t)
{
	return t->nf;
}

const struct race_finding *race_finding_at(const struct race_tracker *t, unsigned i)
{
	return i < t->nf ? &t->f[i] : NULL;
}

const char *race_kind_name(enum race_kind k)
{
	static const char *const n[] = { "raw", "war", "waw", "uninit", "barrier-divergence",
					 "barrier-exited" };
	return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

const char *race_gap_name(enum race_gap g)
{
	return g == RACE_GAP_BETWEEN ? "between" : g == RACE_GAP_LOOP ? "loop" : "";
}

const char *race_severity(const struct race_finding *f)
{
	return f->intra_warp || f->kind == RACE_UNINIT ? "warning" : "error";
}

/* Appends s to buf as a JSON string body (quotes and control characters escaped). */
static size_t json_str(char *buf, size_t len, size_t at, const char *s)
{
	for (; s && *s; s++) {
		char esc[8];
		const char *p = esc;
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof esc, "\\%c", c);
		else if (c < 0x20)
			snprintf(esc, sizeof esc, "\\u%04x", c);
		else
			esc[0] = (char)c, esc[1] = 0;
		for (; *p; p++, at++)
			if (at + 1 < len)
				buf[at] = *p;
	}
	if (len)
		buf[at < len ? at : len - 1] = 0;
	return at;
}

static size_t json_put(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t json_put(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, fmt, ap);
	va_end(ap);
	return at + (n > 0 ? (size_t)n : 0);
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "";
}

size_t race_finding_json(const struct race_finding *f, char *buf, size_t len)
{
	size_t at = 0;
	at = json_put(buf, len, at, "{\"event\":\"finding\",\"check\":\"race\",\"kind\":\"%s\","
		      "\"severity\":\"%s\",\"intra_warp\":%s,\"kernel\":\"", race_kind_name(f->kind),
		      race_severity(f), f->intra_warp ? "true" : "false");
	at = json_str(buf, len, at, f->kernel);
	int bar = f->kind >= RACE_BAR_DIVERGENT;
	/* the finding is located at the later access (hazards) or the barrier */
	const char *file = bar ? f->file1 : f->file2;
	unsigned line = bar ? f->line1 : f->line2;
	const struct emu_dim3 *th = bar ? &f->thread1 : &f->thread2;
	at = json_put(buf, len, at, "\",\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"file\":\"",
		      f->block.x, f->block.y, f->block.z, th->x, th->y, th->z);
	at = json_str(buf, len, at, base_name(file));
	at = json_put(buf, len, at, "\",\"line\":%u", line);
	if (f->kind != RACE_UNINIT) {
		const char *of = bar ? f->file2 : f->file1;
		unsigned ol = bar ? f->line2 : f->line1;
		const struct emu_dim3 *ot = bar ? &f->thread2 : &f->thread1;
		at = json_put(buf, len, at, ",\"other_file\":\"");
		at = json_str(buf, len, at, base_name(of));
		at = json_put(buf, len, at, "\",\"other_line\":%u,\"other_thread\":[%u,%u,%u]", ol,
			      ot->x, ot->y, ot->z);
	}
	if (!bar) {
		at = json_put(buf, len, at, ",\"var\":\"");
		at = json_str(buf, len, at, f->var);
		at = json_put(buf, len, at, "\",\"offset\":%llu,\"size\":%u",
			      (unsigned long long)f->offset, f->size);
		if (f->var[0] && f->size && f->offset % f->size == 0)
			at = json_put(buf, len, at, ",\"index\":%llu",
				      (unsigned long long)(f->offset / f->size));
		if (f->var_bytes)
			at = json_put(buf, len, at, ",\"var_bytes\":%llu",
				      (unsigned long long)f->var_bytes);
		if (f->gap != RACE_GAP_UNKNOWN)
			at = json_put(buf, len, at, ",\"missing_barrier\":\"%s\",\"gap_lines\":[%u,%u],"
				      "\"gap_from\":\"%s\"", race_gap_name(f->gap), f->gap_line1,
				      f->gap_line2, f->gap_from_write ? "write" : "read");
		if (f->gap == RACE_GAP_LOOP)
			at = json_put(buf, len, at, ",\"loop_lines\":[%u,%u],\"barrier_line\":%u",
				      f->loop_first, f->loop_last, f->bar_line);
	} else {
		at = json_put(buf, len, at, ",\"threads\":[%u,%u],\"block_threads\":%u",
			      f->threads1, f->threads2, f->nthreads);
	}
	at = json_put(buf, len, at, ",\"count\":%u,\"message\":\"", f->count);
	at = json_str(buf, len, at, f->message);
	at = json_put(buf, len, at, "\"}");
	return at;
}

int race_enabled_by_env(void)
{
	const char *e = getenv("PMPPLAB_EMU_RACECHECK");
	return e && *e && strcmp(e, "0") != 0;
}
