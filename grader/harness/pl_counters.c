/* pl_counters: see pl_counters.h. Blocks run on several worker threads at once, so each
 * thread counts into its own record (found through a thread-local pointer, listed in a
 * registry for the final sum); a warp instruction and its accesses always run on one
 * thread, so the "current request" lives there too. */
#include "pl_counters.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SECTORS 64
#define MAX_WORDS 256

struct thread_counts {
	struct pl_counters c;
	/* the current warp instruction */
	int dirty, is_global, is_shared, is_atomic;
	unsigned nsec, nwords, maxbank;
	uint64_t sec[MAX_SECTORS];
	uint64_t words[MAX_WORDS];
	unsigned char bank[32];
	/* the barriers each warp of the current block passed (issue 14) */
	unsigned block;
	int has_block;
	uint32_t epoch[32];
	struct thread_counts *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* $PMPPLAB_COUNTERS=2: also the access fingerprint. A global address counts as its
 * allocation's rank and the offset in it (the emulator's devmem_locate): the device
 * range is mapped at a random base, and a larger or smaller allocation elsewhere must
 * not change what the accesses to this one look like. */
static int fingerprinting;
static int (*locate)(uint64_t addr, size_t *rank, size_t *offset);
static struct thread_counts *registry;
static __thread struct thread_counts *mine;

static struct thread_counts *counts(void)
{
	if (mine)
		return mine;
	mine = (struct thread_counts *)calloc(1, sizeof(*mine));
	if (!mine)
		abort(); /* the emulator's worker cannot report ENOMEM through a hook */
	pthread_mutex_lock(&registry_lock);
	mine->next = registry;
	registry = mine;
	pthread_mutex_unlock(&registry_lock);
	return mine;
}

void pl_counters_insn(void *ctx, unsigned block, unsigned warp, uint32_t active, unsigned pc,
		      unsigned line)
{
	(void)ctx;
	(void)block;
	(void)warp;
	(void)pc;
	(void)line;
	struct thread_counts *t = counts();
	t->c.warp_insns++;
	t->c.thread_insns += (unsigned)__builtin_popcount(active);
	if (t->dirty) {
		t->dirty = t->is_global = t->is_shared = t->is_atomic = 0;
		t->nsec = t->nwords = t->maxbank = 0;
		memset(t->bank, 0, sizeof(t->bank));
	}
}

static void global_access(struct thread_counts *t, uint64_t addr, unsigned size, int is_write)
{
	if (!t->is_global) {
		t->is_global = 1;
		*(is_write ? &t->c.gst_req : &t->c.gld_req) += 1;
	}
	*(is_write ? &t->c.gst_bytes : &t->c.gld_bytes) += size;
	if (is_write == 2) { /* an atomic (or red): issue 14, privatisation */
		t->c.gat_lanes++;
		if (!t->is_atomic) {
			t->is_atomic = 1;
			t->c.gat_req++;
		}
	}
	for (uint64_t s = addr / 32; s <= (addr + size - 1) / 32; s++) {
		unsigned i = 0;
		while (i < t->nsec && t->sec[i] != s)
			i++;
		if (i < t->nsec)
			continue;
		if (t->nsec < MAX_SECTORS)
			t->sec[t->nsec++] = s;
		*(is_write ? &t->c.gst_sectors : &t->c.gld_sectors) += 1;
	}
}

/* Shared memory: 32 banks of 4-byte words. Lanes reading the same word share one pass;
 * distinct words in one bank need one pass each. */
static void shared_access(struct thread_counts *t, uint64_t addr, unsigned size)
{
	if (!t->is_shared) {
		t->is_shared = 1;
		t->c.shd_req++;
	}
	for (uint64_t w = addr / 4; w <= (addr + size - 1) / 4; w++) {
		unsigned i = 0;
		while (i < t->nwords && t->words[i] != w)
			i++;
		if (i < t->nwords)
			continue;
		if (t->nwords < MAX_WORDS)
			t->words[t->nwords++] = w;
		if ((t->nwords - 1) % 32 == 0)
			t->c.shd_ideal++;
		if (++t->bank[w % 32] > t->maxbank) {
			t->maxbank++;
			t->c.shd_wavefronts++;
		}
	}
}

/* A block runs whole on one worker thread, so a change of block on a thread is a new
 * block: its warps start at phase 0. */
static uint32_t *epochs(struct thread_counts *t, unsigned block)
{
	if (!t->has_block || t->block != block) {
		t->has_block = 1;
		t->block = block;
		memset(t->epoch, 0, sizeof(t->epoch));
	}
	return t->epoch;
}

void pl_counters_barrier(void *ctx, unsigned block, unsigned warp, uint32_t active,
			 unsigned line)
{
	(void)ctx;
	(void)active;
	(void)line;
	struct thread_counts *t = counts();
	t->c.barriers++;
	epochs(t, block)[warp % 32]++;
}

/* splitmix64's finaliser: every input bit reaches every output bit. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The accesses as a multiset (their sum of hashes): what was touched, how, and for
 * shared memory in which phase between barriers; not which thread did it (requests and
 * sectors, counted apart, say how the accesses were grouped into warps). */
static void fingerprint(struct thread_counts *t, unsigned block, unsigned warp, int space,
			uint64_t addr, unsigned size, int is_write)
{
	uint64_t phase = space == PL_SP_SHARED ? epochs(t, block)[warp % 32] : 0;
	size_t rank = 0, offset = (size_t)addr;
	if (space == PL_SP_GLOBAL && locate && locate(addr, &rank, &offset) < 0)
		rank = SIZE_MAX, offset = (size_t)addr;
	uint64_t h = mix(offset);
	h = mix(h ^ ((uint64_t)rank << 8 | (uint64_t)space << 1 | (uint64_t)(is_write != 0)));
	t->c.access_hash += mix(h ^ ((uint64_t)size << 32 | phase));
}

void pl_counters_access(void *ctx, unsigned block, unsigned warp, unsigned lane, int space,
			uint64_t addr, unsigned size, int is_write, unsigned line)
{
	(void)ctx;
	(void)lane;
	(void)line;
	struct thread_counts *t = counts();
	if (space == PL_SP_GENERIC) {
		if ((addr & PL_WIN_MASK) == PL_SHARED_WIN) {
			space = PL_SP_SHARED;
			addr -= PL_SHARED_WIN;
		} else if ((addr & PL_WIN_MASK) == PL_LOCAL_WIN) {
			space = PL_SP_LOCAL;
		} else {
			space = PL_SP_GLOBAL;
		}
	}
	if (size == 0 || (space != PL_SP_GLOBAL && space != PL_SP_SHARED))
		return;
	t->dirty = 1;
	if (fingerprinting)
		fingerprint(t, block, warp, space, addr, size, is_write);
	if (space == PL_SP_GLOBAL)
		global_access(t, addr, size, is_write);
	else
		shared_access(t, addr, size);
}

void pl_counters_collect(struct pl_counters *out, int reset)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&registry_lock);
	for (struct thread_counts *t = registry; t; t = t->next) {
		const uint64_t *src = (const uint64_t *)&t->c;
		uint64_t *dst = (uint64_t *)out;
		for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
			dst[i] += src[i];
		if (reset)
			memset(&t->c, 0, sizeof(t->c));
	}
	pthread_mutex_unlock(&registry_lock);
}

#ifdef PMPPLAB_HARNESS_EMU

#include <stdlib.h>

/* The emulator runtime's (libpmpplab_cudart.so), declared with our mirror of its struct. */
extern void emu_set_hooks(const struct pl_emu_hooks *hooks);

static const struct pl_emu_hooks hooks = {
	.ctx = NULL,
	.on_insn = pl_counters_insn,
	.on_access = pl_counters_access,
	.on_barrier = pl_counters_barrier,
};
static int counting;
static size_t free_before; /* device memory free before the call (issue 14) */

/* The runtime's (C linkage; the harness cannot include cuda_runtime.h here). */
extern int cudaMemGetInfo(size_t *free, size_t *total);
/* The emulator's (emu/devmem.h). */
extern int devmem_locate(uint64_t addr, size_t *rank, size_t *offset);

void pl_counters_start(void)
{
	const char *e = getenv("PMPPLAB_COUNTERS");
	if (!e || !*e || strcmp(e, "0") == 0)
		return;
	struct pl_counters ignored;
	pl_counters_collect(&ignored, 1);
	fingerprinting = strcmp(e, "2") == 0;
	locate = devmem_locate;
	size_t total;
	if (cudaMemGetInfo(&free_before, &total) != 0)
		free_before = 0;
	emu_set_hooks(&hooks);
	counting = 1;
}

static void add(struct pl_file *result, const char *name, double v)
{
	struct pl_item *m = pl_add(result, PL_METRIC, PL_F64, name, 1, NULL);
	if (m)
		m->dval = v;
}

void pl_counters_finish(struct pl_file *result)
{
	if (!counting)
		return;
	emu_set_hooks(NULL);
	counting = 0;
	struct pl_counters c;
	pl_counters_collect(&c, 0);
	add(result, "emu_counted", 1);
	add(result, "emu_warp_insns", (double)c.warp_insns);
	add(result, "emu_thread_insns", (double)c.thread_insns);
	add(result, "emu_gld_req", (double)c.gld_req);
	add(result, "emu_gst_req", (double)c.gst_req);
	add(result, "emu_gld_sectors", (double)c.gld_sectors);
	add(result, "emu_gst_sectors", (double)c.gst_sectors);
	add(result, "emu_gld_bytes", (double)c.gld_bytes);
	add(result, "emu_gst_bytes", (double)c.gst_bytes);
	add(result, "emu_shd_req", (double)c.shd_req);
	add(result, "emu_shd_wavefronts", (double)c.shd_wavefronts);
	add(result, "emu_shd_ideal", (double)c.shd_ideal);
	add(result, "emu_barriers", (double)c.barriers);
	/* a double holds 53 bits: the hash is cut to fit, exactly */
	if (fingerprinting)
		add(result, "emu_access_hash", (double)(c.access_hash >> 11));
	size_t free_after, total;
	if (free_before && cudaMemGetInfo(&free_after, &total) == 0)
		add(result, "emu_leaked_bytes", free_after < free_before ? (double)(free_before - free_after) : 0);
	add(result, "emu_gat_req", (double)c.gat_req);
	add(result, "emu_gat_lanes", (double)c.gat_lanes);
}

#else

void pl_counters_start(void)
{
}

void pl_counters_finish(struct pl_file *result)
{
	(void)result;
}

#endif
