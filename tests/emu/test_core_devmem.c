/* Tests of emu/devmem: the emulated device address space. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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
	assert_non_null(devmem_written_peek(src, n)); /* a copy from it reads its flags */
	devmem_unified_reconcile();
	devmem_unified_snapshot();
	assert_int_equal(devmem_unified_scanned() - s0, 0);

	unsigned char *w = devmem_written(dst, 64); /* a kernel's result lands here */
	assert_non_null(w);
	char *h = (char *)(uintptr_t)dst;
	h[0] = 1, h[1] = 2;
	w[0] = w[1] = DEVMEM_BY_KERNEL;
	devmem_unified_snapshot();
	assert_int_equal(devmem_unified_scanned() - s0, 64);
	h[1] = 3; /* the host overwrites one of the kernel's bytes */
	devmem_unified_reconcile();
	assert_int_equal(devmem_unified_scanned() - s0, 128);
	assert_int_equal(w[0], DEVMEM_BY_KERNEL);
	assert_int_equal(w[1], 0);
	assert_int_equal(devmem_free(src), 0);
	assert_int_equal(devmem_free(dst), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_free),
		cmocka_unit_test(test_managed),
		cmocka_unit_test(test_unified_scan_what_was_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
