/* trace — what the warp and memory panels show (issue 7), collected while a kernel runs
 * and published as snapshots in a file another process (the TUI) reads.
 *
 * Turned on by $PMPPLAB_TRACE=FILE in the program's environment; off, the interpreter
 * pays one NULL test per instruction. On, every worker thread (a simulated SM) counts
 * into its own struct emu_trace_sm with plain stores (no locks, no shared cache lines):
 * per warp its state and last active mask, per .cu line the warp instructions and
 * active lanes (SIMT efficiency), global requests and the 32-byte sectors they touch
 * (coalescing), shared requests and the passes the banks need (bank conflicts), and
 * barrier arrivals. A publisher thread sums them 20 times a second into FILE (a fixed
 * struct emu_trace_file, mmapped), guarded by a sequence counter: odd while it writes.
 *
 * The interpreter calls (exec*.c, each behind `if (tsm)`):
 *   emu_trace_launch_begin / _end      around a launch (emu_run)
 *   emu_trace_sm                       a worker's counters
 *   emu_trace_block_begin / _end       a worker takes / finishes a block
 *   emu_trace_warp_state               a warp starts issuing / stops (barrier, done)
 *   emu_trace_insn                     each warp instruction (inline)
 *   emu_trace_mem                      each ld/st/atom warp instruction, all lanes at once
 *   emu_trace_barrier                  a warp arrives at bar.sync
 */
#ifndef PMPPLAB_EMU_TRACE_H
#define PMPPLAB_EMU_TRACE_H

#include <stdint.h>

#define EMU_TRACE_MAGIC 0x31525450u /* "PTR1" */
#define EMU_TRACE_VERSION 2u
#define EMU_TRACE_MAX_SMS 64
#define EMU_TRACE_MAX_WARPS 32
#define EMU_TRACE_MAX_LINES 512
#define EMU_TRACE_MAX_KERNELS 16
#define EMU_TRACE_HZ 20

/* ---- the file (read by grader/livetrace.c) ---- */

enum emu_trace_warp_state {
	EMU_TW_NONE = 0,    /* no such warp (the block has fewer) */
	EMU_TW_READY = 1,   /* can issue, waits for its turn */
	EMU_TW_ISSUING = 2, /* executing now */
	EMU_TW_BARRIER = 3, /* waiting at bar.sync */
	EMU_TW_DONE = 4,    /* exited */
};

struct emu_trace_sm_snap {
	uint32_t busy;          /* 1 while a block is resident */
	uint32_t block;         /* its linear index */
	uint32_t nwarps;
	uint32_t blocks_done;   /* blocks this SM finished in this launch */
	uint32_t bar_line;      /* .cu line of the barrier the warps wait at (0 none) */
	uint32_t pad;
	uint8_t state[EMU_TRACE_MAX_WARPS];  /* enum emu_trace_warp_state */
	uint32_t mask[EMU_TRACE_MAX_WARPS];  /* active lanes of its last instruction */
	uint64_t insns[EMU_TRACE_MAX_WARPS]; /* warp instructions issued in this block */
};

struct emu_trace_line_snap {
	uint32_t line;           /* .cu line; 0: lines of other files */
	uint32_t pad;
	uint64_t warp_insns;     /* warp instructions issued at this line */
	uint64_t lanes;          /* active lanes summed: SIMT efficiency = lanes / 32 / warp_insns */
	/* Per kind of access: warp requests (all of them), the requests measured, and the
	 * 32-byte sectors (global) or bank passes (shared) those needed. Every request is
	 * measured until a line has had EMU_TRACE_EXACT of a kind, then a random one in
	 * EMU_TRACE_SAMPLE: figure per request = sectors / sampled. */
	uint64_t gld_req, gld_sampled, gld_sectors; /* global loads */
	uint64_t gst_req, gst_sampled, gst_sectors; /* global stores and atomics */
	uint64_t shd_req, shd_sampled, shd_passes;  /* shared loads and stores */
	uint64_t bar_arrivals;   /* warps arriving at a barrier here */
};

struct emu_trace_kernel_snap {
	char name[128];          /* mangled, as in PTX */
	uint32_t grid[3], block[3];
	uint64_t dyn_smem;
	uint32_t launches;
	uint32_t pad;
};

struct emu_trace_file {
	uint32_t magic, version;
	uint64_t seq;            /* odd while the publisher writes; read it before and after */
	uint32_t pid;
	uint32_t launch;         /* launches so far in this process (1-based) */
	uint32_t running;        /* 1 while the kernel runs, 0 after */
	int32_t status;          /* emu_run's return once finished */
	char kernel[128];        /* this launch's kernel (mangled) */
	char file[256];          /* the .cu file its lines are in */
	uint32_t grid[3], block[3];
	uint64_t dyn_smem;
	uint32_t nblocks, blocks_done, nsms, nlines;
	uint64_t elapsed_ns;     /* since the launch began */
	uint64_t warp_insns, lanes;
	uint32_t nkernels, pad;
	struct emu_trace_sm_snap sm[EMU_TRACE_MAX_SMS];
	struct emu_trace_line_snap lines[EMU_TRACE_MAX_LINES]; /* by line, those that ran */
	struct emu_trace_kernel_snap kernels[EMU_TRACE_MAX_KERNELS]; /* every kernel launched */
};

/* ---- the collector (in the program, behind the interpreter) ---- */

struct ptx_insn;
struct ptx_module;
struct ptx_func;
struct emu_trace;

#define EMU_TRACE_MEMO 64
struct emu_trace_memo {
	const struct ptx_insn *in;
	uint32_t mask, size, kind, result;
	uint64_t base, delta[32];
};

/* Per .cu line counters of one SM. */
struct emu_trace_line {
	uint64_t warp_insns, lanes;
	uint64_t gld_req, gld_sampled, gld_sectors, gst_req, gst_sampled, gst_sectors;
	uint64_t shd_req, shd_sampled, shd_passes, bar_arrivals;
};
#define EMU_TRACE_LINE_FIELDS 12
#define EMU_TRACE_EXACT 256
#define EMU_TRACE_SAMPLE 8

/* One worker's counters. Written only by its worker (relaxed atomic stores), read by
 * the publisher. In cache lines of its own, as its lines and memo are (trace.c): the
 * workers' structs sat side by side, and one's `cur`, stored every instruction, shared a
 * line with the next one's `lines` and `main_file`, read every instruction. */
struct emu_trace_sm {
	_Alignas(64) struct emu_trace *t;
	struct emu_trace_line *lines; /* [nlines]; index 0 collects other files' lines */
	uint32_t nlines;
	uint16_t main_file;           /* .file index of the kernel's own lines */
	uint32_t busy, block, nwarps, blocks_done, bar_line;
	uint8_t state[EMU_TRACE_MAX_WARPS];
	uint32_t mask[EMU_TRACE_MAX_WARPS];
	uint64_t insns[EMU_TRACE_MAX_WARPS];
	struct emu_trace_line *cur; /* the line of the instruction being executed */
	/* Recent requests' results per instruction (emu_trace_mem): the same lane offsets
	 * shifted by whole words (banks) or sectors give the same figures. */
	struct emu_trace_memo *memo; /* [EMU_TRACE_MEMO] */
	uint32_t rng;                /* xorshift state for sampling */
};

#define EMU_TRACE_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define EMU_TRACE_ADD(x, v) __atomic_store_n(&(x), (x) + (v), __ATOMIC_RELAXED)

/* The line counters an instruction counts into. */
struct emu_trace_line *emu_trace_line_of(struct emu_trace_sm *s, const struct ptx_insn *in);

/* Starts tracing a launch when $PMPPLAB_TRACE is set: returns the trace, or NULL (off,
 * or the file cannot be made: tracing is best effort and never fails a launch). NSMS is
 * the number of workers. */
struct emu_trace *emu_trace_launch_begin(const struct ptx_module *m, const struct ptx_func *kf,
					 const char *kernel, const uint32_t grid[3],
					 const uint32_t block[3], uint64_t dyn_smem, unsigned nsms);
/* Publishes the final snapshot (running 0, STATUS) and frees T. T may be NULL. */
void emu_trace_launch_end(struct emu_trace *t, int status);
/* Worker I's counters (I < nsms), or NULL when T is NULL. */
struct emu_trace_sm *emu_trace_sm(struct emu_trace *t, unsigned i);

void emu_trace_block_begin(struct emu_trace_sm *s, unsigned block, unsigned nwarps);
void emu_trace_block_end(struct emu_trace_sm *s);
void emu_trace_warp_state(struct emu_trace_sm *s, unsigned warp, enum emu_trace_warp_state st);
void emu_trace_barrier(struct emu_trace_sm *s, unsigned warp, const struct ptx_insn *in);
/* A memory warp instruction (after emu_trace_insn for it): lane l (in MASK) accesses
 * A[l] + OFF, SIZE bytes, in SPACE (enum ptx_space: generic addresses are sorted by
 * their window). */
void emu_trace_mem(struct emu_trace_sm *s, const struct ptx_insn *in, int space,
		   const uint64_t *a, int64_t off, unsigned size, uint32_t mask, int is_write);

#ifdef PMPPLAB_EMU_PTX_INTERNAL_H
/* A warp instruction with active lanes MASK. The hot path, inline where the interpreter
 * includes ptx_internal.h first: a few stores. */
static inline void emu_trace_insn(struct emu_trace_sm *s, unsigned warp, uint32_t mask,
				  const struct ptx_insn *in)
{
	struct emu_trace_line *l = in->file == s->main_file && in->line < s->nlines
					   ? &s->lines[in->line] : emu_trace_line_of(s, in);
	s->cur = l;
	/* popcount by bit tricks: __builtin_popcount is a libgcc call without -mpopcnt */
	uint32_t x = mask - ((mask >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	EMU_TRACE_ADD(l->warp_insns, 1);
	EMU_TRACE_ADD(l->lanes, (uint64_t)((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24));
	if (warp < EMU_TRACE_MAX_WARPS) {
		EMU_TRACE_SET(s->mask[warp], mask);
		EMU_TRACE_ADD(s->insns[warp], 1);
	}
}
#endif

/* ---- pure helpers (tested alone) ---- */

/* Distinct 32-byte sectors touched by the lanes of MASK accessing ADDR[l], SIZE bytes. */
unsigned emu_trace_sectors(const uint64_t addr[32], uint32_t mask, unsigned size);
/* Passes 32 four-byte banks need: the most distinct words falling in one bank (lanes
 * reading the same word share a pass: broadcast). */
unsigned emu_trace_bank_passes(const uint64_t addr[32], uint32_t mask, unsigned size);

#endif
