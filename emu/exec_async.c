/* exec_async — the asynchronous copies of sm_80 (OP_CPASYNC, decoded by ptx_insn.c):
 * cp.async, what __pipeline_memcpy_async, cuda::memcpy_async with a thread-scope
 * cuda::pipeline and cooperative_groups::memcpy_async compile to; cp.async.commit_group,
 * cp.async.wait_group N and cp.async.wait_all.
 *
 * When a copy lands. A GPU may write a copy's destination at any moment between its
 * cp.async and the wait that covers its group, and a correct program relies on neither
 * end. The emulator checks both addresses and reads the source at the cp.async (a bad
 * address faults at the copy's line with ld's and st's messages; the global read is
 * counted there) and writes the shared destination at the latest moment a correct
 * program allows: when the thread executes the wait that covers the copy's group. A
 * kernel that reads the tile before waiting for it therefore reads the old contents,
 * every time, and the race checker sees the write at the wait, by that thread, against
 * the early read of another: the bug a GPU shows only sometimes. A copy no wait covers
 * never lands here (its thread exited without waiting: nothing promised it to anyone).
 *
 * Groups are per thread: each lane counts its commit_groups; a copy belongs to the group
 * its lane had open when it was issued; wait_group N completes the lane's copies of every
 * committed group but the N most recent.
 */
#include "exec_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Copies a warp may have in flight before it must wait: far more than a GPU allows, a
 * bound on the memory a loop that never waits can take. */
#define MAX_PENDING (1u << 20)

struct async_copy {
	uint32_t group; /* the lane's commit count when it was issued */
	uint32_t dst;   /* shared memory offset */
	uint8_t lane, size;
	uint8_t data[16]; /* the source bytes read at issue, zero-filled past src-size */
};

struct async_copies {
	uint32_t committed[32]; /* commit_groups each lane executed */
	struct async_copy *q;   /* in issue order */
	size_t n, cap;
};

void async_reset(struct warp *w)
{
	if (w->acp) {
		memset(w->acp->committed, 0, sizeof w->acp->committed);
		w->acp->n = 0;
	}
}

void async_free(struct warp *w)
{
	if (w->acp)
		free(w->acp->q);
	free(w->acp);
	w->acp = NULL;
}

/* The hook that sees every memory access (the race checker, the counters), or NULL. */
static const struct emu_hooks *access_hook(const struct block *b)
{
	const struct emu_hooks *h = EMU_HOOKS ? b->L->hooks : NULL;
	return h && h->on_access ? h : NULL;
}

/* cp.async for the lanes of m: both addresses checked, the source read, the copy queued. */
static int async_issue(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
		       uint32_t m)
{
	struct async_copies *a = w->acp;
	unsigned size = in->vec, np = popcount32(m);
	if (a->n + np > MAX_PENDING)
		return fault_set(b, w, (unsigned)__builtin_ctz(m), in, EMU_FAULT_LIMIT, -E2BIG,
				 "more than %u cp.async copies of warp %u are in flight: wait for "
				 "them (__pipeline_wait_prior, cp.async.wait_group) as you go",
				 MAX_PENDING, w->id);
	if (a->n + np > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct async_copy *q = realloc(a->q, cap * sizeof(*q));
		if (!q)
			return fault_set(b, w, 0, in, EMU_FAULT_LIMIT, -ENOMEM, "out of memory");
		a->q = q;
		a->cap = cap;
	}
	const uint64_t *dst = SS(0), *src = SS(1), *soff = SS(2), *ssz = SS(3), *ign = SS(4);
	const struct emu_hooks *h = access_hook(b);
	uint64_t da[32], sa[32];
	uint32_t reads = 0;
	for (uint32_t mm = m; mm; mm &= mm - 1) {
		unsigned l = (unsigned)__builtin_ctz(mm);
		uint64_t d = (dst[l] + (uint64_t)in->off) & space_addr_mask(SP_SHARED);
		uint64_t s = src[l] + soff[l];
		unsigned n = (unsigned)(uint32_t)ssz[l];
		if ((ign[l] & 1) ^ in->neg_c)
			n = 0; /* ignore-src: zeros */
		if (n > size)
			return fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
					 "cp.async: src-size %u is larger than the copy's %u bytes "
					 "(undefined on a GPU); pass at most cp-size", n, size);
		da[l] = d;
		sa[l] = s;
		if (!mem_at(b, w, l, in, SP_SHARED, d, size, 1))
			return -EFAULT;
		struct async_copy *c = &a->q[a->n];
		memset(c->data, 0, sizeof c->data);
		if (n) {
			/* aligned to cp-size, as a GPU requires even of a partial read; once it is,
			 * the n bytes (n < cp-size) are aligned to their own size too */
			const void *p = s & (size - 1) ? mem_slow(b, w, l, in, SP_GLOBAL, s, size, 0)
				: mem_at(b, w, l, in, SP_GLOBAL, s, n, 0);
			if (!p)
				return -EFAULT;
			memcpy(c->data, p, n);
			reads |= 1u << l;
			if (h)
				h->on_access(h->ctx, b->idx, w->id, l, SP_GLOBAL, s, n, 0, in->line);
		}
		c->group = a->committed[l];
		c->dst = (uint32_t)d;
		c->lane = (uint8_t)l;
		c->size = (uint8_t)size;
		a->n++;
	}
	struct emu_trace_sm *tsm = b->tsm;
	if (__builtin_expect(tsm != NULL, 0)) { /* issue 7 (panels): a global read, a shared write */
		if (reads)
			emu_trace_mem(tsm, in, SP_GLOBAL, sa, 0, size, reads, 0);
		emu_trace_mem(tsm, in, SP_SHARED, da, 0, size, m, 1);
	}
	return 0;
}

/* wait_group KEEP (wait_all: commit first, then 0) for the lanes of m: their copies of
 * every committed group but the KEEP most recent land, in issue order. */
static void async_wait(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t m,
		       uint64_t keep)
{
	struct async_copies *a = w->acp;
	const struct emu_hooks *h = access_hook(b);
	uint32_t limit[32];
	for (unsigned l = 0; l < 32; l++)
		limit[l] = a->committed[l] > keep ? a->committed[l] - (uint32_t)keep : 0;
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct async_copy *c = &a->q[i];
		if (!(m >> c->lane & 1) || c->group >= limit[c->lane]) {
			a->q[k++] = *c;
			continue;
		}
		memcpy(b->shared + c->dst, c->data, c->size);
		if (h) /* the race checker: this thread writes, now, at the wait's line */
			h->on_access(h->ctx, b->idx, w->id, c->lane, SP_SHARED, c->dst, c->size, 1,
				     in->line);
	}
	a->n = k;
}

int async_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	       uint32_t m)
{
	if (!w->acp && !(w->acp = calloc(1, sizeof(*w->acp))))
		return fault_set(b, w, 0, in, EMU_FAULT_LIMIT, -ENOMEM, "out of memory");
	switch (in->mod) {
	case CPA_COPY:
		return async_issue(b, w, in, R, m);
	case CPA_WAIT:
		async_wait(b, w, in, m, (uint64_t)in->off);
		return 0;
	default: /* commit_group; wait_all is commit_group + wait_group 0 */
		for (uint32_t mm = m; mm; mm &= mm - 1)
			w->acp->committed[__builtin_ctz(mm)]++;
		if (in->mod == CPA_WAIT_ALL)
			async_wait(b, w, in, m, 0);
		return 0;
	}
}
