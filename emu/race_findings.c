/* race_findings — what a finding of the race checker says (race_internal.h): where its
 * barrier is missing (a path between its two accesses that passes no barrier, and
 * whether it goes round a loop), its message, and its JSON event; a finding is kept
 * once per kind and pair of places, with the example of the lowest block. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"
#include "race.h"
#include "race_internal.h"

/* ---- where the barrier is missing ---------------------------------------------- */

/* Does the instruction wait for the block (or, warp: for the warp)? A call does when
 * its function has such a barrier (nvcc -O0 keeps __syncwarp() as a call). */
static int is_barrier(const struct ptx_module *m, const struct ptx_insn *in, int warp)
{
	if (in->op == OP_CALL && in->target < m->nfuncs) {
		const struct ptx_func *f = &m->funcs[in->target];
		for (unsigned pc = 0; pc < f->ncode; pc++)
			if (f->code[pc].op != OP_CALL && is_barrier(m, &f->code[pc], warp))
				return 1;
		return 0;
	}
	if (in->op == OP_BARWARP)
		return warp;
	return (in->op == OP_BAR || in->op == OP_BARRIER) && in->mod != BAR_ARRIVE;
}

/* The successors of pc in f: fills s[0..1], returns how many. */
static unsigned successors(const struct ptx_func *f, unsigned pc, unsigned s[2])
{
	const struct ptx_insn *in = &f->code[pc];
	unsigned n = 0;
	int ends = in->op == OP_BRA || in->op == OP_RET || in->op == OP_EXIT ||
		   in->op == OP_TRAP || in->op == OP_BRKPT;
	if (in->op == OP_BRA && in->target < f->ncode)
		s[n++] = in->target;
	if ((!ends || in->guard >= 0) && pc + 1 < f->ncode)
		s[n++] = pc + 1;
	return n;
}

/* Is there a path from pc a to pc b in f that passes no barrier (forward: without a
 * backward branch)? parent[] (f->ncode entries) gets the path. */
static int free_path(const struct ptx_module *m, const struct ptx_func *f, unsigned a,
		     unsigned b, int forward, int warp, unsigned *parent, unsigned *queue)
{
	unsigned head = 0, tail = 0, s[2];
	for (unsigned pc = 0; pc < f->ncode; pc++)
		parent[pc] = UINT32_MAX;
	for (unsigned i = successors(f, a, s); i-- > 0;)
		if (!forward || s[i] > a) {
			parent[s[i]] = a;
			queue[tail++] = s[i];
		}
	while (head < tail) {
		unsigned u = queue[head++];
		if (u == b)
			return 1;
		if (is_barrier(m, &f->code[u], warp))
			continue;
		for (unsigned i = successors(f, u, s); i-- > 0;)
			if ((!forward || s[i] > u) && parent[s[i]] == UINT32_MAX) {
				parent[s[i]] = u;
				queue[tail++] = s[i];
			}
	}
	return 0;
}

/* Fills f's gap fields (and region) for a hazard between the accesses of g. */
static void gap_classify(const struct race_tracker *t, const struct gap_in *g,
			 struct race_finding *f, struct gap_region *region)
{
	const struct ptx_module *m = t->m;
	uint32_t w1 = g->where1, w2 = g->where2;
	memset(region, 0, sizeof *region);
	if ((w1 & WHERE_LINE) || (w2 & WHERE_LINE) || w1 >> WHERE_FSHIFT != w2 >> WHERE_FSHIFT ||
	    w1 >> WHERE_FSHIFT >= m->nfuncs)
		return;
	const struct ptx_func *fn = &m->funcs[w1 >> WHERE_FSHIFT];
	unsigned p1 = w1 & WHERE_PCMASK, p2 = w2 & WHERE_PCMASK;
	if (p1 >= fn->ncode || p2 >= fn->ncode)
		return;
	unsigned *parent = malloc(2 * fn->ncode * sizeof(unsigned));
	if (!parent)
		return;
	/* the access of the earlier pass first: the barrier goes between it and the later
	 * pass's access; then the forward ways within one pass; then any way round */
	struct way { unsigned from, to; int forward; } c[5];
	unsigned nc = 0;
	if (g->pass1 != g->pass2)
		c[nc++] = g->pass1 < g->pass2 ? (struct way){ p1, p2, 0 }
					      : (struct way){ p2, p1, 0 };
	c[nc++] = (struct way){ p1, p2, 1 };
	c[nc++] = (struct way){ p2, p1, 1 };
	c[nc++] = (struct way){ p1, p2, 0 };
	c[nc++] = (struct way){ p2, p1, 0 };
	unsigned i = 0;
	while (i < nc && !free_path(m, fn, c[i].from, c[i].to, c[i].forward, g->warp, parent,
				    parent + fn->ncode))
		i++;
	region->fn = w1 >> WHERE_FSHIFT;
	region->known = 1;
	if (i == nc) {
		f->gap = p1 == p2 ? RACE_GAP_BETWEEN : RACE_GAP_UNKNOWN; /* one instruction */
		f->gap_line1 = f->gap_line2 = fn->code[p1].line;
		region->lo = region->hi = p1;
		region->known = p1 == p2;
		free(parent);
		return;
	}
	unsigned from = c[i].from, to = c[i].to;
	f->gap_from_write = from == p1 ? f->write1 : f->write2;
	f->gap_line1 = fn->code[from].line;
	f->gap_line2 = fn->code[to].line;
	/* the outermost backward branch on the path, if any */
	unsigned head = UINT32_MAX, br = 0;
	for (unsigned v = to, n = 0; n <= fn->ncode; n++) {
		unsigned u = parent[v];
		if (u == UINT32_MAX)
			break;
		if (v <= u && v < head) {
			head = v;
			br = u;
		}
		if (u == from)
			break;
		v = u;
	}
	free(parent);
	if (head == UINT32_MAX) {
		f->gap = RACE_GAP_BETWEEN;
		region->lo = from;
		region->hi = to;
		return;
	}
	f->gap = RACE_GAP_LOOP;
	f->ahead = to == p1 ? 1 : 2;
	region->lo = head;
	region->hi = br;
	uint16_t file = fn->code[from].file;
	for (unsigned pc = head; pc <= br; pc++) {
		const struct ptx_insn *in = &fn->code[pc];
		if (!in->line || in->file != file)
			continue;
		if (!f->loop_first || in->line < f->loop_first)
			f->loop_first = in->line;
		if (in->line > f->loop_last)
			f->loop_last = in->line;
	}
	/* the barrier that orders the two within one pass */
	for (unsigned pc = to < from ? to + 1 : from + 1; pc < (to < from ? from : to); pc++)
		if (is_barrier(m, &fn->code[pc], 0) && fn->code[pc].line) {
			f->bar_line = fn->code[pc].line;
			break;
		}
}

static void fmt_thread(char *buf, size_t len, const struct emu_dim3 *d)
{
	snprintf(buf, len, "(%u,%u,%u)", d->x, d->y, d->z);
}

/* A hazard between two passes of a loop: which thread ran ahead, and that the barrier
 * missing is the one between the earlier pass's access and the next pass's. */
static void loop_message(struct race_finding *f, const char *t1, const char *t2,
			 const char *b, const char *elem, const char *sync, const char *who)
{
	char ahead[96], order[160] = "";
	snprintf(ahead, sizeof ahead, ", already in a later pass of the loop of lines %u-%u,",
		 f->loop_first, f->loop_last);
	const char *a1 = f->ahead == 1 ? ahead : "", *a2 = f->ahead == 2 ? ahead : "";
	if (f->bar_line)
		snprintf(order, sizeof order, " (the one at line %u only orders the accesses of "
			 "one pass)", f->bar_line);
	static const char *const verb2[] = { "read", "overwrote", "wrote" };
	static const char *const verb1[] = { "wrote", "still read", "wrote" };
	static const char *const then[] = {
		"it may read the old or the new value", "the reader may get the new value",
		"which value remains depends on timing" };
	unsigned k = f->kind == RACE_RAW ? 0 : f->kind == RACE_WAR ? 1 : 2;
	snprintf(f->message, sizeof f->message,
		 "thread %s of block %s%s %s %s at line %u while %s %s%s %s it at line %u, with "
		 "no %s between them: none between line %u and the loop's next pass at line "
		 "%u%s, so %s", t2, b, a2, verb2[k], elem, f->line2, who, t1, a1, verb1[k],
		 f->line1, sync, f->gap_line1, f->gap_line2, order, then[k]);
}

void race_hazard_message(struct race_finding *f)
{
	char t1[40], t2[40], b[40], elem[96];
	fmt_thread(t1, sizeof t1, &f->thread1);
	fmt_thread(t2, sizeof t2, &f->thread2);
	fmt_thread(b, sizeof b, &f->block);
	if (f->var[0] && f->size && f->offset % f->size == 0)
		snprintf(elem, sizeof elem, "%s[%llu]", f->var,
			 (unsigned long long)(f->offset / f->size));
	else if (f->var[0])
		snprintf(elem, sizeof elem, "%s (byte %llu)", f->var,
			 (unsigned long long)f->offset);
	else
		snprintf(elem, sizeof elem, "shared memory at byte %llu",
			 (unsigned long long)f->offset);
	const char *sync = f->intra_warp ? "__syncwarp()" : "__syncthreads()";
	const char *who = f->intra_warp ? "another thread of its warp" : "thread";
	if (f->gap == RACE_GAP_LOOP && f->kind != RACE_UNINIT) {
		loop_message(f, t1, t2, b, elem, sync, who);
		return;
	}
	switch (f->kind) {
	case RACE_RAW:
		snprintf(f->message, sizeof f->message,
			 "thread %s of block %s read %s at line %u while %s %s wrote it at line %u "
			 "with no %s between, so it may read the old or the new value",
			 t2, b, elem, f->line2, who, t1, f->line1, sync);
		break;
	case RACE_WAR:
		snprintf(f->message, sizeof f->message,
			 "thread %s of block %s overwrote %s at line %u while %s %s still read it "
			 "at line %u with no %s between, so the reader may get the new value",
			 t2, b, elem, f->line2, who, t1, f->line1, sync);
		break;
	case RACE_WAW:
		snprintf(f->message, sizeof f->message,
			 "thread %s of block %s wrote %s at line %u after %s %s wrote it at line %u "
			 "with no %s between, so which value remains depends on timing",
			 t2, b, elem, f->line2, who, t1, f->line1, sync);
		break;
	case RACE_UNINIT:
		snprintf(f->message, sizeof f->message,
			 "thread %s of block %s %s %s at line %u, which no thread of the block had "
			 "written: shared memory starts with undefined contents",
			 t2, b, f->write2 ? "updated" : "read", elem, f->line2);
		break;
	default:
		break;
	}
}

static void barrier_message(struct race_finding *f)
{
	char b[40];
	fmt_thread(b, sizeof b, &f->block);
	if (f->kind == RACE_BAR_DIVERGENT)
		snprintf(f->message, sizeof f->message,
			 "in block %s, %u threads waited at the __syncthreads() at line %u while %u "
			 "waited at the one at line %u: every thread of a block must reach the same "
			 "barrier", b, f->threads1, f->line1, f->threads2, f->line2);
	else if (f->line2)
		snprintf(f->message, sizeof f->message,
			 "the __syncthreads() at line %u was reached by %u of the %u threads of "
			 "block %s; the other %u had already exited (line %u), which a GPU does not "
			 "guarantee to handle", f->line1, f->threads1, f->nthreads, b, f->threads2,
			 f->line2);
	else
		snprintf(f->message, sizeof f->message,
			 "the __syncthreads() at line %u was reached by %u of the %u threads of "
			 "block %s; the other %u had already exited", f->line1, f->threads1,
			 f->nthreads, b, f->threads2);
}

/* Completes f (where its barrier is missing, its message) and stores it as finding i. */
static void store(struct race_tracker *t, unsigned i, struct rblock *rb, struct race_finding *f,
		  const struct gap_in *g)
{
	f->kernel = t->kf->name;
	f->block = rb->bid;
	f->nthreads = t->nthreads;
	t->region[i].known = 0;
	if (g)
		gap_classify(t, g, f, &t->region[i]);
	if (f->kind >= RACE_BAR_DIVERGENT)
		barrier_message(f);
	else
		race_hazard_message(f);
	t->f[i] = *f;
}

/* Records finding f (key identifies it; g: a hazard's accesses, else NULL) unless this
 * block or the tracker has it. */
void race_report(struct rblock *rb, uint64_t key, struct race_finding *f,
		 const struct gap_in *g)
{
	struct race_tracker *t = rb->t;
	for (unsigned i = 0; i < rb->nseen; i++)
		if (rb->seen[i] == key)
			return;
	if (rb->nseen < RACE_SEEN)
		rb->seen[rb->nseen++] = key;
	pthread_mutex_lock(&t->lock);
	unsigned i;
	for (i = 0; i < t->nf; i++)
		if (t->keys[i] == key)
			break;
	if (i < t->nf) {
		t->f[i].count++;
		/* keep the example of the lowest block, so runs agree whatever the schedule */
		if (rb->idx < t->f[i].block.x + t->l->grid.x * (t->f[i].block.y +
		    t->l->grid.y * t->f[i].block.z)) {
			unsigned c = t->f[i].count;
			store(t, i, rb, f, g);
			t->f[i].count = c;
		}
	} else if (t->nf < RACE_MAX_FINDINGS) {
		f->count = 1;
		t->keys[t->nf] = key;
		store(t, t->nf++, rb, f, g);
	}
	pthread_mutex_unlock(&t->lock);
}

uint64_t race_key(enum race_kind k, int intra, uint32_t a, uint32_t b)
{
	return (uint64_t)k << 61 | (uint64_t)(intra & 1) << 60 | (uint64_t)(a & 0x3fffffff) << 30 |
	       (b & 0x3fffffff);
}

const char *race_kind_name(enum race_kind k)
{
	static const char *const n[] = { "raw", "war", "waw", "uninit", "barrier-divergence",
					 "barrier-exited" };
	return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

const char *race_gap_name(enum race_gap g)
{
	return g == RACE_GAP_BETWEEN ? "between" : g == RACE_GAP_LOOP ? "loop" : "";
}

const char *race_severity(const struct race_finding *f)
{
	return f->intra_warp || f->kind == RACE_UNINIT ? "warning" : "error";
}

/* Appends s to buf as a JSON string body (quotes and control characters escaped). */
static size_t json_str(char *buf, size_t len, size_t at, const char *s)
{
	for (; s && *s; s++) {
		char esc[8];
		const char *p = esc;
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof esc, "\\%c", c);
		else if (c < 0x20)
			snprintf(esc, sizeof esc, "\\u%04x", c);
		else
			esc[0] = (char)c, esc[1] = 0;
		for (; *p; p++, at++)
			if (at + 1 < len)
				buf[at] = *p;
	}
	if (len)
		buf[at < len ? at : len - 1] = 0;
	return at;
}

static size_t json_put(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t json_put(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, fmt, ap);
	va_end(ap);
	return at + (n > 0 ? (size_t)n : 0);
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "";
}

size_t race_finding_json(const struct race_finding *f, char *buf, size_t len)
{
	size_t at = 0;
	at = json_put(buf, len, at, "{\"event\":\"finding\",\"check\":\"race\",\"kind\":\"%s\","
		      "\"severity\":\"%s\",\"intra_warp\":%s,\"kernel\":\"", race_kind_name(f->kind),
		      race_severity(f), f->intra_warp ? "true" : "false");
	at = json_str(buf, len, at, f->kernel);
	int bar = f->kind >= RACE_BAR_DIVERGENT;
	/* the finding is located at the later access (hazards) or the barrier */
	const char *file = bar ? f->file1 : f->file2;
	unsigned line = bar ? f->line1 : f->line2;
	const struct emu_dim3 *th = bar ? &f->thread1 : &f->thread2;
	at = json_put(buf, len, at, "\",\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"file\":\"",
		      f->block.x, f->block.y, f->block.z, th->x, th->y, th->z);
	at = json_str(buf, len, at, base_name(file));
	at = json_put(buf, len, at, "\",\"line\":%u", line);
	if (f->kind != RACE_UNINIT) {
		const char *of = bar ? f->file2 : f->file1;
		unsigned ol = bar ? f->line2 : f->line1;
		const struct emu_dim3 *ot = bar ? &f->thread2 : &f->thread1;
		at = json_put(buf, len, at, ",\"other_file\":\"");
		at = json_str(buf, len, at, base_name(of));
		at = json_put(buf, len, at, "\",\"other_line\":%u,\"other_thread\":[%u,%u,%u]", ol,
			      ot->x, ot->y, ot->z);
	}
	if (!bar) {
		at = json_put(buf, len, at, ",\"var\":\"");
		at = json_str(buf, len, at, f->var);
		at = json_put(buf, len, at, "\",\"offset\":%llu,\"size\":%u",
			      (unsigned long long)f->offset, f->size);
		if (f->var[0] && f->size && f->offset % f->size == 0)
			at = json_put(buf, len, at, ",\"index\":%llu",
				      (unsigned long long)(f->offset / f->size));
		if (f->var_bytes)
			at = json_put(buf, len, at, ",\"var_bytes\":%llu",
				      (unsigned long long)f->var_bytes);
		if (f->gap != RACE_GAP_UNKNOWN)
			at = json_put(buf, len, at, ",\"missing_barrier\":\"%s\",\"gap_lines\":[%u,%u],"
				      "\"gap_from\":\"%s\"", race_gap_name(f->gap), f->gap_line1,
				      f->gap_line2, f->gap_from_write ? "write" : "read");
		if (f->gap == RACE_GAP_LOOP)
			at = json_put(buf, len, at, ",\"loop_lines\":[%u,%u],\"barrier_line\":%u",
				      f->loop_first, f->loop_last, f->bar_line);
	} else {
		at = json_put(buf, len, at, ",\"threads\":[%u,%u],\"block_threads\":%u",
			      f->threads1, f->threads2, f->nthreads);
	}
	at = json_put(buf, len, at, ",\"count\":%u,\"message\":\"", f->count);
	at = json_str(buf, len, at, f->message);
	at = json_put(buf, len, at, "\"}");
	return at;
}
