/* race_internal — what race.c (the tracker and its hooks) shares with race_findings.c
 * (what a finding says): the tracker, a block's state, and the calls that record and
 * word findings. Private to those two files; race.h is the API. */
#ifndef PMPPLAB_EMU_RACE_INTERNAL_H
#define PMPPLAB_EMU_RACE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "race.h"

#pragma GCC visibility push(hidden)

/* Findings kept per launch; keys of findings a block remembers, so that it reports one
 * once without taking the tracker's lock. */
#define RACE_MAX_FINDINGS 64
#define RACE_SEEN 64

/* A source position: WHERE_LINE | line when only the line is known, else the function
 * index << WHERE_FSHIFT | pc (of the user's code: calls into toolkit headers are
 * attributed to their call site). */
#define WHERE_LINE 0x80000000u
#define WHERE_FSHIFT 20
#define WHERE_PCMASK ((1u << WHERE_FSHIFT) - 1)

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

/* Records finding f (key identifies it: race_key; g: a hazard's accesses, else NULL)
 * unless this block or the tracker has it; completes it (where its barrier is missing,
 * its message) when it is kept. */
void race_report(struct rblock *rb, uint64_t key, struct race_finding *f,
		 const struct gap_in *g);

/* The key of a finding of kind k between the places a and b (intra: inside one warp). */
uint64_t race_key(enum race_kind k, int intra, uint32_t a, uint32_t b);

/* Words f->message for a hazard (again, after its gap changed). */
void race_hazard_message(struct race_finding *f);

#pragma GCC visibility pop

#endif
