/* exec — the PTX interpreter (see exec.h).
 *
 * A block runs as warps of 32 lanes. Each warp has a SIMT reconvergence stack of
 * (pc, reconvergence pc, mask) entries: a divergent branch parks the current entry at
 * the branch's immediate post-dominator and pushes one entry per side; an entry that
 * reaches its reconvergence pc is popped, so the lanes merge again. Calls push a frame
 * (registers, per-lane .param area, .local base) and a stack entry marking its base.
 * Warps of a block run in turn until they reach a barrier; blocks of a grid are spread
 * over worker threads. Every memory access is checked; a fault is a value recorded in
 * the block and returned by emu_run (no longjmp).
 *
 * The interpreter's files: this one (launches, blocks, the worker pool, faults),
 * exec_loop.c (the instruction loop), exec_frames.c (frames, calls, the SIMT stack),
 * exec_memory.c (checked memory accesses), exec_arith.c (arithmetic helpers),
 * exec_printf.c (device printf), exec_grid.c (cooperative launches: every block
 * resident, the grid barrier); exec_internal.h holds their shared state.
 */
#include "exec_internal.h"
#include "initcheck.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu_device.h"
#include "trace.h" /* issue 7 (panels) */
#include "schedule.h"

static const struct emu_hooks *_Atomic emu_hooks_cur;
static _Atomic uint64_t emu_insn_total;
static FILE *emu_printf_stream;

void emu_set_hooks(const struct emu_hooks *hooks)
{
	atomic_store(&emu_hooks_cur, hooks);
}

uint64_t emu_thread_instructions(void)
{
	return atomic_load(&emu_insn_total);
}

/* The workers' CPU time: a worker's thread is new (its clock starts at 0) unless the
 * launching thread runs the blocks itself, which sets this first (run) */
static _Atomic uint64_t emu_cpu_total_ns;
static _Thread_local uint64_t worker_cpu_start;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t emu_worker_cpu_ns(void)
{
	return atomic_load(&emu_cpu_total_ns);
}

void exec_count_insns(uint64_t n)
{
	atomic_fetch_add(&emu_insn_total, n);
	atomic_fetch_add(&emu_cpu_total_ns, thread_cpu_ns() - worker_cpu_start);
}

void emu_set_printf_stream(void *file)
{
	emu_printf_stream = file;
}

/* ---- helpers -------------------------------------------------------------------- */

void thread_of(const struct block *b, unsigned linear, struct emu_dim3 *t)
{
	const struct emu_dim3 *bd = &b->L->l->block;
	t->x = linear % bd->x;
	t->y = (linear / bd->x) % bd->y;
	t->z = linear / (bd->x * bd->y);
}

static const char *file_of(const struct block *b, const struct ptx_insn *in)
{
	return in ? ptx_module_file(b->L->m, in->file) : NULL;
}

int fault_set(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
	      enum emu_fault_kind kind, int rc, const char *fmt, ...)
{
	if (b->faulted)
		return rc;
	b->faulted = 1;
	b->fault_rc = rc;
	struct emu_fault *f = &b->fault;
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->block = b->bid;
	thread_of(b, w ? w->id * 32 + lane : 0, &f->thread);
	f->file = file_of(b, in);
	f->line = in ? in->line : 0;
	/* inside a toolkit function (-O0 keeps them as calls): report the user's call */
	for (unsigned k = w ? w->nframes : 0; k > 1 && (!f->file || ptx_file_is_system(f->file));
	     k--) {
		const struct ptx_insn *call = w->frames[k - 1].call;
		f->file = file_of(b, call);
		f->line = call->line;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof f->message, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- blocks and the worker pool ------------------------------------------------- */

static void block_release_warps(struct block *b)
{
	for (unsigned i = 0; i < b->nwarps; i++) {
		struct warp *w = &b->warps[i];
		while (w->nframes)
			frame_pop(w);
	}
}

/* Special register SR's 32 lanes of frame registers R set to V, when NAMED has its bit. */
static inline void sreg_fill(uint64_t *R, uint64_t named, unsigned sr, uint64_t v)
{
	if (named >> sr & 1)
		for (unsigned lane = 0; lane < 32; lane++)
			R[sr * 32 + lane] = v;
}

int block_start(struct block *b, unsigned idx)
{
	struct launch_ctx *L = b->L;
	const struct emu_launch *l = L->l;
	const uint64_t named = L->m->sregs_named;
	b->idx = idx;
	b->bid.x = idx % l->grid.x;
	b->bid.y = (idx / l->grid.x) % l->grid.y;
	b->bid.z = idx / (l->grid.x * l->grid.y);
	b->faulted = 0;
	b->outlen = 0;
	if (b->tsm) /* issue 7 (panels) */
		emu_trace_block_begin(b->tsm, idx, b->nwarps);
	memset(b->shared, 0, b->shared_size);
	for (unsigned i = 0; i < b->nwarps; i++) {
		struct warp *w = &b->warps[i];
		unsigned first = i * 32, n = b->nthreads - first < 32 ? b->nthreads - first : 32;
		w->id = i;
		w->live = n == 32 ? FULL : (1u << n) - 1;
		w->state = W_RUN;
		w->sp = 0;
		w->nframes = 0;
		/* the allocation cache stays valid for the whole launch (nothing is freed
		 * while a kernel runs): keeping it spares the shared devmem lock */
		w->red_pending = 0;
		w->insns = 0;
		w->polled = 0;
		memset(w->cdp_err, 0, sizeof(w->cdp_err));
		async_reset(w);
		if (w->kinit) {
			/* the warp's kernel frame from the previous block of this launch: only
			 * the block index changes (registers start undefined, as on a GPU), in
			 * the special registers the module names at all (a kernel that reads
			 * only %ctaid.x: a quarter of the stores) */
			uint64_t *R = w->frames[0].regs;
			sreg_fill(R, named, SR_CTAID_X, b->bid.x);
			sreg_fill(R, named, SR_CTAID_Y, b->bid.y);
			sreg_fill(R, named, SR_CTAID_Z, b->bid.z);
			sreg_fill(R, named, SR_SMID, b->idx % L->nsm);
			w->nframes = 1;
		} else if (frame_push(b, w, L->kf, 0)) {
			return fault_set(b, w, 0, NULL, EMU_FAULT_LIMIT, -ENOMEM,
					 "out of memory for the registers of a block");
		}
		w->kinit = 1;
		if (stack_push(w, 0, PTX_NOPC, w->live))
			return fault_set(b, w, 0, NULL, EMU_FAULT_LIMIT, -ENOMEM,
					 "out of memory for the registers of a block");
		w->frames[0].stack_base = 0;
	}
	b->round = 0; /* at most 1024 threads: 32 warps */
	emu_schedule_warps(&L->sched, idx, b->round, b->order, b->nwarps);
	return 0;
}

int block_step(struct block *b)
{
	struct launch_ctx *L = b->L;
	for (;;) {
		exec_stuck_check(b); /* past the grader's time limit: say where (exec_stuck.c) */
		unsigned in_state[W_MBAR + 1] = { 0 }; /* the warps in each state after the round */
		b->mbar_moved = 0;
		for (unsigned k = 0; k < b->nwarps; k++) {
			struct warp *w = &b->warps[b->order[k]];
			if (w->state == W_MBAR) /* its mbarrier wait, tried again */
				w->state = W_RUN;
			if (w->state == W_RUN) {
				int rc = warp_exec(b, w);
				if (b->tsm) /* issue 7 (panels) */
					emu_trace_warp_state(b->tsm, w->id, w->state == W_DONE ? EMU_TW_DONE
							     : w->state == W_RUN ? EMU_TW_READY : EMU_TW_BARRIER);
				if (rc || b->faulted)
					return rc ? rc : b->fault_rc;
			}
			in_state[w->state]++;
		}
		unsigned running = in_state[W_RUN], waiting = in_state[W_BARRIER];
		unsigned polling = in_state[W_GRID], mwaiting = in_state[W_MBAR];
		if (running || (mwaiting && b->mbar_moved))
			continue;
		if (polling) /* the rest waits for the grid barrier to open (exec_grid.c) */
			return BLOCK_PARKED;
		if (mwaiting) /* no warp can run, and no mbarrier moved in a whole round */
			return mbar_deadlock(b);
		if (!waiting)
			return BLOCK_DONE;
		/* every warp still alive waits at a barrier: release them */
		for (unsigned i = 0; i < b->nwarps; i++) {
			struct warp *w = &b->warps[i];
			if (w->state != W_BARRIER)
				continue;
			w->state = W_RUN;
			if (b->tsm) /* issue 7 (panels) */
				emu_trace_warp_state(b->tsm, w->id, EMU_TW_READY);
			if (w->red_pending) {
				uint64_t v = w->red_pending == BAR_RED_POPC ? b->red_popc
					     : w->red_pending == BAR_RED_AND ? (uint64_t)b->red_and
									      : (uint64_t)b->red_or;
				uint64_t *d = w->frames[w->nframes - 1].regs + (size_t)w->red_slot * 32;
				if (w->red_pending == BAR_RED_POPC) {
					for (unsigned k = 0; k < 32; k++)
						d[k] = v;
				} else { /* a predicate: a lane mask (exec_internal.h) */
					d[0] = v ? FULL : 0;
				}
				w->red_pending = 0;
			}
		}
		b->red_popc = 0;
		b->red_and = 1;
		b->red_or = 0;
		++b->round; /* the same order every round unless it is random (schedule.h) */
		if (L->sched.order == EMU_ORDER_RANDOM)
			emu_schedule_warps(&L->sched, b->idx, b->round, b->order, b->nwarps);
		if (atomic_load_explicit(&L->stop, memory_order_relaxed))
			return BLOCK_DONE;
	}
}

int block_finish(struct worker *wk, struct block *b, int rc)
{
	struct launch_ctx *L = b->L;
	for (unsigned i = 0; i < b->nwarps; i++)
		wk->insns += b->warps[i].insns;
	if (b->tsm) /* issue 7 (panels) */
		emu_trace_block_end(b->tsm);
	block_release_warps(b);
	if (b->outlen) {
		pthread_mutex_lock(&L->lock);
		if (!L->outs)
			L->outs = calloc(L->nblocks, sizeof(char *));
		if (L->outs) {
			L->outs[b->idx] = b->out;
			b->out = NULL;
			b->outcap = 0;
		}
		pthread_mutex_unlock(&L->lock);
	}
	if (b->faulted) {
		pthread_mutex_lock(&L->lock);
		if (!L->rc || b->idx < L->fault_block) {
			L->rc = b->fault_rc ? b->fault_rc : -EFAULT;
			L->fault = b->fault;
			L->fault_block = b->idx;
		}
		pthread_mutex_unlock(&L->lock);
		atomic_store(&L->stop, 1);
		return L->rc;
	}
	return rc;
}

/* Runs block `idx` of the launch to completion on this worker. */
static int block_run(struct worker *wk, unsigned idx)
{
	struct block *b = &wk->b;
	int rc = block_start(b, idx);
	if (!rc)
		rc = block_step(b);
	return block_finish(wk, b, rc);
}

/* N bytes of zeros starting and ending on cache-line boundaries: two workers' warps and
 * shared memory, allocated one after the other by the launching thread, must not share
 * a line that both write (false sharing: each write of one then costs the other a miss;
 * a shared window's last bytes and the next worker's first warp did). */
static void *line_alloc(size_t n)
{
	n = (n + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, n ? n : 64);
	return p ? memset(p, 0, n ? n : 64) : NULL;
}

int block_init(struct block *b, struct launch_ctx *L)
{
	const struct emu_launch *l = L->l;
	memset(b, 0, sizeof(*b));
	b->L = L;
	b->nthreads = l->block.x * l->block.y * l->block.z;
	b->nwarps = (b->nthreads + 31) / 32;
	b->shared_size = L->sh_window; /* the arrays and their red zones (exec_memory.c) */
	b->sh_idx = L->sh_idx;
	b->sh_arr = L->sh_arrays;
	b->local_per_thread = ((L->kf->local_size + 15) & ~(size_t)15) + CALL_LOCAL_STACK;
	b->warps = line_alloc(b->nwarps * sizeof(struct warp));
	b->shared = line_alloc(b->shared_size);
	b->local = NULL; /* megabytes, which most kernels never use: at the first use */
	b->red_and = 1;
	if (!b->warps || !b->shared)
		return -ENOMEM;
	return 0;
}

void block_free(struct block *b)
{
	if (b->warps)
		for (unsigned i = 0; i < b->nwarps; i++) {
			free(b->warps[i].stack);
			async_free(&b->warps[i]);
			for (unsigned k = 0; k < MAX_CALL_DEPTH && b->warps[i].frames[k].cap; k++)
				free(b->warps[i].frames[k].regs);
		}
	free(b->warps);
	free(b->shared);
	free(b->local);
	free(b->out);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct launch_ctx *L = wk->L;
	for (;;) {
		if (atomic_load_explicit(&L->stop, memory_order_relaxed))
			break;
		unsigned i = atomic_fetch_add(&L->next, 1);
		if (i >= L->nblocks)
			break;
		if (block_run(wk, emu_schedule_block(&L->sched, i, L->nblocks)))
			break;
	}
	exec_count_insns(wk->insns);
	return NULL;
}

static unsigned worker_count(unsigned nblocks)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	const char *cap = getenv("PMPPLAB_EMU_THREADS");
	if (cap && atoi(cap) > 0 && atoi(cap) < n)
		n = atoi(cap);
	if (n < 1)
		n = 1;
	if ((unsigned long)n > nblocks)
		n = (long)nblocks;
	return (unsigned)n;
}

/* Builds the kernel parameter buffer from args. */
static int launch_params(struct launch_ctx *L)
{
	const struct ptx_func *f = L->kf;
	L->kparam_size = f->param_size;
	L->kparams = calloc(1, f->param_size + 8);
	if (!L->kparams)
		return -ENOMEM;
	for (unsigned i = 0; i < f->nparams; i++) {
		if (!L->l->args || !L->l->args[i])
			return -EINVAL;
		memcpy(L->kparams + f->params[i].offset, L->l->args[i], f->params[i].size);
	}
	return 0;
}

static void launch_fault_static(struct emu_fault *fault, const struct launch_ctx *L,
				enum emu_fault_kind kind, const struct ptx_insn *in,
				const char *msg)
{
	if (!fault)
		return;
	memset(fault, 0, sizeof(*fault));
	fault->kind = kind;
	if (in) {
		fault->file = ptx_module_file(L->m, in->file);
		fault->line = in->line;
	}
	snprintf(fault->message, sizeof fault->message, "%s", msg);
}

/* The unsupported instruction a kernel can reach (following calls), or NULL. */
static const struct ptx_insn *reachable_unsupported(const struct ptx_module *m,
						    const struct ptx_func *f, int depth)
{
	if (f->unsupported == PTX_NOPC || depth > 64)
		return NULL;
	const struct ptx_insn *in = &f->code[f->unsupported];
	if (in->op == OP_CALL) {
		const struct ptx_insn *inner = reachable_unsupported(m, &m->funcs[in->target], depth + 1);
		const char *file = inner ? ptx_module_file(m, inner->file) : NULL;
		/* report the line in the user's code, not inside a toolkit header */
		return inner && file && !ptx_file_is_system(file) ? inner : in;
	}
	return in;
}

static int run(const struct emu_launch *l, struct emu_fault *fault, int cooperative,
	       struct cdp_queue **cdp)
{
	if (fault)
		memset(fault, 0, sizeof(*fault));
	if (!l || !l->module || !l->kernel)
		return -EINVAL;
	struct launch_ctx L = { .l = l, .m = l->module, .kf = &l->kernel->f };
	const struct emu_dim3 *g = &l->grid, *bl = &l->block;
	if (!g->x || !g->y || !g->z || !bl->x || !bl->y || !bl->z ||
	    (uint64_t)bl->x * bl->y * bl->z > 1024 || g->y > 65535 || g->z > 65535 ||
	    (uint64_t)g->x * g->y * g->z > 0xffffffffull) {
		launch_fault_static(fault, &L, EMU_OK, NULL, "invalid launch configuration");
		return -EINVAL;
	}
	const struct ptx_insn *un = reachable_unsupported(L.m, L.kf, 0);
	if (un) {
		const struct ptx_insn *at = un;
		while (at->op == OP_CALL) /* the message of the instruction the call reaches */
			at = &L.m->funcs[at->target].code[L.m->funcs[at->target].unsupported];
		launch_fault_static(fault, &L, EMU_FAULT_UNSUPPORTED, un, L.m->messages[at->target]);
		return -ENOTSUP;
	}
	L.nblocks = (unsigned)((uint64_t)g->x * g->y * g->z);
	L.hooks = cooperative ? NULL : atomic_load(&emu_hooks_cur);
	L.strict_exits = L.hooks && L.hooks->strict_exits;
	emu_schedule_current(&L.sched);
	L.slice = L.sched.slice ? L.sched.slice : TIMESLICE;
	L.nsm = (unsigned)emu_device_current(NULL)->sm_count; /* %smid, %nsmid */
	L.clock_khz = (unsigned)emu_device_current(NULL)->clock_khz;
	L.cdp = cdp;
	exec_stuck_arm();
	pthread_mutex_init(&L.lock, NULL);
	int rc = launch_params(&L);
	if (rc) {
		launch_fault_static(fault, &L, EMU_OK, NULL, "missing kernel arguments");
		goto out_params;
	}
	if ((rc = shared_layout_init(&L)))
		goto out_params;
	if (!L.hooks) /* the loop's common case (exec_fast.c); without it, warp_exec alone */
		L.fops = fast_ops(L.kf);
	if (initcheck_on) /* its loads go to access_exec's check (initcheck.h) */
		initcheck_slow_loads(L.kf, L.fops);
	unsigned nw = worker_count(L.nblocks);
	struct worker *wk = line_alloc(nw * sizeof(*wk)); /* cache lines of their own */
	pthread_t *th = calloc(nw, sizeof(*th));
	if (!wk || !th) {
		rc = -ENOMEM;
		goto out_workers;
	}
	{ /* issue 7 (panels): the live trace, when $PMPPLAB_TRACE names a file */
		uint32_t tg[3] = {g->x, g->y, g->z}, tb[3] = {bl->x, bl->y, bl->z};
		L.trace = emu_trace_launch_begin(L.m, L.kf, L.kf->name, tg, tb, l->dyn_shmem, nw);
	}
	unsigned started = 0;
	for (unsigned i = 0; i < nw; i++) {
		wk[i].L = &L;
		if (block_init(&wk[i].b, &L)) {
			rc = -ENOMEM;
			goto out_join;
		}
		wk[i].b.tsm = emu_trace_sm(L.trace, i); /* issue 7 (panels) */
	}
	/* a cooperative launch's blocks are all resident at once (exec_grid.c) */
	void *(*body)(void *) = cooperative ? grid_worker_main : worker_main;
	if (cooperative && grid_launch_begin(&L)) {
		rc = -ENOMEM;
		goto out_join;
	}
	if (nw > 1)
		for (; started < nw; started++)
			if (pthread_create(&th[started], NULL, body, &wk[started]))
				break;
	if (!started) {
		worker_cpu_start = thread_cpu_ns();
		body(&wk[0]);
	}
out_join:
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (L.grid)
		grid_launch_end(&L);
	for (unsigned i = 0; i < nw; i++)
		block_free(&wk[i].b);
	emu_trace_launch_end(L.trace, rc ? rc : L.rc); /* issue 7 (panels) */
	if (!rc)
		rc = L.rc;
	if (L.outs) {
		FILE *out = emu_printf_stream ? emu_printf_stream : stdout;
		for (unsigned i = 0; i < L.nblocks; i++) {
			if (L.outs[i])
				fputs(L.outs[i], out);
			free(L.outs[i]);
		}
		fflush(out);
		free(L.outs);
	}
	if (rc && fault && L.rc)
		*fault = L.fault;
out_workers:
	free(wk);
	free(th);
out_params:
	shared_layout_free(&L);
	free(L.fops);
	free(L.kparams);
	pthread_mutex_destroy(&L.lock);
	return rc;
}

/* A grid, then each grid it launched (exec_cdp.c) in launch order, each with its own
 * descendants before the next: a grid is complete when they all are, so a launch after
 * another in the same stream starts after the first one's whole tree, as on a GPU. The
 * first fault stops the rest. */
static int run_tree(const struct emu_launch *l, struct emu_fault *fault, int cooperative)
{
	struct cdp_queue *q = NULL;
	int rc = run(l, fault, cooperative, &q);
	struct cdp_child c;
	while (q && cdp_next(q, &c)) {
		if (!rc)
			rc = run_tree(&c.launch, fault, 0);
		cdp_child_done(&c);
	}
	cdp_queue_free(q);
	return rc;
}

int emu_run(const struct emu_launch *l, struct emu_fault *fault)
{
	return run_tree(l, fault, 0);
}

int emu_run_cooperative(const struct emu_launch *l, struct emu_fault *fault)
{
	return run_tree(l, fault, 1);
}
