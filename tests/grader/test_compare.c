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
	compare_buffers(SPEC_F32, &t, expected, actual, n, NULL, r);
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

/* A sum or a histogram accumulated into cudaMalloc'd memory never cleared: on the emulator
 * it starts from 0xCD bytes (lab 09's sum, lab 08's bins). */
static void test_added_to_uncleared(void **state)
{
	(void)state;
	float fresh;
	memset(&fresh, 0xCD, sizeof fresh);
	/* float sums near 4.3e8 round to multiples of 32: 253 lands 3 away */
	float fe[4] = { 253, 1000, 40000, 4 }, fa[4] = { fresh + 253, fresh + 1000, fresh + 40000, 4 };
	struct spec_tolerance exact = { true, 0, 0 };
	struct compare_result r;
	compare_buffers(SPEC_F32, &exact, fe, fa, 4, NULL, &r);
	assert_int_equal(r.wrong, 3);
	assert_int_equal(r.added_to_fresh, 3);
	char *text = compare_describe(&r, "C", SPEC_F32);
	assert_non_null(strstr(text, "cudaMemset(C_d, 0, bytes) before kernels accumulate"));
	free(text);
	uint32_t e[3] = { 0, 7, 250 }, h[3];
	for (int i = 0; i < 3; i++)
		h[i] = 0xCDCDCDCDu + e[i];
	compare_buffers(SPEC_U32, &exact, e, h, 3, NULL, &r);
	assert_int_equal(r.added_to_fresh, 2); /* the empty bin holds the pattern itself */
	assert_int_equal(r.blank, 1);
	text = compare_describe(&r, "histo", SPEC_U32);
	assert_non_null(strstr(text, "what cudaMalloc left in device memory"));
	assert_non_null(strstr(text, "plus the right result"));
	free(text);
	/* a single sum whose few additions rounded away next to 4.3e8: the pattern itself, not
	 * "the grid does not cover" */
	float se = 3, sa = fresh;
	compare_buffers(SPEC_F32, &exact, &se, &sa, 1, NULL, &r);
	text = compare_describe(&r, "sum", SPEC_F32);
	assert_non_null(strstr(text, "cudaMemset(sum_d, 0, bytes)"));
	assert_null(strstr(text, "grid does not cover"));
	free(text);
	/* a wrong value that merely is large says nothing of the kind */
	float b[2] = { 1.0f, 5.0e8f };
	text = run(b, 2, &r);
	assert_int_equal(r.added_to_fresh, 0);
	assert_null(strstr(text, "cudaMalloc left"));
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

/* expected[i] = i + 1 over PLANES x ROWS x COLS (shape [planes, rows, cols], or [rows,
 * cols] when PLANES is 1); actual as given. */
static char *run_shaped(float *actual, uint64_t planes, uint64_t rows, uint64_t cols,
			struct compare_result *r)
{
	uint64_t n = planes * rows * cols;
	float *expected = malloc(n * sizeof(float));
	for (uint64_t i = 0; i < n; i++)
		expected[i] = (float)(i + 1);
	struct spec_tolerance t = { true, 0, 0 };
	struct spec_shape s = planes > 1 ? (struct spec_shape){ 3, { planes, rows, cols } }
					 : (struct spec_shape){ 2, { rows, cols } };
	compare_buffers(SPEC_F32, &t, expected, actual, n, &s, r);
	free(expected);
	return compare_describe(r, "out", SPEC_F32);
}

static float *right_values(uint64_t n)
{
	float *a = malloc(n * sizeof(float));
	for (uint64_t i = 0; i < n; i++)
		a[i] = (float)(i + 1);
	return a;
}

/* A blur that clamps its window instead of skipping the outside: only the border is off. */
static void test_edge_band(void **state)
{
	(void)state;
	float *a = right_values(20 * 30);
	for (unsigned r = 0; r < 20; r++)
		for (unsigned c = 0; c < 30; c++)
			if (r < 2 || c < 2 || r >= 18 || c >= 28)
				a[r * 30 + c] += 3;
	struct compare_result res;
	char *text = run_shaped(a, 1, 20, 30, &res);
	assert_int_equal(res.edge_max, 1);
	assert_non_null(strstr(text, "within 2 of the edge of its 20 x 30 plane"));
	assert_non_null(strstr(text, "first at out[0][0], last at out[19][29]"));
	assert_non_null(strstr(text, "out[0][1]: expected 2, got 5"));
	assert_null(strstr(text, "Only"));
	free(text);
	/* one wrong element in the middle as well: no band */
	a[10 * 30 + 15] += 1;
	text = run_shaped(a, 1, 20, 30, &res);
	assert_null(strstr(text, "edge"));
	free(text);
	free(a);
}

static void test_last_columns(void **state)
{
	(void)state;
	float *a = right_values(20 * 30);
	for (unsigned r = 0; r < 20; r++)
		for (unsigned c = 24; c < 30; c++)
			memset(&a[r * 30 + c], 0xFF, sizeof(float));
	struct compare_result res;
	char *text = run_shaped(a, 1, 20, 30, &res);
	assert_non_null(strstr(text, "Only columns 24..29 are wrong (120 of the 120 elements there; never computed"));
	assert_non_null(strstr(text, "columns 0..23 are right"));
	free(text);
	/* the last column only: columns, not the edge band */
	free(a);
	a = right_values(20 * 30);
	for (unsigned r = 0; r < 20; r++)
		a[r * 30 + 29] = 7;
	text = run_shaped(a, 1, 20, 30, &res);
	assert_non_null(strstr(text, "Only columns 29..29 are wrong (20 of the 20 elements there); columns 0..28"));
	free(text);
	free(a);
}

static void test_last_rows(void **state)
{
	(void)state;
	float *a = right_values(20 * 30);
	for (unsigned i = 16 * 30; i < 20 * 30; i += 2)
		a[i] = 0;
	struct compare_result res;
	char *text = run_shaped(a, 1, 20, 30, &res);
	assert_non_null(strstr(text, "Only rows 16..19 are wrong (60 of the 120 elements there; never computed"));
	assert_null(strstr(text, "grid does not cover")); /* the flat tail's words */
	free(text);
	free(a);
}

/* A grid rounded down in x and y: the last rows and columns, an L along two edges. */
static void test_far_sides(void **state)
{
	(void)state;
	float *a = right_values(20 * 30);
	for (unsigned r = 0; r < 20; r++)
		for (unsigned c = 0; c < 30; c++)
			if (r >= 17 || c >= 25)
				a[r * 30 + c] = 0;
	a[19 * 30 + 29] = 600; /* one of them happens to be right */
	struct compare_result res;
	char *text = run_shaped(a, 1, 20, 30, &res);
	assert_int_equal(res.last_rows, 3);
	assert_int_equal(res.last_cols, 5);
	assert_non_null(strstr(text, "Only the last 3 rows and the last 5 columns are wrong (never computed"));
	assert_null(strstr(text, "edge of its"));
	free(text);
	a[2 * 30 + 3] = 0; /* and one elsewhere: no such pattern */
	text = run_shaped(a, 1, 20, 30, &res);
	assert_int_equal(res.last_rows + res.last_cols, 0);
	assert_null(strstr(text, "Only"));
	free(text);
	free(a);
}

static void test_transposed(void **state)
{
	(void)state;
	float *a = right_values(16 * 16);
	for (unsigned r = 0; r < 16; r++)
		for (unsigned c = 0; c < 16; c++)
			a[r * 16 + c] = (float)(c * 16 + r + 1);
	struct compare_result res;
	char *text = run_shaped(a, 1, 16, 16, &res);
	assert_int_equal(res.wrong, 16 * 15);
	assert_int_equal(res.transposed, 16 * 15);
	assert_non_null(strstr(text, "out is the transpose"));
	free(text);
	a[3 * 16 + 5] = -1; /* one that is neither */
	text = run_shaped(a, 1, 16, 16, &res);
	assert_null(strstr(text, "transpose"));
	free(text);
	free(a);
}

static void test_later_planes(void **state)
{
	(void)state;
	float *a = right_values(4 * 8 * 8);
	for (unsigned i = 2 * 64; i < 4 * 64; i++)
		a[i] = 0;
	struct compare_result res;
	char *text = run_shaped(a, 4, 8, 8, &res);
	assert_non_null(strstr(text, "Only the planes from out[2][0][0] on are wrong; never computed"));
	assert_non_null(strstr(text, "the first 2 of 4 are right"));
	assert_non_null(strstr(text, "out[2][0][0]: expected 129, got 0"));
	free(text);
	free(a);
}

static void test_scattered_2d_has_no_guess(void **state)
{
	(void)state;
	float *a = right_values(20 * 30);
	a[0] += 1;           /* a corner */
	a[10 * 30 + 15] += 1; /* the middle */
	a[19 * 30 + 3] += 1;
	struct compare_result res;
	char *text = run_shaped(a, 1, 20, 30, &res);
	assert_null(strstr(text, "Only"));
	assert_null(strstr(text, "edge"));
	assert_null(strstr(text, "transpose"));
	free(text);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_close),
		cmocka_unit_test(test_never_written),
		cmocka_unit_test(test_tail_zeros_is_short_grid),
		cmocka_unit_test(test_added_to_uncleared),
		cmocka_unit_test(test_quarter_is_byte_count),
		cmocka_unit_test(test_scattered_has_no_guess),
		cmocka_unit_test(test_edge_band),
		cmocka_unit_test(test_last_columns),
		cmocka_unit_test(test_last_rows),
		cmocka_unit_test(test_far_sides),
		cmocka_unit_test(test_transposed),
		cmocka_unit_test(test_later_planes),
		cmocka_unit_test(test_scattered_2d_has_no_guess),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
