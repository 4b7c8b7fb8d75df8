/* devmem — the emulated device address space (see devmem.h).
 *
 * Two reservations of the same size: a PROT_NONE range whose addresses are the device
 * addresses (so a host dereference of a device pointer faults), and a read-write shadow
 * holding the data at the same offset. Allocations are bump-allocated and never reused,
 * with a guard gap after each, so overruns and stale pointers land outside every live
 * allocation. Managed/host memory is ordinary host memory whose address is also its
 * device address.
 *
 * Every allocation also has its written flags (devmem.h): for device memory a third
 * reservation at the same offset as the data, so the flags cost address space only
 * until a kernel writes; for managed and host memory a mapping of twice the size, the
 * flags and then the snapshot of the values kernels wrote.
 */
#include "devmem.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
	unsigned char *written; /* the written flags, one a byte (devmem.h) */
	char *snap;             /* managed/host: values at the last snapshot */
	enum devmem_kind kind;
	char *label;
	int live;
	/* some written flag may be set: a pointer to the flags was handed out to a writer
	 * (devmem_written, devmem_lookup_range). Reconcile and snapshot skip the others, so
	 * a launch costs nothing for a large pinned buffer no kernel or copy wrote (it
	 * scanned every byte's flag twice a launch: 32 ms for 64 MiB). Set, never cleared. */
	int flagged;
};

static pthread_rwlock_t devmem_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t devmem_once = PTHREAD_ONCE_INIT;
static char *devmem_dev;    /* PROT_NONE reservation (device addresses) */
static char *devmem_shadow; /* RW data */
static unsigned char *devmem_flags; /* RW written flags, at the data's offsets */
static size_t devmem_range, devmem_next;
static struct devmem_alloc *devmem_tab; /* sorted by base */
static size_t devmem_n, devmem_cap;
static size_t devmem_scanned; /* bytes of flags reconcile and snapshot read (devmem.h) */

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
		void *f = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (s == MAP_FAILED || f == MAP_FAILED) {
			munmap(d, sz);
			if (s != MAP_FAILED)
				munmap(s, sz);
			if (f != MAP_FAILED)
				munmap(f, sz);
			continue;
		}
		devmem_dev = d;
		devmem_shadow = s;
		devmem_flags = f;
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

static int devmem_insert(const struct devmem_alloc *a)
{
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
		void *f = mmap(NULL, 2 * span, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (f == MAP_FAILED) {
			munmap(p, span);
			goto fail_label;
		}
		a.host = p;
		a.written = f;
		a.snap = (char *)f + span;
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
		a.written = devmem_flags + devmem_next;
		devmem_next += need;
	}
	if (devmem_insert(&a) < 0)
		goto fail_unlock;
	pthread_rwlock_unlock(&devmem_lock);
	*out = a.base;
	return 0;

fail_unlock:
	pthread_rwlock_unlock(&devmem_lock);
	if (a.host && (kind == DEVMEM_MANAGED || kind == DEVMEM_HOST)) {
		munmap(a.host, span);
		munmap(a.written, 2 * span);
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
		munmap(a->written, 2 * span);
	} else {
		/* give whole pages back; the range itself is never reused */
		size_t off = (size_t)(a->host - devmem_shadow);
		uintptr_t lo = ((uintptr_t)off + 4095) & ~(uintptr_t)4095;
		uintptr_t hi = ((uintptr_t)off + span) & ~(uintptr_t)4095;
		if (hi > lo) {
			madvise(devmem_shadow + lo, hi - lo, MADV_DONTNEED);
			madvise(devmem_flags + lo, hi - lo, MADV_DONTNEED);
		}
	}
	a->host = NULL;
	a->written = NULL;
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
	a->written = devmem_flags + off;
	memset(a->written, 0, a->size ? a->size : 1); /* the host's, as a fresh allocation */
	a->live = 1;
	pthread_rwlock_unlock(&devmem_lock);
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
			char **host, unsigned char **written)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *a = devmem_lookup(addr, len ? len : 1);
	if (a) {
		*base = a->base;
		*size = a->size ? a->size : 1;
		*host = a->host;
		if (written) {
			*written = a->written;
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

static unsigned char *devmem_flags_of(devaddr_t addr, size_t len, int for_writing)
{
	pthread_rwlock_rdlock(&devmem_lock);
	struct devmem_alloc *a = devmem_lookup(addr, len ? len : 1);
	unsigned char *w = a ? a->written + (addr - a->base) : NULL;
	if (a && for_writing) /* under the read lock: others may set it too */
		__atomic_store_n(&a->flagged, 1, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&devmem_lock);
	return w;
}

unsigned char *devmem_written(devaddr_t addr, size_t len)
{
	return devmem_flags_of(addr, len, 1);
}

const unsigned char *devmem_written_peek(devaddr_t addr, size_t len)
{
	return devmem_flags_of(addr, len, 0);
}

size_t devmem_unified_scanned(void)
{
	return __atomic_load_n(&devmem_scanned, __ATOMIC_RELAXED);
}

/* Calls FN with the offset of every 8-byte group of A's flags that has a flag set:
 * reading the flags 8 at a time skips the untouched parts quickly. */
static void devmem_each_flagged(const struct devmem_alloc *a,
				void (*fn)(const struct devmem_alloc *, size_t))
{
	size_t span = a->size ? a->size : 1;
	for (size_t i = 0; i < span; i += 8) {
		uint64_t g = 0;
		memcpy(&g, a->written + i, span - i < 8 ? span - i : 8);
		if (g)
			fn(a, i);
	}
}

static void devmem_clear_changed(const struct devmem_alloc *a, size_t at)
{
	size_t span = a->size ? a->size : 1;
	for (size_t i = at; i < at + 8 && i < span; i++)
		if (a->written[i] && a->host[i] != a->snap[i])
			a->written[i] = 0;
}

static void devmem_keep_values(const struct devmem_alloc *a, size_t at)
{
	size_t span = a->size ? a->size : 1;
	for (size_t i = at; i < at + 8 && i < span; i++)
		if (a->written[i])
			a->snap[i] = a->host[i];
}

/* Applies FN to the flagged groups of every live managed or host allocation. */
static void devmem_each_unified(void (*fn)(const struct devmem_alloc *, size_t))
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
					 a->written };
		fn(&v, ctx);
	}
	pthread_rwlock_unlock(&devmem_lock);
}
