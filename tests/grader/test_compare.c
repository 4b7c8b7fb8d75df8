/* Output comparison: tolerances, and the diagnosis of common mismatch shapes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare.h"

static void test_close(void **state)
{
	(void)state;
	struct spec_tolerance exact = { true, 0, 0 }, rel = { false, 0, 1e-3 }, abs_ = { false, 0.5, 0 };
	assert_true(compare_close(1.0, 1.0, &exact));
	assert_false(compare_close(1.0, nextafter(1.0, 2.0), &exact));
	assert_true(compare_close(1000.0, 1000.9, &rel));
	assert_false(compare_close(1000.0, 1001.1, &rel));
	assert_true(compare_close(0.0, 0.4, &abs_));
	assert_false(compare_close(0.0, 0.6, &abs_));
	assert_true(compare_close(NAN, NAN, &rel));
	assert_false(compare_close(1.0, NAN, &abs_));
	assert_false(compare_close(INFINITY, 1e308, &rel));
}

/* expected[i] = i + 1; actual as given. */
static char *run(float *actual, uint64_t n, struct compare_result *r)
{
	float *expected = malloc(n * sizeof(float));
	for (uint64_t i = 0; i < n; i++)
		expected[i] = (float)(i + 1);
	struct spec_tolerance t = { true, 0, 0 };
	compare_buffers(SPEC_F32, &t, expected, actual, n, r);
	free(expected);
	return compare_describe(r, "C", SPEC_F32);
}

static void test_never_written(void **state)
{
	(void)state;
	float a[100];
	memset(a, 0xFF, sizeof(a));
	struct compare_result r;
	char *text = run(a, 100, &r);
	assert_int_equal(r.wrong, 100);
	assert_int_equal(r.unwritten, 100);
	assert_non_null(strstr(text, "No element of C was written"));
	assert_non_null(strstr(text, "(never written)"));
	free(text);
}

static void test_tail_zeros_is_short_grid(void **state)
{
	(void)state;
	float a[1000];
	for (int i = 0; i < 1000; i++)
		a[i] = i < 768 ? (float)(i + 1) : 0.0f;
	struct compare_result r;
	char *text = run(a, 1000, &r);
	assert_int_equal(r.wrong, 232);
	assert_int_equal(r.first_wrong, 768);
	assert_int_equal(r.last_wrong, 999);
	assert_non_null(strstr(text, "grid does not cover"));
	assert_non_null(strstr(text, "C[768]: expected 769, got 0"));
	free(text);
}

static void test_quarter_is_byte_count(void **state)
{
	(void)state;
	float a[1000];
	memset(a, 0xFF, sizeof(a));
	for (int i = 0; i < 250; i++)
		a[i] = (float)(i + 1);
	struct compare_result r;
	char *text = run(a, 1000, &r);
	assert_non_null(strstr(text, "n * sizeof(element)"));
	free(text);
}

static void test_scattered_has_no_guess(void **state)
{
	(void)state;
	float a[64];
	for (int i = 0; i < 64; i++)
		a[i] = (float)(i + 1) + (i % 7 == 3 ? 0.5f : 0.0f);
	struct compare_result r;
	char *text = run(a, 64, &r);
	assert_int_equal(r.wrong, 9);
	assert_int_equal(r.n_shown, COMPARE_SHOWN);
	assert_null(strstr(text, "grid"));
	assert_null(strstr(text, "written"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_close),
		cmocka_unit_test(test_never_written),
		cmocka_unit_test(test_tail_zeros_is_short_grid),
		cmocka_unit_test(test_quarter_is_byte_count),
		cmocka_unit_test(test_scattered_has_no_guess),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
