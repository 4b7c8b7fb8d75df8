/* cudart_provenance — whose work a program's results are (issue 14).
 *
 * The interpreter flags every byte of device memory a kernel stores to (devmem.h's
 * written flags); the runtime keeps them true across the host's side: a copy carries
 * the source's flags to a device destination, a memset or a copy from host memory
 * clears them, and managed memory the host changes loses them (reconciled against a
 * snapshot before every launch and copy). While recording, every copy from device
 * memory into plain host memory is kept as a delivery: where it went, the bytes it
 * delivered and their flags; a managed or pinned allocation freed with kernel-written
 * bytes is kept too.
 *
 * At the end, emu_provenance_query() tells for each element of a host buffer (the
 * lab's output) where its final value came from:
 *   kernel     the last delivery to it came from bytes a kernel wrote, and the value is
 *              still the one delivered; or it equals, at the same offset, a kernel-written
 *              delivery or managed/pinned allocation the host copied it from (staging)
 *   filled     delivered, unchanged, from bytes cudaMemset set and no kernel changed: the
 *              constant a kernel's work started from (a histogram's empty bin)
 *   changed    a delivery reached it but the host changed the value afterwards
 *   unwritten  delivered from device memory no kernel wrote (what the host had put
 *              there with cudaMemcpy or cudaMemset)
 *   host       nothing from the device ever reached it: the host computed it
 *
 * The public functions (emu_provenance_*, emu_launch_count) are for the lab harness
 * (grader/harness/pl_provenance.c, which declares them itself: emu's headers are not
 * installed). Known limit: a kernel that only copies values the host computed and put
 * in device memory makes them "kernel" values; telling that apart needs value taint.
 */
#ifndef PMPPLAB_EMU_CUDART_PROVENANCE_H
#define PMPPLAB_EMU_CUDART_PROVENANCE_H

#include <stddef.h>

/* The counts emu_provenance_query() fills, by index. The harness mirrors them. */
enum emu_prov_count {
	EMU_PROV_ELEMENTS,  /* elements asked about */
	EMU_PROV_KERNEL,    /* delivered from kernel-written memory, unchanged (staged too) */
	EMU_PROV_STAGED,    /* of those, the ones that came through a host staging copy */
	EMU_PROV_CHANGED,   /* delivered, then changed by the host */
	EMU_PROV_UNWRITTEN, /* delivered from device memory no kernel wrote */
	EMU_PROV_HOST,      /* never delivered from the device */
	EMU_PROV_FIRST_BAD, /* the first element neither "kernel" nor "filled" (or ELEMENTS) */
	EMU_PROV_OVERFLOW,  /* 1: more was delivered than could be kept; the counts are void */
	EMU_PROV_FILLED,    /* delivered from memory cudaMemset filled and no kernel changed */
	EMU_PROV_COUNT
};

/* Starts recording (forgets earlier deliveries and launches). */
void emu_provenance_begin(void);
/* Fills OUT[EMU_PROV_COUNT] for the ELEM-byte elements of [p, p + bytes). 0, or
 * -EINVAL (elem 0 or bytes not a multiple of it), -ENOMEM. */
int emu_provenance_query(const void *p, size_t bytes, size_t elem, unsigned long long *out);
/* Bytes written by kernels that reached host-visible memory since begin: delivered by
 * copies, or held in managed and pinned memory. */
unsigned long long emu_provenance_kernel_bytes(void);
/* Kernel launches that ran (faulting ones included) since begin. */
unsigned long long emu_launch_count(void);

#pragma GCC visibility push(hidden)

/* The runtime's hooks. After a copy of N bytes from SRC to DST (the caller's pointers,
 * device or host) whose data is already at DST; after a memset of [dst, dst + n). */
void rt_prov_copy(const void *dst, const void *src, size_t n);
void rt_prov_set(const void *dst, size_t n);
/* Around every kernel run. */
void rt_prov_launch_begin(void);
void rt_prov_launch_end(void);
/* Before a managed or pinned allocation at P is freed. */
void rt_prov_free(const void *p);

#pragma GCC visibility pop

#endif
