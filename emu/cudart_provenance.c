/* cudart_provenance — see cudart_provenance.h. Runs as the device's work only
 * (cudart_async.h): launches, copies, sets and frees, the synchronous ones through
 * rt_async_run, one at a time, so the scans of managed and pinned memory never meet,
 * however many host threads call the runtime; the harness's calls (begin, query) come
 * while the device is idle. */
#include "cudart_provenance.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "initcheck.h"

/* What is kept of deliveries at most: beyond it the counts are void. A lab program's
 * outputs on the emulator are a few megabytes. */
#define PROV_MAX_BYTES ((size_t)1 << 30)

/* A delivery, or a freed managed/pinned allocation (dst 0): DATA (n bytes), then its
 * flags as devmem_flags_get gives them, KBITS and FBITS ((n + 7) / 8 bytes each). */
struct prov_record {
	uintptr_t dst;
	size_t n;
	unsigned char *data, *kbits, *fbits;
};

static struct {
	int on, overflow;
	struct prov_record *r;
	size_t n, cap, bytes;
	unsigned long long launches;
} prov;

static void prov_drop(size_t i)
{
	prov.bytes -= prov.r[i].n;
	free(prov.r[i].data);
	memmove(prov.r + i, prov.r + i + 1, (prov.n - i - 1) * sizeof(prov.r[0]));
	prov.n--;
}

void emu_provenance_begin(void)
{
	while (prov.n)
		prov_drop(prov.n - 1);
	prov.on = 1;
	prov.overflow = 0;
	prov.launches = 0;
}

unsigned long long emu_launch_count(void)
{
	return prov.launches;
}

/* Keeps N bytes delivered to DST (0: a freed allocation) with the flags of the device
 * memory at FROM they came from. A newer delivery hides the older ones it covers
 * entirely: they are dropped. */
static void prov_keep(uintptr_t dst, const void *data, devaddr_t from, size_t n)
{
	if (!prov.on || !n)
		return;
	for (size_t i = prov.n; dst && i-- > 0;)
		if (prov.r[i].dst >= dst && prov.r[i].dst + prov.r[i].n <= dst + n)
			prov_drop(i);
	if (prov.n == prov.cap) {
		size_t cap = prov.cap ? 2 * prov.cap : 16;
		struct prov_record *r = realloc(prov.r, cap * sizeof(*r));
		if (!r) {
			prov.overflow = 1;
			return;
		}
		prov.r = r;
		prov.cap = cap;
	}
	size_t nb = (n + 7) / 8;
	unsigned char *copy = n <= PROV_MAX_BYTES - prov.bytes ? malloc(n + 2 * nb) : NULL;
	if (!copy) {
		prov.overflow = 1;
		return;
	}
	memcpy(copy, data, n);
	if (devmem_flags_get(from, n, copy + n, copy + n + nb) != 0)
		memset(copy + n, 0, 2 * nb); /* not reached: the callers checked FROM */
	prov.r[prov.n++] = (struct prov_record){ dst, n, copy, copy + n, copy + n + nb };
	prov.bytes += n;
}

static int prov_unified(const void *p)
{
	struct devmem_info in;
	return devmem_find((devaddr_t)(uintptr_t)p, &in) == 0 &&
	       (in.kind == DEVMEM_MANAGED || in.kind == DEVMEM_HOST);
}

void rt_prov_copy(const void *dst, const void *src, size_t n)
{
	devaddr_t d = (devaddr_t)(uintptr_t)dst, s = (devaddr_t)(uintptr_t)src;
	int from_device = devmem_host(s, n) != NULL; /* it has flags */
	if (from_device && prov_unified(src))
		devmem_unified_reconcile(); /* the host may have changed it since the kernel */
	if (devmem_host(d, n)) {
		if (from_device)
			devmem_flags_copy(d, s, n);
		else
			devmem_flags_set(d, n, 0);
		if (from_device && prov_unified(dst))
			devmem_unified_snapshot();
		initcheck_copy(d, s, n, from_device); /* after the flags: it reads them */
	} else if (from_device) {
		prov_keep((uintptr_t)dst, dst, s, n);
	}
}

void rt_prov_set(const void *dst, size_t n)
{
	devmem_flags_set((devaddr_t)(uintptr_t)dst, n, DEVMEM_FILLED);
	initcheck_set((devaddr_t)(uintptr_t)dst, n);
}

void rt_prov_launch_begin(void)
{
	devmem_unified_reconcile();
}

void rt_prov_launch_end(void)
{
	devmem_unified_snapshot();
	prov.launches++;
}

/* Nonzero when some of bits [0, n) of MAP is set (the bits past n are 0). */
static int any_bit(const unsigned char *map, size_t n)
{
	for (size_t i = 0; i < (n + 7) / 8; i++)
		if (map[i])
			return 1;
	return 0;
}

void rt_prov_free(const void *p)
{
	struct devmem_info in;
	devaddr_t a = (devaddr_t)(uintptr_t)p;
	if (!prov.on || !prov_unified(p) || devmem_find(a, &in) != 0 || !in.size)
		return;
	devmem_unified_reconcile();
	size_t nb = (in.size + 7) / 8;
	unsigned char *bits = malloc(2 * nb);
	if (!bits) {
		prov.overflow = 1;
		return;
	}
	if (devmem_flags_get(a, in.size, bits, bits + nb) == 0 && (any_bit(bits, in.size) || any_bit(bits + nb, in.size)))
		prov_keep(0, devmem_host(a, in.size), a, in.size);
	free(bits);
}

/* ---- the query ------------------------------------------------------------------- */

enum { ST_NONE, ST_KERNEL, ST_FILLED, ST_UNWRITTEN, ST_CHANGED };   /* per byte */
enum { C_KERNEL, C_STAGED, C_FILLED, C_CHANGED, C_UNWRITTEN, C_HOST }; /* per element */

/* A place the host may have copied kernel results from (at the same offsets). */
struct prov_source {
	const unsigned char *data, *kbits, *fbits;
	size_t n;
};

struct prov_sources {
	struct prov_source *s;
	size_t n, cap;
};

/* Only places with some kernel results are sources: a buffer the host only filled
 * would credit whatever equals its constant. */
static void sources_add(struct prov_sources *ss, const unsigned char *data,
			const unsigned char *kbits, const unsigned char *fbits, size_t n)
{
	if (!any_bit(kbits, n))
		return;
	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? 2 * ss->cap : 16;
		struct prov_source *s = realloc(ss->s, cap * sizeof(*s));
		if (!s)
			return; /* one source fewer: its elements count as the host's */
		ss->s = s;
		ss->cap = cap;
	}
	ss->s[ss->n++] = (struct prov_source){ data, kbits, fbits, n };
}

static void sources_add_view(const struct devmem_view *v, void *ctx)
{
	sources_add(ctx, (const unsigned char *)v->host, v->kbits, v->fbits, v->size);
}

/* Per byte of [lo, lo + bytes): what the newest delivery to it says. */
static void direct_pass(const unsigned char *cur, size_t bytes, unsigned char *st)
{
	uintptr_t lo = (uintptr_t)cur, hi = lo + bytes;
	for (size_t k = prov.n; k-- > 0;) {
		const struct prov_record *r = &prov.r[k];
		if (!r->dst || r->dst >= hi || r->dst + r->n <= lo)
			continue;
		uintptr_t a = r->dst > lo ? r->dst : lo;
		uintptr_t b = r->dst + r->n < hi ? r->dst + r->n : hi;
		for (uintptr_t x = a; x < b; x++) {
			size_t j = x - lo, i = x - r->dst;
			int flag = devmem_flag_at(r->kbits, r->fbits, i);
			if (!st[j])
				st[j] = cur[j] != r->data[i]        ? ST_CHANGED
					: flag == DEVMEM_BY_KERNEL ? ST_KERNEL
					: flag == DEVMEM_FILLED    ? ST_FILLED
								   : ST_UNWRITTEN;
		}
	}
}

static int staged_match(const struct prov_source *s, const unsigned char *cur, size_t e,
			size_t elem)
{
	size_t at = e * elem;
	if (at + elem > s->n || memcmp(cur + at, s->data + at, elem) != 0)
		return 0;
	for (size_t i = 0; i < elem; i++)
		if (!devmem_flag_at(s->kbits, s->fbits, at + i))
			return 0;
	return 1;
}

/* Elements the host wrote or changed may have been copied from a staging buffer that a
 * delivery filled (or managed memory a kernel wrote), at the same offsets: the one
 * source that explains the most of them is credited. */
static void staging_pass(const unsigned char *cur, size_t count, size_t elem, unsigned char *cls)
{
	struct prov_sources ss = { 0 };
	uintptr_t lo = (uintptr_t)cur, hi = lo + count * elem;
	for (size_t k = 0; k < prov.n; k++) {
		const struct prov_record *r = &prov.r[k];
		if (!r->dst || r->dst >= hi || r->dst + r->n <= lo)
			sources_add(&ss, r->data, r->kbits, r->fbits, r->n);
	}
	devmem_unified_each(sources_add_view, &ss);
	size_t best = 0, best_i = 0;
	for (size_t i = 0; i < ss.n; i++) {
		size_t hits = 0;
		for (size_t e = 0; e < count; e++)
			hits += (cls[e] == C_CHANGED || cls[e] == C_HOST) &&
				staged_match(&ss.s[i], cur, e, elem);
		if (hits > best) {
			best = hits;
			best_i = i;
		}
	}
	for (size_t e = 0; best && e < count; e++)
		if ((cls[e] == C_CHANGED || cls[e] == C_HOST) && staged_match(&ss.s[best_i], cur, e, elem))
			cls[e] = C_STAGED;
	free(ss.s);
}

int emu_provenance_query(const void *p, size_t bytes, size_t elem, unsigned long long *out)
{
	memset(out, 0, EMU_PROV_COUNT * sizeof(*out));
	if (!elem || bytes % elem)
		return -EINVAL;
	size_t count = bytes / elem;
	out[EMU_PROV_ELEMENTS] = out[EMU_PROV_FIRST_BAD] = count;
	out[EMU_PROV_OVERFLOW] = (unsigned long long)prov.overflow;
	if (!count)
		return 0;
	devmem_unified_reconcile();
	const unsigned char *cur = p;
	unsigned char *st = calloc(bytes, 1), *cls = malloc(count);
	if (!st || !cls) {
		free(st);
		free(cls);
		return -ENOMEM;
	}
	direct_pass(cur, bytes, st);
	int doubtful = 0;
	for (size_t e = 0; e < count; e++) {
		const unsigned char *s = st + e * elem;
		int kernel = 1, filled = 1, changed = 0, none = 0;
		for (size_t i = 0; i < elem; i++) {
			kernel &= s[i] == ST_KERNEL;
			filled &= s[i] == ST_KERNEL || s[i] == ST_FILLED;
			changed |= s[i] == ST_CHANGED;
			none |= s[i] == ST_NONE;
		}
		cls[e] = kernel ? C_KERNEL : filled ? C_FILLED : changed ? C_CHANGED : none ? C_HOST
											: C_UNWRITTEN;
		doubtful |= cls[e] == C_CHANGED || cls[e] == C_HOST;
	}
	if (doubtful)
		staging_pass(cur, count, elem, cls);
	static const int slot[] = { [C_KERNEL] = EMU_PROV_KERNEL, [C_STAGED] = EMU_PROV_STAGED,
				    [C_FILLED] = EMU_PROV_FILLED, [C_CHANGED] = EMU_PROV_CHANGED,
				    [C_UNWRITTEN] = EMU_PROV_UNWRITTEN, [C_HOST] = EMU_PROV_HOST };
	for (size_t e = 0; e < count; e++) {
		out[slot[cls[e]]]++;
		if (cls[e] == C_STAGED)
			out[EMU_PROV_KERNEL]++;
		else if (cls[e] != C_KERNEL && cls[e] != C_FILLED && out[EMU_PROV_FIRST_BAD] == count)
			out[EMU_PROV_FIRST_BAD] = e;
	}
	free(st);
	free(cls);
	return 0;
}

static void count_view(const struct devmem_view *v, void *ctx)
{
	unsigned long long *n = ctx;
	for (size_t i = 0; i < v->size; i++)
		*n += devmem_flag_at(v->kbits, v->fbits, i) == DEVMEM_BY_KERNEL;
}

unsigned long long emu_provenance_kernel_bytes(void)
{
	unsigned long long n = 0;
	devmem_unified_reconcile();
	for (size_t k = 0; k < prov.n; k++)
		for (size_t i = 0; i < prov.r[k].n; i++)
			n += devmem_flag_at(prov.r[k].kbits, prov.r[k].fbits, i) == DEVMEM_BY_KERNEL;
	devmem_unified_each(count_view, &n);
	return n;
}
