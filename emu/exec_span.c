/* exec_span — the warp-wide loads, stores and written flags of an access that
 * warp_span checked (one region, P0 + a[l] the host address of lane l), and the shapes of
 * a full warp's 4-byte addresses that need no lane-by-lane copy: each half-warp at 16
 * consecutive words (a row: As[ty][tx], s[tid]) or at one word (a broadcast: As[ty][k]).
 *
 * Out of line of warp_exec: inside it the lane loops share the registers of the whole
 * switch and reload their pointers from the stack at every lane (matmul's ld.shared took
 * 17% more host instructions after an unrelated change there).
 */
#include "exec_internal.h"

#include <string.h>

void span_load(uint64_t *d, const uint64_t *a, uintptr_t p0, unsigned sz, int sg, uint32_t m)
{
	if (sz == 4 && !sg)
		LANES(uint32_t v; memcpy(&v, (const void *)(p0 + a[l]), 4); d[l] = v);
	else if (sz == 8)
		LANES(memcpy(&d[l], (const void *)(p0 + a[l]), 8));
	else
		LANES(d[l] = load_n((const void *)(p0 + a[l]), sz, sg));
}

void span_store(const uint64_t *a, const uint64_t *v, uintptr_t p0, unsigned sz, uint32_t m)
{
	if (sz == 4)
		LANES(uint32_t x = (uint32_t)v[l]; memcpy((void *)(p0 + a[l]), &x, 4));
	else
		LANES(store_n((void *)(p0 + a[l]), sz, v[l]));
}

/* global memory: the bytes are now a kernel's (devmem.h) */
void span_written(const uint64_t *a, uintptr_t w0, unsigned tot, uint32_t m)
{
	devmem_mark_lanes(a, w0, tot, m);
}

/* The shape and the region's checks are exec_internal.h's (span_shape_of,
 * span_shape_in): exec_fast.c reuses a shape it found for an address register. */
#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
int span_shape_at(struct block *b, struct warp *w, int space, const uint64_t *a, int64_t off,
		  uintptr_t *p0, uintptr_t *written)
{
	struct span_region r;
	int shape = span_shape_of(a);
	if (!span_shape_in(b, w, space, a[0], a[16], off, shape, &r))
		return 0;
	span_at(&r, off, p0, written);
	return shape;
}

/* Four words widened to four lanes at a time, so each lane's vector is stored whole:
 * the instruction that reads the loaded register next (fast_run's, 32-byte vectors in
 * its x86-64-v3 clone) then takes it from the store buffer (two 16-byte stores under
 * one 32-byte load wait for the stores to reach the cache). */
typedef uint32_t u32x4_t __attribute__((vector_size(16)));
typedef int32_t i32x4_t __attribute__((vector_size(16)));
typedef int64_t i64x4v_t __attribute__((vector_size(32)));
#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
void span_load_shape(uint64_t *d, uint64_t a0, uint64_t a16, uintptr_t p0, int sg, int shape)
{
	for (unsigned h = 0; h < 2; h++) {
		const unsigned char *p = (const unsigned char *)(p0 + (h ? a16 : a0));
		uint64_t *dh = d + 16 * h;
		if (shape == SPAN_BCAST) {
			int32_t v;
			memcpy(&v, p, 4);
			uint64_t x = sg ? (uint64_t)(int64_t)v : (uint32_t)v;
			const u64x4_t xv = { x, x, x, x };
			for (unsigned j = 0; j < 16; j += 4)
				memcpy(dh + j, &xv, sizeof xv);
		} else if (sg) {
			for (unsigned j = 0; j < 16; j += 4) {
				i32x4_t v;
				memcpy(&v, p + 4 * j, sizeof v);
				i64x4v_t x = __builtin_convertvector(v, i64x4v_t);
				memcpy(dh + j, &x, sizeof x);
			}
		} else {
			for (unsigned j = 0; j < 16; j += 4) {
				u32x4_t v;
				memcpy(&v, p + 4 * j, sizeof v);
				u64x4_t x = __builtin_convertvector(v, u64x4_t);
				memcpy(dh + j, &x, sizeof x);
			}
		}
	}
}

/* The lanes in order, as span_store: where the halves overlap, the second half's words
 * are stored last; a broadcast stores its half's last lane. */
void span_store_shape(const uint64_t *v, uint64_t a0, uint64_t a16, uintptr_t p0,
		      uintptr_t w0, int shape)
{
	unsigned bytes = shape == SPAN_ROWS ? 64 : 4;
	for (unsigned h = 0; h < 2; h++) {
		uint64_t ah = h ? a16 : a0;
		unsigned char *p = (unsigned char *)(p0 + ah);
		const uint64_t *vh = v + 16 * h;
		if (shape == SPAN_BCAST) {
			uint32_t x = (uint32_t)vh[15];
			memcpy(p, &x, 4);
		} else {
			uint32_t x[16];
			for (unsigned j = 0; j < 16; j++)
				x[j] = (uint32_t)vh[j];
			memcpy(p, x, sizeof x);
		}
		if (w0)
			devmem_mark_by_kernel(w0 + ah, bytes);
	}
}
