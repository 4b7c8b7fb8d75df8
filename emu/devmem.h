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
 * (len 0 treated as 1): its base, size (at least 1) and backing pointer. 0 or -ENOENT. */
int devmem_lookup_range(devaddr_t addr, size_t len, devaddr_t *base, size_t *size,
			char **host);

#endif
