/* exec_grid — grid-wide synchronisation: a cooperative launch's blocks all resident,
 * parked at the grid barrier while it is closed and resumed when it opens; a grid whose
 * barrier can never open ends with a finding instead of hanging.
 *
 * cooperative_groups' grid_group::sync() (cooperative_groups/details/sync.h) is a
 * barrier of atomics in a workspace whose address the driver passes in %envreg1 (high
 * half) and %envreg2 (low half); 0 when the launch is not cooperative, so is_valid() is
 * false and sync() traps. After a __syncthreads(), thread 0 of every block adds 1 to
 * the workspace's counter (block 0 adds 0x80000001 - nblocks), so the counter's top bit
 * flips when the last block arrives; it polls the counter with ld.acquire until it sees
 * the flip, then __syncthreads() again. That works on a GPU because all blocks of the
 * grid are resident (the runtime refuses a cooperative grid that does not fit:
 * cudaErrorCooperativeLaunchTooLarge). Here a worker thread runs many blocks, so a block
 * that spins would keep the others from ever arriving. Instead, a warp that polls the
 * counter (a PX_POLL load of that word) and would read the value it read last time is
 * parked before the load (W_GRID); its block stops when no other warp of it can run
 * (BLOCK_PARKED), and is resumed once the counter's top bit differs from the value it
 * parked on: the barrier has opened. Each block resumes once a sync.
 *
 * Each worker admits blocks (the launch's next index) while some are left, running each
 * until it parks or ends; then it goes round the blocks it holds. A worker with nothing
 * to run sleeps until a warp somewhere polls the counter and finds it changed, which
 * follows every arrival. When every worker still holding blocks sleeps, no block can
 * change the counter any more: the barrier will never open (a block ended without
 * reaching it, or waits at another one), which on a GPU hangs the kernel. Here the
 * lowest parked block gets a barrier fault saying how many blocks wait and which ended.
 *
 * Ordinary launches never come here; their only cost is the PX_POLL test of a load,
 * which ordinary loads do not have.
 */
#include "exec_internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "devmem.h"
#include "trace.h" /* issue 7 (panels) */

/* The workspace: struct grid_workspace of cooperative_groups/details/driver_abi.h. */
#define GRID_WS_SIZE 8
#define GRID_WS_COUNTER 4 /* offset of its barrier counter */
#define GRID_FLIP 0x80000000u

struct grid_state {
	uint32_t *counter; /* the workspace's barrier counter, as the host sees it */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	_Atomic uint64_t gen;     /* polls that found the counter changed */
	_Atomic unsigned active;  /* workers holding or admitting blocks */
	_Atomic unsigned idle;    /* those asleep (changed under lock) */
	uint64_t sleep_gen;       /* under lock: the gen the last sleeper saw, */
	unsigned nsleep;          /* and how many sleep since it */
	int hung;                 /* the barrier can never open (under lock) */
	_Atomic unsigned parked;  /* blocks parked now */
	_Atomic unsigned ended;   /* blocks that ran to their end */
	_Atomic unsigned first_ended; /* the lowest index among them, or UINT_MAX */
};

/* One workspace for the process: launches run one at a time (the runtime's device
 * thread), and each cooperative one starts it from zero. */
static devaddr_t grid_ws;
static pthread_mutex_t grid_ws_lock = PTHREAD_MUTEX_INITIALIZER;

int grid_launch_begin(struct launch_ctx *L)
{
	pthread_mutex_lock(&grid_ws_lock);
	if (!grid_ws && devmem_alloc(GRID_WS_SIZE, DEVMEM_GLOBAL,
				     "the grid workspace of cooperative launches", &grid_ws))
		grid_ws = 0;
	devaddr_t ws = grid_ws;
	pthread_mutex_unlock(&grid_ws_lock);
	uint32_t *host = ws ? devmem_host(ws, GRID_WS_SIZE) : NULL;
	struct grid_state *G = calloc(1, sizeof *G);
	if (!host || !G) {
		free(G);
		return -ENOMEM;
	}
	host[0] = GRID_WS_SIZE; /* wsSize: nothing reads it */
	host[GRID_WS_COUNTER / 4] = 0;
	G->counter = &host[GRID_WS_COUNTER / 4];
	pthread_mutex_init(&G->lock, NULL);
	pthread_cond_init(&G->wake, NULL);
	atomic_store(&G->first_ended, UINT_MAX);
	L->grid = G;
	L->grid_ws = ws;
	return 0;
}

void grid_launch_end(struct launch_ctx *L)
{
	struct grid_state *G = L->grid;
	pthread_mutex_destroy(&G->lock);
	pthread_cond_destroy(&G->wake);
	free(G);
	L->grid = NULL;
}

/* Something changed that a sleeping worker may be waiting for. */
static void grid_wake(struct grid_state *G)
{
	atomic_fetch_add(&G->gen, 1);
	if (atomic_load(&G->idle)) { /* seq_cst: an idle worker sees gen, or we see it */
		pthread_mutex_lock(&G->lock);
		pthread_cond_broadcast(&G->wake);
		pthread_mutex_unlock(&G->lock);
	}
}

int grid_poll(struct block *b, struct warp *w, const struct ptx_insn *in, const uint64_t *a,
	      uint32_t m)
{
	struct launch_ctx *L = b->L;
	if (a[__builtin_ctz(m)] + (uint64_t)in->off != L->grid_ws + GRID_WS_COUNTER)
		return 0; /* another spin loop: it runs as it would anyway */
	uint32_t v = __atomic_load_n(L->grid->counter, __ATOMIC_SEQ_CST);
	if (w->polled && v == w->poll_val) {
		w->state = W_GRID;
		b->park_val = v;
		return 1;
	}
	w->polled = 1;
	w->poll_val = v;
	grid_wake(L->grid);
	return 0;
}

const char *grid_trap_message(const struct launch_ctx *L)
{
	if (L->m->grid_workspace && !L->grid_ws)
		return "the kernel trapped in this_grid().sync() (or another grid_group barrier): "
		       "it was not launched cooperatively (<<<...>>> or cudaLaunchKernel), and "
		       "then a GPU traps there too (grid.is_valid() is false); launch it with "
		       "cudaLaunchCooperativeKernel, or "
		       "cudaLaunchKernelEx with cudaLaunchAttributeCooperative, and at most as "
		       "many blocks as are resident at once (cudaOccupancyMaxActiveBlocksPer"
		       "Multiprocessor times the SM count)";
	return "the kernel executed a trap instruction (asm(\"trap;\") or an unrecoverable "
	       "error)";
}

/* Has the barrier that B parked at opened? */
static int grid_open(const struct grid_state *G, const struct block *b)
{
	return ((__atomic_load_n(G->counter, __ATOMIC_SEQ_CST) ^ b->park_val) & GRID_FLIP) != 0;
}

/* Sleeps until a poll found the counter changed since SEEN (1), the launch stopped (1)
 * or every worker holding blocks sleeps at SEEN: the barrier never opens (0). A
 * sleeper woken by a change counts as awake at once: it no longer sleeps at gen. */
static int grid_sleep(struct launch_ctx *L, uint64_t seen)
{
	struct grid_state *G = L->grid;
	pthread_mutex_lock(&G->lock);
	atomic_fetch_add(&G->idle, 1);
	if (G->sleep_gen != seen) {
		G->sleep_gen = seen;
		G->nsleep = 0;
	}
	G->nsleep++;
	while (!G->hung && atomic_load(&G->gen) == seen && !atomic_load(&L->stop)) {
		if (G->nsleep == atomic_load(&G->active)) {
			G->hung = 1;
			pthread_cond_broadcast(&G->wake);
			break;
		}
		pthread_cond_wait(&G->wake, &G->lock);
	}
	if (G->sleep_gen == seen)
		G->nsleep--;
	int hung = G->hung;
	atomic_fetch_sub(&G->idle, 1);
	pthread_mutex_unlock(&G->lock);
	return !hung;
}

/* The barrier of a hung grid: the fault of B, the lowest parked block of this worker
 * (the launch keeps the lowest block's). */
static int grid_hung_fault(struct block *b)
{
	struct launch_ctx *L = b->L;
	struct grid_state *G = L->grid;
	struct warp *w = NULL;
	for (unsigned i = 0; i < b->nwarps && !w; i++)
		if (b->warps[i].state == W_GRID)
			w = &b->warps[i];
	const struct simt_entry *e = &w->stack[w->sp - 1];
	const struct ptx_insn *in = &w->frames[w->nframes - 1].f->code[e->pc];
	unsigned lane = (unsigned)__builtin_ctz((e->mask & w->live) ? (e->mask & w->live) : 1);
	unsigned waiting = atomic_load(&G->parked), ended = atomic_load(&G->ended);
	unsigned first = atomic_load(&G->first_ended);
	const struct emu_dim3 *g = &L->l->grid;
	if (!ended)
		return fault_set(b, w, lane, in, EMU_FAULT_BARRIER, -EDEADLK,
				 "this_grid().sync() can never complete: %u of the grid's %u blocks "
				 "wait at a grid barrier that will not open (on a GPU the kernel "
				 "hangs); every block must call grid.sync() the same number of "
				 "times", waiting, L->nblocks);
	return fault_set(b, w, lane, in, EMU_FAULT_BARRIER, -EDEADLK,
			 "this_grid().sync() can never complete: %u of the grid's %u blocks wait "
			 "at it, and %u ended without reaching it (block (%u,%u,%u) first); on a "
			 "GPU the kernel hangs. Every block must reach every grid.sync(): a return "
			 "before it, or a sync() in code that some blocks skip, leaves the others "
			 "waiting for ever", waiting, L->nblocks, ended, first % g->x,
			 first / g->x % g->y, first / (g->x * g->y));
}

/* The blocks a worker holds, parked. */
struct grid_held {
	struct block **b;
	unsigned n, cap;
};

/* A block to admit one more into: the worker's own first, then new ones. */
static struct block *grid_block_new(struct worker *wk, unsigned admitted)
{
	if (admitted == 0)
		return &wk->b;
	struct block *b = malloc(sizeof *b);
	if (!b || block_init(b, wk->L)) {
		if (b)
			block_free(b);
		free(b);
		return NULL;
	}
	b->tsm = wk->b.tsm;
	return b;
}

/* After block_step returned RC for B: keeps B in H when it parked, else ends it.
 * Returns 0, or nonzero when the launch stops (a fault; out of memory). */
static int grid_settle(struct worker *wk, struct grid_held *h, struct block *b, int rc)
{
	struct grid_state *G = wk->L->grid;
	if (rc == BLOCK_PARKED) {
		if (h->n == h->cap) {
			unsigned cap = h->cap ? h->cap * 2 : 16;
			struct block **nb = realloc(h->b, cap * sizeof *nb);
			if (!nb) {
				fault_set(b, NULL, 0, NULL, EMU_FAULT_LIMIT, -ENOMEM,
					  "out of memory for the blocks of a cooperative launch");
				block_finish(wk, b, -ENOMEM);
				grid_wake(G);
				return 1;
			}
			h->b = nb;
			h->cap = cap;
		}
		h->b[h->n++] = b;
		atomic_fetch_add(&G->parked, 1);
		return 0;
	}
	rc = block_finish(wk, b, rc);
	if (rc < 0) {
		grid_wake(G); /* sleeping workers: the launch stops */
		return 1;
	}
	atomic_fetch_add(&G->ended, 1);
	for (unsigned f = atomic_load(&G->first_ended);
	     b->idx < f && !atomic_compare_exchange_weak(&G->first_ended, &f, b->idx);)
		;
	return 0;
}

void *grid_worker_main(void *arg)
{
	struct worker *wk = arg;
	struct launch_ctx *L = wk->L;
	struct grid_state *G = L->grid;
	struct grid_held h = { 0 };
	struct block **extra = NULL; /* the blocks this worker allocated, to free */
	unsigned admitted = 0;
	pthread_mutex_lock(&G->lock);
	atomic_fetch_add(&G->active, 1);
	pthread_mutex_unlock(&G->lock);
	int stop = 0, hung = 0;
	/* admit blocks while there are some: on a GPU they are all resident at once */
	while (!stop && !atomic_load_explicit(&L->stop, memory_order_relaxed)) {
		unsigned i = atomic_fetch_add(&L->next, 1);
		if (i >= L->nblocks)
			break;
		struct block *b = grid_block_new(wk, admitted);
		struct block **ne = admitted ? realloc(extra, admitted * sizeof *ne) : extra;
		if (!b || (admitted && !ne)) {
			if (b && b != &wk->b) {
				block_free(b);
				free(b);
			}
			pthread_mutex_lock(&L->lock);
			if (!L->rc) {
				L->rc = -ENOMEM;
				snprintf(L->fault.message, sizeof L->fault.message,
					 "out of memory for the blocks of a cooperative launch");
				L->fault.kind = EMU_FAULT_LIMIT;
			}
			pthread_mutex_unlock(&L->lock);
			atomic_store(&L->stop, 1);
			grid_wake(G);
			break;
		}
		extra = ne;
		if (admitted)
			extra[admitted - 1] = b;
		admitted++;
		int rc = block_start(b, emu_schedule_block(&L->sched, i, L->nblocks));
		if (!rc)
			rc = block_step(b);
		stop = grid_settle(wk, &h, b, rc);
	}
	/* then round the parked blocks, resuming those whose barrier opened */
	while (!stop && h.n && !atomic_load_explicit(&L->stop, memory_order_relaxed)) {
		uint64_t seen = atomic_load(&G->gen);
		int ran = 0;
		unsigned keep = 0;
		for (unsigned k = 0; k < h.n; k++) {
			struct block *b = h.b[k];
			if (stop || !grid_open(G, b)) {
				h.b[keep++] = b;
				continue;
			}
			ran = 1;
			atomic_fetch_sub(&G->parked, 1);
			for (unsigned i = 0; i < b->nwarps; i++)
				if (b->warps[i].state == W_GRID)
					b->warps[i].state = W_RUN;
			if (b->tsm) /* issue 7 (panels): this SM runs B again */
				emu_trace_block_begin(b->tsm, b->idx, b->nwarps);
			unsigned before = h.n;
			stop = grid_settle(wk, &h, b, block_step(b));
			if (h.n > before) /* parked again: it keeps its place */
				h.b[keep++] = h.b[--h.n];
		}
		h.n = keep;
		if (!ran && h.n && !grid_sleep(L, seen)) {
			hung = 1;
			break;
		}
	}
	/* the end: a hung barrier is the lowest parked block's fault; the others end */
	pthread_mutex_lock(&G->lock);
	atomic_fetch_sub(&G->active, 1);
	pthread_cond_broadcast(&G->wake); /* the sleepers judge again without this one */
	pthread_mutex_unlock(&G->lock);
	struct block *lowest = NULL;
	for (unsigned k = 0; hung && k < h.n; k++)
		if (!lowest || h.b[k]->idx < lowest->idx)
			lowest = h.b[k];
	for (unsigned k = 0; k < h.n; k++) {
		int rc = h.b[k] == lowest ? grid_hung_fault(lowest) : 0;
		block_finish(wk, h.b[k], rc);
	}
	for (unsigned k = 0; k + 1 < admitted; k++) {
		block_free(extra[k]);
		free(extra[k]);
	}
	free(extra);
	free(h.b);
	exec_count_insns(wk->insns);
	return NULL;
}
