/* pl_timing's statistics: option parsing, median, MAD, the relative error of a median
 * and the stop rule of the timed loop (the loop itself needs a GPU). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "harness/pl_timing.h"

static void test_opts(void **state)
{
	(void)state;
	struct pl_timing_opts o;
	pl_timing_parse_opts(NULL, &o);
	assert_true(o.cap_ms == 2000 && o.rel == 0.01);
	assert_int_equal(o.min_reps, 5);
	assert_int_equal(o.use_cupti, 1);
	pl_timing_parse_opts("cap_ms=300,rel=0.05,min=3,max=2,cupti=0,bogus=7,warmup=0", &o);
	assert_true(o.cap_ms == 300 && o.rel == 0.05);
	assert_int_equal(o.min_reps, 3);
	assert_int_equal(o.max_reps, 3); /* never below min */
	assert_int_equal(o.warmup, 0);
	assert_int_equal(o.use_cupti, 0);
}

static void test_median_mad(void **state)
{
	(void)state;
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, scratch[5];
	assert_true(pl_timing_median(odd, 3) == 3);
	assert_true(pl_timing_median(even, 4) == 2.5);
	assert_true(pl_timing_median(NULL, 0) == 0);
	double v[] = { 10, 11, 9, 10, 30 };
	/* deviations 0 1 1 0 20 -> median 1: one outlier does not move it */
	assert_true(pl_timing_mad(v, 5, 10, scratch) == 1);
}

static void test_rel_err(void **state)
{
	(void)state;
	double one[] = { 1 };
	assert_true(isinf(pl_timing_rel_err(one, 1)));
	double flat[] = { 2, 2, 2, 2 };
	assert_true(pl_timing_rel_err(flat, 4) == 0);
	/* sd of {1,3} is sqrt(2); median 2; 1.2533 * 1.4142 / 1.4142 / 2 */
	double two[] = { 1, 3 };
	assert_true(fabs(pl_timing_rel_err(two, 2) - 1.2533 / 2) < 1e-9);
	/* more samples of the same spread: smaller error */
	double many[100];
	for (int i = 0; i < 100; i++)
		many[i] = i % 2 ? 1 : 3;
	assert_true(pl_timing_rel_err(many, 100) < 0.07);
}

static void test_done(void **state)
{
	(void)state;
	struct pl_timing_opts o;
	pl_timing_parse_opts("min=3,max=10,rel=0.01,cap_ms=100", &o);
	double stable[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	double noisy[10] = { 1, 2, 1, 2, 1, 2, 1, 2, 1, 2 };
	assert_false(pl_timing_done(&o, stable, 2, 0));   /* below min */
	assert_true(pl_timing_done(&o, stable, 3, 0));    /* stable */
	assert_false(pl_timing_done(&o, noisy, 5, 50));   /* noisy, time left */
	assert_true(pl_timing_done(&o, noisy, 5, 100));   /* noisy, past the cap */
	assert_true(pl_timing_done(&o, noisy, 10, 0));    /* max reps */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_median_mad),
		cmocka_unit_test(test_rel_err),
		cmocka_unit_test(test_done),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
