/* exec — the PTX interpreter (see exec.h).
 *
 * A block runs as warps of 32 lanes. Each warp has a SIMT reconvergence stack of
 * (pc, reconvergence pc, mask) entries: a divergent branch parks the current entry at
 * the branch's immediate post-dominator and pushes one entry per side; an entry that
 * reaches its reconvergence pc is popped, so the lanes merge again. Calls push a frame
 * (registers, per-lane .param area, .local base) and a stack entry marking its base.
 * Warps of a block run in turn until they reach a barrier; blocks of a grid are spread
 * over worker threads. Every memory access is checked; a fault is a value recorded in
 * the block and returned by emu_run (no longjmp).
 */
#include "exec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fround.h"
#include "ptx_internal.h"
#include "trace.h" /* issue 7 (panels) */
#include "schedule.h"

#define FULL 0xffffffffu
#define SHARED_WIN 0xfe00000000000000ull /* generic addresses of shared memory */
#define LOCAL_WIN 0xff00000000000000ull  /* generic addresses of local memory */
#define WIN_MASK 0xff00000000000000ull
#define CALL_LOCAL_STACK (16u << 10)     /* .local bytes per thread for called functions */
#define MAX_CALL_DEPTH 256
#define TIMESLICE 200000 /* warp instructions before another warp of the block runs */

#ifndef EMU_HOOKS
#define EMU_HOOKS 1
#endif

/* Runs the body for every lane l of mask m (all 32 without tests when full). */
#define LANES(...)                                                                       \
	do {                                                                             \
		if (m == FULL) {                                                         \
			for (unsigned l = 0; l < 32; l++) {                              \
				__VA_ARGS__;                                                    \
			}                                                                \
		} else {                                                                 \
			for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) {                    \
				unsigned l = (unsigned)__builtin_ctz(mm_);               \
				__VA_ARGS__;                                                    \
			}                                                                \
		}                                                                        \
	} while (0)

static const struct emu_hooks *_Atomic emu_hooks_cur;
static _Atomic uint64_t emu_insn_total;
static FILE *emu_printf_stream;

void emu_set_hooks(const struct emu_hooks *hooks)
{
	atomic_store(&emu_hooks_cur, hooks);
}

uint64_t emu_thread_instructions(void)
{
	return atomic_load(&emu_insn_total);
}

void emu_set_printf_stream(void *file)
{
	emu_printf_stream = file;
}

/* ---- state ---------------------------------------------------------------------- */

struct simt_entry {
	uint32_t pc, rpc, mask;
};

struct frame {
	const struct ptx_func *f;
	uint64_t *regs;         /* nslots * 32 */
	unsigned char *fparam;  /* fparam_size * 32, lane-major */
	uint32_t call_mask;     /* the lanes that made the call */
	uint32_t retval_off;    /* caller .param offset receiving the return value */
	unsigned stack_base;    /* SIMT stack index of the frame's base entry */
	uint64_t local_base;    /* .local offset of this frame */
	const struct ptx_insn *call; /* the caller's call instruction */
	size_t cap;                  /* bytes allocated at regs */
};

enum warp_state { W_RUN, W_BARRIER, W_DONE };

struct warp {
	unsigned id;
	uint32_t live; /* lanes that exist and have not exited */
	enum warp_state state;
	struct simt_entry *stack;
	unsigned sp, scap;
	struct frame frames[MAX_CALL_DEPTH];
	unsigned nframes;
	/* cache of the last global allocations touched (most recent first) */
	uint64_t c_base[4], c_end[4];
	char *c_host[4];
	/* bar.red pending result */
	int red_pending;
	uint32_t red_slot;
	uint64_t insns;
	int kinit; /* frames[0] holds this launch's kernel frame from an earlier block */
};

struct launch_ctx;

struct block {
	struct launch_ctx *L;
	unsigned idx; /* linear block index */
	struct emu_dim3 bid;
	unsigned nthreads, nwarps;
	struct warp *warps;
	unsigned char *shared;
	size_t shared_size;
	unsigned char *local;
	size_t local_per_thread;
	char *out; /* printf buffer */
	size_t outlen, outcap;
	uint32_t red_popc; int red_and, red_or;
	int faulted;
	struct emu_fault fault;
	int fault_rc;
	struct emu_trace_sm *tsm; /* issue 7 (panels): this worker's trace counters, NULL = off */
};

struct launch_ctx {
	const struct emu_launch *l;
	const struct ptx_module *m;
	const struct ptx_func *kf;
	unsigned char *kparams;
	size_t kparam_size;
	unsigned nblocks;
	_Atomic unsigned next;
	_Atomic int stop;
	pthread_mutex_t lock;
	int rc;
	unsigned fault_block;
	struct emu_fault fault;
	char **outs; /* printf output per block, NULL when none */
	const struct emu_hooks *hooks;
	struct emu_trace *trace; /* issue 7 (panels): live trace, NULL = off */
	struct emu_schedule sched; /* block and warp order (schedule.h) */
	unsigned slice;            /* warp instructions before the next warp runs */
	int strict_exits;          /* the hooks' strict_exits at the launch's start */
};

/* ---- helpers -------------------------------------------------------------------- */


static inline unsigned popcount32(uint32_t x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* fma in float: the product of two floats is exact in double, so one double add and
 * one rounding to float give the fused result (up to rare double-rounding ties); this
 * avoids a libm call per lane on CPUs without FMA in the baseline ISA. */
static inline float fma32(float a, float b, float c)
{
	return (float)((double)a * (double)b + (double)c);
}

static inline int is_signed_t(unsigned t)
{
	return t >= PT_S8 && t <= PT_S64;
}

static inline uint64_t width_mask(unsigned bytes)
{
	return bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1;
}

static inline int64_t sext(uint64_t v, unsigned bytes)
{
	unsigned sh = 64 - bytes * 8;
	return bytes >= 8 ? (int64_t)v : (int64_t)(v << sh) >> sh;
}

static float half_to_float(uint16_t h)
{
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	uint32_t u;
	if (e == 0) {
		if (!m) {
			u = s;
		} else {
			float f = ldexpf((float)m, -24);
			return s ? -f : f;
		}
	} else if (e == 31) {
		u = s | 0x7f800000u | (m << 13);
	} else {
		u = s | ((e + 112) << 23) | (m << 13);
	}
	union { uint32_t u; float f; } x = { u };
	return x.f;
}

static uint16_t float_to_half(float f)
{
	union { float f; uint32_t u; } x = { f };
	uint32_t u = x.u, s = (u >> 16) & 0x8000;
	int e = (int)((u >> 23) & 0xff) - 127 + 15;
	uint32_t m = u & 0x7fffff;
	if (((u >> 23) & 0xff) == 0xff)
		return (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
	if (e >= 31)
		return (uint16_t)(s | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)s;
		m |= 0x800000;
		unsigned shift = (unsigned)(14 - e);
		uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (hm & 1)))
			hm++;
		return (uint16_t)(s | hm);
	}
	uint32_t hm = m >> 13, rem = m & 0x1fff;
	uint32_t r = (uint32_t)(s | ((uint32_t)e << 10) | hm);
	if (rem > 0x1000 || (rem == 0x1000 && (hm & 1)))
		r++;
	return (uint16_t)r;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void thread_of(const struct block *b, unsigned linear, struct emu_dim3 *t)
{
	const struct emu_dim3 *bd = &b->L->l->block;
	t->x = linear % bd->x;
	t->y = (linear / bd->x) % bd->y;
	t->z = linear / (bd->x * bd->y);
}

static const char *file_of(const struct block *b, const struct ptx_insn *in)
{
	return in ? ptx_module_file(b->L->m, in->file) : NULL;
}

/* Records a fault of lane `lane` of warp w at instruction in (first one wins). */
static int fault_set(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
		     enum emu_fault_kind kind, int rc, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
static int fault_set(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
		     enum emu_fault_kind kind, int rc, const char *fmt, ...)
{
	if (b->faulted)
		return rc;
	b->faulted = 1;
	b->fault_rc = rc;
	struct emu_fault *f = &b->fault;
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->block = b->bid;
	thread_of(b, w ? w->id * 32 + lane : 0, &f->thread);
	f->file = file_of(b, in);
	f->line = in ? in->line : 0;
	/* inside a toolkit function (-O0 keeps them as calls): report the user's call */
	for (unsigned k = w ? w->nframes : 0; k > 1 && (!f->file || ptx_file_is_system(f->file));
	     k--) {
		const struct ptx_insn *call = w->frames[k - 1].call;
		f->file = file_of(b, call);
		f->line = call->line;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof f->message, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- memory --------------------------------------------------------------------- */

static const char *space_name(int sp)
{
	static const char *const n[] = { "generic", "global", "shared", "local", "const",
					 "kernel parameter", "parameter", "texture" };
	return n[sp];
}

/* Explains why a global/generic address is invalid, for the fault message. */
static void explain_global(char *buf, size_t len, uint64_t addr, unsigned size)
{
	struct devmem_info in;
	if (addr < 65536) {
		snprintf(buf, len, "which is a null pointer (address 0x%llx)",
			 (unsigned long long)addr);
		return;
	}
	if (devmem_nearest(addr, &in) == 0) {
		uint64_t end = in.base + in.size;
		const char *lab = in.label ? in.label : "device memory";
		if (addr >= in.base && addr < end && !in.live) {
			snprintf(buf, len, "which is inside a %zu-byte allocation (%s) that was "
				 "already freed", in.size, lab);
			return;
		}
		if (addr >= in.base && addr < end && addr + size > end) {
			snprintf(buf, len, "which runs %llu bytes past the end of a %zu-byte "
				 "allocation (%s)", (unsigned long long)(addr + size - end), in.size,
				 lab);
			return;
		}
		if (addr >= end && addr - end < (1ull << 30)) {
			snprintf(buf, len, "which is %llu bytes past the end of a %zu-byte %sallocation "
				 "(%s)", (unsigned long long)(addr - end), in.size,
				 in.live ? "" : "freed ", lab);
			return;
		}
		if (addr < in.base && in.base - addr < (1ull << 30)) {
			snprintf(buf, len, "which is %llu bytes before the start of a %zu-byte "
				 "%sallocation (%s)", (unsigned long long)(in.base - addr), in.size,
				 in.live ? "" : "freed ", lab);
			return;
		}
	}
	if (!devmem_in_device_range(addr))
		snprintf(buf, len, "which is not a device address (a host pointer passed to "
			 "the kernel?)");
	else
		snprintf(buf, len, "which is not inside any allocation");
}

static int mem_fault(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
		     int space, uint64_t addr, unsigned size, int is_write, const char *why)
{
	char ex[300];
	if (why)
		snprintf(ex, sizeof ex, "%s", why);
	else
		explain_global(ex, sizeof ex, addr, size);
	fault_set(b, w, lane, in, EMU_FAULT_OOB, -EFAULT, "%s %u bytes of %s memory at 0x%llx, %s",
		  is_write ? "wrote" : "read", size, space_name(space), (unsigned long long)addr,
		  ex);
	b->fault.addr = addr;
	b->fault.size = size;
	b->fault.is_write = is_write;
	return -EFAULT;
}

/* Host pointer for [addr, addr+size) of lane `lane` in `space`, or NULL with a fault. */
static void *mem_slow(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
		      int space, uint64_t addr, unsigned size, int is_write)
{
	struct frame *fr = &w->frames[w->nframes - 1];
	char why[200];
	int sp = space;
	if (size > 1 && (addr & (size - 1)) && space != SP_KPARAM && space != SP_FPARAM) {
		int named = space != SP_GENERIC ? space
			    : (addr & WIN_MASK) == SHARED_WIN ? SP_SHARED
			    : (addr & WIN_MASK) == LOCAL_WIN ? SP_LOCAL : SP_GLOBAL;
		fault_set(b, w, lane, in, EMU_FAULT_MISALIGNED, -EFAULT,
			  "%s %u bytes of %s memory at 0x%llx, which is not aligned to %u bytes",
			  is_write ? "wrote" : "read", size, space_name(named),
			  (unsigned long long)addr, size);
		b->fault.addr = addr;
		b->fault.size = size;
		b->fault.is_write = is_write;
		return NULL;
	}
	if (sp == SP_GENERIC) {
		if ((addr & WIN_MASK) == SHARED_WIN) {
			sp = SP_SHARED;
			addr -= SHARED_WIN;
		} else if ((addr & WIN_MASK) == LOCAL_WIN) {
			sp = SP_LOCAL;
			addr -= LOCAL_WIN;
		} else {
			sp = SP_GLOBAL;
		}
	}
	switch (sp) {
	case SP_SHARED:
		if (addr + size > b->shared_size || addr + size < addr) {
			snprintf(why, sizeof why, "which is %llu bytes past the end of the block's "
				 "%zu bytes of shared memory", (unsigned long long)(addr + size -
				 b->shared_size), b->shared_size);
			mem_fault(b, w, lane, in, SP_SHARED, addr, size, is_write, why);
			return NULL;
		}
		return b->shared + addr;
	case SP_LOCAL:
		if (addr + size > b->local_per_thread || addr + size < addr) {
			snprintf(why, sizeof why, "outside the thread's %zu bytes of local memory "
				 "(stack)", b->local_per_thread);
			mem_fault(b, w, lane, in, SP_LOCAL, addr, size, is_write, why);
			return NULL;
		}
		return b->local + (size_t)(w->id * 32 + lane) * b->local_per_thread + addr;
	case SP_KPARAM:
		if (is_write || addr + size > b->L->kparam_size) {
			mem_fault(b, w, lane, in, SP_KPARAM, addr, size, is_write,
				  "outside the kernel's parameters");
			return NULL;
		}
		return b->L->kparams + addr;
	case SP_FPARAM:
		if (addr + size > fr->f->fparam_size) {
			mem_fault(b, w, lane, in, SP_FPARAM, addr, size, is_write,
				  "outside the function's parameters");
			return NULL;
		}
		return fr->fparam + (size_t)lane * fr->f->fparam_size + addr;
	default: {
		devaddr_t base;
		size_t sz;
		char *host;
		if (devmem_lookup_range(addr, size, &base, &sz, &host) < 0) {
			mem_fault(b, w, lane, in, space == SP_CONST ? SP_CONST : SP_GLOBAL, addr,
				  size, is_write, NULL);
			return NULL;
		}
		memmove(w->c_base + 1, w->c_base, 3 * sizeof(w->c_base[0]));
		memmove(w->c_end + 1, w->c_end, 3 * sizeof(w->c_end[0]));
		memmove(w->c_host + 1, w->c_host, 3 * sizeof(w->c_host[0]));
		w->c_base[0] = base;
		w->c_end[0] = base + sz;
		w->c_host[0] = host;
		return host + (addr - base);
	}
	}
}

/* The fast path: global accesses inside the last allocation used by this warp. */
static inline void *mem_at(struct block *b, struct warp *w, unsigned lane,
			   const struct ptx_insn *in, int space, uint64_t addr, unsigned size,
			   int is_write)
{
	if ((space == SP_GLOBAL || space == SP_GENERIC || space == SP_CONST) && !(addr & (size - 1)))
		for (unsigned k = 0; k < 4; k++)
			if (addr - w->c_base[k] < w->c_end[k] - w->c_base[k] &&
			    addr + size <= w->c_end[k])
				return w->c_host[k] + (addr - w->c_base[k]);
	if (space == SP_SHARED && addr + size <= b->shared_size && !(addr & (size - 1)))
		return b->shared + addr;
	return mem_slow(b, w, lane, in, space, addr, size, is_write);
}

static inline uint64_t load_n(const void *p, unsigned size, int sign)
{
	switch (size) {
	case 1: return sign ? (uint64_t)(int64_t) * (const int8_t *)p : *(const uint8_t *)p;
	case 2: { int16_t v; memcpy(&v, p, 2); return sign ? (uint64_t)(int64_t)v : (uint16_t)v; }
	case 4: { int32_t v; memcpy(&v, p, 4); return sign ? (uint64_t)(int64_t)v : (uint32_t)v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

static inline void store_n(void *p, unsigned size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)p = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

/* Shared and local addresses are 32-bit: address arithmetic wraps modulo 2^32 there
 * (a 32-bit base register plus a negative offset must not carry into bit 32). */
static inline uint64_t space_addr_mask(int space)
{
	return space == SP_SHARED || space == SP_LOCAL ? 0xffffffffull : ~0ull;
}

/* The warp-wide fast path of a scalar access: when the active lanes' addresses are
 * aligned and all fall inside the block's shared memory or one cached global
 * allocation, returns the host base to add to (address - *bias); else NULL and the
 * caller checks lane by lane. */
static inline unsigned char *warp_range(struct block *b, struct warp *w, int space,
					const uint64_t *a, int64_t off, unsigned size,
					uint32_t m, uint64_t *bias)
{
	uint64_t lo = ~0ull, hi = 0, orr = 0, am = space_addr_mask(space);
	LANES(uint64_t x = (a[l] + (uint64_t)off) & am; lo = x < lo ? x : lo; hi = x > hi ? x : hi;
	      orr |= x);
	if (orr & (size - 1) || hi + size < hi)
		return NULL;
	if (space == SP_SHARED) {
		*bias = 0;
		return hi + size <= b->shared_size ? b->shared : NULL;
	}
	if (space != SP_GLOBAL && space != SP_GENERIC && space != SP_CONST)
		return NULL;
	for (unsigned k = 0; k < 4; k++)
		if (lo >= w->c_base[k] && hi + size <= w->c_end[k]) {
			*bias = w->c_base[k];
			return (unsigned char *)w->c_host[k];
		}
	return NULL;
}

/* ---- frames --------------------------------------------------------------------- */

/* Fills the special-register and immediate slots of a new frame. */
static void frame_init_slots(struct block *b, struct warp *w, struct frame *fr)
{
	const struct ptx_func *f = fr->f;
	uint64_t *R = fr->regs;
	const struct emu_launch *l = b->L->l;
	if (w->nframes > 0) { /* a call: the specials are the caller's */
		memcpy(R, w->frames[w->nframes - 1].regs, (size_t)SR__COUNT * 32 * 8);
		for (unsigned lane = 0; lane < 32; lane++)
			R[SR_LOCALBASE * 32 + lane] = fr->local_base;
		goto imms;
	}
	struct emu_dim3 tid;
	thread_of(b, w->id * 32, &tid);
	for (unsigned lane = 0; lane < 32; lane++) {
		if (lane) { /* the next thread index, without divisions */
			if (++tid.x == l->block.x) {
				tid.x = 0;
				if (++tid.y == l->block.y) {
					tid.y = 0;
					tid.z++;
				}
			}
		}
		R[SR_ZERO * 32 + lane] = 0;
		R[SR_TID_X * 32 + lane] = tid.x;
		R[SR_TID_Y * 32 + lane] = tid.y;
		R[SR_TID_Z * 32 + lane] = tid.z;
		R[SR_NTID_X * 32 + lane] = l->block.x;
		R[SR_NTID_Y * 32 + lane] = l->block.y;
		R[SR_NTID_Z * 32 + lane] = l->block.z;
		R[SR_CTAID_X * 32 + lane] = b->bid.x;
		R[SR_CTAID_Y * 32 + lane] = b->bid.y;
		R[SR_CTAID_Z * 32 + lane] = b->bid.z;
		R[SR_NCTAID_X * 32 + lane] = l->grid.x;
		R[SR_NCTAID_Y * 32 + lane] = l->grid.y;
		R[SR_NCTAID_Z * 32 + lane] = l->grid.z;
		R[SR_LANEID * 32 + lane] = lane;
		R[SR_WARPID * 32 + lane] = w->id;
		R[SR_NWARPID * 32 + lane] = b->nwarps;
		R[SR_LANEMASK_EQ * 32 + lane] = 1u << lane;
		R[SR_LANEMASK_LT * 32 + lane] = (1u << lane) - 1;
		R[SR_LANEMASK_LE * 32 + lane] = (uint32_t)((2ull << lane) - 1);
		R[SR_LANEMASK_GT * 32 + lane] = (uint32_t)~((2ull << lane) - 1);
		R[SR_LANEMASK_GE * 32 + lane] = (uint32_t)~((1u << lane) - 1);
		R[SR_SMID * 32 + lane] = b->idx % 132;
		R[SR_NSMID * 32 + lane] = 132;
		R[SR_GRIDID * 32 + lane] = 1;
		R[SR_LOCALBASE * 32 + lane] = fr->local_base;
	}
imms:
	for (unsigned i = 0; i < f->nimm; i++) {
		uint64_t *d = R + (size_t)f->imm_slots[i] * 32, v = f->imm_vals[i];
		for (unsigned lane = 0; lane < 32; lane++)
			d[lane] = v;
	}
}

static int frame_push(struct block *b, struct warp *w, const struct ptx_func *f,
		      uint64_t local_base)
{
	if (w->nframes == MAX_CALL_DEPTH)
		return -E2BIG;
	struct frame *fr = &w->frames[w->nframes];
	fr->f = f;
	fr->local_base = local_base;
	size_t need = (size_t)f->nslots * 32 * 8 + f->fparam_size * 32 + 8;
	if (need > fr->cap) { /* buffers are kept for the next block and call */
		free(fr->regs);
		fr->regs = malloc(need);
		fr->cap = fr->regs ? need : 0;
		if (!fr->regs)
			return -ENOMEM;
	}
	fr->fparam = (unsigned char *)(fr->regs + (size_t)f->nslots * 32);
	memset(fr->fparam, 0, f->fparam_size * 32);
	frame_init_slots(b, w, fr);
	w->nframes++;
	return 0;
}

static void frame_pop(struct warp *w)
{
	w->nframes--;
}

static int stack_push(struct warp *w, uint32_t pc, uint32_t rpc, uint32_t mask)
{
	if (w->sp == w->scap) {
		unsigned nc = w->scap ? w->scap * 2 : 16;
		struct simt_entry *n = realloc(w->stack, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->stack = n;
		w->scap = nc;
	}
	w->stack[w->sp++] = (struct simt_entry){ pc, rpc, mask };
	return 0;
}

/* ---- device printf -------------------------------------------------------------- */

static void out_append(struct block *b, const char *s, size_t n)
{
	if (b->outlen + n + 1 > b->outcap) {
		size_t nc = b->outcap ? b->outcap * 2 : 1024;
		while (nc < b->outlen + n + 1)
			nc *= 2;
		char *p = realloc(b->out, nc);
		if (!p)
			return;
		b->out = p;
		b->outcap = nc;
	}
	memcpy(b->out + b->outlen, s, n);
	b->outlen += n;
	b->out[b->outlen] = 0;
}

/* Reads a NUL-terminated string at a generic address (at most max bytes). */
static int read_cstr(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
		     uint64_t addr, char *buf, size_t max)
{
	size_t n = 0;
	for (; n + 1 < max; n++) {
		const char *p = mem_at(b, w, lane, in, SP_GENERIC, addr + n, 1, 0);
		if (!p)
			return -EFAULT;
		buf[n] = *p;
		if (!*p)
			return 0;
	}
	buf[n] = 0;
	return 0;
}

static int isdigit_c(char c)
{
	return c >= '0' && c <= '9';
}

/* vprintf(fmt, args): formats one lane's printf into the block's buffer. */
static int do_printf(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
		     uint64_t fmtp, uint64_t argp, int *nargs)
{
	char fmt[1024], out[2048];
	size_t o = 0;
	if (read_cstr(b, w, lane, in, fmtp, fmt, sizeof fmt))
		return -EFAULT;
	uint64_t ap = argp;
	*nargs = 0;
	for (const char *f = fmt; *f; f++) {
		if (*f != '%' || f[1] == '%') {
			if (*f == '%')
				f++;
			if (o + 1 < sizeof out)
				out[o++] = *f;
			continue;
		}
		char spec[32];
		size_t k = 0;
		const char *s = f;
		spec[k++] = *s++;
		while (*s && strchr("-+ #0", *s) && k < 20)
			spec[k++] = *s++;
		int star = 0;
		while (*s && (isdigit_c(*s) || *s == '.' || *s == '*') && k < 20) {
			if (*s == '*')
				star = 1;
			spec[k++] = *s++;
		}
		int lng = 0;
		while (*s == 'l' || *s == 'h' || *s == 'z' || *s == 'j' || *s == 't') {
			if (*s == 'l' || *s == 'z' || *s == 'j' || *s == 't')
				lng++;
			s++;
		}
		char conv = *s;
		if (!conv)
			break;
		f = s;
		(void)star;
		unsigned asz = (conv == 'f' || conv == 'F' || conv == 'e' || conv == 'E' ||
				conv == 'g' || conv == 'G' || conv == 'a' || conv == 'A' ||
				conv == 's' || conv == 'p' || lng)
				   ? 8 : 4;
		ap = (ap + asz - 1) & ~(uint64_t)(asz - 1);
		const void *pa = mem_at(b, w, lane, in, SP_GENERIC, ap, asz, 0);
		if (!pa)
			return -EFAULT;
		uint64_t v = load_n(pa, asz, 0);
		ap += asz;
		(*nargs)++;
		char piece[600];
		int n = 0;
		if (strchr("fFeEgGaA", conv)) {
			spec[k++] = conv;
			spec[k] = 0;
			n = snprintf(piece, sizeof piece, spec, f64(v));
		} else if (conv == 's') {
			char str[512];
			if (v == 0)
				strcpy(str, "(null)");
			else if (read_cstr(b, w, lane, in, v, str, sizeof str))
				return -EFAULT;
			spec[k++] = 's';
			spec[k] = 0;
			n = snprintf(piece, sizeof piece, spec, str);
		} else if (conv == 'p') {
			n = snprintf(piece, sizeof piece, "0x%llx", (unsigned long long)v);
		} else if (conv == 'c') {
			spec[k++] = 'c';
			spec[k] = 0;
			n = snprintf(piece, sizeof piece, spec, (int)(uint32_t)v);
		} else if (strchr("diouxX", conv)) {
			spec[k++] = 'l';
			spec[k++] = 'l';
			spec[k++] = conv;
			spec[k] = 0;
			long long x = asz == 8 ? (long long)v
				      : (conv == 'd' || conv == 'i') ? (long long)(int32_t)v
								     : (long long)(uint32_t)v;
			n = snprintf(piece, sizeof piece, spec, x);
		} else {
			n = snprintf(piece, sizeof piece, "%%%c", conv);
		}
		if (n > 0) {
			size_t cp = (size_t)n < sizeof piece ? (size_t)n : sizeof piece - 1;
			if (o + cp < sizeof out) {
				memcpy(out + o, piece, cp);
				o += cp;
			}
		}
	}
	out_append(b, out, o);
	return 0;
}

/* ---- arithmetic helpers --------------------------------------------------------- */

static inline int cmp_u(unsigned mod, uint64_t a, uint64_t b)
{
	switch (mod) {
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b;
	case CMP_LT: case CMP_LO: return a < b;
	case CMP_LE: case CMP_LS: return a <= b;
	case CMP_GT: case CMP_HI: return a > b;
	case CMP_GE: case CMP_HS: return a >= b;
	default: return 0;
	}
}

static inline int cmp_s(unsigned mod, int64_t a, int64_t b)
{
	switch (mod) {
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b;
	case CMP_LT: return a < b;
	case CMP_LE: return a <= b;
	case CMP_GT: return a > b;
	case CMP_GE: return a >= b;
	default: return cmp_u(mod, (uint64_t)a, (uint64_t)b);
	}
}

static inline int cmp_f(unsigned mod, double a, double b)
{
	int un = isnan(a) || isnan(b);
	switch (mod) {
	case CMP_EQ: return !un && a == b;
	case CMP_NE: return !un && a != b;
	case CMP_LT: case CMP_LO: return !un && a < b;
	case CMP_LE: case CMP_LS: return !un && a <= b;
	case CMP_GT: case CMP_HI: return !un && a > b;
	case CMP_GE: case CMP_HS: return !un && a >= b;
	case CMP_EQU: return un || a == b;
	case CMP_NEU: return un || a != b;
	case CMP_LTU: return un || a < b;
	case CMP_LEU: return un || a <= b;
	case CMP_GTU: return un || a > b;
	case CMP_GEU: return un || a >= b;
	case CMP_NUM: return !un;
	case CMP_NAN: return un;
	default: return 0;
	}
}

static inline int cmp_typed(unsigned ty, unsigned mod, uint64_t a, uint64_t b)
{
	unsigned sz = ptx_tsize(ty);
	if (ty == PT_F32)
		return cmp_f(mod, f32(a), f32(b));
	if (ty == PT_F64)
		return cmp_f(mod, f64(a), f64(b));
	if (is_signed_t(ty))
		return cmp_s(mod, sext(a, sz), sext(b, sz));
	return cmp_u(mod, a & width_mask(sz), b & width_mask(sz));
}

/* setp for the common 32-bit types, the comparison chosen outside the lane loop.
 * Returns 0 when the combination has no fast path. */
static inline int setp_fast(uint64_t *restrict d, const uint64_t *a, const uint64_t *c,
			    unsigned ty, unsigned md, uint32_t m)
{
#define SETP_CASES(T, CONV)                                                              \
	switch (md) {                                                                    \
	case CMP_EQ: LANES(d[l] = (CONV(a[l]) == CONV(c[l]))); return 1;                 \
	case CMP_NE: LANES(d[l] = (CONV(a[l]) != CONV(c[l]))); return 1;                 \
	case CMP_LT: LANES(d[l] = (CONV(a[l]) < CONV(c[l]))); return 1;                  \
	case CMP_LE: LANES(d[l] = (CONV(a[l]) <= CONV(c[l]))); return 1;                 \
	case CMP_GT: LANES(d[l] = (CONV(a[l]) > CONV(c[l]))); return 1;                  \
	case CMP_GE: LANES(d[l] = (CONV(a[l]) >= CONV(c[l]))); return 1;                 \
	default: return 0;                                                               \
	}
#define CONV_S(x) ((int32_t)(x))
#define CONV_U(x) ((uint32_t)(x))
#define CONV_F(x) (f32(x))
	if (ty == PT_S32) {
		SETP_CASES(int32_t, CONV_S)
	} else if (ty == PT_U32) {
		if (md >= CMP_LO) /* lo ls hi hs */
			md = md == CMP_LO ? CMP_LT : md == CMP_LS ? CMP_LE : md == CMP_HI ? CMP_GT : CMP_GE;
		SETP_CASES(uint32_t, CONV_U)
	} else if (ty == PT_F32 && md != CMP_NE) { /* ordered compares; NaN gives false */
		SETP_CASES(float, CONV_F)
	}
	return 0;
#undef SETP_CASES
#undef CONV_S
#undef CONV_U
#undef CONV_F
}

/* Rounds an (exact) double to float in a directed mode (rz, rm, rp) or to nearest. */
static float round_f32(double x, unsigned mode)
{
	float f = (float)x;
	if (isnan(x) || isinf(x))
		return f;
	if ((mode == RND_RM && (double)f > x) || (mode == RND_RZ && x > 0 && (double)f > x))
		f = nextafterf(f, -INFINITY);
	else if ((mode == RND_RP && (double)f < x) || (mode == RND_RZ && x < 0 && (double)f < x))
		f = nextafterf(f, INFINITY);
	return f;
}

static double round_int(double x, unsigned mode)
{
	switch (mode) {
	case RND_RZI: case RND_RZ: return trunc(x);
	case RND_RMI: case RND_RM: return floor(x);
	case RND_RPI: case RND_RP: return ceil(x);
	default: return nearbyint(x);
	}
}

/* Float to integer of dst type: rounded, saturated, NaN gives 0 (as PTX defines). */
static uint64_t f_to_int(double x, unsigned dst, unsigned mode)
{
	unsigned sz = ptx_tsize(dst);
	if (isnan(x))
		return 0;
	x = round_int(x, mode ? mode : RND_RZI);
	if (is_signed_t(dst)) {
		double lo = -ldexp(1.0, (int)sz * 8 - 1), hi = ldexp(1.0, (int)sz * 8 - 1);
		if (x <= lo)
			return (uint64_t)(int64_t)lo & width_mask(sz);
		if (x >= hi)
			return (width_mask(sz) >> 1);
		return (uint64_t)(int64_t)x & width_mask(sz);
	}
	double hi = ldexp(1.0, (int)sz * 8);
	if (x <= 0)
		return 0;
	if (x >= hi)
		return width_mask(sz);
	return (uint64_t)x;
}

/* One lane of cvt. */
static uint64_t cvt_one(const struct ptx_insn *in, uint64_t v)
{
	unsigned dt = in->type, st = in->type2, mode = in->mod2;
	unsigned dsz = ptx_tsize(dt), ssz = ptx_tsize(st);
	int sat = in->flags & PF_SAT;
	int dflt = dt == PT_F32 || dt == PT_F64 || dt == PT_F16 || dt == PT_BF16;
	int sflt = st == PT_F32 || st == PT_F64 || st == PT_F16 || st == PT_BF16;
	double x = 0;
	if (sflt) {
		x = st == PT_F32 ? f32(v) : st == PT_F64 ? f64(v)
		    : st == PT_F16 ? half_to_float((uint16_t)v)
				   : f32((uint64_t)((uint32_t)(uint16_t)v << 16));
	}
	if (!sflt && !dflt) {
		if (is_signed_t(st)) {
			int64_t s = sext(v, ssz);
			if (sat) {
				if (is_signed_t(dt)) {
					int64_t hi = (int64_t)(width_mask(dsz) >> 1), lo = -hi - 1;
					s = s < lo ? lo : s > hi ? hi : s;
				} else {
					if (s < 0)
						s = 0;
					if ((uint64_t)s > width_mask(dsz))
						s = (int64_t)width_mask(dsz);
				}
			}
			return (uint64_t)s & width_mask(dsz);
		}
		uint64_t u = v & width_mask(ssz);
		if (sat) {
			uint64_t hi = is_signed_t(dt) ? width_mask(dsz) >> 1 : width_mask(dsz);
			if (u > hi)
				u = hi;
		}
		if (is_signed_t(dt) && !sat)
			return (uint64_t)sext(u, dsz < ssz ? dsz : 8) & width_mask(dsz);
		return u & width_mask(dsz);
	}
	if (sflt && !dflt)
		return f_to_int(x, dt, mode);
	if (!sflt) {
		x = is_signed_t(st) ? (double)sext(v, ssz) : (double)(v & width_mask(ssz));
		if (ssz == 8 && dt == PT_F64) {
			/* 64-bit integers are not exact in double; convert directly */
			x = is_signed_t(st) ? (double)(int64_t)v : (double)v;
		}
	}
	if (mode >= RND_RNI && mode <= RND_RPI)
		x = round_int(x, mode);
	if (sat)
		x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
	switch (dt) {
	case PT_F64: return mkf64(x);
	case PT_F32: return mkf32(sflt && st == PT_F64 ? round_f32(x, mode) : (float)x);
	case PT_F16: return float_to_half((float)x);
	default: { /* bf16: round to nearest even */
		uint32_t u = (uint32_t)mkf32((float)x);
		u += 0x7fff + ((u >> 16) & 1);
		return u >> 16;
	}
	}
}

static uint64_t atom_one(const struct ptx_insn *in, void *p, uint64_t bv, uint64_t cv)
{
	unsigned ty = in->type, sz = ptx_tsize(ty);
	if (sz == 4) {
		uint32_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv, b = (uint32_t)bv;
		switch (in->mod) {
		case AOP_ADD:
			if (ty == PT_F32)
				break;
			return __atomic_fetch_add(q, b, __ATOMIC_RELAXED);
		case AOP_AND: return __atomic_fetch_and(q, b, __ATOMIC_RELAXED);
		case AOP_OR: return __atomic_fetch_or(q, b, __ATOMIC_RELAXED);
		case AOP_XOR: return __atomic_fetch_xor(q, b, __ATOMIC_RELAXED);
		case AOP_EXCH: return __atomic_exchange_n(q, b, __ATOMIC_RELAXED);
		case AOP_CAS: {
			uint32_t exp = b;
			__atomic_compare_exchange_n(q, &exp, (uint32_t)cv, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			return exp;
		}
		default: break;
		}
		do {
			switch (in->mod) {
			case AOP_ADD: nv = (uint32_t)mkf32(f32(old) + f32(b)); break;
			case AOP_MIN:
				nv = ty == PT_S32 ? ((int32_t)old < (int32_t)b ? old : b)
				     : ty == PT_F32 ? (uint32_t)mkf32(fminf(f32(old), f32(b)))
						    : (old < b ? old : b);
				break;
			case AOP_MAX:
				nv = ty == PT_S32 ? ((int32_t)old > (int32_t)b ? old : b)
				     : ty == PT_F32 ? (uint32_t)mkf32(fmaxf(f32(old), f32(b)))
						    : (old > b ? old : b);
				break;
			case AOP_INC: nv = old >= b ? 0 : old + 1; break;
			case AOP_DEC: nv = (old == 0 || old > b) ? b : old - 1; break;
			default: nv = old; break;
			}
		} while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
		return old;
	}
	uint64_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv, b = bv;
	switch (in->mod) {
	case AOP_ADD:
		if (ty == PT_F64)
			break;
		return __atomic_fetch_add(q, b, __ATOMIC_RELAXED);
	case AOP_AND: return __atomic_fetch_and(q, b, __ATOMIC_RELAXED);
	case AOP_OR: return __atomic_fetch_or(q, b, __ATOMIC_RELAXED);
	case AOP_XOR: return __atomic_fetch_xor(q, b, __ATOMIC_RELAXED);
	case AOP_EXCH: return __atomic_exchange_n(q, b, __ATOMIC_RELAXED);
	case AOP_CAS: {
		uint64_t exp = b;
		__atomic_compare_exchange_n(q, &exp, cv, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return exp;
	}
	default: break;
	}
	do {
		switch (in->mod) {
		case AOP_ADD: nv = mkf64(f64(old) + f64(b)); break;
		case AOP_MIN:
			nv = ty == PT_S64 ? ((int64_t)old < (int64_t)b ? old : b)
			     : ty == PT_F64 ? mkf64(fmin(f64(old), f64(b))) : (old < b ? old : b);
			break;
		case AOP_MAX:
			nv = ty == PT_S64 ? ((int64_t)old > (int64_t)b ? old : b)
			     : ty == PT_F64 ? mkf64(fmax(f64(old), f64(b))) : (old > b ? old : b);
			break;
		case AOP_INC: nv = old >= b ? 0 : old + 1; break;
		case AOP_DEC: nv = (old == 0 || old > b) ? b : old - 1; break;
		default: nv = old; break;
		}
	} while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return old;
}

static uint64_t bfe_one(unsigned ty, uint64_t a, uint64_t b, uint64_t c)
{
	unsigned sz = ptx_tsize(ty), bits = sz * 8;
	unsigned pos = (unsigned)(b & 0xff), len = (unsigned)(c & 0xff);
	uint64_t wm = width_mask(sz);
	a &= wm;
	if (len == 0)
		return 0;
	int sgn = is_signed_t(ty);
	if (pos >= bits)
		return sgn && (a >> (bits - 1) & 1) ? wm : 0;
	uint64_t x = a >> pos;
	if (len < 64)
		x &= (1ull << len) - 1;
	if (sgn) {
		unsigned msb = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
		if ((a >> msb & 1) && len < 64)
			x |= ~((1ull << len) - 1);
	}
	return x & wm;
}

/* bmsk: b bits set from bit a, as the PTX ISA defines it (.clamp: a or b of 32 or more
 * clamp; .wrap: both taken modulo 32). */
static uint32_t bmsk_one(uint32_t a, uint32_t b, int wrap)
{
	uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
	uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
	int overflow = sum >= 32;
	if (!wrap && a >= 32) {
		overflow = 1;
		mask0 = 0;
	}
	if (!wrap && b >= 32)
		overflow = 1;
	if (overflow)
		mask1 = 0;
	else if (b1 == 0)
		mask1 = ~0u;
	return mask0 & ~mask1;
}

/* add/sub/mad with .cc and addc/subc/madc: 32- or 64-bit, the carry per lane in SR_CC. */
static void carry_op(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = R + (size_t)in->d[0] * 32, *cf = R + (size_t)SR_CC * 32;
	const uint64_t *a = R + (size_t)in->s[0] * 32, *b = R + (size_t)in->s[1] * 32;
	const uint64_t *c = in->ns > 2 ? R + (size_t)in->s[2] * 32 : NULL;
	unsigned sz = ptx_tsize(in->type), op = in->op, setcc = in->flags & PF_CC;
	int use_cf = op == OP_ADDC || op == OP_SUBC || op == OP_MADC;
	uint64_t wm = width_mask(sz);
	LANES(unsigned __int128 r; uint64_t ci = use_cf ? cf[l] & 1 : 0, x = a[l] & wm, y = b[l] & wm;
	      unsigned __int128 one = 1;
	      uint64_t co;
	      if (op == OP_SUB || op == OP_SUBC) {
		      r = (unsigned __int128)x - y - ci;
		      co = x < (unsigned __int128)y + ci; /* borrow */
	      } else {
		      unsigned __int128 base = (unsigned __int128)x + y;
		      if (op == OP_MAD || op == OP_MADC) {
			      unsigned __int128 p = (unsigned __int128)x * y;
			      base = in->mod == MUL_HI ? p >> (sz * 8) : p & wm;
			      base += c[l] & wm;
		      }
		      r = base + ci;
		      co = (uint64_t)((r >> (sz * 8)) & one);
	      }
	      d[l] = (uint64_t)r & wm;
	      if (setcc) cf[l] = co);
}

/* Float arithmetic that needs more than the host's default: a directed rounding mode
 * (.rz .rm .rp) or .sat. Tested only on the float paths of the instructions that have
 * these modifiers (add sub mul mad fma div rcp sqrt; mod2 is their rounding). */
#define FLOAT_SLOW(in)                                                                   \
	(((in)->type == PT_F32 || (in)->type == PT_F64) &&                              \
	 (((in)->mod2 >= RND_RZ && (in)->mod2 <= RND_RP) || ((in)->flags & PF_SAT)))

/* d = op(a, b, c) for the lanes of m, rounded as in says, then .sat: clamped to
 * [0, 1] with NaN giving 0. */
static void float_slow(const struct ptx_insn *in, enum fround_op op, uint64_t *d,
		       const uint64_t *a, const uint64_t *b, const uint64_t *c, uint32_t m)
{
	int dbl = in->type == PT_F64;
	fround_lanes(op, dbl, in->mod2, d, a, b, c, m);
	if (!(in->flags & PF_SAT))
		return;
	LANES(double x = dbl ? f64(d[l]) : f32(d[l]);
	      x = !(x > 0) ? 0 : x > 1 ? 1 : x;
	      d[l] = dbl ? mkf64(x) : mkf32((float)x));
}

/* ---- the interpreter loop ------------------------------------------------------- */


#define DS(k) (R + (size_t)in->d[k] * 32)
#define SS(k) (R + (size_t)in->s[k] * 32)
/* dispatch: a switch; CASE/NEXT keep the bodies independent of the dispatch method */
#define CASE(op) case OP_##op:
#define NEXT break

/* The lanes each lane of m computes a warp vote, match or reduction over: the
 * membermask operand (source k) limited to the lanes that execute the instruction (a
 * tiled_partition<16> names each half by its own mask); all of m without one. */
static void member_groups(const struct ptx_insn *in, const uint64_t *R, uint32_t m,
			  unsigned k, uint32_t grp[32])
{
	const uint64_t *mk = in->ns > k ? R + (size_t)in->s[k] * 32 : NULL;
	if (mk)
		LANES(grp[l] = (uint32_t)mk[l] & m);
	else
		LANES(grp[l] = m);
}

/* match.any.sync: the lanes of the group with the same value; match.all.sync: the
 * group when all its lanes agree (and the predicate says so), else 0. */
static void match_lanes(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = DS(0), *dp = DS(1), vals[32];
	const uint64_t *a = SS(0);
	uint64_t vm = ptx_tsize(in->type) == 8 ? ~0ull : 0xffffffffull;
	uint32_t grp[32], res[32];
	LANES(vals[l] = a[l] & vm);
	member_groups(in, R, m, 1, grp);
	LANES(uint32_t same = 0;
	      for (uint32_t g = grp[l]; g; g &= g - 1) {
		      unsigned k = (unsigned)__builtin_ctz(g);
		      same |= (uint32_t)(vals[k] == vals[l]) << k;
	      }
	      res[l] = in->mod ? (same == grp[l] ? same : 0) : same);
	LANES(d[l] = res[l]);
	if (in->mod && in->d[1] != SR_SINK)
		LANES(dp[l] = res[l] != 0);
}

/* redux.sync: add/min/max/and/or/xor of the 32-bit values of each lane's group. */
static void redux_lanes(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = DS(0);
	const uint64_t *a = SS(0);
	int sg = is_signed_t(in->type);
	uint32_t grp[32], res[32];
	member_groups(in, R, m, 1, grp);
	LANES(int64_t acc = in->mod == AOP_AND ? -1 : 0;
	      int first = 1;
	      for (uint32_t g = grp[l]; g; g &= g - 1, first = 0) {
		      unsigned k = (unsigned)__builtin_ctz(g);
		      int64_t v = sg ? (int32_t)a[k] : (int64_t)(uint32_t)a[k];
		      switch (in->mod) {
		      case AOP_ADD: acc += v; break;
		      case AOP_MIN: acc = first || v < acc ? v : acc; break;
		      case AOP_MAX: acc = first || v > acc ? v : acc; break;
		      case AOP_AND: acc &= v; break;
		      case AOP_OR: acc |= v; break;
		      default: acc ^= v; break;
		      }
	      }
	      res[l] = (uint32_t)acc);
	LANES(d[l] = res[l]);
}

static int warp_call(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t m)
{
	const struct ptx_module *mod = b->L->m;
	const struct ptx_func *callee = &mod->funcs[in->target];
	struct frame *fr = &w->frames[w->nframes - 1];
	uint64_t base = fr->local_base + ((fr->f->local_size + 15) & ~(size_t)15);
	if (base + callee->local_size > b->local_per_thread || w->nframes == MAX_CALL_DEPTH)
		return fault_set(b, w, (unsigned)__builtin_ctz(m), in, EMU_FAULT_LIMIT, -E2BIG,
				 "the call to %s nests too deep (recursion?): the emulator allows "
				 "%u levels and %u bytes of stack per thread", callee->name,
				 MAX_CALL_DEPTH, (unsigned)b->local_per_thread);
	int rc = frame_push(b, w, callee, base);
	if (rc)
		return fault_set(b, w, 0, in, EMU_FAULT_LIMIT, rc, "out of memory for a call");
	struct frame *nf = &w->frames[w->nframes - 1];
	for (unsigned i = 0; i < in->ns && i < callee->nparams; i++) {
		uint32_t src = mod->callargs[in->off + i];
		size_t sz = callee->params[i].size, dst = callee->params[i].offset;
		for (uint32_t mm = m; mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			memcpy(nf->fparam + l * callee->fparam_size + dst,
			       fr->fparam + l * fr->f->fparam_size + src, sz);
		}
	}
	nf->retval_off = in->d[0];
	nf->call = in;
	nf->call_mask = m;
	nf->stack_base = w->sp;
	return stack_push(w, 0, PTX_NOPC, m);
}

/* Where lanes going to pc end, when they do nothing else on the way: the pc of the
 * unguarded exit, or ret of the kernel, that pc reaches through unconditional branches
 * only (nvcc -O0 jumps to the final ret through a chain of bra.uni), else PTX_NOPC. */
static uint32_t exit_via(const struct warp *w, const struct ptx_insn *code, uint32_t pc)
{
	for (unsigned hops = 0; hops < 8; hops++) {
		const struct ptx_insn *t = &code[pc];
		if (t->guard >= 0)
			return PTX_NOPC;
		if (t->op == OP_EXIT || (t->op == OP_RET && w->nframes == 1))
			return pc;
		if (t->op != OP_BRA)
			return PTX_NOPC;
		pc = t->target;
	}
	return PTX_NOPC;
}

/* The lanes of a divergent branch that go straight to the kernel's end (an early
 * return) end at the branch, as on Volta and later GPUs, where threads that exited no
 * longer count at __syncthreads(): parked at the branch's reconvergence point (often
 * that ret) they would make a barrier after an early return look divergent. Hooks and
 * trace see the ret (at pc) they skip to. */
static void warp_retire(struct block *b, struct warp *w, uint32_t lanes, uint32_t pc,
			uint64_t *count)
{
	const struct ptx_insn *ret = &w->frames[w->nframes - 1].f->code[pc];
#if EMU_HOOKS
	const struct emu_hooks *hooks = b->L->hooks;
	if (hooks && hooks->on_insn)
		hooks->on_insn(hooks->ctx, b->idx, w->id, lanes, pc, ret->line);
#endif
	if (b->tsm) /* issue 7 (panels) */
		emu_trace_insn(b->tsm, w->id, lanes, ret);
	*count += popcount32(lanes);
	w->live &= ~lanes;
}

/* The frame's base entry emptied: copy the return value and resume the caller. */
static void warp_return(struct warp *w)
{
	struct frame *cf = &w->frames[w->nframes - 1], *caller = &w->frames[w->nframes - 2];
	const struct ptx_func *f = cf->f;
	if (f->has_ret && cf->retval_off != PTX_NOPC) {
		for (uint32_t mm = cf->call_mask & w->live; mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			memcpy(caller->fparam + l * caller->f->fparam_size + cf->retval_off,
			       cf->fparam + l * f->fparam_size + f->ret.offset, f->ret.size);
		}
	}
	w->sp = cf->stack_base;
	frame_pop(w);
}

/* Executes warp w until it reaches a barrier, ends, faults (negative return) or has
 * used its timeslice. */
static int warp_exec(struct block *b, struct warp *w)
{
	const struct emu_hooks *hooks = EMU_HOOKS ? b->L->hooks : NULL;
	struct emu_trace_sm *tsm = b->tsm; /* issue 7 (panels) */
	if (__builtin_expect(tsm != NULL, 0))
		emu_trace_warp_state(tsm, w->id, EMU_TW_ISSUING);
	struct frame *fr = &w->frames[w->nframes - 1];
	const struct ptx_insn *code = fr->f->code;
	uint64_t *R = fr->regs;
	uint64_t count = 0;
	int rc = 0;
	for (unsigned budget = b->L->slice;;) {
		if (w->sp == 0) {
			w->state = W_DONE;
			break;
		}
		struct simt_entry *e = &w->stack[w->sp - 1];
		uint32_t emask = e->mask & w->live;
		if (emask == 0 || e->pc == e->rpc || e->pc == PTX_NOPC) {
			if (w->nframes > 1 && w->sp - 1 == fr->stack_base) {
				warp_return(w);
				fr = &w->frames[w->nframes - 1];
				code = fr->f->code;
				R = fr->regs;
			} else {
				w->sp--;
			}
			continue;
		}
		if (budget-- == 0)
			break;
		uint32_t pc = e->pc;
		const struct ptx_insn *in = &code[pc];
		uint32_t m = emask;
		if (in->guard >= 0) {
			const uint64_t *g = R + (size_t)in->guard * 32;
			uint32_t pm = 0, neg = in->guard_neg;
			LANES(pm |= (uint32_t)((g[l] & 1) ^ neg) << l);
			m = pm;
		}
#if EMU_HOOKS
		if (__builtin_expect(hooks != NULL, 0) && hooks->on_insn)
			hooks->on_insn(hooks->ctx, b->idx, w->id, m, pc, in->line);
#endif
		if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels): lanes that issue it */
			emu_trace_insn(tsm, w->id, emask, in);
		count += m == FULL ? 32 : popcount32(m);
		e->pc = pc + 1;
		if (m == 0 && in->op != OP_BRA)
			continue;
		unsigned sz = ptx_tsize(in->type);
		uint64_t wm = width_mask(sz);
		if (__builtin_expect(in->flags & PF_CARRY, 0)) {
			carry_op(in, R, m);
			continue;
		}
		switch (in->op) {
		CASE(MOV) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			LANES(d[l] = a[l]);
			NEXT;
		}
		CASE(ADD) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			if (FLOAT_SLOW(in)) {
				float_slow(in, FROUND_ADD, d, a, c, NULL, m);
			} else if (in->type == PT_F32) {
				LANES(d[l] = mkf32(f32(a[l]) + f32(c[l])));
			} else if (in->type == PT_F64) {
				LANES(d[l] = mkf64(f64(a[l]) + f64(c[l])));
			} else if (in->flags & PF_SAT) {
				LANES(int64_t s = (int64_t)(int32_t)a[l] + (int32_t)c[l];
				      s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
				      d[l] = (uint32_t)s);
			} else {
				LANES(d[l] = (a[l] + c[l]) & wm);
			}
			NEXT;
		}
		CASE(SUB) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			if (FLOAT_SLOW(in)) {
				float_slow(in, FROUND_SUB, d, a, c, NULL, m);
			} else if (in->type == PT_F32) {
				LANES(d[l] = mkf32(f32(a[l]) - f32(c[l])));
			} else if (in->type == PT_F64) {
				LANES(d[l] = mkf64(f64(a[l]) - f64(c[l])));
			} else if (in->flags & PF_SAT) {
				LANES(int64_t s = (int64_t)(int32_t)a[l] - (int32_t)c[l];
				      s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
				      d[l] = (uint32_t)s);
			} else {
				LANES(d[l] = (a[l] - c[l]) & wm);
			}
			NEXT;
		}
		CASE(MUL) CASE(MAD) CASE(MUL24) CASE(MAD24) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			const uint64_t *ad = in->op == OP_MAD || in->op == OP_MAD24 ? SS(2) : R;
			int mad = in->op == OP_MAD || in->op == OP_MAD24;
			if (FLOAT_SLOW(in)) {
				float_slow(in, mad ? FROUND_FMA : FROUND_MUL, d, a, c, mad ? ad : NULL, m);
			} else if (in->type == PT_F32) {
				if (mad)
					LANES(d[l] = mkf32(fma32(f32(a[l]), f32(c[l]), f32(ad[l]))));
				else
					LANES(d[l] = mkf32(f32(a[l]) * f32(c[l])));
			} else if (in->type == PT_F64) {
				if (mad)
					LANES(d[l] = mkf64(fma(f64(a[l]), f64(c[l]), f64(ad[l]))));
				else
					LANES(d[l] = mkf64(f64(a[l]) * f64(c[l])));
			} else if (in->op == OP_MUL24 || in->op == OP_MAD24) {
				int sg = is_signed_t(in->type);
				LANES(int64_t x = sg ? sext(a[l] & 0xffffff, 3) : (int64_t)(a[l] & 0xffffff);
				      int64_t y = sg ? sext(c[l] & 0xffffff, 3) : (int64_t)(c[l] & 0xffffff);
				      uint64_t p = (uint64_t)(x * y);
				      p = in->mod == MUL_HI ? p >> 16 : p;
				      d[l] = (p + (mad ? ad[l] : 0)) & 0xffffffffu);
			} else if (in->mod == MUL_LO) {
				if (mad)
					LANES(d[l] = (a[l] * c[l] + ad[l]) & wm);
				else
					LANES(d[l] = (a[l] * c[l]) & wm);
			} else if (in->mod == MUL_WIDE) {
				uint64_t wm2 = width_mask(sz * 2);
				if (is_signed_t(in->type))
					LANES(d[l] = ((uint64_t)(sext(a[l], sz) * sext(c[l], sz)) +
						      (mad ? ad[l] : 0)) & wm2);
				else
					LANES(d[l] = ((a[l] & wm) * (c[l] & wm) + (mad ? ad[l] : 0)) & wm2);
			} else if (mad && (in->flags & PF_SAT)) { /* mad.hi.sat.s32 */
				LANES(int64_t h = (sext(a[l], 4) * sext(c[l], 4)) >> 32;
				      h += sext(ad[l], 4);
				      h = h > INT32_MAX ? INT32_MAX : h < INT32_MIN ? INT32_MIN : h;
				      d[l] = (uint32_t)h);
			} else { /* hi */
				int sg = is_signed_t(in->type);
				LANES(uint64_t h;
				      if (sz == 8) {
					      h = sg ? (uint64_t)(((__int128)(int64_t)a[l] * (int64_t)c[l]) >> 64)
						     : (uint64_t)(((unsigned __int128)a[l] * c[l]) >> 64);
				      } else {
					      h = sg ? (uint64_t)((sext(a[l], sz) * sext(c[l], sz)) >> (sz * 8))
						     : ((a[l] & wm) * (c[l] & wm)) >> (sz * 8);
				      }
				      d[l] = (h + (mad ? ad[l] : 0)) & wm);
			}
			NEXT;
		}
		CASE(FMA) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *ad = SS(2);
			if (FLOAT_SLOW(in)) {
				float_slow(in, FROUND_FMA, d, a, c, ad, m);
			} else if (in->type == PT_F32) {
				LANES(d[l] = mkf32(fma32(f32(a[l]), f32(c[l]), f32(ad[l]))));
			} else {
				LANES(d[l] = mkf64(fma(f64(a[l]), f64(c[l]), f64(ad[l]))));
			}
			NEXT;
		}
		CASE(SAD) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *ad = SS(2);
			int sg = is_signed_t(in->type);
			LANES(uint64_t diff = sg ? (uint64_t)(sext(a[l], sz) > sext(c[l], sz)
							  ? sext(a[l], sz) - sext(c[l], sz)
							  : sext(c[l], sz) - sext(a[l], sz))
					       : ((a[l] & wm) > (c[l] & wm) ? (a[l] & wm) - (c[l] & wm)
									    : (c[l] & wm) - (a[l] & wm));
			      d[l] = (diff + ad[l]) & wm);
			NEXT;
		}
		CASE(DIV) CASE(REM) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			int rem = in->op == OP_REM;
			if (FLOAT_SLOW(in)) {
				float_slow(in, FROUND_DIV, d, a, c, NULL, m);
			} else if (in->type == PT_F32) {
				LANES(d[l] = mkf32(f32(a[l]) / f32(c[l])));
			} else if (in->type == PT_F64) {
				LANES(d[l] = mkf64(f64(a[l]) / f64(c[l])));
			} else if (is_signed_t(in->type)) {
				LANES(int64_t x = sext(a[l], sz), y = sext(c[l], sz), r;
				      if (y == 0) r = rem ? x : -1;
				      else if (y == -1) r = rem ? 0 : (int64_t)(0 - (uint64_t)x);
				      else r = rem ? x % y : x / y;
				      d[l] = (uint64_t)r & wm);
			} else {
				LANES(uint64_t x = a[l] & wm, y = c[l] & wm;
				      d[l] = y == 0 ? (rem ? x : wm) : rem ? x % y : x / y);
			}
			NEXT;
		}
		CASE(ABS) CASE(NEG) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			int neg = in->op == OP_NEG;
			if (in->type == PT_F32)
				LANES(d[l] = neg ? (a[l] ^ 0x80000000u) & 0xffffffffu : a[l] & 0x7fffffffu);
			else if (in->type == PT_F64)
				LANES(d[l] = neg ? a[l] ^ (1ull << 63) : a[l] & ~(1ull << 63));
			else if (neg)
				LANES(d[l] = (0 - a[l]) & wm);
			else
				LANES(int64_t x = sext(a[l], sz); d[l] = (uint64_t)(x < 0 ? -x : x) & wm);
			NEXT;
		}
		CASE(MIN) CASE(MAX) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			int mx = in->op == OP_MAX;
			if (in->type == PT_F32)
				LANES(d[l] = mkf32(mx ? fmaxf(f32(a[l]), f32(c[l])) : fminf(f32(a[l]), f32(c[l]))));
			else if (in->type == PT_F64)
				LANES(d[l] = mkf64(mx ? fmax(f64(a[l]), f64(c[l])) : fmin(f64(a[l]), f64(c[l]))));
			else if (is_signed_t(in->type))
				LANES(int64_t x = sext(a[l], sz), y = sext(c[l], sz);
				      d[l] = (uint64_t)(mx ? (x > y ? x : y) : (x < y ? x : y)) & wm);
			else
				LANES(uint64_t x = a[l] & wm, y = c[l] & wm;
				      d[l] = mx ? (x > y ? x : y) : (x < y ? x : y));
			NEXT;
		}
		CASE(RCP) CASE(SQRT) CASE(RSQRT) CASE(SIN) CASE(COS) CASE(LG2) CASE(EX2) CASE(TANH) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			unsigned op = in->op;
			if ((op == OP_RCP || op == OP_SQRT) && FLOAT_SLOW(in)) {
				float_slow(in, op == OP_RCP ? FROUND_RCP : FROUND_SQRT, d, a, NULL, NULL, m);
			} else if (in->type == PT_F32) {
				LANES(float x = f32(a[l]), r;
				      switch (op) {
				      case OP_RCP: r = 1.0f / x; break;
				      case OP_SQRT: r = sqrtf(x); break;
				      case OP_RSQRT: r = 1.0f / sqrtf(x); break;
				      case OP_SIN: r = sinf(x); break;
				      case OP_COS: r = cosf(x); break;
				      case OP_LG2: r = log2f(x); break;
				      case OP_EX2: r = exp2f(x); break;
				      default: r = tanhf(x); break;
				      }
				      d[l] = mkf32(r));
			} else {
				LANES(double x = f64(a[l]), r;
				      switch (op) {
				      case OP_RCP: r = 1.0 / x; break;
				      case OP_SQRT: r = sqrt(x); break;
				      case OP_RSQRT: r = 1.0 / sqrt(x); break;
				      case OP_SIN: r = sin(x); break;
				      case OP_COS: r = cos(x); break;
				      case OP_LG2: r = log2(x); break;
				      case OP_EX2: r = exp2(x); break;
				      default: r = tanh(x); break;
				      }
				      d[l] = mkf64(r));
			}
			NEXT;
		}
		CASE(COPYSIGN) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			if (in->type == PT_F32)
				LANES(d[l] = mkf32(copysignf(f32(c[l]), f32(a[l]))));
			else
				LANES(d[l] = mkf64(copysign(f64(c[l]), f64(a[l]))));
			NEXT;
		}
		CASE(TESTP) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			unsigned md = in->mod;
			LANES(double x = in->type == PT_F32 ? f32(a[l]) : f64(a[l]);
			      int c = fpclassify(in->type == PT_F32 ? (double)f32(a[l]) : x);
			      int r;
			      if (in->type == PT_F32) c = fpclassify(f32(a[l]));
			      switch (md) {
			      case TESTP_FINITE: r = isfinite(x); break;
			      case TESTP_INFINITE: r = isinf(x) != 0; break;
			      case TESTP_NUMBER: r = !isnan(x); break;
			      case TESTP_NOTANUMBER: r = isnan(x) != 0; break;
			      case TESTP_NORMAL: r = c == FP_NORMAL; break;
			      default: r = c == FP_SUBNORMAL; break;
			      }
			      d[l] = (uint64_t)r);
			NEXT;
		}
		CASE(AND) CASE(OR) CASE(XOR) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			if (in->op == OP_AND)
				LANES(d[l] = a[l] & c[l] & wm);
			else if (in->op == OP_OR)
				LANES(d[l] = (a[l] | c[l]) & wm);
			else
				LANES(d[l] = (a[l] ^ c[l]) & wm);
			NEXT;
		}
		CASE(NOT) CASE(CNOT) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			if (in->type == PT_PRED || in->op == OP_CNOT)
				LANES(d[l] = (a[l] & wm) == 0);
			else
				LANES(d[l] = ~a[l] & wm);
			NEXT;
		}
		CASE(LOP3) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *e3 = SS(2), *lut = SS(3);
			LANES(uint32_t r = 0, x = (uint32_t)a[l], y = (uint32_t)c[l], z = (uint32_t)e3[l];
			      uint32_t t = (uint32_t)lut[l];
			      for (unsigned i = 0; i < 8; i++)
				      if (t >> i & 1)
					      r |= ((i & 4) ? x : ~x) & ((i & 2) ? y : ~y) & ((i & 1) ? z : ~z);
			      d[l] = r);
			NEXT;
		}
		CASE(SHL) CASE(SHR) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			unsigned bits = sz * 8;
			if (in->op == OP_SHL)
				LANES(uint32_t n = (uint32_t)c[l]; d[l] = n >= bits ? 0 : (a[l] << n) & wm);
			else if (is_signed_t(in->type))
				LANES(uint32_t n = (uint32_t)c[l]; int64_t x = sext(a[l], sz);
				      d[l] = (uint64_t)(x >> (n >= bits ? bits - 1 : n)) & wm);
			else
				LANES(uint32_t n = (uint32_t)c[l]; d[l] = n >= bits ? 0 : (a[l] & wm) >> n);
			NEXT;
		}
		CASE(SHF) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *e3 = SS(2);
			unsigned left = in->flags & PF_SHF_LEFT, wrap = in->flags & PF_SHF_WRAP;
			LANES(uint32_t n = (uint32_t)e3[l];
			      n = wrap ? n & 31 : (n > 32 ? 32 : n);
			      uint64_t x = ((uint64_t)(uint32_t)c[l] << 32) | (uint32_t)a[l];
			      d[l] = left ? (uint32_t)((x << n) >> 32) : (uint32_t)(x >> n));
			NEXT;
		}
		CASE(BFE) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *e3 = SS(2);
			unsigned ty = in->type;
			LANES(d[l] = bfe_one(ty, a[l], c[l], e3[l]));
			NEXT;
		}
		CASE(BFI) {
			uint64_t *d = DS(0);
			const uint64_t *f = SS(0), *c = SS(1), *ps = SS(2), *ln = SS(3);
			unsigned bits = sz * 8;
			LANES(unsigned pos = (unsigned)(ps[l] & 0xff), len = (unsigned)(ln[l] & 0xff);
			      uint64_t r = c[l] & wm;
			      if (len && pos < bits) {
				      uint64_t mk = (len >= 64 ? ~0ull : (1ull << len) - 1) << pos;
				      r = ((r & ~mk) | ((f[l] << pos) & mk)) & wm;
			      }
			      d[l] = r);
			NEXT;
		}
		CASE(BREV) CASE(CLZ) CASE(POPC) CASE(BFIND) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			unsigned bits = sz * 8, op = in->op;
			int sg = is_signed_t(in->type);
			LANES(uint64_t x = a[l] & wm, r = 0;
			      switch (op) {
			      case OP_BREV:
				      for (unsigned i = 0; i < bits; i++)
					      r |= (x >> i & 1) << (bits - 1 - i);
				      break;
			      case OP_CLZ: r = x ? (unsigned)__builtin_clzll(x) - (64 - bits) : bits; break;
			      case OP_POPC: r = (unsigned)__builtin_popcountll(x); break;
			      default:
				      if (sg && (x >> (bits - 1) & 1))
					      x = ~x & wm;
				      r = x ? 63 - (unsigned)__builtin_clzll(x) : 0xffffffffu;
				      if (x && in->mod == BFIND_SHIFTAMT) /* the shift that makes it the MSB */
					      r = bits - 1 - r;
				      break;
			      }
			      d[l] = r);
			NEXT;
		}
		CASE(BMSK) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			int wrap = in->mod == BMSK_WRAP;
			LANES(d[l] = bmsk_one((uint32_t)a[l], (uint32_t)c[l], wrap));
			NEXT;
		}
		CASE(PRMT) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *s3 = SS(2);
			LANES(uint64_t x = ((uint64_t)(uint32_t)c[l] << 32) | (uint32_t)a[l];
			      uint32_t sel = (uint32_t)s3[l], r = 0;
			      for (unsigned i = 0; i < 4; i++) {
				      unsigned s = sel >> (4 * i) & 0xf;
				      uint32_t by = (uint32_t)(x >> ((s & 7) * 8)) & 0xff;
				      if (s & 8)
					      by = (by & 0x80) ? 0xff : 0;
				      r |= by << (8 * i);
			      }
			      d[l] = r);
			NEXT;
		}
		CASE(DP4A) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *ad = SS(2);
			int sa = is_signed_t(in->type), sb = is_signed_t(in->type2);
			LANES(int64_t acc = (int32_t)ad[l];
			      for (unsigned i = 0; i < 4; i++) {
				      uint32_t x = (uint32_t)(a[l] >> (8 * i)) & 0xff, y = (uint32_t)(c[l] >> (8 * i)) & 0xff;
				      acc += (sa ? (int64_t)(int8_t)x : (int64_t)x) * (sb ? (int64_t)(int8_t)y : (int64_t)y);
			      }
			      d[l] = (uint32_t)acc);
			NEXT;
		}
		CASE(SETP) {
			uint64_t *d = DS(0), *d2 = in->nd > 1 ? DS(1) : NULL;
			const uint64_t *a = SS(0), *c = SS(1), *pc3 = in->ns > 2 ? SS(2) : NULL;
			unsigned ty = in->type, md = in->mod, bo = in->mod2, nc = in->neg_c;
			if (!bo && !d2 && (ty == PT_S32 || ty == PT_U32 || ty == PT_F32) &&
			    md <= CMP_HS) {
				if (setp_fast(d, a, c, ty, md, m))
					NEXT;
			}
			LANES(int t = cmp_typed(ty, md, a[l], c[l]);
			      int q = !t;
			      if (bo && pc3) {
				      int cv = (int)((pc3[l] & 1) ^ nc);
				      t = bo == BOOL_AND ? t && cv : bo == BOOL_OR ? t || cv : t ^ cv;
				      q = bo == BOOL_AND ? q && cv : bo == BOOL_OR ? q || cv : q ^ cv;
			      }
			      d[l] = (uint64_t)t;
			      if (d2) d2[l] = (uint64_t)q);
			NEXT;
		}
		CASE(SET) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1);
			unsigned ty = in->type2, md = in->mod, dt = in->type;
			LANES(int t = cmp_typed(ty, md, a[l], c[l]);
			      d[l] = dt == PT_F32 ? (t ? mkf32(1.0f) : 0) : (t ? wm : 0));
			NEXT;
		}
		CASE(SELP) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *p3 = SS(2);
			LANES(d[l] = (p3[l] & 1) ? a[l] : c[l]);
			NEXT;
		}
		CASE(SLCT) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0), *c = SS(1), *p3 = SS(2);
			int fl = in->type2 == PT_F32;
			LANES(int ge = fl ? f32(p3[l]) >= 0.0f : (int32_t)p3[l] >= 0;
			      d[l] = ge ? a[l] : c[l]);
			NEXT;
		}
		CASE(CVT) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			if (in->type == PT_U64 && in->type2 == PT_U32)
				LANES(d[l] = (uint32_t)a[l]);
			else if (in->type == PT_S64 && in->type2 == PT_S32)
				LANES(d[l] = (uint64_t)(int64_t)(int32_t)a[l]);
			else
				LANES(d[l] = cvt_one(in, a[l]));
			NEXT;
		}
		CASE(CVTA) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			uint64_t win = in->space == SP_SHARED ? SHARED_WIN
				       : in->space == SP_LOCAL ? LOCAL_WIN : 0;
			if (in->cvta_to)
				LANES(d[l] = (a[l] - win) & wm);
			else
				LANES(d[l] = (a[l] & (sz == 4 ? 0xffffffffull : ~0ull)) + win);
			NEXT;
		}
		CASE(ISSPACEP) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			int sp = in->space;
			LANES(uint64_t w8 = a[l] & WIN_MASK;
			      d[l] = sp == SP_SHARED ? w8 == SHARED_WIN : sp == SP_LOCAL ? w8 == LOCAL_WIN
				     : (w8 != SHARED_WIN && w8 != LOCAL_WIN));
			NEXT;
		}
		CASE(UNPACK) {
			const uint64_t *a = SS(0);
			unsigned n = in->vec, eb = sz * 8 / n;
			uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1;
			for (unsigned k = 0; k < n; k++) {
				uint64_t *d = DS(k);
				if (in->d[k] == SR_SINK)
					continue;
				LANES(d[l] = (a[l] >> (k * eb)) & em);
			}
			NEXT;
		}
		CASE(PACK) {
			uint64_t *d = DS(0);
			unsigned n = in->vec, eb = sz * 8 / n;
			uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1;
			uint64_t tmp[32];
			LANES(tmp[l] = 0);
			for (unsigned k = 0; k < n; k++) {
				const uint64_t *a = SS(k);
				LANES(tmp[l] |= (a[l] & em) << (k * eb));
			}
			LANES(d[l] = tmp[l]);
			NEXT;
		}
		CASE(LD) {
			const uint64_t *a = SS(0);
			int64_t off = in->off;
			unsigned n = in->vec, tot = sz * n, sp = in->space;
			if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
				emu_trace_mem(tsm, in, (int)sp, a, off, tot, m, 0);
			int sg = is_signed_t(in->type);
			uint64_t *d0 = DS(0), bias;
			const unsigned char *base;
			if (sp == SP_KPARAM && in->s[0] == SR_ZERO && !hooks &&
			    (uint64_t)off + tot <= b->L->kparam_size) {
				/* a kernel parameter: the same value for every lane */
				for (unsigned k = 0; k < n; k++) {
					uint64_t v = load_n(b->L->kparams + off + k * sz, sz, sg), *dk = DS(k);
					LANES(dk[l] = v);
				}
				NEXT;
			}
			if (n == 1 && !hooks && (base = warp_range(b, w, (int)sp, a, off, sz, m, &bias))) {
				uint64_t am = space_addr_mask((int)sp); /* address -> offset in base */
#define LD_AT(l) (base + (((a[l] + (uint64_t)off) & am) - bias))
				if (sz == 4 && !sg)
					LANES(uint32_t v; memcpy(&v, LD_AT(l), 4); d0[l] = v);
				else if (sz == 8)
					LANES(memcpy(&d0[l], LD_AT(l), 8));
				else
					LANES(d0[l] = load_n(LD_AT(l), sz, sg));
#undef LD_AT
				NEXT;
			}
			for (uint32_t mm = m; mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t addr = (a[l] + (uint64_t)off) & space_addr_mask((int)sp);
				const unsigned char *p = mem_at(b, w, l, in, (int)sp, addr, tot, 0);
				if (!p) {
					rc = -EFAULT;
					goto out;
				}
#if EMU_HOOKS
				if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
					hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, tot, 0, in->line);
#endif
				if (n == 1) {
					d0[l] = load_n(p, sz, sg);
				} else {
					for (unsigned k = 0; k < n; k++)
						R[(size_t)in->d[k] * 32 + l] = load_n(p + k * sz, sz, sg);
				}
			}
			NEXT;
		}
		CASE(ST) {
			const uint64_t *a = SS(0);
			int64_t off = in->off;
			unsigned n = in->vec, tot = sz * n, sp = in->space;
			if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
				emu_trace_mem(tsm, in, (int)sp, a, off, tot, m, 1);
			uint64_t bias;
			unsigned char *base;
			if (n == 1 && !hooks && (base = warp_range(b, w, (int)sp, a, off, sz, m, &bias))) {
				const uint64_t *v = SS(1);
				uint64_t am = space_addr_mask((int)sp);
#define ST_AT(l) (base + (((a[l] + (uint64_t)off) & am) - bias))
				if (sz == 4)
					LANES(uint32_t x = (uint32_t)v[l]; memcpy(ST_AT(l), &x, 4));
				else
					LANES(store_n(ST_AT(l), sz, v[l]));
#undef ST_AT
				NEXT;
			}
			for (uint32_t mm = m; mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t addr = (a[l] + (uint64_t)off) & space_addr_mask((int)sp);
				unsigned char *p = mem_at(b, w, l, in, (int)sp, addr, tot, 1);
				if (!p) {
					rc = -EFAULT;
					goto out;
				}
#if EMU_HOOKS
				if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
					hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, tot, 1, in->line);
#endif
				for (unsigned k = 0; k < n; k++)
					store_n(p + k * sz, sz, R[(size_t)in->s[1 + k] * 32 + l]);
			}
			NEXT;
		}
		CASE(ATOM) CASE(RED) {
			int red = in->op == OP_RED;
			const uint64_t *a = SS(0), *bv = SS(1), *cv = in->ns > 2 ? SS(2) : SS(1);
			uint64_t *d = red ? NULL : DS(0);
			unsigned sp = in->space;
			if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
				emu_trace_mem(tsm, in, (int)sp, a, in->off, sz, m, 1);
			for (uint32_t mm = m; mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t addr = (a[l] + (uint64_t)in->off) & space_addr_mask((int)sp);
				void *p = mem_at(b, w, l, in, (int)sp, addr, sz, 1);
				if (!p) {
					rc = -EFAULT;
					goto out;
				}
#if EMU_HOOKS
				if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
					hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, sz, 2, in->line);
#endif
				uint64_t old = atom_one(in, p, bv[l], cv[l]);
				if (d)
					d[l] = old;
			}
			NEXT;
		}
		CASE(SHFL) {
			uint64_t *d = DS(0), *dp = DS(1);
			const uint64_t *a = SS(0), *bb = SS(1), *cc = SS(2);
			uint64_t src[32];
			memcpy(src, a, sizeof src);
			unsigned md = in->mod;
			LANES(int lane = (int)l, bval = (int)(bb[l] & 0x1f), cval = (int)(cc[l] & 0x1f);
			      int seg = (int)((cc[l] >> 8) & 0x1f);
			      int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j, ok;
			      switch (md) {
			      case SHFL_UP: j = lane - bval; ok = j >= maxl; break;
			      case SHFL_DOWN: j = lane + bval; ok = j <= maxl; break;
			      case SHFL_BFLY: j = lane ^ bval; ok = j <= maxl; break;
			      default: j = minl | (bval & ~seg); ok = j <= maxl; break;
			      }
			      if (!ok) j = lane;
			      d[l] = src[j] & 0xffffffffu;
			      if (in->d[1] != SR_SINK) dp[l] = (uint64_t)ok);
			NEXT;
		}
		CASE(VOTE) {
			uint64_t *d = DS(0);
			const uint64_t *a = SS(0);
			uint32_t bal = 0, grp[32], nc = in->neg_c;
			LANES(bal |= (uint32_t)((a[l] & 1) ^ nc) << l);
			member_groups(in, R, m, 1, grp);
			LANES(uint32_t v = bal & grp[l];
			      switch (in->mod) {
			      case VOTE_ALL: d[l] = v == grp[l]; break;
			      case VOTE_ANY: d[l] = v != 0; break;
			      case VOTE_UNI: d[l] = v == 0 || v == grp[l]; break;
			      default: d[l] = v; break;
			      });
			NEXT;
		}
		CASE(MATCH) {
			match_lanes(in, R, m);
			NEXT;
		}
		CASE(REDUX) {
			redux_lanes(in, R, m);
			NEXT;
		}
		CASE(ACTIVEMASK) {
			uint64_t *d = DS(0);
			LANES(d[l] = m);
			NEXT;
		}
		CASE(CLOCK) {
			uint64_t *d = DS(0), t = now_ns();
			if (in->mod == 1)
				t &= 0xffffffffu;
			LANES(d[l] = t);
			NEXT;
		}
		CASE(BRA) {
			uint32_t taken = m, nt = emask & ~m, x;
			if (in->guard < 0 || nt == 0) {
				e->pc = in->target;
			} else if (taken == 0) {
				/* fall through: e->pc already pc + 1 */
			} else if (!b->L->strict_exits &&
				   (x = exit_via(w, code, in->target)) != PTX_NOPC) {
				warp_retire(b, w, taken, x, &count); /* the rest falls through */
			} else if (!b->L->strict_exits && (x = exit_via(w, code, pc + 1)) != PTX_NOPC) {
				warp_retire(b, w, nt, x, &count); /* the rest jumps */
				e->pc = in->target;
			} else if (in->reconv == e->rpc) {
				e->mask = nt;
				if (stack_push(w, in->target, in->reconv, taken)) {
					rc = fault_set(b, w, 0, in, EMU_FAULT_LIMIT, -ENOMEM, "out of memory");
					goto out;
				}
			} else {
				uint32_t rpc = in->reconv;
				e->pc = rpc;
				if (stack_push(w, pc + 1, rpc, nt) || stack_push(w, in->target, rpc, taken)) {
					rc = fault_set(b, w, 0, in, EMU_FAULT_LIMIT, -ENOMEM, "out of memory");
					goto out;
				}
			}
			NEXT;
		}
		CASE(CALL) {
			rc = warp_call(b, w, in, m);
			if (rc)
				goto out;
			fr = &w->frames[w->nframes - 1];
			code = fr->f->code;
			R = fr->regs;
			NEXT;
		}
		CASE(RET) CASE(EXIT) {
			if (in->op == OP_EXIT || w->nframes == 1) {
				w->live &= ~m;
			} else {
				for (unsigned k = fr->stack_base; k < w->sp; k++)
					w->stack[k].mask &= ~m;
			}
			NEXT;
		}
		CASE(BAR) {
			if (in->mod == BAR_ARRIVE)
				NEXT;
			if (m != w->live) {
				rc = fault_set(b, w, (unsigned)__builtin_ctz(w->live & ~m), in,
					       EMU_FAULT_BARRIER, -EDEADLK,
					       "__syncthreads() was reached by only some threads of warp "
					       "%u (lanes 0x%08x of 0x%08x): a barrier inside divergent "
					       "code hangs or misbehaves on a GPU", w->id, m, w->live);
				goto out;
			}
			if (in->mod != BAR_SYNC) {
				const uint64_t *pc3 = SS(1);
				uint32_t nc = in->neg_c;
				LANES(int v = (int)((pc3[l] & 1) ^ nc);
				      b->red_popc += (uint32_t)v; b->red_and &= v; b->red_or |= v);
				w->red_pending = in->mod;
				w->red_slot = in->d[0];
			}
#if EMU_HOOKS
			if (__builtin_expect(hooks != NULL, 0) && hooks->on_barrier)
				hooks->on_barrier(hooks->ctx, b->idx, w->id, m, in->line);
#endif
			if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
				emu_trace_barrier(tsm, w->id, in);
			w->state = W_BARRIER;
			goto out;
		}
		CASE(BARRIER) CASE(BARWARP) CASE(MEMBAR) CASE(FENCE) CASE(NOP) {
			NEXT;
		}
		CASE(VPRINTF) {
			const struct ptx_module *mod = b->L->m;
			uint32_t o0 = mod->callargs[in->off], o1 = mod->callargs[in->off + 1];
			size_t fs = fr->f->fparam_size;
			for (uint32_t mm = m; mm; mm &= mm - 1) {
				unsigned l = (unsigned)__builtin_ctz(mm);
				uint64_t fp, ap;
				memcpy(&fp, fr->fparam + l * fs + o0, 8);
				memcpy(&ap, fr->fparam + l * fs + o1, 8);
				int nargs = 0;
				if (do_printf(b, w, l, in, fp, ap, &nargs)) {
					rc = -EFAULT;
					goto out;
				}
				if (in->d[0] != PTX_NOPC) {
					int32_t r = nargs;
					memcpy(fr->fparam + l * fs + in->d[0], &r, 4);
				}
			}
			NEXT;
		}
		CASE(ASSERTFAIL) {
			const struct ptx_module *mod = b->L->m;
			unsigned l = (unsigned)__builtin_ctz(m);
			size_t fs = fr->f->fparam_size;
			uint64_t msgp = 0, filep = 0;
			uint32_t line = 0;
			char msg[256] = "?", file[256] = "?";
			if (in->ns >= 3) {
				memcpy(&msgp, fr->fparam + l * fs + mod->callargs[in->off], 8);
				memcpy(&filep, fr->fparam + l * fs + mod->callargs[in->off + 1], 8);
				memcpy(&line, fr->fparam + l * fs + mod->callargs[in->off + 2], 4);
				read_cstr(b, w, l, in, msgp, msg, sizeof msg);
				b->faulted = 0;
				read_cstr(b, w, l, in, filep, file, sizeof file);
				b->faulted = 0;
			}
			rc = fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
				       "device-side assertion `%s' failed (%s:%u)", msg, file, line);
			goto out;
		}
		CASE(TRAP) CASE(BRKPT) {
			rc = fault_set(b, w, (unsigned)__builtin_ctz(m), in, EMU_FAULT_TRAP, -ECANCELED,
				       "the kernel executed a trap instruction (asm(\"trap;\") or an "
				       "unrecoverable error)");
			goto out;
		}
		CASE(UNSUPPORTED) {
			rc = fault_set(b, w, (unsigned)__builtin_ctz(m), in, EMU_FAULT_UNSUPPORTED,
				       -ENOTSUP, "%s", b->L->m->messages[in->target]);
			goto out;
		}
		default:
			rc = fault_set(b, w, 0, in, EMU_FAULT_UNSUPPORTED, -ENOTSUP,
				       "the decoded opcode %s is not implemented; run with --backend gpu",
				       ptx_opcode_name(in->op));
			goto out;
		}
	}
out:
	w->insns += count;
	return rc;
}

/* ---- blocks and the worker pool ------------------------------------------------- */

struct worker {
	struct launch_ctx *L;
	struct block b;
	size_t warp_cap;
	uint64_t insns;
};

static void block_release_warps(struct block *b)
{
	for (unsigned i = 0; i < b->nwarps; i++) {
		struct warp *w = &b->warps[i];
		while (w->nframes)
			frame_pop(w);
	}
}

/* Runs block `idx` of the launch to completion on this worker. */
static int block_run(struct worker *wk, unsigned idx)
{
	struct launch_ctx *L = wk->L;
	const struct emu_launch *l = L->l;
	struct block *b = &wk->b;
	b->idx = idx;
	b->bid.x = idx % l->grid.x;
	b->bid.y = (idx / l->grid.x) % l->grid.y;
	b->bid.z = idx / (l->grid.x * l->grid.y);
	b->faulted = 0;
	b->outlen = 0;
	if (b->tsm) /* issue 7 (panels) */
		emu_trace_block_begin(b->tsm, idx, b->nwarps);
	memset(b->shared, 0, b->shared_size);
	int rc = 0;
	for (unsigned i = 0; i < b->nwarps; i++) {
		struct warp *w = &b->warps[i];
		unsigned first = i * 32, n = b->nthreads - first < 32 ? b->nthreads - first : 32;
		w->id = i;
		w->live = n == 32 ? FULL : (1u << n) - 1;
		w->state = W_RUN;
		w->sp = 0;
		w->nframes = 0;
		/* the allocation cache stays valid for the whole launch (nothing is freed
		 * while a kernel runs): keeping it spares the shared devmem lock */
		w->red_pending = 0;
		w->insns = 0;
		if (w->kinit) {
			/* the warp's kernel frame from the previous block of this launch: only
			 * the block index changes (registers start undefined, as on a GPU) */
			uint64_t *R = w->frames[0].regs;
			for (unsigned lane = 0; lane < 32; lane++) {
				R[SR_CTAID_X * 32 + lane] = b->bid.x;
				R[SR_CTAID_Y * 32 + lane] = b->bid.y;
				R[SR_CTAID_Z * 32 + lane] = b->bid.z;
				R[SR_SMID * 32 + lane] = b->idx % 132;
			}
			w->nframes = 1;
		} else if (frame_push(b, w, L->kf, 0)) {
			rc = fault_set(b, w, 0, NULL, EMU_FAULT_LIMIT, -ENOMEM,
				       "out of memory for the registers of a block");
			goto done;
		}
		w->kinit = 1;
		if (stack_push(w, 0, PTX_NOPC, w->live)) {
			rc = fault_set(b, w, 0, NULL, EMU_FAULT_LIMIT, -ENOMEM,
				       "out of memory for the registers of a block");
			goto done;
		}
		w->frames[0].stack_base = 0;
	}
	unsigned order[32], round = 0; /* at most 1024 threads: 32 warps */
	emu_schedule_warps(&L->sched, idx, round, order, b->nwarps);
	for (;;) {
		int running = 0, waiting = 0;
		for (unsigned k = 0; k < b->nwarps; k++) {
			struct warp *w = &b->warps[order[k]];
			if (w->state == W_RUN) {
				rc = warp_exec(b, w);
				if (b->tsm) /* issue 7 (panels) */
					emu_trace_warp_state(b->tsm, w->id, w->state == W_DONE ? EMU_TW_DONE
							     : w->state == W_BARRIER ? EMU_TW_BARRIER : EMU_TW_READY);
				if (rc || b->faulted) {
					if (!rc)
						rc = b->fault_rc;
					goto done;
				}
			}
			running += w->state == W_RUN;
			waiting += w->state == W_BARRIER;
		}
		if (running)
			continue;
		if (!waiting)
			break;
		/* every warp still alive waits at a barrier: release them */
		for (unsigned i = 0; i < b->nwarps; i++) {
			struct warp *w = &b->warps[i];
			if (w->state != W_BARRIER)
				continue;
			w->state = W_RUN;
			if (b->tsm) /* issue 7 (panels) */
				emu_trace_warp_state(b->tsm, w->id, EMU_TW_READY);
			if (w->red_pending) {
				uint64_t v = w->red_pending == BAR_RED_POPC ? b->red_popc
					     : w->red_pending == BAR_RED_AND ? (uint64_t)b->red_and
									      : (uint64_t)b->red_or;
				uint64_t *d = w->frames[w->nframes - 1].regs + (size_t)w->red_slot * 32;
				for (unsigned k = 0; k < 32; k++)
					d[k] = v;
				w->red_pending = 0;
			}
		}
		b->red_popc = 0;
		b->red_and = 1;
		b->red_or = 0;
		emu_schedule_warps(&L->sched, idx, ++round, order, b->nwarps);
		if (atomic_load_explicit(&L->stop, memory_order_relaxed))
			break;
	}
done:
	for (unsigned i = 0; i < b->nwarps; i++)
		wk->insns += b->warps[i].insns;
	if (b->tsm) /* issue 7 (panels) */
		emu_trace_block_end(b->tsm);
	block_release_warps(b);
	if (b->outlen) {
		pthread_mutex_lock(&L->lock);
		if (!L->outs)
			L->outs = calloc(L->nblocks, sizeof(char *));
		if (L->outs) {
			L->outs[idx] = b->out;
			b->out = NULL;
			b->outcap = 0;
		}
		pthread_mutex_unlock(&L->lock);
	}
	if (b->faulted) {
		pthread_mutex_lock(&L->lock);
		if (!L->rc || idx < L->fault_block) {
			L->rc = b->fault_rc ? b->fault_rc : -EFAULT;
			L->fault = b->fault;
			L->fault_block = idx;
		}
		pthread_mutex_unlock(&L->lock);
		atomic_store(&L->stop, 1);
		return L->rc;
	}
	return rc;
}

static int worker_init(struct worker *wk, struct launch_ctx *L)
{
	const struct emu_launch *l = L->l;
	struct block *b = &wk->b;
	memset(wk, 0, sizeof(*wk));
	wk->L = L;
	b->L = L;
	b->nthreads = l->block.x * l->block.y * l->block.z;
	b->nwarps = (b->nthreads + 31) / 32;
	b->shared_size = L->m->shared_total + l->dyn_shmem;
	b->local_per_thread = ((L->kf->local_size + 15) & ~(size_t)15) + CALL_LOCAL_STACK;
	b->warps = calloc(b->nwarps, sizeof(struct warp));
	b->shared = malloc(b->shared_size ? b->shared_size : 1);
	b->local = malloc((size_t)b->nthreads * b->local_per_thread);
	b->red_and = 1;
	if (!b->warps || !b->shared || !b->local)
		return -ENOMEM;
	return 0;
}

static void worker_release(struct worker *wk)
{
	struct block *b = &wk->b;
	if (b->warps)
		for (unsigned i = 0; i < b->nwarps; i++) {
			free(b->warps[i].stack);
			for (unsigned k = 0; k < MAX_CALL_DEPTH && b->warps[i].frames[k].cap; k++)
				free(b->warps[i].frames[k].regs);
		}
	free(b->warps);
	free(b->shared);
	free(b->local);
	free(b->out);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct launch_ctx *L = wk->L;
	for (;;) {
		if (atomic_load_explicit(&L->stop, memory_order_relaxed))
			break;
		unsigned i = atomic_fetch_add(&L->next, 1);
		if (i >= L->nblocks)
			break;
		if (block_run(wk, emu_schedule_block(&L->sched, i, L->nblocks)))
			break;
	}
	atomic_fetch_add(&emu_insn_total, wk->insns);
	return NULL;
}

static unsigned worker_count(unsigned nblocks)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	const char *cap = getenv("PMPPLAB_EMU_THREADS");
	if (cap && atoi(cap) > 0 && atoi(cap) < n)
		n = atoi(cap);
	if (n < 1)
		n = 1;
	if ((unsigned long)n > nblocks)
		n = (long)nblocks;
	return (unsigned)n;
}

/* Builds the kernel parameter buffer from args. */
static int launch_params(struct launch_ctx *L)
{
	const struct ptx_func *f = L->kf;
	L->kparam_size = f->param_size;
	L->kparams = calloc(1, f->param_size + 8);
	if (!L->kparams)
		return -ENOMEM;
	for (unsigned i = 0; i < f->nparams; i++) {
		if (!L->l->args || !L->l->args[i])
			return -EINVAL;
		memcpy(L->kparams + f->params[i].offset, L->l->args[i], f->params[i].size);
	}
	return 0;
}

static void launch_fault_static(struct emu_fault *fault, const struct launch_ctx *L,
				enum emu_fault_kind kind, const struct ptx_insn *in,
				const char *msg)
{
	if (!fault)
		return;
	memset(fault, 0, sizeof(*fault));
	fault->kind = kind;
	if (in) {
		fault->file = ptx_module_file(L->m, in->file);
		fault->line = in->line;
	}
	snprintf(fault->message, sizeof fault->message, "%s", msg);
}

/* The unsupported instruction a kernel can reach (following calls), or NULL. */
static const struct ptx_insn *reachable_unsupported(const struct ptx_module *m,
						    const struct ptx_func *f, int depth)
{
	if (f->unsupported == PTX_NOPC || depth > 64)
		return NULL;
	const struct ptx_insn *in = &f->code[f->unsupported];
	if (in->op == OP_CALL) {
		const struct ptx_insn *inner = reachable_unsupported(m, &m->funcs[in->target], depth + 1);
		const char *file = inner ? ptx_module_file(m, inner->file) : NULL;
		/* report the line in the user's code, not inside a toolkit header */
		return inner && file && !ptx_file_is_system(file) ? inner : in;
	}
	return in;
}

int emu_run(const struct emu_launch *l, struct emu_fault *fault)
{
	if (fault)
		memset(fault, 0, sizeof(*fault));
	if (!l || !l->module || !l->kernel)
		return -EINVAL;
	struct launch_ctx L = { .l = l, .m = l->module, .kf = &l->kernel->f };
	const struct emu_dim3 *g = &l->grid, *bl = &l->block;
	if (!g->x || !g->y || !g->z || !bl->x || !bl->y || !bl->z ||
	    (uint64_t)bl->x * bl->y * bl->z > 1024 || g->y > 65535 || g->z > 65535 ||
	    (uint64_t)g->x * g->y * g->z > 0xffffffffull) {
		launch_fault_static(fault, &L, EMU_OK, NULL, "invalid launch configuration");
		return -EINVAL;
	}
	const struct ptx_insn *un = reachable_unsupported(L.m, L.kf, 0);
	if (un) {
		const struct ptx_insn *at = un;
		while (at->op == OP_CALL) /* the message of the instruction the call reaches */
			at = &L.m->funcs[at->target].code[L.m->funcs[at->target].unsupported];
		launch_fault_static(fault, &L, EMU_FAULT_UNSUPPORTED, un, L.m->messages[at->target]);
		return -ENOTSUP;
	}
	L.nblocks = (unsigned)((uint64_t)g->x * g->y * g->z);
	L.hooks = atomic_load(&emu_hooks_cur);
	L.strict_exits = L.hooks && L.hooks->strict_exits;
	emu_schedule_current(&L.sched);
	L.slice = L.sched.slice ? L.sched.slice : TIMESLICE;
	pthread_mutex_init(&L.lock, NULL);
	int rc = launch_params(&L);
	if (rc) {
		launch_fault_static(fault, &L, EMU_OK, NULL, "missing kernel arguments");
		goto out_params;
	}
	unsigned nw = worker_count(L.nblocks);
	struct worker *wk = calloc(nw, sizeof(*wk));
	pthread_t *th = calloc(nw, sizeof(*th));
	if (!wk || !th) {
		rc = -ENOMEM;
		goto out_workers;
	}
	{ /* issue 7 (panels): the live trace, when $PMPPLAB_TRACE names a file */
		uint32_t tg[3] = {g->x, g->y, g->z}, tb[3] = {bl->x, bl->y, bl->z};
		L.trace = emu_trace_launch_begin(L.m, L.kf, L.kf->name, tg, tb, l->dyn_shmem, nw);
	}
	unsigned started = 0;
	for (unsigned i = 0; i < nw; i++) {
		if (worker_init(&wk[i], &L)) {
			rc = -ENOMEM;
			goto out_join;
		}
		wk[i].b.tsm = emu_trace_sm(L.trace, i); /* issue 7 (panels) */
	}
	if (nw == 1) {
		worker_main(&wk[0]);
	} else {
		for (; started < nw; started++)
			if (pthread_create(&th[started], NULL, worker_main, &wk[started]))
				break;
		if (!started)
			worker_main(&wk[0]);
	}
out_join:
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (unsigned i = 0; i < nw; i++)
		worker_release(&wk[i]);
	emu_trace_launch_end(L.trace, rc ? rc : L.rc); /* issue 7 (panels) */
	if (!rc)
		rc = L.rc;
	if (L.outs) {
		FILE *out = emu_printf_stream ? emu_printf_stream : stdout;
		for (unsigned i = 0; i < L.nblocks; i++) {
			if (L.outs[i])
				fputs(L.outs[i], out);
			free(L.outs[i]);
		}
		fflush(out);
		free(L.outs);
	}
	if (rc && fault && L.rc)
		*fault = L.fault;
out_workers:
	free(wk);
	free(th);
out_params:
	free(L.kparams);
	pthread_mutex_destroy(&L.lock);
	return rc;
}
