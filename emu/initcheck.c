/* initcheck: see initcheck.h. */
#include "initcheck.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_internal.h"

int initcheck_on;

/* What the runtime wrote (copies, memsets) of one checked allocation: a bit a byte, bit
 * i % 8 of bits[i / 8]; SKIP: an allocation the check leaves alone (initcheck.h). Records
 * are made when the runtime or a kernel first touches an allocation and live until exit
 * (freed addresses are never reused, devmem.h), so a worker may keep a pointer to one. */
struct ic_alloc {
	devaddr_t base;
	size_t size;
	int skip;
	const char *call;
	unsigned char *bits;
};

static pthread_mutex_t ic_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ic_alloc **ic_allocs; /* sorted by base */
static size_t ic_n, ic_cap;

static _Atomic int ic_found; /* this launch found a read already */
static struct initcheck_finding ic_finding;

static int ic_wanted(void)
{
	const char *v = getenv("PMPPLAB_EMU_INITCHECK");
	return v && v[0] && strcmp(v, "0") != 0;
}

/* Whether the check follows an allocation made by CALL (its devmem label). */
static int ic_checked_call(const char *call)
{
	return call && strncmp(call, "cudaMalloc", 10) == 0 && !strstr(call, "Array") &&
	       strcmp(call, "cudaMallocManaged") != 0 && strcmp(call, "cudaMallocHost") != 0;
}

/* The record of the allocation holding ADDR, made if needed; NULL when ADDR is in none
 * (or out of memory: then nothing is checked there). Takes ic_lock. */
static struct ic_alloc *ic_get(devaddr_t addr)
{
	struct devmem_info in;
	struct ic_alloc *a = NULL;
	pthread_mutex_lock(&ic_lock);
	size_t lo = 0, hi = ic_n;
	while (lo < hi) { /* the first record whose base is above addr */
		size_t mid = (lo + hi) / 2;
		if (ic_allocs[mid]->base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr - ic_allocs[lo - 1]->base < ic_allocs[lo - 1]->size) {
		a = ic_allocs[lo - 1];
	} else if (devmem_find(addr, &in) == 0) {
		if (ic_n == ic_cap) {
			size_t cap = ic_cap ? 2 * ic_cap : 64;
			struct ic_alloc **g = realloc(ic_allocs, cap * sizeof(*g));
			if (!g)
				goto out;
			ic_allocs = g;
			ic_cap = cap;
		}
		if (!(a = calloc(1, sizeof(*a))))
			goto out;
		a->base = in.base;
		a->size = in.size;
		a->call = in.label;
		a->skip = in.kind != DEVMEM_GLOBAL || !ic_checked_call(in.label);
		if (!a->skip && !(a->bits = calloc((in.size + 7) / 8, 1)))
			a->skip = 1;
		memmove(ic_allocs + lo + 1, ic_allocs + lo, (ic_n - lo) * sizeof(*ic_allocs));
		ic_allocs[lo] = a;
		ic_n++;
	}
out:
	pthread_mutex_unlock(&ic_lock);
	return a;
}

/* Sets bits [from, from + n) of MAP. */
static void ic_bits_set(unsigned char *map, size_t from, size_t n)
{
	for (; n && (from & 7); from++, n--)
		map[from >> 3] |= (unsigned char)(1u << (from & 7));
	memset(map + (from >> 3), 0xff, n >> 3);
	from += n & ~(size_t)7;
	for (n &= 7; n; from++, n--)
		map[from >> 3] |= (unsigned char)(1u << (from & 7));
}

static int ic_bit(const unsigned char *map, size_t i)
{
	return (map[i >> 3] >> (i & 7)) & 1;
}

void initcheck_set(devaddr_t dst, size_t n)
{
	struct ic_alloc *a;
	if (!n || !ic_wanted() || !(a = ic_get(dst)) || a->skip || dst - a->base + n > a->size)
		return;
	ic_bits_set(a->bits, dst - a->base, n);
}

void initcheck_copy(devaddr_t dst, devaddr_t src, size_t n, int from_device)
{
	struct ic_alloc *d, *s;
	if (!n || !ic_wanted() || !(d = ic_get(dst)) || d->skip || dst - d->base + n > d->size)
		return;
	/* from host memory, or from memory the host writes itself: all of it written */
	if (!from_device || !(s = ic_get(src)) || s->skip || src - s->base + n > s->size) {
		ic_bits_set(d->bits, dst - d->base, n);
		return;
	}
	/* device to device: the bytes written at the source, by the runtime or by kernels
	 * (whose flags devmem_flags_copy has already carried to DST) */
	size_t nb = (n + 7) / 8;
	unsigned char *k = malloc(2 * nb), *w = malloc(n);
	unsigned char *f = k ? k + nb : NULL;
	if (k && w && devmem_flags_get(dst, n, k, f) == 0) {
		for (size_t i = 0; i < n; i++)
			w[i] = (unsigned char)(ic_bit(s->bits, src - s->base + i) ||
					       devmem_flag_at(k, f, i));
		for (size_t i = 0; i < n; i++)
			if (w[i])
				ic_bits_set(d->bits, dst - d->base + i, 1);
	} else { /* out of memory: say nothing rather than something false */
		ic_bits_set(d->bits, dst - d->base, n);
	}
	free(k);
	free(w);
}

void initcheck_launch_begin(void)
{
	initcheck_on = ic_wanted();
	atomic_store(&ic_found, 0);
}

int initcheck_launch_end(struct initcheck_finding *f)
{
	if (!atomic_load(&ic_found))
		return 0;
	*f = ic_finding;
	atomic_store(&ic_found, 0);
	return 1;
}

void initcheck_slow_loads(const struct ptx_func *f, uint8_t *ops)
{
	for (unsigned pc = 0; ops && pc < f->ncode; pc++)
		if (f->code[pc].op == OP_LD &&
		    (f->code[pc].space == SP_GLOBAL || f->code[pc].space == SP_GENERIC))
			ops[pc] = 0;
}

/* Whether any of the N K bits from handle H is set. */
static int ic_kernel_wrote(devmem_flags_t h, size_t n)
{
	for (; n; h++, n--)
		if ((__atomic_load_n(devmem_flag_word(h), __ATOMIC_RELAXED) >> (h & 63)) & 1)
			return 1;
	return 0;
}

void initcheck_read(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
		    uint64_t addr, const void *p, unsigned size)
{
	/* a worker's last records: a kernel reads a few allocations over and over */
	static _Thread_local struct ic_alloc *last[4];
	const char *c = p;
	unsigned k = 0;
	if (in->op != OP_LD && in->mod == AOP_EXCH) /* atomicExch writes, reads nothing */
		return;
	while (k < 4 && !(w->c_written[k] && c >= w->c_host[k] &&
			  (uint64_t)(c - w->c_host[k]) < w->c_end[k] - w->c_base[k]))
		k++;
	if (k == 4) /* not global memory (shared, local, parameters) */
		return;
	size_t off = (size_t)(c - w->c_host[k]);
	if (ic_kernel_wrote(w->c_written[k] + off, size))
		return;
	struct ic_alloc *a = NULL;
	for (unsigned i = 0; i < 4 && !a; i++)
		if (last[i] && last[i]->base == w->c_base[k])
			a = last[i];
	if (!a) {
		if (!(a = ic_get(w->c_base[k])))
			return;
		memmove(last + 1, last, 3 * sizeof(last[0]));
		last[0] = a;
	}
	if (a->skip || off + size > a->size)
		return;
	for (unsigned i = 0; i < size; i++)
		if (ic_bit(a->bits, off + i))
			return;
	if (atomic_exchange(&ic_found, 1))
		return;
	struct initcheck_finding *f = &ic_finding;
	memset(f, 0, sizeof(*f));
	f->kernel = b->L->kf->name;
	f->block = b->bid;
	thread_of(b, w->id * 32 + lane, &f->thread);
	f->file = ptx_module_file(b->L->m, in->file);
	f->line = in->line;
	/* inside a toolkit function (atomicAdd at -O0 is a call): the user's call */
	for (unsigned n = w->nframes; n > 1 && (!f->file || ptx_file_is_system(f->file)); n--) {
		const struct ptx_insn *call = w->frames[n - 1].call;
		f->file = ptx_module_file(b->L->m, call->file);
		f->line = call->line;
	}
	f->addr = addr;
	f->size = size;
	f->atomic = in->op != OP_LD;
	f->alloc_base = a->base;
	f->alloc_size = a->size;
	f->alloc_call = a->call;
}

char *initcheck_message(const struct initcheck_finding *f, const char *kernel, char *buf,
			size_t len)
{
	const char *call = f->alloc_call ? f->alloc_call : "cudaMalloc";
	snprintf(buf, len,
		 "thread (%u,%u,%u) of block (%u,%u,%u) of %s read %u bytes of device memory that "
		 "nothing had written (%s byte %llu of a %zu-byte buffer from %s): %s does not "
		 "clear memory; set it first with cudaMemset(ptr, 0, bytes) or cudaMemcpy, or "
		 "write it in a kernel before it is read",
		 f->thread.x, f->thread.y, f->thread.z, f->block.x, f->block.y, f->block.z,
		 kernel, f->size, f->atomic ? "an atomic such as atomicAdd, which adds to what is "
					      "there, on" : "a load of",
		 (unsigned long long)(f->addr - f->alloc_base), f->alloc_size, call, call);
	return buf;
}
