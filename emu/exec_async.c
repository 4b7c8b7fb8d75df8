/* exec_async — the asynchronous copies and barriers of sm_80/sm_90: cp.async
 * (OP_CPASYNC, decoded by ptx_insn.c), what __pipeline_memcpy_async, cuda::memcpy_async
 * with a thread-scope cuda::pipeline and cooperative_groups::memcpy_async compile to;
 * cp.async.commit_group, cp.async.wait_group N and cp.async.wait_all. And the mbarrier
 * objects (OP_MBAR): what cuda::barrier<thread_scope_block>, a block-scope cuda::pipeline
 * and cuda::memcpy_async with a barrier compile to, with cp.async.mbarrier.arrive and
 * the 1-D cp.async.bulk that completes an mbarrier's transactions.
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
 * Copies an mbarrier tracks (cp.async.mbarrier.arrive) land at that instruction, and a
 * bulk copy at its cp.async.bulk: both before the phase they belong to can complete.
 *
 * Groups are per thread: each lane counts its commit_groups; a copy belongs to the group
 * its lane had open when it was issued; wait_group N completes the lane's copies of every
 * committed group but the N most recent.
 *
 * mbarrier (PTX ISA: phases, pending arrivals, transaction counts). The object is the
 * program's 8 bytes of shared memory, which it only names; here they hold the pending
 * arrivals of the current phase, the arrivals each phase expects, the pending
 * transaction bytes and the phase number. A phase completes when its last arrival and
 * its last transaction byte have come; its waiters then see it complete. A try_wait that
 * finds its phase incomplete gives the warp's turn up (W_MBAR) and is tried again at its
 * next one, as the hardware suspends the thread; when a whole round of the block's warps
 * passes with every live warp waiting (for an mbarrier or at __syncthreads()) and no
 * mbarrier moved, nothing can complete the phase: a hang on a GPU (mbar_deadlock).
 */
#include "exec_internal.h"

#include <errno.h>
#include <stdio.h>
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

/* A copy's n bytes (cp-size 4, 8 or 16, or fewer with src-size): memcpy of a length
 * known only here was a rep movs, slow to start for so few bytes (half of a cp.async's
 * time in dmmaTensorCoreGemm). */
static inline void copy_small(void *dst, const void *src, unsigned n)
{
	switch (n) {
	case 16: memcpy(dst, src, 16); break;
	case 8: memcpy(dst, src, 8); break;
	case 4: memcpy(dst, src, 4); break;
	default: memcpy(dst, src, n); break;
	}
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
	const uint64_t *dst = SS(0), *src = SS(1), *soff = SS(2), *ssz = SS(3);
	const uint32_t ign = pred_src(in, R, 4); /* the ignore-src predicate */
	const struct emu_hooks *h = access_hook(b);
	uint64_t da[32], sa[32];
	uint32_t reads = 0;
	for (uint32_t mm = m; mm; mm &= mm - 1) {
		unsigned l = (unsigned)__builtin_ctz(mm);
		uint64_t d = (dst[l] + (uint64_t)in->off) & space_addr_mask(SP_SHARED);
		uint64_t s = src[l] + soff[l];
		unsigned n = (unsigned)(uint32_t)ssz[l];
		if ((ign >> l & 1) ^ in->neg_c)
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
			copy_small(c->data, p, n);
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
		copy_small(b->shared + c->dst, c->data, c->size);
		if (h) /* the race checker: this thread writes, now, at the wait's line */
			h->on_access(h->ctx, b->idx, w->id, c->lane, SP_SHARED, c->dst, c->size, 1,
				     in->line);
	}
	a->n = k;
}

/* ---- mbarrier ------------------------------------------------------------------- */

/* The object's fields (see the top of this file): bits 0-19 pending arrivals, 20-39 the
 * arrivals each phase expects, 40-60 the pending transaction bytes (two's complement: a
 * bulk copy may complete its bytes before its expect_tx), 61-63 the phase number modulo
 * 8. A state token (mbarrier.arrive's result): the phase it arrived on (bits 0-2) and
 * the pending count before it (8-27, mbarrier.pending_count: the PTX ISA's state "prior
 * to the arrive-on operation"; an H200 answers 8 for an arrival of 7 where 8 were due). */
#define MB_MAX ((1u << 20) - 1)
struct mbar {
	uint32_t pending, expected;
	int32_t tx;
	unsigned phase;
};

static struct mbar mb_load(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	int32_t tx = (int32_t)(v >> 40 & 0x1fffff);
	return (struct mbar){ (uint32_t)(v & MB_MAX), (uint32_t)(v >> 20 & MB_MAX),
			      tx & 0x100000 ? tx - 0x200000 : tx, (unsigned)(v >> 61) };
}

static void mb_store(unsigned char *p, const struct mbar *m)
{
	uint64_t v = m->pending | (uint64_t)m->expected << 20 |
		     (uint64_t)((uint32_t)m->tx & 0x1fffff) << 40 | (uint64_t)(m->phase & 7) << 61;
	memcpy(p, &v, 8);
}

static void mb_hook(struct block *b, struct warp *w, unsigned l, uint32_t off, int what)
{
	const struct emu_hooks *h = EMU_HOOKS ? b->L->hooks : NULL;
	if (h && h->on_mbarrier)
		h->on_mbarrier(h->ctx, b->idx, w->id, l, off, what);
}

/* The object at addr (space: shared or generic) for lane l: its bytes and shared offset,
 * or NULL after a fault. */
static unsigned char *mb_at(struct block *b, struct warp *w, unsigned l, const struct ptx_insn *in,
			    int space, uint64_t addr, uint32_t *off)
{
	if (space == SP_SHARED)
		addr &= space_addr_mask(SP_SHARED);
	unsigned char *p = mem_at(b, w, l, in, space == SP_SHARED ? SP_SHARED : SP_GENERIC, addr,
				  8, 1);
	if (!p)
		return NULL;
	if (p < b->shared || p >= b->shared + b->shared_size) {
		fault_set(b, w, l, in, EMU_FAULT_UNSUPPORTED, -EFAULT,
			  "the mbarrier object at 0x%llx is not in shared memory: a cuda::barrier "
			  "or an mbarrier must be a __shared__ variable", (unsigned long long)addr);
		return NULL;
	}
	*off = (uint32_t)(p - b->shared);
	return p;
}

/* Completes m's phase when its arrivals and transactions are all in. */
static void mb_settle(struct block *b, struct warp *w, unsigned l, uint32_t off, struct mbar *m)
{
	if (m->pending || m->tx)
		return;
	m->phase = (m->phase + 1) & 7;
	m->pending = m->expected;
	mb_hook(b, w, l, off, EMU_MBAR_COMPLETE);
}

static int mb_not_init(struct block *b, struct warp *w, unsigned l, const struct ptx_insn *in,
		       uint32_t off)
{
	return fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
			 "the mbarrier at shared offset 0x%x is not initialised (mbarrier.init, "
			 "cuda::barrier's init(), before any thread uses it) or was invalidated",
			 off);
}

/* Lane l arrives count times (and expects tx more bytes first); the token is its state. */
static int mb_arrive(struct block *b, struct warp *w, unsigned l, const struct ptx_insn *in,
		     unsigned char *p, uint32_t off, uint32_t count, uint32_t tx, uint64_t *token)
{
	struct mbar m = mb_load(p);
	if (!m.expected)
		return mb_not_init(b, w, l, in, off);
	if (count == 0 || count > m.pending)
		return fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
				 "%u arrival%s on the mbarrier at shared offset 0x%x, whose phase "
				 "expects only %u more (of %u): more threads arrive than the count it "
				 "was initialised with", count, count == 1 ? "" : "s", off, m.pending,
				 m.expected);
	if ((int64_t)m.tx + tx > (int64_t)MB_MAX)
		return fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
				 "the mbarrier at shared offset 0x%x would expect more than %u "
				 "transaction bytes (expect_tx)", off, MB_MAX);
	m.tx += (int32_t)tx;
	mb_hook(b, w, l, off, EMU_MBAR_ARRIVE);
	*token = m.phase | (uint64_t)m.pending << 8; /* the state before the arrival */
	m.pending -= count;
	if (in->mod2 & MBF_DROP)
		m.expected -= count;
	if (!m.pending && !m.tx && (in->mod2 & MBF_NOCOMPLETE))
		return fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
				 "mbarrier.arrive.noComplete completed the phase of the mbarrier at "
				 "shared offset 0x%x (undefined on a GPU)", off);
	mb_settle(b, w, l, off, &m);
	mb_store(p, &m);
	b->mbar_moved = 1;
	return 0;
}

/* Lands lane l's copies of every group (cp.async.mbarrier.arrive tracks them all). */
static void async_land_lane(struct block *b, struct warp *w, const struct ptx_insn *in, unsigned l)
{
	if (!w->acp)
		return;
	struct async_copies *a = w->acp;
	uint32_t saved = a->committed[l];
	a->committed[l] = UINT32_MAX; /* every group, even the open one, is complete */
	async_wait(b, w, in, 1u << l, 0);
	a->committed[l] = saved;
}

/* cp.async.bulk of size bytes, global to shared, then complete_tx on its mbarrier. */
static int mb_bulk(struct block *b, struct warp *w, unsigned l, const struct ptx_insn *in,
		   uint64_t *R)
{
	uint64_t dst = (SS(0)[l] + (uint64_t)in->off) & space_addr_mask(SP_SHARED);
	uint64_t src = SS(1)[l] + SS(2)[l];
	uint32_t size = (uint32_t)SS(3)[l], off;
	if (size % 16 || (dst | src) % 16)
		return fault_set(b, w, l, in, EMU_FAULT_MISALIGNED, -EFAULT,
				 "cp.async.bulk of %u bytes from 0x%llx to shared 0x%llx: the size "
				 "and both addresses must be multiples of 16", size,
				 (unsigned long long)src, (unsigned long long)dst);
	const struct emu_hooks *h = access_hook(b);
	for (uint32_t i = 0; i < size; i += 16) {
		const void *sp = mem_at(b, w, l, in, SP_GLOBAL, src + i, 16, 0);
		void *dp = sp ? mem_at(b, w, l, in, SP_SHARED, dst + i, 16, 1) : NULL;
		if (!dp)
			return -EFAULT;
		memcpy(dp, sp, 16);
		if (h) {
			h->on_access(h->ctx, b->idx, w->id, l, SP_GLOBAL, src + i, 16, 0, in->line);
			h->on_access(h->ctx, b->idx, w->id, l, SP_SHARED, dst + i, 16, 1, in->line);
		}
	}
	unsigned char *p = mb_at(b, w, l, in, in->vec, SS(4)[l] + SS(5)[l], &off);
	if (!p)
		return -EFAULT;
	struct mbar m = mb_load(p);
	if (!m.expected)
		return mb_not_init(b, w, l, in, off);
	m.tx -= (int32_t)size;
	mb_settle(b, w, l, off, &m);
	mb_store(p, &m);
	b->mbar_moved = 1;
	return 0;
}

int mbar_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	      uint32_t m)
{
	uint64_t *d = in->nd ? DS(0) : NULL;
	const uint64_t *v1 = SS(1), *v2 = SS(2);
	if (in->mod == MB_PENDING) {
		LANES(d[l] = v1[l] >> 8 & MB_MAX);
		return 0;
	}
	int wait = in->mod == MB_TEST_WAIT || in->mod == MB_TRY_WAIT;
	uint32_t done = 0, offs[32] = { 0 };
	for (uint32_t mm = m; mm; mm &= mm - 1) {
		unsigned l = (unsigned)__builtin_ctz(mm);
		if (in->mod == MB_BULK) {
			int rc = mb_bulk(b, w, l, in, R);
			if (rc)
				return rc;
			continue;
		}
		uint32_t off;
		unsigned char *p = mb_at(b, w, l, in, in->space, SS(0)[l] + (uint64_t)in->off, &off);
		if (!p)
			return -EFAULT;
		offs[l] = off;
		struct mbar o = mb_load(p);
		switch (in->mod) {
		case MB_INIT: {
			uint32_t n = (uint32_t)v1[l];
			if (n == 0 || n > MB_MAX)
				return fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
						 "mbarrier.init with a count of %u: it must be 1 to %u", n,
						 MB_MAX);
			o = (struct mbar){ n, n, 0, 0 };
			mb_store(p, &o);
			mb_hook(b, w, l, off, EMU_MBAR_INIT);
			b->mbar_moved = 1;
			break;
		}
		case MB_INVAL:
			memset(p, 0, 8);
			mb_hook(b, w, l, off, EMU_MBAR_INIT);
			b->mbar_moved = 1;
			break;
		case MB_ARRIVE: {
			uint64_t token;
			int rc = mb_arrive(b, w, l, in, p, off, (uint32_t)v1[l], (uint32_t)v2[l], &token);
			if (rc)
				return rc;
			if (d)
				d[l] = token;
			break;
		}
		case MB_CPA_ARRIVE: {
			async_land_lane(b, w, in, l);
			if (in->mod2 & MBF_NOINC) { /* the copies' completion is one of the arrivals */
				uint64_t token;
				int rc = mb_arrive(b, w, l, in, p, off, 1, 0, &token);
				if (rc)
					return rc;
			} else { /* +1 pending, then the arrival: no change to the count */
				if (!o.expected)
					return mb_not_init(b, w, l, in, off);
				mb_hook(b, w, l, off, EMU_MBAR_ARRIVE);
			}
			break;
		}
		case MB_EXPECT_TX:
		case MB_COMPLETE_TX: {
			if (!o.expected)
				return mb_not_init(b, w, l, in, off);
			int64_t tx = o.tx + (in->mod == MB_EXPECT_TX ? (int64_t)(uint32_t)v2[l]
								     : -(int64_t)(uint32_t)v2[l]);
			if (tx > (int64_t)MB_MAX || tx < -(int64_t)MB_MAX)
				return fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
						 "the transaction count of the mbarrier at shared offset "
						 "0x%x leaves its range (%d bytes): expect_tx and the copies' "
						 "bytes do not match", off, (int)tx);
			o.tx = (int32_t)tx;
			if (in->mod == MB_COMPLETE_TX)
				mb_settle(b, w, l, off, &o);
			mb_store(p, &o);
			b->mbar_moved = 1;
			break;
		}
		default: { /* test_wait, try_wait: has the phase of the token (parity) completed? */
			if (!o.expected && !o.pending && !o.tx && !o.phase)
				return mb_not_init(b, w, l, in, off);
			int complete = (in->mod2 & MBF_PARITY) ? (o.phase & 1) != (v1[l] & 1)
							       : (o.phase & 7) != (v1[l] & 7);
			done |= (uint32_t)complete << l;
			break;
		}
		}
	}
	if (!wait)
		return 0;
	if (in->mod == MB_TRY_WAIT && done != m) { /* suspended until the phase completes */
		unsigned l = (unsigned)__builtin_ctz(m & ~done);
		w->state = W_MBAR;
		w->mbar_off = offs[l];
		w->mbar_lane = l;
		return MBAR_BLOCKED;
	}
	pred_write(R, in->d[0], done, m);
	for (uint32_t mm = done; mm; mm &= mm - 1) {
		unsigned l = (unsigned)__builtin_ctz(mm);
		mb_hook(b, w, l, offs[l], EMU_MBAR_WAITED);
	}
	if (done)
		b->mbar_moved = 1;
	return 0;
}

int mbar_deadlock(struct block *b)
{
	struct warp *w = NULL;
	unsigned mw = 0, bw = 0, ex = 0;
	for (unsigned i = 0; i < b->nwarps; i++) {
		struct warp *x = &b->warps[i];
		mw += x->state == W_MBAR;
		bw += x->state == W_BARRIER;
		ex += x->state == W_DONE;
		if (x->state == W_MBAR && !w)
			w = x;
	}
	if (!w) /* block_step calls it with a warp waiting */
		return 0;
	exec_stuck_deadlock(b); /* the grader's time limit set: the hang report; no return */
	const struct frame *fr = &w->frames[w->nframes - 1];
	const struct ptx_insn *in = &fr->f->code[w->stack[w->sp - 1].pc];
	struct mbar o = mb_load(b->shared + w->mbar_off);
	char tx[64] = "";
	if (o.tx > 0)
		snprintf(tx, sizeof tx, " and %d transaction bytes", (int)o.tx);
	return fault_set(b, w, w->mbar_lane, in, EMU_FAULT_BARRIER, -EDEADLK,
			 "this wait for an mbarrier phase (cuda::barrier::wait, a cuda::pipeline "
			 "wait, mbarrier.try_wait) can never complete: the mbarrier at shared offset "
			 "0x%x still expects %u of its %u arrivals%s, and no thread of the block can "
			 "arrive (%u warp%s wait for an mbarrier, %u at __syncthreads(), %u exited); "
			 "a GPU hangs here", w->mbar_off, o.pending, o.expected, tx, mw,
			 mw == 1 ? "" : "s", bw, ex);
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
