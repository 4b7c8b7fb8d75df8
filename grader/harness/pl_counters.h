/* pl_counters: modelled memory and SIMT counters of a lab program on the emulator, for
 * the grader's deterministic performance checks (issue 8). When $PMPPLAB_COUNTERS is
 * set in an emulator build, the harness installs the interpreter's hooks (emu/exec.h,
 * struct emu_hooks) around the correctness call of the entry point and counts, over
 * every kernel it launches:
 *
 *   emu_warp_insns     warp instructions issued
 *   emu_thread_insns   lanes that executed them (lane efficiency = this / 32 / warp_insns)
 *   emu_gld_req, emu_gst_req          global load / store (and atomic) warp requests
 *   emu_gld_sectors, emu_gst_sectors  distinct 32-byte sectors each request touches,
 *                                     summed (4 per request = a coalesced float access)
 *   emu_gld_bytes, emu_gst_bytes      bytes the active lanes asked for
 *   emu_shd_req        shared-memory warp requests
 *   emu_shd_wavefronts the passes the banks need: per request, the most distinct 4-byte
 *                      words that fall in one of the 32 banks (a broadcast is free)
 *   emu_shd_ideal      the passes without conflicts: per request, ceil(distinct words / 32)
 *   emu_barriers       warps' arrivals at bar.sync
 *   emu_access_hash    a fingerprint of the global and shared accesses: the sum over
 *                      accesses of a hash of (space, address: for global memory the
 *                      allocation's rank and the offset in it, size, write, and for
 *                      shared memory the barriers the warp passed before it). Equal
 *                      sums: the same accesses, in the same phases between barriers
 *                      (mutation testing's proof of equivalence, issue 14). Only with
 *                      $PMPPLAB_COUNTERS=2, and deterministic only with one emulator
 *                      thread ($PMPPLAB_EMU_THREADS=1)
 *   emu_leaked_bytes   device memory allocated during the call and not freed
 *   emu_gat_req, emu_gat_lanes        global atomic (and red) warp requests, and the lanes
 *                                     that did one (also counted as stores above)
 *   emu_counted        1 (the counters are valid)
 *
 * The counts depend only on the program and its inputs, never on timing, so a check on
 * them gives the same verdict on every run. In other builds the functions do nothing.
 * This sits on the interpreter's public hooks until the emulator keeps such counters
 * itself (the interface it should offer is in the issue 8 report). */
#ifndef PMPPLAB_PL_COUNTERS_H
#define PMPPLAB_PL_COUNTERS_H

#include <stdint.h>

#include "pl_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The counters, summed over the worker threads. */
struct pl_counters {
	uint64_t warp_insns, thread_insns;
	uint64_t gld_req, gst_req, gld_sectors, gst_sectors, gld_bytes, gst_bytes;
	uint64_t shd_req, shd_wavefronts, shd_ideal;
	uint64_t barriers, access_hash; /* issue 14 (mutation testing) */
	uint64_t gat_req, gat_lanes;
};

/* The address spaces the interpreter passes to on_access: its enum ptx_space
 * (emu/ptx_internal.h). Generic addresses are sorted by the shared/local windows. */
enum {
	PL_SP_GENERIC = 0, PL_SP_GLOBAL = 1, PL_SP_SHARED = 2, PL_SP_LOCAL = 3, PL_SP_CONST = 4,
};
#define PL_SHARED_WIN 0xfe00000000000000ull
#define PL_LOCAL_WIN 0xff00000000000000ull
#define PL_WIN_MASK 0xff00000000000000ull

/* The layout of emu/exec.h's struct emu_hooks (the harness cannot include emu's
 * headers: they are not installed; tests/perf checks that the two agree). */
struct pl_emu_hooks {
	void *ctx;
	void (*on_insn)(void *ctx, unsigned block_linear, unsigned warp, uint32_t active,
			unsigned pc, unsigned line);
	void (*on_access)(void *ctx, unsigned block_linear, unsigned warp, unsigned lane,
			  int space, uint64_t addr, unsigned size, int is_write, unsigned line);
	void (*on_barrier)(void *ctx, unsigned block_linear, unsigned warp, uint32_t active,
			   unsigned line);
	int strict_exits; /* 0: early returns exit, as on a GPU */
	void (*on_icall)(void *ctx, unsigned block_linear, unsigned warp, uint32_t active,
			 unsigned func); /* NULL: calls through pointers count as instructions */
	void (*on_mbarrier)(void *ctx, unsigned block_linear, unsigned warp, unsigned lane,
			    uint32_t off, int what); /* not used: NULL */
};

/* The hook functions, exposed so tests can drive them without the emulator: one call of
 * pl_counters_insn per warp instruction, then one pl_counters_access per lane access
 * of it, on the same thread. */
void pl_counters_insn(void *ctx, unsigned block, unsigned warp, uint32_t active, unsigned pc,
		      unsigned line);
void pl_counters_access(void *ctx, unsigned block, unsigned warp, unsigned lane, int space,
			uint64_t addr, unsigned size, int is_write, unsigned line);
void pl_counters_barrier(void *ctx, unsigned block, unsigned warp, uint32_t active,
			 unsigned line);
/* Sums every thread's counters into *out, and optionally zeroes them. */
void pl_counters_collect(struct pl_counters *out, int reset);

/* Harness entry points: start before the entry point (installs the hooks when
 * $PMPPLAB_COUNTERS is set in an emulator build), finish after it (removes them and adds
 * the emu_* metrics to RESULT). */
void pl_counters_start(void);
void pl_counters_finish(struct pl_file *result);

#ifdef __cplusplus
}
#endif

#endif
