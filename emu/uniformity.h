/* uniformity — static barrier analysis of a decoded PTX module (issue 6).
 *
 * For every function of a module, lists its barriers with their .cu lines and decides,
 * from the PTX alone, whether each block-wide barrier can be reached by only part of a
 * block: a barrier is *divergent* when it lies between a branch whose condition is
 * thread-dependent and that branch's reconvergence point (or is itself guarded by a
 * thread-dependent predicate). Thread-dependent ("non-uniform") values are those derived
 * from %tid, %laneid, %warpid, %lanemask_*, the clock, atomics, warp collectives
 * (shfl/vote/match/activemask) and loads from thread-dependent addresses, plus values
 * assigned under a thread-dependent branch; %ctaid, %ntid, %nctaid, parameters and
 * loads from uniform addresses are uniform. The analysis is flow-insensitive over
 * registers (a register is non-uniform if any of its definitions is), so it may flag a
 * barrier that is in fact safe, never the other way round for straight-line register
 * code. Values stored to .local or .param memory and loaded back are tracked per space.
 *
 * The report owns copies of all strings: it stays valid after the module is freed.
 */
#ifndef PMPPLAB_EMU_UNIFORMITY_H
#define PMPPLAB_EMU_UNIFORMITY_H

#include <stddef.h>

struct ptx_module;

enum uniformity_bar_kind {
	UNI_BAR_SYNC,   /* bar.sync / barrier.sync: __syncthreads() */
	UNI_BAR_RED,    /* bar.red: __syncthreads_count/_and/_or */
	UNI_BAR_ARRIVE, /* bar.arrive (does not wait) */
	UNI_BAR_WARP,   /* bar.warp.sync: __syncwarp() (never divergent: it takes a mask) */
};

/* Where a thread-dependent value comes from (bit set, for messages). */
enum uniformity_source {
	UNI_SRC_TID = 1u << 0,    /* threadIdx, %warpid */
	UNI_SRC_LANE = 1u << 1,   /* %laneid, %lanemask_* */
	UNI_SRC_LOAD = 1u << 2,   /* a load from a thread-dependent address */
	UNI_SRC_ATOMIC = 1u << 3, /* the old value returned by an atomic */
	UNI_SRC_WARP = 1u << 4,   /* a warp collective (shfl, vote, match, activemask) */
	UNI_SRC_CLOCK = 1u << 5,  /* clock() */
};

struct uniformity_barrier {
	unsigned pc;               /* index of the instruction in the function */
	char *file;                /* .cu file of the barrier (NULL when unknown) */
	unsigned line;             /* its line (0 when unknown) */
	enum uniformity_bar_kind kind;
	int divergent;             /* 1: may be reached by only part of the block */
	/* when divergent: the thread-dependent branch (or guard) responsible */
	unsigned cond_pc;
	char *cond_file;
	unsigned cond_line;
	unsigned cond_sources;     /* enum uniformity_source bits of its condition */
	int cond_exits;            /* threads taking that branch can return before here */
};

struct uniformity_kernel {
	char *name;                /* mangled name as in the PTX */
	int is_entry;              /* .entry (a kernel) or .func */
	struct uniformity_barrier *barriers;
	unsigned nbarriers;
	unsigned nblock_barriers;  /* UNI_BAR_SYNC + UNI_BAR_RED */
	unsigned ndivergent;
};

struct uniformity_report {
	struct uniformity_kernel *kernels;
	unsigned nkernels;
};

/* Analyses every defined function of m. Returns 0 and *out (free with
 * uniformity_report_free), or -ENOMEM. */
int uniformity_analyze(const struct ptx_module *m, struct uniformity_report **out);

/* Loads the PTX file at path and analyses it. Returns 0, -errno when the file cannot be
 * read, or ptx_module_load's codes (err gets "file.ptx:LINE: what"; err may be NULL). */
int uniformity_analyze_file(const char *path, struct uniformity_report **out, char *err,
			    size_t errlen);

void uniformity_report_free(struct uniformity_report *r); /* accepts NULL */

/* The kernel of r whose mangled name is name, or whose name contains "<len><name>"
 * (the C++ mangling of a plain name), or NULL. */
const struct uniformity_kernel *uniformity_find_kernel(const struct uniformity_report *r,
							const char *name);

/* "threadIdx", "the lane index", "a load from a thread-dependent address"... for the
 * most telling bit of sources; never NULL. */
const char *uniformity_source_name(unsigned sources);

#endif
