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
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"
#include "race_internal.h"

/* Generic addresses of shared memory: the window exec.c maps them into (exec_internal.h). */
#define RACE_SHARED_WIN 0xfe00000000000000ull
#define RACE_WIN_MASK 0xff00000000000000ull

enum { A_NONE, A_PLAIN, A_ATOMIC };

/* Calls a warp is followed into (struct rwarp); deeper ones are positioned by line. */
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
		race_report(rb, race_key(f.kind, 0, rb->gen_where[0], rb->gen_where[1]), &f, NULL);
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
	race_report(rb, race_key(f.kind, 0, rb->gen_where[0], 0), &f, NULL);
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
	race_report(rb, race_key(k, f.intra_warp, f.line1, f.line2), &f, &g);
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
			race_report(rb, race_key(RACE_UNINIT, 0, f.line2, 0), &f, NULL);
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
			race_hazard_message(f);
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
	/* A fault stopped the kernel: the barrier generations still open are incomplete
	 * (their missing threads did not exit, they never ran on), so judging them would
	 * blame a right barrier for the fault ("reached by 64 of 128 threads"). The fault
	 * itself is reported with its line. */
	if (rc)
		for (struct rblock *rb = t->blocks; rb; rb = rb->next)
			rb->gen_valid = 0;
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

int race_enabled_by_env(void)
{
	const char *e = getenv("PMPPLAB_EMU_RACECHECK");
	return e && *e && strcmp(e, "0") != 0;
}
