/* initcheck — reads of device memory that nothing wrote (compute-sanitizer's initcheck).
 *
 * CUDA does not clear what cudaMalloc returns, and a GPU's fresh memory often reads as
 * zero: a sum or histogram never cudaMemset before the kernels atomicAdd into it, or
 * `C[i] += ...` into an output never zeroed, gives the right answer there by luck (the
 * emulator's fresh memory is 0xCD bytes, so an output shows it, not always: a histogram
 * bin a merge skips). The check names the read's line, on both backends (the twin). With $PMPPLAB_EMU_INITCHECK=1 (read at every launch and copy; the
 * grader sets it for memcheck's runs) the interpreter checks every load and atomic of
 * global memory and reports the first one per launch that read only bytes nothing wrote;
 * the kernel goes on, as on a GPU.
 *
 * Written, per byte: a kernel stored to it or an atomic updated it (devmem.h's K bits,
 * which the interpreter sets anyway), or the runtime put data there: a copy from host
 * memory, a memset, or a device-to-device copy of written bytes (any flavour: they all
 * end in cudart_provenance's rt_prov_copy/rt_prov_set, which call initcheck_copy and
 * initcheck_set; this module keeps those bits, devmem's F bits being memset's only).
 * Checked: only memory cudaMalloc, cudaMallocPitch (cudaMalloc3D) and the stream-ordered
 * cudaMallocAsync/FromPoolAsync return. Never checked: __device__ and __constant__
 * variables (zero-initialised by C++), managed, pinned and mapped memory (the host writes
 * them directly), the device heap (malloc in kernels), arrays and textures, the runtime's
 * own buffers, and graph allocation nodes.
 * A read of several bytes is a finding only when none of them was written: a vector
 * load or a word that also covers padding or the tail of a byte buffer the host filled
 * is not one (no false positives on correct code; a read of partly written words is
 * missed). Loads a kernel issues other than ld/atom/red (wmma loads, cp.async, texture
 * fetches) are not checked. atom.exch writes without reading; every other atomic reads.
 *
 * Cost: nothing unless the variable is set; with it, loads leave the interpreter's
 * warp-wide fast paths for the lane-by-lane one, which asks initcheck_read.
 */
#ifndef PMPPLAB_EMU_INITCHECK_H
#define PMPPLAB_EMU_INITCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "devmem.h"
#include "exec.h"

/* Nonzero while the launch running checks its reads (set by initcheck_launch_begin). */
extern int initcheck_on;

/* A read the check found. */
struct initcheck_finding {
	const char *kernel; /* the PTX entry's (mangled) name, owned by the module */
	const char *file;   /* the student's source file (NULL: unknown) and line */
	unsigned line;
	struct emu_dim3 block, thread;
	uint64_t addr;       /* the device address read */
	unsigned size;       /* bytes read */
	int atomic;          /* 1: an atomic (atomicAdd, ...), 0: a load */
	uint64_t alloc_base; /* the allocation it lies in */
	size_t alloc_size;
	const char *alloc_call; /* the call that made it ("cudaMalloc") */
};

/* The runtime's side, while no kernel runs: after a copy of N bytes to DST from SRC
 * (FROM_DEVICE: SRC is device, managed or pinned memory) whose data is in place, and
 * after a memset of [dst, dst + n). Nothing unless $PMPPLAB_EMU_INITCHECK is set. */
void initcheck_copy(devaddr_t dst, devaddr_t src, size_t n, int from_device);
void initcheck_set(devaddr_t dst, size_t n);

/* Around each launch (the runtime runs them one at a time): begin reads the variable
 * into initcheck_on and forgets the last finding; end returns 1 and *F when the launch
 * found a read, else 0. */
void initcheck_launch_begin(void);
int initcheck_launch_end(struct initcheck_finding *f);

/* The interpreter's side (exec_access.c, its lane-by-lane path, when initcheck_on): lane
 * LANE of warp W reads SIZE bytes at device address ADDR, host pointer P (mem_at's), by
 * instruction IN, a load or an atomic. */
struct block;
struct warp;
struct ptx_insn;
void initcheck_read(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
		    uint64_t addr, const void *p, unsigned size);

/* The interpreter's fast loop's codes (exec_fast.c's fast_ops) of kernel function F
 * with its loads of global (and generic) memory made 0, the slow path's, so that
 * access_exec sees them. */
struct ptx_func;
void initcheck_slow_loads(const struct ptx_func *f, uint8_t *ops);

/* The message's sentence after "FILE:LINE: error: " for F, into BUF (kernel named
 * KERNEL, its source name). Returns BUF. */
char *initcheck_message(const struct initcheck_finding *f, const char *kernel, char *buf,
			size_t len);

#endif
