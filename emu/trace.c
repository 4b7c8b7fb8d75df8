/* trace — counters for the warp and memory panels, and their publisher. See trace.h. */
#include "ptx_internal.h" /* before trace.h: its inline hot path needs struct ptx_insn */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define SHARED_WIN 0xfe00000000000000ull
#define LOCAL_WIN 0xff00000000000000ull
#define PARAM_WIN 0xfd00000000000000ull
#define WIN_MASK 0xff00000000000000ull
#define MAX_LINE 100000u /* lines past this count as "other" */

struct emu_trace {
	struct emu_trace_file *f; /* the mmapped file */
	int fd;
	unsigned nsms;
	uint32_t nlines;
	uint64_t t0;
	pthread_t publisher;
	int has_publisher;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;
	struct emu_trace_sm sms[];
};

/* Every kernel launched in this process, for the occupancy panel's block sizes. */
static pthread_mutex_t kernels_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_trace_kernel_snap kernels[EMU_TRACE_MAX_KERNELS];
static uint32_t nkernels, launches;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- pure helpers ---- */

/* A small set of 64-bit keys (open addressing): a warp request touches at most 128
 * pieces, so 256 slots never fill, and insertion is O(1) where sorting cost a
 * microsecond a request. */
#define SET_SLOTS 256
struct piece_set {
	uint64_t key[SET_SLOTS];
	uint8_t used[SET_SLOTS];
};

/* Adds K; returns 1 when it was new. */
static int set_add(struct piece_set *s, uint64_t k)
{
	unsigned h = (unsigned)((k * 0x9e3779b97f4a7c15ull) >> 56);
	while (s->used[h]) {
		if (s->key[h] == k)
			return 0;
		h = (h + 1) % SET_SLOTS;
	}
	s->used[h] = 1;
	s->key[h] = k;
	return 1;
}

static unsigned sectors_off(const uint64_t *addr, uint64_t off, uint32_t mask, unsigned size)
{
	/* The common case first: lanes in address order, each inside one sector. Then the
	 * distinct sectors are the changes along the lanes. */
	uint64_t prev = 0;
	unsigned n = 0;
	int ordered = 1;
	for (uint32_t m = mask; m && ordered; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		uint64_t first = (addr[l] + off) / 32, last = (addr[l] + off + (size ? size : 1) - 1) / 32;
		if (first != last || (n && first < prev))
			ordered = 0;
		else if (!n || first != prev)
			n++;
		prev = first;
	}
	if (ordered)
		return n;
	struct piece_set set;
	memset(set.used, 0, sizeof(set.used));
	n = 0;
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		uint64_t first = (addr[l] + off) / 32, last = (addr[l] + off + (size ? size : 1) - 1) / 32;
		for (uint64_t p = first; p <= last && p < first + 4; p++)
			n += (unsigned)set_add(&set, p);
	}
	return n;
}

/* The exact count, for requests where some bank holds two words. */
static unsigned bank_passes_slow(const uint64_t *addr, uint64_t off, uint32_t mask, unsigned size)
{
	struct piece_set set;
	memset(set.used, 0, sizeof(set.used));
	unsigned char per_bank[32] = {0};
	unsigned passes = 0;
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		uint64_t first = ((addr[l] + off) & ~WIN_MASK) / 4;
		uint64_t last = ((addr[l] + off) & ~WIN_MASK) + (size ? size : 1) - 1;
		last /= 4;
		for (uint64_t w = first; w <= last && w < first + 4; w++)
			if (set_add(&set, w) && ++per_bank[w % 32] > passes)
				passes = per_bank[w % 32];
	}
	return passes;
}

static unsigned banks_off(const uint64_t *addr, uint64_t off, uint32_t mask, unsigned size)
{
	/* Fast path: 4-byte words, at most one distinct word per bank (conflict-free or
	 * broadcast): one pass. Anything else takes the exact count. */
	if (size > 4)
		return bank_passes_slow(addr, off, mask, size);
	uint64_t word[32], prev = ~0ull;
	uint32_t seen = 0;
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		if (addr[l] == prev)
			continue; /* the same word as the lane before: a broadcast */
		prev = addr[l];
		uint64_t a = (addr[l] + off) & ~WIN_MASK, w = a / 4;
		unsigned b = (unsigned)(w % 32);
		if ((a + size - 1) / 4 != w)
			return bank_passes_slow(addr, off, mask, size);
		if (!(seen >> b & 1)) {
			seen |= 1u << b;
			word[b] = w;
		} else if (word[b] != w) {
			return bank_passes_slow(addr, off, mask, size);
		}
	}
	return seen ? 1 : 0;
}

unsigned emu_trace_sectors(const uint64_t addr[32], uint32_t mask, unsigned size)
{
	return sectors_off(addr, 0, mask, size);
}

unsigned emu_trace_bank_passes(const uint64_t addr[32], uint32_t mask, unsigned size)
{
	return banks_off(addr, 0, mask, size);
}

/* ---- collection (worker threads) ---- */

struct emu_trace_line *emu_trace_line_of(struct emu_trace_sm *s, const struct ptx_insn *in)
{
	if (in->file == s->main_file && in->line < s->nlines)
		return &s->lines[in->line];
	if (in->iline && in->ifile == s->main_file && in->iline < s->nlines)
		return &s->lines[in->iline]; /* a toolkit header inlined at a user line */
	return &s->lines[0];
}

struct emu_trace_sm *emu_trace_sm(struct emu_trace *t, unsigned i)
{
	return t && i < t->nsms ? &t->sms[i] : NULL;
}

void emu_trace_block_begin(struct emu_trace_sm *s, unsigned block, unsigned nwarps)
{
	EMU_TRACE_SET(s->block, block);
	EMU_TRACE_SET(s->nwarps, nwarps);
	for (unsigned w = 0; w < EMU_TRACE_MAX_WARPS; w++) {
		EMU_TRACE_SET(s->state[w], w < nwarps ? EMU_TW_READY : EMU_TW_NONE);
		EMU_TRACE_SET(s->mask[w], 0);
		EMU_TRACE_SET(s->insns[w], 0);
	}
	EMU_TRACE_SET(s->bar_line, 0);
	EMU_TRACE_SET(s->busy, 1);
}

void emu_trace_block_end(struct emu_trace_sm *s)
{
	EMU_TRACE_SET(s->busy, 0);
	EMU_TRACE_ADD(s->blocks_done, 1);
}

void emu_trace_warp_state(struct emu_trace_sm *s, unsigned warp, enum emu_trace_warp_state st)
{
	if (warp < EMU_TRACE_MAX_WARPS)
		EMU_TRACE_SET(s->state[warp], (uint8_t)st);
}

void emu_trace_barrier(struct emu_trace_sm *s, unsigned warp, const struct ptx_insn *in)
{
	EMU_TRACE_ADD(emu_trace_line_of(s, in)->bar_arrivals, 1);
	EMU_TRACE_SET(s->bar_line, in->line);
	emu_trace_warp_state(s, warp, EMU_TW_BARRIER);
}

/* A request's figure, remembered per instruction: when the lanes' addresses are a
 * recent request's shifted by a multiple of GRAIN bytes (a word for banks, a sector for
 * sectors) (the next iteration of a loop, the next warp of the block), the banks or
 * sectors are only renamed and the figure is the same. The comparison is branch-free,
 * so it costs less than the count. KIND 0 sectors, 1 banks. */
static unsigned memo_count(struct emu_trace_sm *s, const struct ptx_insn *in, unsigned kind,
			   const uint64_t *a, uint64_t off, uint32_t mask, unsigned size)
{
	uint64_t grain = kind ? 4 : 32;
	unsigned f = (unsigned)__builtin_ctz(mask);
	uint64_t base = a[f], diff = 0;
	uintptr_t h = ((uintptr_t)in >> 3) ^ kind;
	struct emu_trace_memo *e = &s->memo[(h ^ (h >> 7)) % EMU_TRACE_MEMO];
	if (e->in == in && e->kind == kind && e->mask == mask && e->size == size &&
	    (base - e->base) % grain == 0 && ((base + off) & WIN_MASK) == ((e->base + off) & WIN_MASK)) {
		if (mask == 0xffffffffu) {
			for (unsigned l = 0; l < 32; l++)
				diff |= (a[l] - base) ^ e->delta[l];
		} else {
			for (uint32_t m = mask; m; m &= m - 1) {
				unsigned l = (unsigned)__builtin_ctz(m);
				diff |= (a[l] - base) ^ e->delta[l];
			}
		}
		if (diff == 0)
			return e->result;
	}
	unsigned r = kind ? banks_off(a, off, mask, size) : sectors_off(a, off, mask, size);
	e->in = in;
	e->kind = kind;
	e->mask = mask;
	e->size = size;
	e->base = base;
	e->result = r;
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		e->delta[l] = a[l] - base;
	}
	return r;
}

/* Whether to measure the REQ-th request of a kind at a line: all of the first
 * EMU_TRACE_EXACT, then a random one in EMU_TRACE_SAMPLE (random, so that a line whose
 * instructions take turns is not always measured at the same one). */
static inline int measure(struct emu_trace_sm *s, uint64_t req)
{
	if (req <= EMU_TRACE_EXACT)
		return 1;
	uint32_t x = s->rng;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	s->rng = x;
	return x % EMU_TRACE_SAMPLE == 0;
}

void emu_trace_mem(struct emu_trace_sm *s, const struct ptx_insn *in, int space,
		   const uint64_t *a, int64_t off, unsigned size, uint32_t mask, int is_write)
{
	struct emu_trace_line *ln = s->cur ? s->cur : emu_trace_line_of(s, in);
	const uint64_t *ga = a, *sa = a;
	uint64_t goff = (uint64_t)off, soff = (uint64_t)off, glob[32], shd[32];
	uint32_t gm = space == SP_GLOBAL ? mask : 0, sm = space == SP_SHARED ? mask : 0;
	if (space == SP_GENERIC) {
		/* sort the lanes by the window their address falls in */
		for (uint32_t m = mask; m; m &= m - 1) {
			unsigned l = (unsigned)__builtin_ctz(m);
			uint64_t addr = a[l] + (uint64_t)off, win = addr & WIN_MASK;
			if (win == SHARED_WIN) {
				shd[l] = addr;
				sm |= 1u << l;
			} else if (win != LOCAL_WIN && win != PARAM_WIN) { /* cvta.param's: no DRAM */
				glob[l] = addr;
				gm |= 1u << l;
			}
		}
		ga = glob, sa = shd, goff = soff = 0;
	}
	if (gm) {
		uint64_t *req = is_write ? &ln->gst_req : &ln->gld_req;
		EMU_TRACE_ADD(*req, 1);
		if (measure(s, *req)) {
			unsigned sec = memo_count(s, in, 0, ga, goff, gm, size);
			EMU_TRACE_ADD(req[1], 1); /* *_sampled */
			EMU_TRACE_ADD(req[2], sec);
		}
	}
	if (sm) {
		EMU_TRACE_ADD(ln->shd_req, 1);
		if (measure(s, ln->shd_req)) {
			EMU_TRACE_ADD(ln->shd_sampled, 1);
			EMU_TRACE_ADD(ln->shd_passes, memo_count(s, in, 1, sa, soff, sm, size));
		}
	}
}

/* ---- publishing ---- */

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static void publish_lines(struct emu_trace *t, struct emu_trace_file *f)
{
	uint32_t n = 0;
	uint64_t insns = 0, lanes = 0;
	for (uint32_t line = 0; line < t->nlines && n < EMU_TRACE_MAX_LINES; line++) {
		struct emu_trace_line_snap sum = {.line = line};
		uint64_t *dst = &sum.warp_insns;
		for (unsigned i = 0; i < t->nsms; i++) {
			const uint64_t *src = &t->sms[i].lines[line].warp_insns;
			for (unsigned k = 0; k < EMU_TRACE_LINE_FIELDS; k++)
				dst[k] += __atomic_load_n(&src[k], __ATOMIC_RELAXED);
		}
		insns += sum.warp_insns;
		lanes += sum.lanes;
		if (sum.warp_insns || sum.bar_arrivals)
			f->lines[n++] = sum;
	}
	f->nlines = n;
	f->warp_insns = insns;
	f->lanes = lanes;
}

static void publish(struct emu_trace *t, int running, int status)
{
	struct emu_trace_file *f = t->f;
	__atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELAXED); /* odd: writing */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	uint32_t done = 0;
	for (unsigned i = 0; i < t->nsms && i < EMU_TRACE_MAX_SMS; i++) {
		struct emu_trace_sm *s = &t->sms[i];
		struct emu_trace_sm_snap *d = &f->sm[i];
		d->busy = running ? LOAD(s->busy) : 0;
		d->block = LOAD(s->block);
		d->nwarps = LOAD(s->nwarps);
		d->blocks_done = LOAD(s->blocks_done);
		d->bar_line = LOAD(s->bar_line);
		for (unsigned w = 0; w < EMU_TRACE_MAX_WARPS; w++) {
			d->state[w] = LOAD(s->state[w]);
			d->mask[w] = LOAD(s->mask[w]);
			d->insns[w] = LOAD(s->insns[w]);
		}
		done += d->blocks_done;
	}
	f->blocks_done = done;
	publish_lines(t, f);
	f->elapsed_ns = now_ns() - t->t0;
	f->running = (uint32_t)running;
	f->status = status;
	pthread_mutex_lock(&kernels_lock);
	f->nkernels = nkernels;
	memcpy(f->kernels, kernels, sizeof(kernels));
	pthread_mutex_unlock(&kernels_lock);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELAXED); /* even: stable */
}

static void *publisher_main(void *arg)
{
	struct emu_trace *t = arg;
	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 1000000000L / EMU_TRACE_HZ;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&t->wake, &t->lock, &ts);
		if (!t->stop)
			publish(t, 1, 0);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* ---- a launch ---- */

static void note_kernel(const char *name, const uint32_t grid[3], const uint32_t block[3],
			uint64_t dyn_smem)
{
	pthread_mutex_lock(&kernels_lock);
	launches++;
	uint32_t i = 0;
	while (i < nkernels && strcmp(kernels[i].name, name) != 0)
		i++;
	if (i == nkernels && nkernels < EMU_TRACE_MAX_KERNELS)
		snprintf(kernels[nkernels++].name, sizeof(kernels[0].name), "%s", name);
	if (i < nkernels) {
		memcpy(kernels[i].grid, grid, sizeof(kernels[i].grid));
		memcpy(kernels[i].block, block, sizeof(kernels[i].block));
		kernels[i].dyn_smem = dyn_smem;
		kernels[i].launches++;
	}
	pthread_mutex_unlock(&kernels_lock);
}

/* The file index of the kernel's own lines (its first instruction with a line) and the
 * largest line number of that file anywhere in the module. */
static uint16_t main_file(const struct ptx_module *m, const struct ptx_func *kf, uint32_t *max)
{
	uint16_t file = 0;
	for (unsigned i = 0; i < kf->ncode; i++)
		if (kf->code[i].line) {
			file = kf->code[i].file;
			break;
		}
	*max = 0;
	for (unsigned f = 0; f < m->nfuncs; f++)
		for (unsigned i = 0; i < m->funcs[f].ncode; i++) {
			const struct ptx_insn *in = &m->funcs[f].code[i];
			if (in->file == file && in->line > *max && in->line < MAX_LINE)
				*max = in->line;
		}
	return file;
}

static struct emu_trace_file *map_file(const char *path, int *fd_out)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, sizeof(struct emu_trace_file)) != 0) {
		close(fd);
		return NULL;
	}
	void *p = mmap(NULL, sizeof(struct emu_trace_file), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	*fd_out = fd;
	return p;
}

static void trace_free(struct emu_trace *t)
{
	for (unsigned i = 0; i < t->nsms; i++) {
		free(t->sms[i].lines);
		free(t->sms[i].memo);
	}
	if (t->f)
		munmap(t->f, sizeof(*t->f));
	if (t->fd >= 0)
		close(t->fd);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->wake);
	free(t);
}

/* N zeroed bytes on whole cache lines of their own (emu_trace_sm: no false sharing). */
static void *trace_zalloc(size_t n)
{
	size_t whole = (n + 63) / 64 * 64;
	void *p = aligned_alloc(64, whole);
	if (p)
		memset(p, 0, whole);
	return p;
}

struct emu_trace *emu_trace_launch_begin(const struct ptx_module *m, const struct ptx_func *kf,
					 const char *kernel, const uint32_t grid[3],
					 const uint32_t block[3], uint64_t dyn_smem, unsigned nsms)
{
	const char *path = getenv("PMPPLAB_TRACE");
	if (!path || !*path || nsms == 0)
		return NULL;
	note_kernel(kernel, grid, block, dyn_smem);
	struct emu_trace *t = trace_zalloc(sizeof(*t) + nsms * sizeof(struct emu_trace_sm));
	if (!t)
		return NULL;
	t->fd = -1;
	t->nsms = nsms;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	uint32_t max = 0;
	uint16_t file = main_file(m, kf, &max);
	t->nlines = max + 1;
	for (unsigned i = 0; i < nsms; i++) {
		t->sms[i].t = t;
		t->sms[i].main_file = file;
		t->sms[i].nlines = t->nlines;
		t->sms[i].lines = trace_zalloc(t->nlines * sizeof(struct emu_trace_line));
		t->sms[i].memo = trace_zalloc(EMU_TRACE_MEMO * sizeof(struct emu_trace_memo));
		t->sms[i].rng = 0x9e3779b9u ^ (i * 0x85ebca6bu);
		if (!t->sms[i].lines || !t->sms[i].memo)
			goto fail;
	}
	t->f = map_file(path, &t->fd);
	if (!t->f)
		goto fail;
	struct emu_trace_file *f = t->f;
	uint64_t seq = f->magic == EMU_TRACE_MAGIC ? f->seq | 1 : 1;
	__atomic_store_n(&f->seq, seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memset((char *)f + offsetof(struct emu_trace_file, pid), 0,
	       sizeof(*f) - offsetof(struct emu_trace_file, pid));
	f->magic = EMU_TRACE_MAGIC;
	f->version = EMU_TRACE_VERSION;
	f->pid = (uint32_t)getpid();
	pthread_mutex_lock(&kernels_lock);
	f->launch = launches;
	pthread_mutex_unlock(&kernels_lock);
	f->running = 1;
	snprintf(f->kernel, sizeof(f->kernel), "%s", kernel);
	const char *fname = ptx_module_file(m, file);
	snprintf(f->file, sizeof(f->file), "%s", fname ? fname : "");
	memcpy(f->grid, grid, sizeof(f->grid));
	memcpy(f->block, block, sizeof(f->block));
	f->dyn_smem = dyn_smem;
	f->nblocks = grid[0] * grid[1] * grid[2];
	f->nsms = nsms < EMU_TRACE_MAX_SMS ? nsms : EMU_TRACE_MAX_SMS;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&f->seq, seq + 1, __ATOMIC_RELAXED);
	t->t0 = now_ns();
	t->has_publisher = pthread_create(&t->publisher, NULL, publisher_main, t) == 0;
	return t;
fail:
	trace_free(t);
	return NULL;
}

void emu_trace_launch_end(struct emu_trace *t, int status)
{
	if (!t)
		return;
	if (t->has_publisher) {
		pthread_mutex_lock(&t->lock);
		t->stop = 1;
		pthread_cond_signal(&t->wake);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->publisher, NULL);
	}
	publish(t, 0, status);
	trace_free(t);
}
