/* devmem — the emulated device address space.
 *
 * Device addresses of cudaMalloc'd memory are NOT dereferenceable on the host: the
 * device range is reserved PROT_NONE at the device addresses, and the data lives in a
 * second read-write mapping, so host code that dereferences a device pointer faults and
 * the runtime can say so. Managed and host (pinned) memory: device address == host
 * address. Freed ranges are never reused, so a stale pointer is always caught and
 * devmem_nearest() can still name the allocation it came from.
 *
 * Thread safety: all functions may be called from any thread. devmem_host() and
 * devmem_find() take a read lock only.
 */
#ifndef PMPPLAB_EMU_DEVMEM_H
#define PMPPLAB_EMU_DEVMEM_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t devaddr_t;

enum devmem_kind { DEVMEM_GLOBAL, DEVMEM_MANAGED, DEVMEM_HOST, DEVMEM_SYMBOL };

/* Allocates size bytes (size 0 gives a distinct 1-byte allocation), 256-byte aligned,
 * zero-filled. label is copied (may be NULL). Returns 0 or -ENOMEM. */
int devmem_alloc(size_t size, enum devmem_kind kind, const char *label, devaddr_t *out);

/* Frees the allocation starting at addr. -EINVAL unless addr is the start of a live
 * allocation (double free, interior pointer, unknown address). */
int devmem_free(devaddr_t addr);

/* Makes the freed device (DEVMEM_GLOBAL) allocation starting at addr live again, at the
 * same address: a CUDA graph's allocation node maps its memory at every launch, and
 * frees it at its free node (cudart_graph_exec.c). Its contents are undefined, as a new
 * allocation's on a GPU. -EINVAL unless addr starts a freed device allocation. */
int devmem_revive(devaddr_t addr);

/* The memory that backs [addr, addr+len) of a device (DEVMEM_GLOBAL) allocation, live
 * or freed, or NULL: for a graph's copies made before its allocation node has run. */
void *devmem_backing(devaddr_t addr, size_t len);

/* The host pointer backing [addr, addr+len), or NULL unless the whole range lies in one
 * live allocation. len 0 is treated as 1. */
void *devmem_host(devaddr_t addr, size_t len);

struct devmem_info {
	devaddr_t base;
	size_t size;
	enum devmem_kind kind;
	const char *label; /* owned by devmem; valid until process exit */
	int live;
};

/* 0 and *out filled if addr is inside a live allocation; -ENOENT otherwise. */
int devmem_find(devaddr_t addr, struct devmem_info *out);

/* The allocation (live or freed) nearest to addr: the one containing it, else the
 * closest by distance to its [base, base+size) range. 0 or -ENOENT when none exist. */
int devmem_nearest(devaddr_t addr, struct devmem_info *out);

/* For fingerprints that must repeat from run to run (mutation testing, grader/mutate.h):
 * the allocation holding addr, live or freed, as its rank in address order (for
 * cudaMalloc'd memory, the order of the calls), and the offset in it. 0, or -ENOENT. */
int devmem_locate(devaddr_t addr, size_t *rank, size_t *offset);

/* Nonzero when addr is inside the reserved device range (live or not). */
int devmem_in_device_range(uint64_t addr);

/* For the interpreter's per-warp cache: the live allocation containing [addr, addr+len)
 * (len 0 treated as 1): its base, size (at least 1), backing pointer and written flags
 * (WRITTEN may be NULL). 0 or -ENOENT. */
int devmem_lookup_range(devaddr_t addr, size_t len, devaddr_t *base, size_t *size,
			char **host, unsigned char **written);

/* Written flags: one byte per byte of every allocation, DEVMEM_BY_KERNEL where the last
 * write was a kernel's store or atomic (the interpreter sets them), DEVMEM_FILLED where it
 * was a cudaMemset, 0 where it was the host's otherwise: a fresh allocation, a copy from
 * host memory, or, for managed and host memory, which host code writes directly, a byte
 * whose value changed since the last snapshot. Copies carry them along. They tell whose work a program's results are (the grader's
 * provenance check, cudart_provenance.h).
 *
 * The flags of [addr, addr+len), or NULL unless the range lies in one live allocation. */
enum { DEVMEM_BY_KERNEL = 1, DEVMEM_FILLED = 2 };
unsigned char *devmem_written(devaddr_t addr, size_t len);
/* The same flags for a reader that never writes them (a copy's source): unlike
 * devmem_written, it leaves the allocation out of reconcile's and snapshot's scans when
 * nothing has written its flags. */
const unsigned char *devmem_written_peek(devaddr_t addr, size_t len);

/* Flags N bytes at FLAGS as a kernel's work. Blocks on several workers flag the same
 * bytes (atomics, or stores of equal values): relaxed atomic stores make that defined
 * (and silent under ThreadSanitizer) at the cost of plain byte stores on x86 and arm64. */
static inline void devmem_mark_by_kernel(unsigned char *flags, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (__atomic_load_n(&flags[i], __ATOMIC_RELAXED) != DEVMEM_BY_KERNEL)
			__atomic_store_n(&flags[i], DEVMEM_BY_KERNEL, __ATOMIC_RELAXED);
}

/* Managed and host allocations: reconcile clears the flag of every flagged byte whose
 * value differs from the snapshot (the host wrote it since); snapshot records the values
 * of the flagged bytes. The runtime reconciles before a launch or a copy and snapshots
 * after a launch. Call only while no kernel runs. */
void devmem_unified_reconcile(void);
void devmem_unified_snapshot(void);
/* Bytes of flags reconcile and snapshot have scanned so far: only allocations whose flags
 * were handed out to a writer (devmem_written, devmem_lookup_range) are scanned, so a
 * launch costs what was written, not the size of every pinned buffer (tests, bench). */
size_t devmem_unified_scanned(void);

struct devmem_view {
	devaddr_t base;
	size_t size; /* at least 1 */
	enum devmem_kind kind;
	char *host;
	unsigned char *written;
};
/* Calls FN for every live managed and host allocation, under the read lock (FN must not
 * allocate or free device memory). */
void devmem_unified_each(void (*fn)(const struct devmem_view *, void *), void *ctx);

#endif
