/* devmem — the emulated device address space (see devmem.h).
 *
 * Two reservations of the same size: a PROT_NONE range whose addresses are the device
 * addresses (so a host dereference of a device pointer faults), and a read-write shadow
 * holding the data at the same offset. Allocations are bump-allocated and never reused,
 * with a guard gap after each, so overruns and stale pointers land outside every live
 * allocation. Managed/host memory is ordinary host memory whose address is also its
 * device address; the host may map those addresses again after a free, so a new managed
 * or host allocation replaces the freed records it overlaps.
 *
 * Every allocation also has its written flags (devmem.h), two bitmaps K and F: for
 * device memory in a third reservation, an eighth of the data's size each, at an eighth
 * of the data's offset, so the flags cost address space only until a kernel writes; for
 * managed and host memory in a mapping of its own, K, F and then the snapshot of the
 * values kernels wrote. Allocations start 256-byte aligned, so two never share a 64-bit
 * word of flags: a kernel's atomic OR on one (devmem_flag_or) concerns one allocation.
 * The runtime's side reads and writes them byte by byte while no kernel runs.
 */
#include "devmem.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEVMEM_ALIGN 256u
/* The guard gap after an allocation is as large as the allocation, between 64 KiB and
 * 4 MiB: the usual overruns (a block, a tile or a row of a matrix past the end) must land
 * in the gap, not in the next array, or no check could see them. Only address space is
 * spent: the gap is never backed by memory. */
#define DEVMEM_GAP_MIN ((size_t)64 << 10)
#define DEVMEM_GAP_MAX ((size_t)4 << 20)

struct devmem_alloc {
	devaddr_t base;
	size_t size;
	char *host; /* backing memory */
	unsigned char *kbits, *fbits; /* the written flags (devmem.h): bit i: byte i */
	char *snap;                   /* managed/host: values at the last snapshot */
	enum devmem_kind kind;
	char *label;
	int live;
	/* some written flag may be set: a handle to the flags was handed out to a writer
	 * (devmem_written, devmem_lookup_range), or a set or copy wrote some. Reconcile and snapshot skip the others, so
	 * a launch costs nothing for a large pinned buffer no kernel or copy wrote (it
	 * scanned every byte's flag twice a launch: 32 ms for 64 MiB). Set, never cleared. */
	int flagged;
	int committed; /* its pages were committed at allocation (devmem_commit) */
};

static pthread_rwlock_t devmem_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t devmem_once = PTHREAD_ONCE_INIT;
static char *devmem_dev;    /* PROT_NONE reservation (device addresses) */
static char *devmem_shadow; /* RW data */
static unsigned char *devmem_kmap, *devmem_fmap; /* RW flag bitmaps, at an eighth of the
						   data's offsets */
static size_t devmem_range, devmem_next;
static struct devmem_alloc *devmem_tab; /* sorted by base */
static size_t devmem_n, devmem_cap;
static size_t devmem_scanned; /* bytes of flags reconcile and snapshot read (devmem.h) */

/* Bytes of one bitmap of SPAN bytes' flags, whole 64-bit words (the scans read words). */
static size_t devmem_bitmap_size(size_t span)
{
	return (span + 63) / 64 * 8;
}

/* A managed or host allocation's flags mapping: K, F, the snapshot. */
static size_t devmem_unified_flags_size(size_t span)
{
	return 2 * devmem_bitmap_size(span) + span;
}

/* Gives back the whole pages of [lo, hi) of MAP. */
static void devmem_drop_pages(void *map, size_t lo, size_t hi)
{
	lo = (lo + 4095) & ~(size_t)4095;
	hi &= ~(size_t)4095;
	if (hi > lo)
		madvise((char *)map + lo, hi - lo, MADV_DONTNEED);
}

/* Device memory is committed when it is allocated, as cudaMalloc's is on a GPU: left to
 * the first touch, a kernel writing its output took a page fault every 4 KiB in the
 * middle of its run (the vector add of emu_bench: 16384 of them, 2.1 us each here, a
 * fifth of its CPU time), where committing costs 1.5 us a page at the allocation. Up to
 * DEVMEM_COMMIT_MAX of live allocations (or an eighth of the RAM, if less): a program
 * that allocates more than it touches must not take the machine's memory; past it,
 * pages come at their first touch as before. Address space, guard gaps and flags are
 * unchanged: a kernel's first write of each 32 KiB still faults one page of flags. */
#define DEVMEM_COMMIT_MAX ((size_t)1 << 30)
static size_t devmem_committed; /* bytes of live committed allocations (under the lock) */

/* Whether SPAN more bytes may be committed; counts them if so. Caller holds the lock. */
static int devmem_commit_take(size_t span)
{
	static size_t limit;
	if (!limit) {
		long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
		size_t ram = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : 0;
		limit = ram / 8 < DEVMEM_COMMIT_MAX ? ram / 8 : DEVMEM_COMMIT_MAX; /* 0: commit nothing */
	}
	if (span > limit - devmem_committed || devmem_committed > limit)
		return 0;
	devmem_committed += span;
	return 1;
}

/* Commits the whole pages of [p, p + span), the ones devmem_free gives back (without the
 * lock: it takes a while). A kernel without MADV_POPULATE_WRITE (before Linux 5.14)
 * refuses: then first touches fault. */
static void devmem_commit(char *p, size_t span)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, hi = ((uintptr_t)p + span) & ~(uintptr_t)4095;
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)span;
#endif
}

/* ---- bitmaps: bit i of MAP is bit i % 8 of MAP[i / 8] --------------------------- */

/* Up to 8 bits of MAP from bit AT on (K of them: no byte past them is read). */
static unsigned bits_get8(const unsigned char *map, size_t at, unsigned k)
{
	unsigned s = at & 7, v = map[at >> 3] >> s;
	if (s + k > 8)
		v |= (unsigned)map[(at >> 3) + 1] << (8 - s);
	return v & ((1u << k) - 1);
}

/* Bits [at, at + k) of MAP (k <= 8) to the low K bits of V. */
static void bits_put8(unsigned char *map, size_t at, unsigned v, unsigned k)
{
	unsigned s = at & 7, mask = ((1u << k) - 1) << s, val = v << s;
	unsigned char *p = map + (at >> 3);
	p[0] = (unsigned char)((p[0] & ~mask) | (val & mask));
	if (s + k > 8)
		p[1] = (unsigned char)((p[1] & ~(mask >> 8)) | ((val & mask) >> 8));
}

/* Bits [at, at + n) of MAP set to V (0 or 1). */
static void bits_fill(unsigned char *map, size_t at, size_t n, int v)
{
	unsigned ones = v ? 0xff : 0;
	for (; n && (at & 7); at++, n--)
		bits_put8(map, at, ones, 1);
	memset(map + (at >> 3), (int)ones, n / 8);
	at += n / 8 * 8;
	if (n % 8)
		bits_put8(map, at, ones, (unsigned)(n % 8));
}

/* N bits from SRC's bit SAT on to DST's bit DAT on. The ranges must not overlap. */
static void bits_copy(unsigned char *dst, size_t dat, const unsigned char *src, size_t sat,
		      size_t n)
{
	size_t i = 0;
	if (((dat ^ sat) & 7) == 0) { /* the same place in a byte: whole bytes between */
		for (; i < n && ((dat + i) & 7); i++)
			bits_put8(dst, dat + i, bits_get8(src, sat + i, 1), 1);
		size_t whole = (n - i) / 8 * 8;
		memcpy(dst + ((dat + i) >> 3), src + ((sat + i) >> 3), whole / 8);
		i += whole;
	}
	for (; i < n; i += 8) {
		unsigned k = n - i < 8 ? (unsigned)(n - i) : 8;
		bits_put8(dst, dat + i, bits_get8(src, sat + i, k), k);
	}
}

/* Nonzero when bits [a, a + n) and [b, b + n) of the same map may share a byte. */
static int bits_overlap(size_t a, size_t b, size_t n)
{
	return a / 8 <= (b + n) / 8 && b / 8 <= (a + n) / 8;
}

/* Reserves the ranges, trying smaller sizes when the system refuses a large one. */
static void devmem_setup(void)
{
	for (size_t sz = (size_t)256 << 30; sz >= ((size_t)1 << 30); sz >>= 1) {
		void *d = mmap(NULL, sz, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (d == MAP_FAILED)
			continue;
		void *s = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		void *f = mmap(NULL, sz / 4, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (s == MAP_FAILED || f == MAP_FAILED) {
			munmap(d, sz);
			if (s != MAP_FAILED)
				munmap(s, sz);
			if (f != MAP_FAILED)
				munmap(f, sz / 4);
			continue;
		}
		devmem_dev = d;
		devmem_shadow = s;
		devmem_kmap = f;
		devmem_fmap = (unsigned char *)f + sz / 8;
		devmem_range = sz;
		devmem_next = DEVMEM_ALIGN; /* keep device address base+0 unused */
		return;
	}
}

/* Index of the first entry with base > addr. Caller holds the lock. */
static size_t devmem_upper(devaddr_t addr)
{
	size_t lo = 0, hi = devmem_n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (devmem_tab[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The labels of forgotten records (devmem_forget_reused) stay allocated and reachable, as
 * every freed record's did: a devmem_info handed out before may still point at one. */
static char **devmem_retired;
static size_t devmem_nretired, devmem_retired_cap;

static void devmem_retire_label(char *label)
{
	if (!label)
		return;
	if (devmem_nretired == devmem_retired_cap) {
		size_t cap = devmem_retired_cap ? devmem_retired_cap * 2 : 16;
		char **t = realloc(devmem_retired, cap * sizeof *t);
		if (!t) { /* out of memory: free it; only a message could still read it */
			free(label);
			return;
		}
		devmem_retired = t;
		devmem_retired_cap = cap;
	}
	devmem_retired[devmem_nretired++] = label;
}

/* Forgets the freed managed or host allocations that overlap A's range. Their memory was
 * unmapped and the kernel may hand it out again (another host thread's cudaMallocManaged,
 * often at another base): a freed record starting inside the new range would hide it
 * from devmem_lookup, which looks at the last base at or below an address, and a kernel
 * reading the new allocation would fault as a use after free. Caller holds the lock. */
static void devmem_forget_reused(const struct devmem_alloc *a)
{
	devaddr_t end = a->base + (a->size ? a->size : 1);
	size_t kept = 0;
	for (size_t k = 0; k < devmem_n; k++) {
		struct devmem_alloc *o = &devmem_tab[k];
		if (!o->live && o->base < end && a->base < o->base + (o->size ? o->size : 1)) {
			devmem_retire_label(o->label);
			continue;
		}
		devmem_tab[kept++] = *o;
	}
	devmem_n = kept;
}

static int devmem_insert(const struct devmem_alloc *a)
{
	if (a->kind == DEVMEM_MANAGED || a->kind == DEVMEM_HOST)
		devmem_forget_reused(a);
	if (devmem_n == devmem_cap) {
		size_t cap = devmem_cap ? devmem_cap * 2 : 64;
		struct devmem_alloc *t = realloc(devmem_tab, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		devmem_tab = t;
		devmem_cap = cap;
	}
	size_t at = devmem_upper(a->base);
	memmove(devmem_tab + at + 1, devmem_tab + at, (devmem_n - at) * sizeof(*a));
	devmem_tab[at] = *a;
	devmem_n++;
	return 0;
}

int devmem_alloc(size_t size, enum devmem_kind kind, const char *label, devaddr_t *out)
{
	pthread_once(&devmem_once, devmem_setup);
	struct devmem_alloc a = { .size = size, .kind = kind, .live = 1 };
	size_t span = (size ? size : 1);
	if (label && !(a.label = strdup(label)))
		return -ENOMEM;
	if (kind == DEVMEM_MANAGED || kind == DEVMEM_HOST) {
		void *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (p == MAP_FAILED)
			goto fail_label;
		void *f = mmap(NULL, devmem_unified_flags_size(span), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (f == MAP_FAILED) {
			munmap(p, span);
			goto fail_label;
		}
		a.host = p;
		a.kbits = f;
		a.fbits = a.kbits + devmem_bitmap_size(span);
		a.snap = (char *)a.fbits + devmem_bitmap_size(span);
		a.base = (devaddr_t)(uintptr_t)p;
	}
	pthread_rwlock_wrlock(&devmem_lock);
	if (!a.host) {
		size_t gap = span < DEVMEM_GAP_MIN ? DEVMEM_GAP_MIN :
			     span > DEVMEM_GAP_MAX ? DEVMEM_GAP_MAX : span;
		size_t need = (span + gap + DEVMEM_ALIGN - 1) & ~(size_t)(DEVMEM_ALIGN - 1);
		if (!devmem_dev || need > devmem_range - devmem_next)
			goto fail_unlock;
		a.base = (devaddr_t)(uintptr_t)(devmem_dev + devmem_next);
		a.host = devmem_shadow + devmem_next;
		a.kbits = devmem_kmap + devmem_next / 8;
		a.fbits = devmem_fmap + devmem_next / 8;
		devmem_next += need;
		a.committed = kind == DEVMEM_GLOBAL && devmem_commit_take(span);
	}
	if (devmem_insert(&a) < 0) {
		if (a.committed)
			devmem_committed -= span;
		goto fail_unlock;
	}
	pthread_rwlock_unlock(&devmem_lock);
	if (a.committed)
		devmem_commit(a.host, span);
	*out = a.base;
	return 0;

fail_unlock:
	pthread_rwlock_unlock(&devmem_lock);
	if (a.host && (kind == DEVMEM_MANAGED || kind == DEVMEM_HOST)) {
		munmap(a.host, span);
		munmap(a.kbits, devmem_unified_flags_size(span));
	}
fail_label:
	free(a.label);
	return -ENOMEM;
}

int devmem_free(devaddr_t addr)
{
	pthread_rwlock_wrlock(&devmem_lock);
	size_t i = devmem_upper(addr);
	if (i == 0 || devmem_tab[i - 1].base != addr || !devmem_tab[i - 1].live) {
		pthread_rwlock_unlock(&devmem_lock);
		return -EINVAL;
	}
	struct devmem_alloc *a = &devmem_tab[i - 1];
	a->live = 0;
	size_t span = a->size ? a->size : 1;
	if (a->kind == DEVMEM_MANAGED || a->kind == DEVMEM_HOST) {
		munmap(a->host, span);
		munmap(a->kbits, devmem_unified_flags_size(span));
	} else {
		/* give whole pages back; the range itself is never reused */
		size_t off = (size_t)(a->host - devmem_shadow);
		devmem_drop_pages(devmem_shadow, off, off + span);
		devmem_drop_pages(devmem_kmap, off / 8, (off + span) / 8);
		devmem_drop_pages(devmem_fmap, off / 8, (off + span) / 8);
		if (a->committed)
			devmem_committed -= span;
		a->committed = 0;
	}
	a->host = NULL;
	a->kbits = a->fbits = NULL;
	a->snap = NULL;
	pthread_rwlock_unlock(&devmem_lock);
	return 0;
}

int devmem_revive(devaddr_t addr)
{
	pthread_rwlock_wrlock(&devmem_lock);
	size_t i = devmem_upper(addr);
	struct devmem_alloc *a = i ? &devmem_tab[i - 1] : NULL;
	if (!a || a->base != addr || a->live || a->kind != DEVMEM_GLOBAL) {
		pthread_rwlock_unlock(&devmem_lock);
		return -EINVAL;
	}
	size_t off = (size_t)(addr - (devaddr_t)(uintptr_t)devmem_dev);
	a->host = devmem_shadow + off;
	a->kbits = devmem_kmap + off / 8;
	a->fbits = devmem_fmap + off / 8;
	/* the host's, as a fresh allocation */
	bits_fill(a->kbits, 0, a->size ? a->size : 1, 0);
	bits_fill(a->fbits, 0, a->size ? a->size : 1, 0);
	a->live = 1;
	a->committed = devmem_commit_take(a->size ? a->size : 1);
	char *host = a->committed ? a->host : NULL;
	size_t span = a->size ? a->size : 1;
	pthread_rwlock_unlock(&devmem_lock);
	if (host)
		devmem_commit(host, span);
	return 0;
}

void *devmem_backing(devaddr_t addr, size_t len)
{
	pthread_rwlock_rdlock(&devmem_lock);
	size_t i = devmem_upper(addr);
	struct devmem_alloc *a = i ? &devmem_tab[i - 1] : NULL;
	char *p = NULL;
	if (a && a->kind == DEVMEM_GLOBAL && addr + (len ? len : 1) <= a->base + (a->size ? a->size : 1))
		p = devmem_shadow + (size_t)(addr - (devaddr_t)(uintptr_t)devmem_dev);
	pthread_rwlock_unlock(&devmem_lock);
	return p;
}

/* The live allocation containing [addr, addr+len), or NULL. Caller holds the lock. */
static struct devmem_alloc *devmem_lookup(devaddr_t addr, size_t len)
{
	size_t i = devmem_upper(addr);
	if (i == 0)
		return NULL;
	struct devmem_alloc *a = &devmem_tab[i - 1];
	size_t span = a->size ? a->size : 1;
	if (!a->live || addr - a->base >= span || len > span - (addr - a->base))
		return NULL;
	return a;
}

void *devmem_host(devaddr_t addr, size_t len)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *a = devmem_lookup(addr, len ? len : 1);
	void *p = a ? a->host + (addr - a->base) : NULL;
	pthread_rwlock_unlock(&devmem_lock);
	return p;
}

int devmem_locate(devaddr_t addr, size_t *rank, size_t *offset)
{
	pthread_rwlock_rdlock(&devmem_lock);
	size_t i = devmem_upper(addr);
	const struct devmem_alloc *a = i ? &devmem_tab[i - 1] : NULL;
	int found = a && addr - a->base < (a->size ? a->size : 1);
	if (found) {
		*rank = i - 1;
		*offset = addr - a->base;
	}
	pthread_rwlock_unlock(&devmem_lock);
	return found ? 0 : -ENOENT;
}

int devmem_lookup_range(devaddr_t addr, size_t len, devaddr_t *base, size_t *size,
			char **host, devmem_flags_t *written)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *a = devmem_lookup(addr, len ? len : 1);
	if (a) {
		*base = a->base;
		*size = a->size ? a->size : 1;
		*host = a->host;
		if (written) {
			*written = (devmem_flags_t)a->kbits * 8;
			__atomic_store_n(&a->flagged, 1, __ATOMIC_RELAXED);
		}
	}
	pthread_rwlock_unlock(&devmem_lock);
	return a ? 0 : -ENOENT;
}

static void devmem_fill(const struct devmem_alloc *a, struct devmem_info *out)
{
	out->base = a->base;
	out->size = a->size;
	out->kind = a->kind;
	out->label = a->label;
	out->live = a->live;
}

int devmem_find(devaddr_t addr, struct devmem_info *out)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *a = devmem_lookup(addr, 1);
	if (a && out)
		devmem_fill(a, out);
	pthread_rwlock_unlock(&devmem_lock);
	return a ? 0 : -ENOENT;
}

/* Distance from addr to the range of a (0 when inside). */
static uint64_t devmem_distance(const struct devmem_alloc *a, devaddr_t addr)
{
	uint64_t span = a->size ? a->size : 1;
	if (addr < a->base)
		return a->base - addr;
	if (addr - a->base < span)
		return 0;
	return addr - a->base - span + 1;
}

int devmem_nearest(devaddr_t addr, struct devmem_info *out)
{
	pthread_rwlock_rdlock(&devmem_lock);
	size_t i = devmem_upper(addr);
	const struct devmem_alloc *best = NULL;
	/* prefer a live allocation among the two neighbours of addr (and the one before) */
	for (size_t k = (i >= 2 ? i - 2 : 0); k < devmem_n && k <= i; k++) {
		const struct devmem_alloc *a = &devmem_tab[k];
		if (!best || devmem_distance(a, addr) < devmem_distance(best, addr) ||
		    (devmem_distance(a, addr) == devmem_distance(best, addr) && a->live &&
		     !best->live))
			best = a;
	}
	if (best && out)
		devmem_fill(best, out);
	pthread_rwlock_unlock(&devmem_lock);
	return best ? 0 : -ENOENT;
}

int devmem_in_device_range(uint64_t addr)
{
	pthread_once(&devmem_once, devmem_setup);
	return devmem_dev && addr >= (uint64_t)(uintptr_t)devmem_dev &&
	       addr < (uint64_t)(uintptr_t)devmem_dev + devmem_range;
}

/* ---- written flags ------------------------------------------------------------- */

devmem_flags_t devmem_written(devaddr_t addr, size_t len)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *a = devmem_lookup(addr, len ? len : 1);
	devmem_flags_t h = a ? (devmem_flags_t)a->kbits * 8 + (addr - a->base) : 0;
	if (a) /* under the read lock: others may set it too */
		__atomic_store_n(&a->flagged, 1, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&devmem_lock);
	return h;
}

void devmem_mark_lanes(const uint64_t *a, devmem_flags_t w0, unsigned size, uint32_t m)
{
	if (m == 0xffffffffu) { /* a whole warp on consecutive elements (coalesced): one range */
		uint64_t apart = 0;
		for (unsigned l = 0; l < 31; l++)
			apart |= (a[l + 1] - a[l]) ^ size;
		if (!apart) {
			devmem_mark_by_kernel(w0 + a[0], 32 * (size_t)size);
			return;
		}
	}
	/* runs of neighbouring lanes on consecutive elements, one range each: a tile's row
	 * of 16 floats is one whole word of flags, a plain store, where lane by lane each
	 * lane's 4 bits cost a locked OR of the word the next 15 lanes OR into too, a word
	 * the blocks beside it (the other worker's) write as well */
	while (m) {
		unsigned l = (unsigned)__builtin_ctz(m);
		uint64_t from = a[l], to = from + size;
		for (m &= m - 1; l < 31 && (m >> (l + 1) & 1) && a[l + 1] == to; m &= m - 1)
			to = a[++l] + size;
		devmem_mark_by_kernel(w0 + from, to - from);
	}
}

int devmem_flags_set(devaddr_t addr, size_t n, int state)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *a = devmem_lookup(addr, n ? n : 1);
	if (a) {
		size_t at = addr - a->base;
		bits_fill(a->kbits, at, n, state == DEVMEM_BY_KERNEL);
		bits_fill(a->fbits, at, n, state == DEVMEM_FILLED);
		if (state)
			__atomic_store_n(&a->flagged, 1, __ATOMIC_RELAXED);
	}
	pthread_rwlock_unlock(&devmem_lock);
	return a ? 0 : -ENOENT;
}

/* N bits of map SRC from SAT to DST from DAT, in memmove's order where they overlap. */
static void devmem_copy_bits(unsigned char *dst, size_t dat, const unsigned char *src,
			     size_t sat, size_t n)
{
	if (dst != src || !bits_overlap(dat, sat, n)) {
		bits_copy(dst, dat, src, sat, n);
		return;
	}
	unsigned char *t = malloc((n + 7) / 8); /* the same allocation, overlapping (rare) */
	if (t) {
		bits_copy(t, 0, src, sat, n);
		bits_copy(dst, dat, t, 0, n);
	} else { /* no memory: bit by bit, in the direction that reads before it writes */
		for (size_t i = 0; i < n; i++) {
			size_t j = dat > sat ? n - 1 - i : i;
			bits_put8(dst, dat + j, bits_get8(src, sat + j, 1), 1);
		}
	}
	free(t);
}

int devmem_flags_copy(devaddr_t dst, devaddr_t src, size_t n)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *d = devmem_lookup(dst, n ? n : 1), *s = devmem_lookup(src, n ? n : 1);
	if (d && s) {
		size_t dat = dst - d->base, sat = src - s->base;
		devmem_copy_bits(d->kbits, dat, s->kbits, sat, n);
		devmem_copy_bits(d->fbits, dat, s->fbits, sat, n);
		__atomic_store_n(&d->flagged, 1, __ATOMIC_RELAXED);
	}
	pthread_rwlock_unlock(&devmem_lock);
	return d && s ? 0 : -ENOENT;
}

int devmem_flags_get(devaddr_t addr, size_t n, unsigned char *kbits, unsigned char *fbits)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *a = devmem_lookup(addr, n ? n : 1);
	if (a) {
		memset(kbits, 0, (n + 7) / 8);
		memset(fbits, 0, (n + 7) / 8);
		bits_copy(kbits, 0, a->kbits, addr - a->base, n);
		bits_copy(fbits, 0, a->fbits, addr - a->base, n);
	}
	pthread_rwlock_unlock(&devmem_lock);
	return a ? 0 : -ENOENT;
}

size_t devmem_unified_scanned(void)
{
	return __atomic_load_n(&devmem_scanned, __ATOMIC_RELAXED);
}

/* Calls FN with every 64-byte group of A whose flags are not all 0 and G, the group's
 * flags (K | F, bit i: byte at + i): reading the bitmaps a word at a time skips the
 * untouched parts quickly. */
static void devmem_each_flagged(const struct devmem_alloc *a,
				void (*fn)(const struct devmem_alloc *, size_t, uint64_t))
{
	size_t span = a->size ? a->size : 1;
	for (size_t i = 0; i < span; i += 64) {
		uint64_t k, f;
		memcpy(&k, a->kbits + i / 8, 8);
		memcpy(&f, a->fbits + i / 8, 8);
		if (k | f)
			fn(a, i, k | f);
	}
}

static void devmem_clear_changed(const struct devmem_alloc *a, size_t at, uint64_t g)
{
	if (g == ~0ull && memcmp(a->host + at, a->snap + at, 64) == 0)
		return; /* a whole group kept (the usual case: a kernel's output) */
	for (; g; g &= g - 1) {
		size_t i = at + (size_t)__builtin_ctzll(g);
		if (a->host[i] != a->snap[i]) {
			bits_put8(a->kbits, i, 0, 1);
			bits_put8(a->fbits, i, 0, 1);
		}
	}
}

static void devmem_keep_values(const struct devmem_alloc *a, size_t at, uint64_t g)
{
	if (g == ~0ull) {
		memcpy(a->snap + at, a->host + at, 64);
		return;
	}
	for (; g; g &= g - 1) {
		size_t i = at + (size_t)__builtin_ctzll(g);
		a->snap[i] = a->host[i];
	}
}

/* Applies FN to the flagged groups of every live managed or host allocation. */
static void devmem_each_unified(void (*fn)(const struct devmem_alloc *, size_t, uint64_t))
{
	pthread_rwlock_rdlock(&devmem_lock);
	for (size_t k = 0; k < devmem_n; k++) {
		const struct devmem_alloc *a = &devmem_tab[k];
		if (a->live && a->snap && __atomic_load_n(&a->flagged, __ATOMIC_RELAXED)) {
			devmem_each_flagged(a, fn);
			__atomic_fetch_add(&devmem_scanned, a->size ? a->size : 1, __ATOMIC_RELAXED);
		}
	}
	pthread_rwlock_unlock(&devmem_lock);
}

void devmem_unified_reconcile(void)
{
	devmem_each_unified(devmem_clear_changed);
}

void devmem_unified_snapshot(void)
{
	devmem_each_unified(devmem_keep_values);
}

void devmem_unified_each(void (*fn)(const struct devmem_view *, void *), void *ctx)
{
	pthread_rwlock_rdlock(&devmem_lock);
	for (size_t k = 0; k < devmem_n; k++) {
		const struct devmem_alloc *a = &devmem_tab[k];
		if (!a->live || !a->snap)
			continue;
		struct devmem_view v = { a->base, a->size ? a->size : 1, a->kind, a->host,
					 a->kbits, a->fbits };
		fn(&v, ctx);
	}
	pthread_rwlock_unlock(&devmem_lock);
}
