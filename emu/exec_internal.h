/* exec_internal.h — the interpreter's state (warps, frames, blocks, launches) and the
 * inline helpers of its hot loop, shared by the files of the interpreter (exec.c and
 * exec_*.c). Not part of the public interface: exec.h is.
 *
 * The small helpers the loop calls per lane stay static inline here, as they were in
 * the one file, so splitting the interpreter costs the loop no calls.
 */
#ifndef PMPPLAB_EMU_EXEC_INTERNAL_H
#define PMPPLAB_EMU_EXEC_INTERNAL_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "exec.h"
#include "fround.h"
#include "ptx_internal.h"
#include "schedule.h"

#define FULL 0xffffffffu
#define SHARED_WIN 0xfe00000000000000ull /* generic addresses of shared memory */
#define LOCAL_WIN 0xff00000000000000ull  /* generic addresses of local memory */
#define PARAM_WIN 0xfd00000000000000ull  /* the kernel's parameters (cvta.param), in global's */
#define WIN_MASK 0xff00000000000000ull
/* The generic window of a state space (cvta): where its addresses start */
static inline uint64_t space_window(unsigned space)
{
	return space == SP_SHARED ? SHARED_WIN : space == SP_LOCAL ? LOCAL_WIN
	       : space == SP_KPARAM ? PARAM_WIN : 0;
}
#define CALL_LOCAL_STACK (16u << 10)     /* .local bytes per thread for called functions */
#define MAX_CALL_DEPTH 256
#define TIMESLICE 200000 /* warp instructions before another warp of the block runs */

#ifndef EMU_HOOKS
#define EMU_HOOKS 1
#endif

/* Runs the body for every lane l of mask m (all 32 without tests when full). */
#define LANES(...)                                                                       \
	do {                                                                             \
		if (m == FULL) {                                                         \
			for (unsigned l = 0; l < 32; l++) {                              \
				__VA_ARGS__;                                                    \
			}                                                                \
		} else {                                                                 \
			for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) {                    \
				unsigned l = (unsigned)__builtin_ctz(mm_);               \
				__VA_ARGS__;                                                    \
			}                                                                \
		}                                                                        \
	} while (0)

/* LANES with cv standing for lane l's value of source C; read once before the loop when
 * IMM (C is an immediate's slot: one value in every lane, ptx_insn.imm), so the loop
 * neither loads it 32 times nor, for a shift, takes a count per lane. */
#define LANES_CV(imm, c, ...)                                                            \
	do {                                                                             \
		if (imm) {                                                               \
			const uint64_t cv_ = (c)[0];                                     \
			LANES(const uint64_t cv = cv_; __VA_ARGS__);                     \
		} else {                                                                 \
			LANES(const uint64_t cv = (c)[l]; __VA_ARGS__);                  \
		}                                                                        \
	} while (0)

/* Predicates are lane masks: a .pred register's slot holds its 32 lanes' values as one
 * 32-bit mask in its first word (bit l: lane l), so a guard is one load and an AND, and
 * setp builds the mask once where every guard and branch reading it would otherwise
 * gather it from 32 words. The slot's other 31 words are unused. An immediate in a
 * predicate's place (mov.pred %p, 1) is a plain immediate slot: its value in every word. */
static inline uint32_t pred_read(const uint64_t *R, uint32_t slot)
{
	return (uint32_t)R[(size_t)slot * 32];
}

/* Source K of IN read as a predicate, immediates included. */
static inline uint32_t pred_src(const struct ptx_insn *in, const uint64_t *R, unsigned k)
{
	uint64_t v = R[(size_t)in->s[k] * 32];
	return (in->imm >> k & 1) ? (v & 1 ? FULL : 0) : (uint32_t)v;
}

/* Writes predicate SLOT's lanes of M from V (the others keep their values). */
static inline void pred_write(uint64_t *R, uint32_t slot, uint32_t v, uint32_t m)
{
	uint64_t *p = R + (size_t)slot * 32;
	*p = (uint32_t)((*p & ~(uint64_t)m) | (v & m));
}

/* The mask of the lanes l whose t[l] is nonzero in its bit 0 (t[l] is 0 or 1). In four
 * 64-bit lanes at a time (GCC's vector extension): a plain loop narrows the words to 32
 * bits first, with shuffles. */
typedef uint64_t u64x4_t __attribute__((vector_size(32)));
static inline __attribute__((always_inline)) uint32_t mask_of(const uint64_t *t)
{
	u64x4_t acc = { 0, 0, 0, 0 };
	const u64x4_t one = { 1, 1, 1, 1 };
	for (unsigned k = 0; k < 8; k++) {
		u64x4_t x, sh = { 4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3 };
		memcpy(&x, t + 4 * k, sizeof x);
		acc |= (x & one) << sh;
	}
	return (uint32_t)(acc[0] | acc[1] | acc[2] | acc[3]);
}

/* ---- state ---------------------------------------------------------------------- */

struct simt_entry {
	uint32_t pc, rpc, mask;
};

struct frame {
	const struct ptx_func *f;
	uint64_t *regs;         /* nslots * 32 */
	unsigned char *fparam;  /* fparam_size * 32, lane-major */
	uint32_t call_mask;     /* the lanes that made the call */
	uint32_t retval_off;    /* caller .param offset receiving the return value */
	unsigned stack_base;    /* SIMT stack index of the frame's base entry */
	uint64_t local_base;    /* .local offset of this frame */
	const struct ptx_insn *call; /* the caller's call instruction */
	size_t cap;                  /* bytes allocated at regs */
};

/* The region [base, base + span) of warp_span: the shared array holding address X0 or
 * the cached global allocation holding it; its host address and written flags (0 for
 * shared memory). 0 when there is none. */
struct span_region {
	uint64_t base, span;
	unsigned char *host;
	devmem_flags_t flags;
};
/* A shape of full-warp accesses that exec_fast.c's run found, kept for the next access
 * on the same register (fast_link) */
struct shape_seen {
	uint32_t pc; /* the access that found it; 0xffffffff: none */
	int shape;   /* SPAN_ROWS or SPAN_BCAST (exec_span.c) */
	struct span_region r; /* the region of that access */
};

/* W_GRID: polling the grid barrier, which has not opened (exec_grid.c); W_MBAR: at an
 * mbarrier.try_wait whose phase has not completed, tried again at its next turn
 * (exec_async.c) */
enum warp_state { W_RUN, W_BARRIER, W_DONE, W_GRID, W_MBAR };

struct warp {
	unsigned id;
	uint32_t live; /* lanes that exist and have not exited */
	enum warp_state state;
	struct simt_entry *stack;
	unsigned sp, scap;
	struct frame frames[MAX_CALL_DEPTH];
	unsigned nframes;
	/* cache of the last global allocations touched (most recent first) */
	uint64_t c_base[4], c_end[4];
	char *c_host[4];
	devmem_flags_t c_written[4]; /* their written flags' handles (devmem.h) */
	/* bar.red pending result */
	int red_pending;
	uint32_t red_slot;
	uint64_t insns;
	struct async_copies *acp; /* cp.async copies in flight (exec_async.c); NULL before one */
	int kinit; /* frames[0] holds this launch's kernel frame from an earlier block */
	int polled;        /* the warp has polled the grid barrier (exec_grid.c) */
	uint32_t poll_val; /* the value it read last */
	unsigned char cdp_err[32]; /* each thread's last device runtime error (exec_cdp.c) */
	uint32_t mbar_off; /* W_MBAR: the shared offset of the mbarrier it waits for */
	unsigned mbar_lane; /* and a lane that waits */
	struct shape_seen seen[2]; /* exec_fast.c's, for the run in progress */
};

/* A shared array of the launched kernel, as the emulator lays it out (exec_memory.c). */
struct shared_array {
	uint64_t addr, size;
	const char *name; /* the PTX symbol's */
	int dyn;          /* the dynamic (extern) shared memory: size is the launch's */
};

struct launch_ctx;

struct block {
	struct launch_ctx *L;
	unsigned idx; /* linear block index */
	struct emu_dim3 bid;
	unsigned nthreads, nwarps;
	struct warp *warps;
	unsigned char *shared;
	size_t shared_size;      /* the emulator's window: arrays and their red zones */
	const uint16_t *sh_idx;  /* the launch's (launch_ctx), for the fast paths */
	const struct shared_array *sh_arr;
	unsigned char *local;
	size_t local_per_thread;
	char *out; /* printf buffer */
	size_t outlen, outcap;
	uint32_t red_popc; int red_and, red_or;
	int faulted;
	struct emu_fault fault;
	int fault_rc;
	struct emu_trace_sm *tsm; /* issue 7 (panels): this worker's trace counters, NULL = off */
	unsigned order[32], round; /* the warps' order in this round between barriers */
	int mbar_moved;            /* an mbarrier changed, or a wait for one ended (exec_async.c) */
	uint32_t park_val;         /* parked at the grid barrier: the value its warp polled */
};

struct launch_ctx {
	const struct emu_launch *l;
	const struct ptx_module *m;
	const struct ptx_func *kf;
	/* the kernel's shared memory: its arrays, with a poisoned red zone after each;
	 * sh_idx[x] is 1 + the index in sh_arrays of the array holding byte x of the
	 * window, 0 in a red zone or another kernel's array */
	struct shared_array *sh_arrays;
	unsigned nsh_arrays;
	size_t sh_window;
	uint16_t *sh_idx;
	unsigned char *kparams;
	size_t kparam_size;
	unsigned nblocks;
	_Atomic int stop;
	/* the next block to take: every worker adds to it, so in a cache line of its own,
	 * away from the fields above that the workers read all the time (false sharing) */
	_Alignas(64) _Atomic unsigned next;
	_Alignas(64) pthread_mutex_t lock;
	int rc;
	unsigned fault_block;
	struct emu_fault fault;
	char **outs; /* printf output per block, NULL when none */
	const struct emu_hooks *hooks;
	struct emu_trace *trace; /* issue 7 (panels): live trace, NULL = off */
	struct emu_schedule sched; /* block and warp order (schedule.h) */
	unsigned slice;            /* warp instructions before the next warp runs */
	int strict_exits;          /* the hooks' strict_exits at the launch's start */
	unsigned nsm;              /* the emulated GPU's SMs (emu_device.h): %smid, %nsmid */
	unsigned clock_khz;        /* and its clock rate: %clock, %clock64 (exec_loop.c) */
	uint64_t grid_ws;          /* a cooperative launch's grid workspace (%envreg1/2), or 0 */
	struct grid_state *grid;   /* and its barrier's bookkeeping (exec_grid.c) */
	struct cdp_queue **cdp;    /* the grids this one launched (exec_cdp.c), created at
				    * its first launch; exec.c runs them after it */
	uint8_t *fops;             /* the kernel's fast_ops (exec_fast.c); NULL with hooks */
};

/* A worker thread of the pool, and the block it runs (a cooperative launch's worker
 * holds several: exec_grid.c). */
struct worker {
	_Alignas(64) struct launch_ctx *L; /* cache lines of its own (false sharing, exec.c) */
	struct block b;
	uint64_t insns;
};

/* Not exported from libpmpplab_cudart.so: these are the interpreter's own. */
#pragma GCC visibility push(hidden)

/* ---- blocks (exec.c) ------------------------------------------------------------ */

/* What block_step returns besides a fault's negative code. */
enum { BLOCK_DONE = 0, BLOCK_PARKED = 1 };

int block_init(struct block *b, struct launch_ctx *L);    /* allocates; -ENOMEM */
void block_free(struct block *b);
int block_start(struct block *b, unsigned idx);           /* 0 or a fault's code */
/* Runs the block's warps until it ends, faults or (a cooperative launch) every warp
 * still running waits for the grid barrier: BLOCK_DONE, BLOCK_PARKED or rc < 0. */
int block_step(struct block *b);
/* Ends a block that returned RC: counts, printf output, its fault. Returns RC, or the
 * launch's code when the block faulted. */
int block_finish(struct worker *wk, struct block *b, int rc);
/* Adds a worker's thread-instructions to emu_thread_instructions() and its thread's CPU
 * time to emu_worker_cpu_ns(), at its end. */
void exec_count_insns(uint64_t n);

/* ---- the grid barrier (exec_grid.c) --------------------------------------------- */

/* Sets up a cooperative launch (its workspace zeroed, L->grid_ws, L->grid). 0 or
 * -ENOMEM. */
int grid_launch_begin(struct launch_ctx *L);
void grid_launch_end(struct launch_ctx *L);
/* A cooperative launch's worker: all its blocks resident until the grid ends. */
void *grid_worker_main(void *arg);
/* Before ld with PX_POLL of a cooperative launch: 1 when warp w must park there (it
 * polls the grid barrier, which has not opened since it last looked). */
int grid_poll(struct block *b, struct warp *w, const struct ptx_insn *in, const uint64_t *a,
	      uint32_t m);
/* The message of a trap in a block of L. */
const char *grid_trap_message(const struct launch_ctx *L);

/* exec_stuck.c: reads $PMPPLAB_EMU_STOP_MS (once, before the workers start); past it,
 * writes where B's warps are to stderr and parks the calling worker for good. */
void exec_stuck_arm(void);
void exec_stuck_check(const struct block *b);
/* A deadlock no warp can leave (mbar_deadlock): with the time limit set, the hang report
 * now and park until the grader ends the process (no return); else returns. */
void exec_stuck_deadlock(const struct block *b);

/* ---- helpers -------------------------------------------------------------------- */

static inline unsigned popcount32(uint32_t x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* fma in float, rounded once. In the interpreter's x86-64-v3 clone (EMU_CLONES) this is
 * the CPU's vector FMA on 8 lanes, with no widening to double (the fused product in
 * double was a fifth of the tiled matmul's time); elsewhere libm's fmaf, which is exact
 * too, so every CPU gives the same bits. */
static inline float fma32(float a, float b, float c)
{
	return __builtin_fmaf(a, b, c);
}

static inline int is_signed_t(unsigned t)
{
	return t >= PT_S8 && t <= PT_S64;
}

static inline uint64_t width_mask(unsigned bytes)
{
	return bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1;
}

static inline int64_t sext(uint64_t v, unsigned bytes)
{
	unsigned sh = 64 - bytes * 8;
	return bytes >= 8 ? (int64_t)v : (int64_t)(v << sh) >> sh;
}

void thread_of(const struct block *b, unsigned linear, struct emu_dim3 *t);

/* Records a fault of lane `lane` of warp w at instruction in (first one wins). */
int fault_set(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
	      enum emu_fault_kind kind, int rc, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* ---- dynamic parallelism (exec_cdp.c) ------------------------------------------ */

/* OP_CDP: the device runtime call in->target (enum cdp_call) for the lanes of MASK. 0, or
 * a fault's code. */
int cdp_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t mask,
	     struct frame *fr);
/* A queued child grid, its launch ready for exec.c's run(). */
struct cdp_child {
	struct emu_launch launch;
	void **args;
	devaddr_t buf;
};
/* Takes the next launched child in launch order: 1, or 0 when none is left. */
int cdp_next(struct cdp_queue *q, struct cdp_child *c);
/* After the child's whole tree ran (or was skipped after a fault). */
void cdp_child_done(struct cdp_child *c);
void cdp_queue_free(struct cdp_queue *q);

/* ---- memory (exec_memory.c) ----------------------------------------------------- */

/* Lays out L's shared memory (sh_arrays, sh_window, sh_idx). 0 or -ENOMEM. */
int shared_layout_init(struct launch_ctx *L);
void shared_layout_free(struct launch_ctx *L);
/* Is [addr, addr + size) inside one shared array of the block's kernel? */
static inline int shared_ok(const struct block *b, uint64_t addr, unsigned size)
{
	if (addr >= b->shared_size)
		return 0;
	unsigned k = b->sh_idx[addr];
	return k && addr + size <= b->sh_arr[k - 1].addr + b->sh_arr[k - 1].size;
}

void *mem_slow(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
	       int space, uint64_t addr, unsigned size, int is_write);
/* After a store or atomic at host pointer P (from mem_at): sets the written flags of its
 * SIZE bytes when P is in global memory (an allocation in the warp's cache, where mem_at
 * put it); shared and local memory have none. */
void mem_mark_written(struct warp *w, const void *p, unsigned size);

/* The fast path: global accesses inside the last allocation used by this warp. */
static inline void *mem_at(struct block *b, struct warp *w, unsigned lane,
			   const struct ptx_insn *in, int space, uint64_t addr, unsigned size,
			   int is_write)
{
	if ((space == SP_GLOBAL || space == SP_GENERIC || space == SP_CONST) && !(addr & (size - 1)))
		for (unsigned k = 0; k < 4; k++)
			if (addr - w->c_base[k] < w->c_end[k] - w->c_base[k] &&
			    addr + size <= w->c_end[k])
				return w->c_host[k] + (addr - w->c_base[k]);
	if (space == SP_SHARED && shared_ok(b, addr, size) && !(addr & (size - 1)))
		return b->shared + addr;
	return mem_slow(b, w, lane, in, space, addr, size, is_write);
}

static inline uint64_t load_n(const void *p, unsigned size, int sign)
{
	switch (size) {
	case 1: return sign ? (uint64_t)(int64_t) * (const int8_t *)p : *(const uint8_t *)p;
	case 2: { int16_t v; memcpy(&v, p, 2); return sign ? (uint64_t)(int64_t)v : (uint16_t)v; }
	case 4: { int32_t v; memcpy(&v, p, 4); return sign ? (uint64_t)(int64_t)v : (uint32_t)v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

static inline void store_n(void *p, unsigned size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)p = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

/* Shared and local addresses are 32-bit: address arithmetic wraps modulo 2^32 there
 * (a 32-bit base register plus a negative offset must not carry into bit 32). */
static inline uint64_t space_addr_mask(int space)
{
	return space == SP_SHARED || space == SP_LOCAL ? 0xffffffffull : ~0ull;
}

/* The warp-wide fast path of an access of SIZE bytes a lane: when every active lane's
 * address a[l] + off is aligned and falls inside one shared array (the first active
 * lane's: exec_memory.c) or one cached global allocation, returns P such that lane l's bytes are at host address
 * P + a[l]; else 0 and the caller checks lane by lane (mem_at, which also handles the
 * 32-bit wrap-around of shared and local addresses that this path leaves to it). The
 * region is the one holding the first active lane's address; one branch-free pass over
 * the lanes (it vectorises) checks the others. *written: the same for the allocation's
 * written flags (devmem.h), 0 where there are none (shared memory). */
static inline int span_region(const struct block *b, const struct warp *w, int space,
			      uint64_t x0, struct span_region *r)
{
	r->flags = 0;
	if (space == SP_SHARED) { /* the array holding the first lane's address */
		unsigned k = x0 < b->shared_size ? b->sh_idx[x0] : 0;
		if (!k)
			return 0;
		r->base = b->sh_arr[k - 1].addr;
		r->span = b->sh_arr[k - 1].size;
		r->host = b->shared + r->base;
		return 1;
	}
	if (space == SP_GLOBAL || space == SP_GENERIC || space == SP_CONST) {
		unsigned k = 0;
		while (k < 4 && x0 - w->c_base[k] >= w->c_end[k] - w->c_base[k])
			k++;
		if (k == 4)
			return 0;
		r->base = w->c_base[k];
		r->span = w->c_end[k] - r->base;
		r->host = (unsigned char *)w->c_host[k];
		r->flags = w->c_written[k];
		return 1;
	}
	return 0;
}

static inline uintptr_t warp_span(struct block *b, struct warp *w, int space, const uint64_t *a,
				  int64_t off, unsigned size, uint32_t m, uintptr_t *written)
{
	uint64_t x0 = a[__builtin_ctz(m)] + (uint64_t)off;
	struct span_region r;
	if (!span_region(b, w, space, x0, &r) || r.span < size)
		return 0;
	/* x - base > span - size: outside (or below base); x & (size - 1): misaligned */
	const uint64_t base = r.base, lim = r.span - size;
	uint64_t bad = 0;
	LANES(uint64_t x = a[l] + (uint64_t)off; bad |= (uint64_t)(x - base > lim) | (x & (size - 1)));
	*written = r.flags ? (uintptr_t)r.flags - base + (uint64_t)off : 0;
	return bad ? 0 : (uintptr_t)r.host - base + (uint64_t)off;
}

/* ---- warp-wide accesses (exec_span.c) -------------------------------------------- */

/* The lanes of M of an access warp_span returned P0 for: loads of SZ bytes (SG: signed)
 * into D, stores from V, the written flags at W0 of TOT bytes a lane. */
void span_load(uint64_t *d, const uint64_t *a, uintptr_t p0, unsigned sz, int sg, uint32_t m);
void span_store(const uint64_t *a, const uint64_t *v, uintptr_t p0, unsigned sz, uint32_t m);
void span_written(const uint64_t *a, uintptr_t w0, unsigned tot, uint32_t m);
/* The shape of a full warp's 4-byte addresses A + OFF: SPAN_ROWS, each half-warp's lane
 * j at its first lane's address + 4j; SPAN_BCAST, each half-warp at one address; when
 * every lane's 4 bytes are aligned and inside the region of lane 0's (warp_span's
 * checks, in one pass with the shape's). Sets *P0 and *WRITTEN as warp_span does. 0:
 * another shape, or not inside one region. */
enum { SPAN_ROWS = 1, SPAN_BCAST = 2 };
int span_shape_at(struct block *b, struct warp *w, int space, const uint64_t *a, int64_t off,
		  uintptr_t *p0, uintptr_t *written);
/* span_shape_at's two steps, inline for exec_fast.c. The shape of the 32 addresses A
 * (without the offset, which moves every lane alike) in one pass, four 64-bit lanes at a
 * time (GCC's vector extension): each lane's distance from its half-warp's first lane
 * against 4 * (l % 16) (a row) and against 0 (a broadcast). */
static inline __attribute__((always_inline)) int span_shape_of(const uint64_t *a)
{
	u64x4_t row = { 0, 0, 0, 0 }, one = { 0, 0, 0, 0 };
	for (unsigned k = 0; k < 8; k++) {
		const uint64_t s = (uint64_t)(k & 3) * 16;
		const u64x4_t step = { s, s + 4, s + 8, s + 12 };
		u64x4_t x;
		memcpy(&x, a + 4 * k, sizeof x);
		x -= a[k & 4 ? 16 : 0];
		row |= x ^ step;
		one |= x;
	}
	return !(row[0] | row[1] | row[2] | row[3]) ? SPAN_ROWS
	       : !(one[0] | one[1] | one[2] | one[3]) ? SPAN_BCAST : 0;
}

/* warp_span's checks on the halves' first addresses A0 + OFF and A16 + OFF of an access
 * of SHAPE (0: none, returns 0): a half's 64 or 4 bytes are inside [base, base + span)
 * when its first byte is at most span - 64 or span - 4 past base (below base wraps to a
 * large distance), and aligned when its first is. *R: the region. */
static inline __attribute__((always_inline)) int
span_shape_in(struct block *b, struct warp *w, int space, uint64_t a0, uint64_t a16,
	      int64_t off, int shape, struct span_region *r)
{
	uint64_t x0 = a0 + (uint64_t)off, x1 = a16 + (uint64_t)off;
	uint64_t len = shape == SPAN_ROWS ? 64 : 4;
	return shape && span_region(b, w, space, x0, r) && r->span >= len &&
	       x0 - r->base <= r->span - len && x1 - r->base <= r->span - len && !((x0 | x1) & 3);
}

/* P0 and WRITTEN of warp_span for accesses at offset OFF in region R */
static inline void span_at(const struct span_region *r, int64_t off, uintptr_t *p0,
			   uintptr_t *written)
{
	*written = r->flags ? (uintptr_t)r->flags - r->base + (uint64_t)off : 0;
	*p0 = (uintptr_t)r->host - r->base + (uint64_t)off;
}

/* The access of such a warp, A0 and A16 its halves' first addresses (read before D is
 * written: D may be the address's register); W0 as span_written's, 0 for none. */
void span_load_shape(uint64_t *d, uint64_t a0, uint64_t a16, uintptr_t p0, int sg, int shape);
void span_store_shape(const uint64_t *v, uint64_t a0, uint64_t a16, uintptr_t p0,
		      uintptr_t w0, int shape);

/* ---- the loop's common case (exec_fast.c) ---------------------------------------- */

/* Each instruction of F's code as fast_run's code for it (0: warp_exec's), malloc'd. */
uint8_t *fast_ops(const struct ptx_func *f);
/* Runs the instructions of CODE from PC for the lanes of EMASK, as warp_exec does with no
 * hooks and no trace, until RPC, the end of *BUDGET or an instruction it leaves to
 * warp_exec (OPS: fast_ops of the code); *COUNT gets the thread-instructions. Returns the
 * pc it stopped at. */
uint32_t fast_run(struct block *b, struct warp *w, uint64_t *R, const struct ptx_insn *code,
		  const uint8_t *ops, uint32_t pc, uint32_t rpc, uint32_t emask,
		  unsigned *budget, uint64_t *count);
/* The same with the trace on (b->tsm): each instruction it runs told to the trace. */
uint32_t fast_run_traced(struct block *b, struct warp *w, uint64_t *R,
			 const struct ptx_insn *code, const uint8_t *ops, uint32_t pc,
			 uint32_t rpc, uint32_t emask, unsigned *budget, uint64_t *count);

/* ---- frames, calls and returns (exec_frames.c) ---------------------------------- */

int frame_push(struct block *b, struct warp *w, const struct ptx_func *f,
	       uint64_t local_base);
void frame_pop(struct warp *w);
int stack_push(struct warp *w, uint32_t pc, uint32_t rpc, uint32_t mask);
int warp_call(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t m);
uint32_t exit_via(const struct warp *w, const struct ptx_insn *code, uint32_t pc);
void warp_retire(struct block *b, struct warp *w, uint32_t lanes, uint32_t pc,
		 uint64_t *count);
void warp_return(struct warp *w);

/* ---- device printf (exec_printf.c) ---------------------------------------------- */

/* malloc(size) and free(p) in a kernel (exec_memory.c): the device address, or 0 when
 * the heap is full; free returns -EINVAL when p is not a block malloc returned. */
uint64_t heap_malloc(uint64_t size);
int heap_free(struct warp *w, uint64_t p);

int read_cstr(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
	      uint64_t addr, char *buf, size_t max);
int do_printf(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
	      uint64_t fmtp, uint64_t argp, int *nargs);

/* ---- arithmetic helpers (exec_arith.c) ------------------------------------------ */

/* Float arithmetic that needs more than the host's default: a directed rounding mode
 * (.rz .rm .rp) or .sat. Tested only on the float paths of the instructions that have
 * these modifiers (add sub mul mad fma div rcp sqrt; mod2 is their rounding). */
#define FLOAT_SLOW(in)                                                                   \
	(((in)->type == PT_F32 || (in)->type == PT_F64) &&                              \
	 (((in)->mod2 >= RND_RZ && (in)->mod2 <= RND_RP) || ((in)->flags & PF_SAT)))

uint64_t cvt_one(const struct ptx_insn *in, uint64_t v);
uint64_t atom_one(const struct ptx_insn *in, void *p, uint64_t bv, uint64_t cv);
/* The atomics of the lanes of M on one address P as one atomic update of it: the lanes'
 * operations in lane order (a serialisation a GPU may choose too), then a single
 * compare-and-swap, retried when another thread changed P meanwhile; D (NULL for red)
 * gets each lane's old value. Thirty-two contended atomics become one (systemWideAtomics:
 * a kernel and the host on the same ten words). Returns 0, doing nothing, for the types
 * atom_one hands to half_atom. */
int atom_warp(const struct ptx_insn *in, void *p, const uint64_t *bv, const uint64_t *cv,
	      uint32_t m, uint64_t *d);
uint64_t bfe_one(unsigned ty, uint64_t a, uint64_t b, uint64_t c);
uint32_t bmsk_one(uint32_t a, uint32_t b, int wrap);
void carry_op(const struct ptx_insn *in, uint64_t *R, uint32_t m);
void float_slow(const struct ptx_insn *in, enum fround_op op, uint64_t *d,
		const uint64_t *a, const uint64_t *b, const uint64_t *c, uint32_t m);
void member_groups(const struct ptx_insn *in, const uint64_t *R, uint32_t m,
		   unsigned k, uint32_t grp[32]);
void match_lanes(const struct ptx_insn *in, uint64_t *R, uint32_t m);
void redux_lanes(const struct ptx_insn *in, uint64_t *R, uint32_t m);

/* ---- f16, bf16 and tf32 (exec_half.c) ------------------------------------------- */

enum fmt_id { FMT_F16, FMT_BF16, FMT_TF32, FMT_F32 };
/* (-1)^neg * mag * 2^e, exactly, rounded into format f in mode (enum ptx_rnd: RN, RZ,
 * RM, RP, RNA); satfinite: overflow to the largest finite value. The format's bits (tf32:
 * as an f32 with the low 13 bits zero). */
uint32_t fmt_pack(unsigned f, int neg, uint64_t mag, int e, unsigned mode, int satfinite);
/* The value of bits of format f (NaN and infinities included). */
double fmt_to_double(unsigned f, uint32_t bits);
int half_type(unsigned t); /* f16, f16x2, bf16, bf16x2, tf32 */
uint64_t half_cvt(const struct ptx_insn *in, uint64_t v);  /* cvt with a half end */
void half_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m); /* OP_HALF */
uint64_t half_atom(const struct ptx_insn *in, void *p, uint64_t bv); /* atom.add.noftz */

/* ---- integer SIMD (exec_simd.c) ------------------------------------------------- */

/* OP_HALF (to half_exec), OP_SIMD, OP_VIDEO, OP_DP2A, OP_FNS and prmt with a mode: the
 * instruction families of sm_80/sm_90 outside the loop's hot cases. */
void family_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m);

/* ---- tensor cores (exec_mma.c) -------------------------------------------------- */

/* wmma.*, mma.sync, ldmatrix, stmatrix, movmatrix. Returns 0 or a fault's code. */
int mma_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	     uint32_t m);

/* ---- textures and surfaces (exec_tex.c) ----------------------------------------- */

/* tex, tld4, txq, suld, sust, suq. Returns 0 or a fault's code. */
int tex_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	     uint32_t m);

/* ---- asynchronous copies (exec_async.c) ----------------------------------------- */

/* cp.async, commit_group, wait_group, wait_all. Returns 0 or a fault's code. */
int async_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	       uint32_t m);
void async_reset(struct warp *w); /* a new block: no copies, no groups */
/* OP_MBAR. Returns 0, a fault's code, or MBAR_BLOCKED: a try_wait whose phase has not
 * completed for some lane of m; the warp is then W_MBAR, at the same instruction. */
#define MBAR_BLOCKED 1
int mbar_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	      uint32_t m);
/* Every warp of b still alive waits for an mbarrier phase that nothing can complete
 * (block_step saw no mbarrier move in a whole round): the hang it is on a GPU. Reports it
 * as the hang report does when the grader's time limit is set (exec_stuck.c), else stops
 * the block with a fault naming the wait's line. */
int mbar_deadlock(struct block *b);
void async_free(struct warp *w);

/* ---- the interpreter loop (exec_loop.c and the families it calls) ------------- */

/* Destination and source k of instruction in, in the register file R (32 lanes each). */
#define DS(k) (R + (size_t)in->d[k] * 32)
#define SS(k) (R + (size_t)in->s[k] * 32)
/* The cases of a switch on the opcode (warp_exec and the families it calls) */
#define CASE(op) case OP_##op:
#define NEXT break

int warp_exec(struct block *b, struct warp *w);

#pragma GCC visibility pop

#endif
