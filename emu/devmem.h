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

/* Written flags: who wrote each byte of every allocation last. DEVMEM_BY_KERNEL: a
 * kernel's store or atomic (the interpreter marks them); DEVMEM_FILLED: a cudaMemset; 0:
 * the host otherwise: a fresh allocation, a copy from host memory, or, for managed and
 * host memory, which host code writes directly, a byte whose value changed since the last
 * snapshot. Copies carry them along. They tell whose work a program's results are (the
 * grader's provenance check, cudart_provenance.h).
 *
 * They are two bitmaps of one bit a byte: K, which kernels set, and F, which a memset
 * sets (and clears K); a byte is DEVMEM_BY_KERNEL where its K bit is set, else
 * DEVMEM_FILLED where its F bit is. A kernel's store touches K only: a flag byte for
 * every data byte made the first stores to a fresh output fault in as many pages of
 * flags as of data (a fifth of a vector add's time).
 *
 * Kernels find the K bit of a byte as they find the byte: by adding its offset. A handle
 * H (devmem_flags_t, 0: none) is the bit address of an allocation's first byte's K bit,
 * where bit address 8 * A + b is bit b of the byte at host address A (bit i of a
 * 64-bit word is bit i % 8 of its byte i / 8: little-endian); the byte at offset o has
 * its K bit at H + o. */
enum { DEVMEM_BY_KERNEL = 1, DEVMEM_FILLED = 2 };
typedef uintptr_t devmem_flags_t;
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "devmem's flag words are read byte by byte too");

/* For the interpreter's per-warp cache: the live allocation containing [addr, addr+len)
 * (len 0 treated as 1): its base, size (at least 1), backing pointer and written flags'
 * handle (WRITTEN may be NULL). 0 or -ENOENT. */
int devmem_lookup_range(devaddr_t addr, size_t len, devaddr_t *base, size_t *size,
			char **host, devmem_flags_t *written);

/* The handle of the K bit of addr, or 0 unless [addr, addr+len) lies in one live
 * allocation: for a kernel that writes there (texture surfaces). */
devmem_flags_t devmem_written(devaddr_t addr, size_t len);

/* The 64-bit word of K holding bit address H. */
static inline uint64_t *devmem_flag_word(devmem_flags_t h)
{
	return (uint64_t *)(h >> 6 << 3);
}

/* Sets the K bits of BITS in the word at P. Blocks on several workers mark bits of the
 * same word (neighbouring elements, atomics): an atomic OR, skipped when they are all
 * set already (a kernel that writes its output twice, an atomic counter). A whole word
 * is stored instead (a locked OR costs as much as 30 plain stores): any other worker's
 * OR into it, before or after, leaves the same word. */
static inline void devmem_flag_or(uint64_t *p, uint64_t bits)
{
	if (bits == ~0ull)
		__atomic_store_n(p, bits, __ATOMIC_RELAXED);
	else if ((__atomic_load_n(p, __ATOMIC_RELAXED) & bits) != bits)
		__atomic_fetch_or(p, bits, __ATOMIC_RELAXED);
}

/* Flags N bytes from handle H on as a kernel's work. */
static inline void devmem_mark_by_kernel(devmem_flags_t h, size_t n)
{
	while (n) {
		unsigned b = (unsigned)(h & 63);
		size_t k = n < 64 - b ? n : 64 - b;
		devmem_flag_or(devmem_flag_word(h), (k == 64 ? ~0ull : (1ull << k) - 1) << b);
		h += k;
		n -= k;
	}
}

/* The same for a warp's store of SIZE bytes a lane, lane l's at handle W0 + A[l], for
 * the lanes of M: for a whole warp on consecutive elements, one OR a 64-bit word. */
void devmem_mark_lanes(const uint64_t *a, devmem_flags_t w0, unsigned size, uint32_t m);

/* The runtime's side, while no kernel runs: N bytes' flags from ADDR set to STATE (0 or
 * DEVMEM_FILLED; DEVMEM_BY_KERNEL for tests); copied from SRC's (memmove's order); read
 * into the bitmaps KBITS and FBITS, (N + 7) / 8 bytes each (bit i % 8 of byte i / 8: the
 * flags of addr + i; the bits past N are 0), without scanning the allocation from then on
 * as devmem_written's and the others' do (a copy's source). Each returns 0, or -ENOENT
 * (nothing done) unless each range lies in one live allocation. */
int devmem_flags_set(devaddr_t addr, size_t n, int state);
int devmem_flags_copy(devaddr_t dst, devaddr_t src, size_t n);
int devmem_flags_get(devaddr_t addr, size_t n, unsigned char *kbits, unsigned char *fbits);

/* The flag (0, DEVMEM_BY_KERNEL or DEVMEM_FILLED) of byte I in bitmaps read so. */
static inline int devmem_flag_at(const unsigned char *kbits, const unsigned char *fbits, size_t i)
{
	unsigned bit = 1u << (i & 7);
	return (kbits[i >> 3] & bit) ? DEVMEM_BY_KERNEL : (fbits[i >> 3] & bit) ? DEVMEM_FILLED : 0;
}

/* Managed and host allocations: reconcile clears the flags of every flagged byte whose
 * value differs from the snapshot (the host wrote it since); snapshot records the values
 * of the flagged bytes. The runtime reconciles before a launch or a copy and snapshots
 * after a launch. Call only while no kernel runs. */
void devmem_unified_reconcile(void);
void devmem_unified_snapshot(void);
/* Bytes of memory whose flags reconcile and snapshot have scanned so far: only
 * allocations whose flags may have been set (a handle given out: devmem_written,
 * devmem_lookup_range; or a set or copy into them) are scanned, so a launch costs what
 * was written, not the size of every pinned buffer (tests, bench). */
size_t devmem_unified_scanned(void);

struct devmem_view {
	devaddr_t base;
	size_t size; /* at least 1 */
	enum devmem_kind kind;
	char *host;
	const unsigned char *kbits, *fbits; /* its flags (devmem_flag_at) */
};
/* Calls FN for every live managed and host allocation, under the read lock (FN must not
 * allocate or free device memory). */
void devmem_unified_each(void (*fn)(const struct devmem_view *, void *), void *ctx);

#endif
