/* race — the emulator's dynamic barrier and shared-memory hazard checker (issue 6).
 *
 * A tracker watches one launch through the interpreter's hooks (exec.h, struct
 * emu_hooks) and records findings:
 *   - shared-memory hazards between two different threads of a block that no barrier
 *     separates: read-after-write, write-after-read, write-after-write (atomics do not
 *     conflict with each other). Two threads of the same warp are ordered by a
 *     __syncwarp() between the accesses; without one the hazard is "intra-warp" (the
 *     warp's lanes are not in lockstep since Volta);
 *   - reads (and atomics) of shared memory never written in this block;
 *   - barrier divergence: the n-th __syncthreads() of a block reached at two different
 *     instructions, or by fewer threads than the block has (the others exited).
 * Happens-before is one counter per warp: the number of block barriers it has passed
 * (every thread must pass barrier k before any passes k+1), plus a per-warp
 * __syncwarp() counter. Shadow state is one record of the last write and up to two
 * reads per shared byte, per block, freed when the worker thread moves on to its next
 * block. Findings are deduplicated by (kind, the two instructions); count says in how
 * many blocks each one occurred.
 *
 * The tracker follows each warp into calls (nvcc -O0 keeps atomicAdd, __syncwarp...
 * as functions), so every access is tied to its instruction: atomics are recognised,
 * and positions inside toolkit headers are reported at the user's call.
 */
#ifndef PMPPLAB_EMU_RACE_H
#define PMPPLAB_EMU_RACE_H

#include <stddef.h>
#include <stdint.h>
#include "exec.h"

enum race_kind {
	RACE_RAW,            /* a read of a value another thread wrote, no barrier between */
	RACE_WAR,            /* a write over a value another thread read, no barrier between */
	RACE_WAW,            /* two writes by different threads, no barrier between */
	RACE_UNINIT,         /* a read of shared memory never written in this block */
	RACE_BAR_DIVERGENT,  /* threads of a block wait at two different barriers */
	RACE_BAR_EXITED,     /* a barrier passed while some threads of the block had exited */
};

/* Hazards: where the missing barrier goes, from the kernel's control flow and the loop
 * pass each access was made in (the times each thread entered a loop header), so the
 * advice names the right barrier of a phase. */
enum race_gap {
	RACE_GAP_UNKNOWN, /* not worked out (the accesses are in different functions) */
	RACE_GAP_BETWEEN, /* in one pass: no barrier on the way from gap_line1 to gap_line2
			   * (e.g. between filling a tile and reading it); equal lines: one
			   * statement that reads and writes (a ++ by several threads) */
	RACE_GAP_LOOP,    /* a thread already in a later pass of the loop: no barrier between
			   * gap_line1 and the next pass's gap_line2 (e.g. the one at the end of
			   * a tiled phase, before the next pass overwrites the tile) */
};

struct race_finding {
	enum race_kind kind;
	int intra_warp;          /* hazard between lanes of one warp without __syncwarp */
	const char *kernel;      /* mangled name, owned by the module */
	struct emu_dim3 block;   /* the first block it was seen in */
	/* hazards: access 1 happened first, access 2 second. barriers: 1 and 2 are the two
	 * barriers (divergent) or the barrier and the exit (exited). */
	struct emu_dim3 thread1, thread2;
	const char *file1, *file2; /* owned by the module; NULL when unknown */
	unsigned line1, line2;
	int write1, write2;      /* hazards: which access wrote */
	/* hazards and uninitialised reads: where in shared memory */
	char var[64];            /* the __shared__ variable's source name, "" when unknown */
	uint64_t offset;         /* byte offset inside var (or in the block's shared memory) */
	unsigned size;           /* access size in bytes */
	uint64_t var_bytes;      /* the variable's size in bytes; 0 when unknown (dynamic) */
	/* hazards: where the missing barrier goes (enum race_gap) */
	enum race_gap gap;
	unsigned gap_line1, gap_line2;
	unsigned loop_first, loop_last; /* LOOP: the loop's lines */
	unsigned bar_line;       /* LOOP: the barrier that orders the two within one pass, 0 none */
	int ahead;               /* LOOP: 1 or 2, the thread that was in the later pass */
	int gap_from_write;      /* the gap starts at the write (fill, then read), else at a read */
	/* barriers: threads at barrier 1 / at barrier 2 (or exited), and the block's size */
	unsigned threads1, threads2, nthreads;
	unsigned count;          /* blocks in which it occurred */
	char message[512];       /* one sentence, no file:line prefix */
};

struct race_tracker;

/* A tracker for launch l (which must outlive it). Returns NULL when out of memory. */
struct race_tracker *race_new(const struct emu_launch *l);
void race_free(struct race_tracker *t); /* accepts NULL */

/* The hooks to install with emu_set_hooks() around emu_run(l); ctx is t. They ask
 * for strict exits, so a barrier after an early return inside a warp is a finding. */
const struct emu_hooks *race_hooks(struct race_tracker *t);

/* After emu_run: completes the checks of the blocks still open, and drops the hazards
 * inside one warp whose missing barrier is the one a hazard between warps already
 * names: a __syncthreads() there orders both, so "__syncwarp()" would be the wrong
 * advice (it is right only for warp-synchronous code, such as a reduction's last warp). */
void race_finish(struct race_tracker *t);

/* emu_set_hooks(t), emu_run(l, fault), hooks off, race_finish(t): returns emu_run's
 * code. Not reentrant (the hooks are process-wide). */
int race_run(struct race_tracker *t, struct emu_fault *fault);

unsigned race_nfindings(const struct race_tracker *t);
const struct race_finding *race_finding_at(const struct race_tracker *t, unsigned i);

/* "raw", "war", "waw", "uninit", "barrier-divergence", "barrier-exited" */
const char *race_kind_name(enum race_kind k);
/* "error" or "warning" (intra-warp hazards and uninitialised reads are warnings) */
const char *race_severity(const struct race_finding *f);

/* "between", "loop" or "" (unknown) */
const char *race_gap_name(enum race_gap g);

/* Writes f as one JSON object (no newline): {"event":"finding","check":"race",...}.
 * Hazards add "missing_barrier" (race_gap_name), "gap_lines", "gap_from" ("write" or
 * "read": the access the gap starts at), and for a loop
 * "loop_lines" and "barrier_line"; shared accesses add "var_bytes".
 * Returns the length it needed (snprintf-like). */
size_t race_finding_json(const struct race_finding *f, char *buf, size_t len);

/* Enabled by the environment? PMPPLAB_EMU_RACECHECK=1 (any value but "0"). */
int race_enabled_by_env(void);

#endif
