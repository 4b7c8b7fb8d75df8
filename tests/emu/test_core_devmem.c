/* Tests of emu/devmem: the emulated device address space. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "devmem.h"

static void test_alloc_free(void **state)
{
	(void)state;
	devaddr_t a, b;
	assert_int_equal(devmem_alloc(1000, DEVMEM_GLOBAL, "a", &a), 0);
	assert_int_equal(devmem_alloc(24, DEVMEM_GLOBAL, "b", &b), 0);
	assert_int_equal(a % 256, 0);
	assert_int_equal(b % 256, 0);
	assert_true(b >= a + 1000);
	assert_true(devmem_in_device_range(a));
	unsigned char *h = devmem_host(a, 1000);
	assert_non_null(h);
	assert_int_equal(h[999], 0); /* zero-filled */
	h[999] = 7;
	assert_ptr_equal(devmem_host(a + 999, 1), h + 999);
	assert_null(devmem_host(a + 999, 2)); /* runs past the end */
	assert_null(devmem_host(a + 1000, 1));
	assert_ptr_not_equal((void *)(uintptr_t)a, h); /* device address is not the data */
	struct devmem_info in;
	assert_int_equal(devmem_find(a + 10, &in), 0);
	assert_int_equal(in.base, a);
	assert_int_equal(in.size, 1000);
	assert_string_equal(in.label, "a");
	assert_int_equal(devmem_find(a + 1000, &in), -ENOENT);
	assert_int_equal(devmem_nearest(a + 1004, &in), 0);
	assert_int_equal(in.base, a);
	assert_int_equal(devmem_free(a + 4), -EINVAL);
	assert_int_equal(devmem_free(a), 0);
	assert_int_equal(devmem_free(a), -EINVAL); /* double free */
	assert_null(devmem_host(a, 1));
	assert_int_equal(devmem_nearest(a + 3, &in), 0);
	assert_int_equal(in.live, 0);
	assert_int_equal(devmem_free(b), 0);
}

static void test_managed(void **state)
{
	(void)state;
	devaddr_t m;
	assert_int_equal(devmem_alloc(64, DEVMEM_MANAGED, "m", &m), 0);
	int *p = (int *)(uintptr_t)m;
	p[15] = 42; /* managed memory is host-dereferenceable */
	assert_ptr_equal(devmem_host(m + 60, 4), p + 15);
	assert_false(devmem_in_device_range(m));
	assert_int_equal(devmem_free(m), 0);
}

/* Managed memory is the host's: after a free its pages can come back in a later
 * allocation at another base. A freed record that starts inside the new range must not
 * hide it (issue 18's cudaOpenMP test: four host threads freeing and allocating, a
 * kernel on the new allocation faulted as "already freed"). */
static void test_managed_reused_range(void **state)
{
	(void)state;
	const size_t page = 4096;
	devaddr_t p, q, r;
	assert_int_equal(devmem_alloc(5 * page, DEVMEM_MANAGED, "p", &p), 0);
	assert_int_equal(devmem_free(p), 0);
	assert_int_equal(devmem_alloc(2 * page, DEVMEM_MANAGED, "q", &q), 0);
	assert_int_equal(devmem_free(q), 0);
	assert_int_equal(devmem_alloc(5 * page, DEVMEM_MANAGED, "r", &r), 0);
	if (!(r < q && q < r + 5 * page)) {
		devmem_free(r);
		skip(); /* the host mapped r elsewhere: no freed record inside it to test */
	}
	struct devmem_info in;
	for (devaddr_t at = r; at < r + 5 * page; at += page / 2) {
		assert_int_equal(devmem_find(at, &in), 0);
		assert_int_equal(in.base, r);
		assert_int_equal(in.live, 1);
		assert_non_null(devmem_host(at, 4));
	}
	assert_int_equal(devmem_free(r), 0);
	assert_int_equal(devmem_nearest(q, &in), 0); /* the newest freed record explains it */
	assert_int_equal(in.base, r);
	assert_int_equal(in.live, 0);
}

/* Reconcile and snapshot (before and after every launch and copy) scan only the flags of
 * allocations a writer was given: a large pinned buffer that is only copied from costs
 * nothing a launch; one a kernel or copy wrote is scanned and reconciled as before. */
static void test_unified_scan_what_was_written(void **state)
{
	(void)state;
	const size_t n = 1 << 20;
	devaddr_t src, dst;
	assert_int_equal(devmem_alloc(n, DEVMEM_HOST, "pinned source", &src), 0);
	assert_int_equal(devmem_alloc(64, DEVMEM_HOST, "pinned result", &dst), 0);
	size_t s0 = devmem_unified_scanned();
	unsigned char k[(1 << 20) / 8], f[(1 << 20) / 8];
	assert_int_equal(devmem_flags_get(src, n, k, f), 0); /* a copy from it reads its flags */
	devmem_unified_reconcile();
	devmem_unified_snapshot();
	assert_int_equal(devmem_unified_scanned() - s0, 0);

	devmem_flags_t w = devmem_written(dst, 64); /* a kernel's result lands here */
	assert_true(w != 0);
	char *h = (char *)(uintptr_t)dst;
	h[0] = 1, h[1] = 2;
	devmem_mark_by_kernel(w, 2);
	devmem_unified_snapshot();
	assert_int_equal(devmem_unified_scanned() - s0, 64);
	h[1] = 3; /* the host overwrites one of the kernel's bytes */
	devmem_unified_reconcile();
	assert_int_equal(devmem_unified_scanned() - s0, 128);
	assert_int_equal(devmem_flags_get(dst, 64, k, f), 0);
	assert_int_equal(devmem_flag_at(k, f, 0), DEVMEM_BY_KERNEL);
	assert_int_equal(devmem_flag_at(k, f, 1), 0);
	assert_int_equal(devmem_free(src), 0);
	assert_int_equal(devmem_free(dst), 0);
}

/* The written flags (two bitmaps, devmem.h) against a flag byte a byte: random marks by
 * kernels (one range, a warp's lanes), memsets, copies between and inside allocations
 * (overlapping, at offsets that differ within a byte) and reads of sub-ranges, at every
 * offset modulo 8 and 64, must all give what the bytes give. */
static unsigned rnd(unsigned *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

enum { FL_N = 1000 };

static void check_flags(devaddr_t base, const unsigned char *model, unsigned *x)
{
	unsigned char k[FL_N / 8 + 1], f[FL_N / 8 + 1];
	size_t at = rnd(x) % FL_N, n = rnd(x) % (FL_N - at) + 1;
	assert_int_equal(devmem_flags_get(base + at, n, k, f), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(devmem_flag_at(k, f, i), model[at + i]);
	if (n % 8) /* the bits past N are 0 */
		assert_int_equal((k[n / 8] | f[n / 8]) >> (n % 8), 0);
	assert_int_equal(devmem_flags_get(base, FL_N, k, f), 0);
	for (size_t i = 0; i < FL_N; i++)
		assert_int_equal(devmem_flag_at(k, f, i), model[i]);
}

static void test_flag_bitmaps(void **state)
{
	(void)state;
	devaddr_t a[2];
	static unsigned char model[2][FL_N];
	memset(model, 0, sizeof model);
	assert_int_equal(devmem_alloc(FL_N, DEVMEM_GLOBAL, "a", &a[0]), 0);
	assert_int_equal(devmem_alloc(FL_N, DEVMEM_MANAGED, "b", &a[1]), 0);
	unsigned x = 7;
	for (int step = 0; step < 4000; step++) {
		int t = (int)(rnd(&x) % 2);
		devaddr_t base = a[t];
		unsigned char *m = model[t];
		size_t at = rnd(&x) % FL_N, n = rnd(&x) % (FL_N - at) + 1;
		switch (rnd(&x) % 5) {
		case 0: { /* a kernel's store or atomic of a range */
			devmem_mark_by_kernel(devmem_written(base, FL_N) + at, n);
			memset(m + at, DEVMEM_BY_KERNEL, n);
			break;
		}
		case 1: { /* a warp's store: lanes anywhere, in any order */
			unsigned size = 1u << (rnd(&x) % 6), lanes = rnd(&x);
			uint64_t addr[32];
			for (unsigned l = 0; l < 32; l++) {
				if (l && rnd(&x) % 4) /* mostly the bytes after the lane before */
					addr[l] = (addr[l - 1] + size) % (FL_N - size + 1);
				else
					addr[l] = rnd(&x) % (FL_N - size + 1);
				if (lanes >> l & 1)
					memset(m + addr[l], DEVMEM_BY_KERNEL, size);
			}
			devmem_mark_lanes(addr, devmem_written(base, FL_N), size, lanes);
			break;
		}
		case 2: { /* cudaMemset, or a copy from host memory */
			int st = rnd(&x) % 2 ? DEVMEM_FILLED : 0;
			assert_int_equal(devmem_flags_set(base + at, n, st), 0);
			memset(m + at, st, n);
			break;
		}
		case 3: { /* a copy from the other allocation or the same, maybe overlapping */
			int u = (int)(rnd(&x) % 2);
			size_t from = rnd(&x) % (FL_N - n + 1);
			assert_int_equal(devmem_flags_copy(base + at, a[u] + from, n), 0);
			memmove(m + at, model[u] + from, n);
			break;
		}
		default:
			check_flags(base, m, &x);
		}
	}
	check_flags(a[0], model[0], &x);
	check_flags(a[1], model[1], &x);
	assert_int_equal(devmem_flags_set(a[0] + FL_N - 4, 5, 0), -ENOENT); /* past the end */
	assert_int_equal(devmem_flags_copy(a[0], a[1] + 1, FL_N), -ENOENT);
	assert_int_equal(devmem_free(a[0]), 0);
	assert_int_equal(devmem_revive(a[0]), 0); /* a graph's allocation node: all the host's */
	memset(model[0], 0, FL_N);
	check_flags(a[0], model[0], &x);
	assert_int_equal(devmem_free(a[0]), 0);
	assert_int_equal(devmem_free(a[1]), 0);
}

/* Whole pages of [p, p + n). */
static size_t whole_pages(const void *p, size_t n)
{
	return ((((uintptr_t)p + n) & ~(uintptr_t)4095) - (((uintptr_t)p + 4095) & ~(uintptr_t)4095)) / 4096;
}

/* Of those, the ones resident now. */
static size_t resident_pages(const void *p, size_t n)
{
	uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;
	static unsigned char vec[1024];
	size_t pages = (hi - lo) / 4096, res = 0;
	assert_true(pages <= sizeof vec);
	assert_int_equal(mincore((void *)lo, hi - lo, vec), 0);
	for (size_t i = 0; i < pages; i++)
		res += vec[i] & 1;
	return res;
}

/* Device memory is committed at its allocation, as a GPU's is (devmem.c: a kernel's first
 * writes must not fault a page at a time), given back at its free, and left to the first
 * touch past DEVMEM_COMMIT_MAX of it. */
static void test_committed_at_allocation(void **state)
{
	(void)state;
#ifdef MADV_POPULATE_WRITE
	const size_t n = (size_t)1 << 20;
	devaddr_t a, big;
	assert_int_equal(devmem_alloc(n, DEVMEM_GLOBAL, "a", &a), 0);
	char *h = devmem_host(a, n);
	if (madvise((void *)(((uintptr_t)h + 4095) & ~(uintptr_t)4095), 4096, MADV_POPULATE_WRITE)) {
		assert_int_equal(devmem_free(a), 0);
		skip(); /* a Linux before 5.14: first touches fault, as before */
	}
	assert_true(whole_pages(h, n) >= n / 4096 - 1);
	assert_int_equal(resident_pages(h, n), whole_pages(h, n));
	assert_int_equal(h[n - 1], 0); /* still zero-filled */
	assert_int_equal(devmem_free(a), 0);
	assert_int_equal(resident_pages(h, n), 0);
	assert_int_equal(devmem_revive(a), 0); /* a graph's allocation node: a fresh one */
	assert_int_equal(resident_pages(h, n), whole_pages(h, n));
	assert_int_equal(devmem_free(a), 0);
	/* past the limit: address space only, until touched */
	if (devmem_alloc(((size_t)1 << 30) + n, DEVMEM_GLOBAL, "big", &big) == 0) {
		char *hb = devmem_host(big, n);
		assert_int_equal(resident_pages(hb, n), 0);
		assert_int_equal(devmem_free(big), 0);
	}
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_free),
		cmocka_unit_test(test_managed),
		cmocka_unit_test(test_managed_reused_range),
		cmocka_unit_test(test_unified_scan_what_was_written),
		cmocka_unit_test(test_flag_bitmaps),
		cmocka_unit_test(test_committed_at_allocation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
