/* exec_memory — the slow path of the interpreter's checked memory accesses: every
 * address resolved to its space and allocation, and the fault message that explains
 * a bad one. Separate from the loop: it runs only when the inline fast path
 * (exec_internal.h) cannot answer.
 */
#include "exec_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"

/* ---- the device heap: malloc and free in kernels ----------------------------------- */

static const char heap_label[] = "device malloc";
static atomic_size_t heap_limit = (size_t)8 << 20, heap_used;
static atomic_int heap_fixed; /* a kernel called malloc or free */

int emu_set_heap_size(size_t bytes)
{
	if (atomic_load(&heap_fixed))
		return -EBUSY;
	atomic_store(&heap_limit, bytes);
	return 0;
}

uint64_t heap_malloc(uint64_t size)
{
	atomic_store(&heap_fixed, 1);
	if (!size)
		return 0;
	size_t used = atomic_fetch_add(&heap_used, size) + size;
	devaddr_t a = 0;
	if (used > atomic_load(&heap_limit) ||
	    devmem_alloc(size, DEVMEM_GLOBAL, heap_label, &a) != 0) { /* full: NULL, as a GPU */
		atomic_fetch_sub(&heap_used, size);
		return 0;
	}
	return a;
}

int heap_free(struct warp *w, uint64_t p)
{
	struct devmem_info info;
	atomic_store(&heap_fixed, 1);
	if (!p)
		return 0;
	if (devmem_find(p, &info) != 0 || info.base != p || !info.label ||
	    strcmp(info.label, heap_label) != 0 || devmem_free(p) != 0)
		return -EINVAL;
	atomic_fetch_sub(&heap_used, info.size);
	for (unsigned k = 0; k < 4; k++) /* this warp's uses after the free are caught */
		if (w->c_base[k] == p)
			w->c_base[k] = w->c_end[k] = 0;
	return 0;
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
	if (ptx_is_code_addr(addr)) {
		snprintf(buf, len, "which is the address of a device function (code, not data)");
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

/* ---- shared memory: each array with a red zone after it ------------------------- */

int shared_layout_init(struct launch_ctx *L)
{
	const struct ptx_module *m = L->m;
	const struct ptx_func *f = L->kf;
	size_t dyn = L->l->dyn_shmem;
	L->sh_arrays = calloc(f->nshsyms + 1, sizeof(*L->sh_arrays));
	if (!L->sh_arrays)
		return -ENOMEM;
	const char *dyn_name = NULL;
	for (unsigned i = 0; i < f->nshsyms; i++) {
		const struct ptx_symbol *s = &m->syms[f->shsyms[i]];
		if (s->size)
			L->sh_arrays[L->nsh_arrays++] = (struct shared_array){ s->addr, s->size,
									       s->name, 0 };
		else if (!dyn_name && s->addr == m->shared_total)
			dyn_name = s->name; /* extern __shared__ T x[] */
	}
	/* the dynamic shared memory starts after every static array of the module */
	if (f->shared_dyn || dyn)
		L->sh_arrays[L->nsh_arrays++] = (struct shared_array){ m->shared_total, dyn,
								       dyn_name, 1 };
	uint64_t win = 0;
	for (unsigned i = 0; i < L->nsh_arrays; i++) {
		const struct shared_array *a = &L->sh_arrays[i];
		uint64_t end = a->addr + a->size + ptx_shared_redzone(a->size);
		win = end > win ? end : win;
	}
	if (win > UINT32_MAX || L->nsh_arrays >= UINT16_MAX)
		return -ENOMEM;
	L->sh_window = win;
	if (!win)
		return 0;
	if (!(L->sh_idx = calloc(win, sizeof(*L->sh_idx))))
		return -ENOMEM;
	for (unsigned i = 0; i < L->nsh_arrays; i++) {
		const struct shared_array *a = &L->sh_arrays[i];
		for (uint64_t x = a->addr; x < a->addr + a->size; x++)
			L->sh_idx[x] = (uint16_t)(i + 1);
	}
	return 0;
}

void shared_layout_free(struct launch_ctx *L)
{
	free(L->sh_arrays);
	free(L->sh_idx);
	L->sh_arrays = NULL;
	L->sh_idx = NULL;
}

/* "shared array As[4096 bytes]", for the fault message. */
static void shared_array_name(const struct shared_array *a, char *buf, size_t len)
{
	char nm[96] = "";
	if (a->name)
		ptx_var_name(a->name, nm, sizeof nm);
	if (!a->dyn)
		snprintf(buf, len, "shared array %s[%llu bytes]", nm,
			 (unsigned long long)a->size);
	else if (a->size)
		snprintf(buf, len, "the dynamic shared memory%s%s[%llu bytes]", nm[0] ? " " : "",
			 nm, (unsigned long long)a->size);
	else
		snprintf(buf, len, "the dynamic shared memory%s%s, 0 bytes at this launch (the "
			 "third <<<>>> argument gives its size)", nm[0] ? " " : "", nm);
}

/* Explains why [addr, addr + size) is not inside one of the kernel's shared arrays: it
 * starts in one and runs past its end, or lies past the end of the array before it or
 * before the start of the one after it, whichever is nearer. */
static void explain_shared(const struct launch_ctx *L, char *buf, size_t len, uint64_t addr,
			   unsigned size)
{
	const struct shared_array *in = NULL, *below = NULL, *above = NULL;
	for (unsigned i = 0; i < L->nsh_arrays; i++) {
		const struct shared_array *a = &L->sh_arrays[i];
		if (addr >= a->addr && addr < a->addr + a->size)
			in = a;
		else if (a->addr + a->size <= addr &&
			 (!below || a->addr + a->size > below->addr + below->size))
			below = a;
		else if (a->addr > addr && (!above || a->addr < above->addr))
			above = a;
	}
	char nm[200];
	if (in) {
		shared_array_name(in, nm, sizeof nm);
		snprintf(buf, len, "which runs %llu bytes past the end of %s",
			 (unsigned long long)(addr + size - in->addr - in->size), nm);
	} else if (below && (!above || addr - (below->addr + below->size) <= above->addr - addr)) {
		shared_array_name(below, nm, sizeof nm);
		snprintf(buf, len, "which is %llu bytes past the end of %s",
			 (unsigned long long)(addr - below->addr - below->size), nm);
	} else if (above) {
		shared_array_name(above, nm, sizeof nm);
		snprintf(buf, len, "which is %llu bytes before the start of %s",
			 (unsigned long long)(above->addr - addr), nm);
	} else {
		snprintf(buf, len, "but the kernel has no shared memory (no __shared__ array, "
			 "and no dynamic shared memory)");
	}
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
void *mem_slow(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
	       int space, uint64_t addr, unsigned size, int is_write)
{
	struct frame *fr = &w->frames[w->nframes - 1];
	char why[200];
	int sp = space;
	if (size > 1 && (addr & (size - 1)) && space != SP_KPARAM && space != SP_FPARAM) {
		int named = space != SP_GENERIC ? space
			    : (addr & WIN_MASK) == SHARED_WIN ? SP_SHARED
			    : (addr & WIN_MASK) == LOCAL_WIN ? SP_LOCAL
			    : (addr & WIN_MASK) == PARAM_WIN ? SP_KPARAM : SP_GLOBAL;
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
	/* cvta.param's window lies inside the global one (PTX ISA, "Generic Addressing"):
	 * nvcc may read a __grid_constant__ parameter with ld.global */
	if (sp == SP_GLOBAL && (addr & WIN_MASK) == PARAM_WIN) {
		sp = SP_KPARAM;
		addr -= PARAM_WIN;
	}
	switch (sp) {
	case SP_SHARED:
		if (!shared_ok(b, addr, size)) {
			explain_shared(b->L, why, sizeof why, addr, size);
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
		if (!b->local && !(b->local = malloc((size_t)b->nthreads * b->local_per_thread))) {
			fault_set(b, w, lane, in, EMU_FAULT_LIMIT, -ENOMEM,
				  "out of memory for the block's local memory (%zu bytes a thread)",
				  b->local_per_thread);
			return NULL;
		}
		return b->local + (size_t)(w->id * 32 + lane) * b->local_per_thread + addr;
	case SP_KPARAM:
		if (is_write) { /* a store through cvta.param's generic address */
			mem_fault(b, w, lane, in, SP_KPARAM, addr, size, is_write,
				  "but a kernel's parameters are read-only (PTX ISA, \"Kernel "
				  "Function Parameters\"): copy the parameter into a local variable "
				  "and change that");
			return NULL;
		}
		if (addr + size > b->L->kparam_size || addr + size < addr) {
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
		devmem_flags_t written;
		if (devmem_lookup_range(addr, size, &base, &sz, &host, &written) < 0) {
			mem_fault(b, w, lane, in, space == SP_CONST ? SP_CONST : SP_GLOBAL, addr,
				  size, is_write, NULL);
			return NULL;
		}
		memmove(w->c_base + 1, w->c_base, 3 * sizeof(w->c_base[0]));
		memmove(w->c_end + 1, w->c_end, 3 * sizeof(w->c_end[0]));
		memmove(w->c_host + 1, w->c_host, 3 * sizeof(w->c_host[0]));
		memmove(w->c_written + 1, w->c_written, 3 * sizeof(w->c_written[0]));
		w->c_written[0] = written;
		w->c_base[0] = base;
		w->c_end[0] = base + sz;
		w->c_host[0] = host;
		return host + (addr - base);
	}
	}
}

void mem_mark_written(struct warp *w, const void *p, unsigned size)
{
	const char *c = (const char *)p;
	for (unsigned k = 0; k < 4; k++)
		if (w->c_written[k] && c >= w->c_host[k] &&
		    (uint64_t)(c - w->c_host[k]) < w->c_end[k] - w->c_base[k]) {
			devmem_mark_by_kernel(w->c_written[k] + (c - w->c_host[k]), size);
			return;
		}
}
