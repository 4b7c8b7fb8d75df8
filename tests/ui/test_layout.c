/* layout: the screen at the smallest supported size, at a large one, and below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "layout.h"

static void assert_rect(const struct rect *r, int y, int x, int h, int w)
{
	if (r->y != y || r->x != x || r->h != h || r->w != w)
		fail_msg("rect {%d,%d,%d,%d}, want {%d,%d,%d,%d}", r->y, r->x, r->h, r->w, y, x, h, w);
}

static bool inside(const struct rect *r, int cols, int rows)
{
	return r->y >= 0 && r->x >= 0 && r->y + r->h <= rows && r->x + r->w <= cols;
}

static void test_80x24(void **state)
{
	(void)state;
	struct layout l;
	layout_compute(&l, 80, 24, 11);
	assert_false(l.too_small);
	assert_false(l.split);
	assert_rect(&l.title, 0, 0, 1, 80);
	assert_rect(&l.body, 1, 0, 21, 80);
	assert_rect(&l.status, 22, 0, 1, 80);
	assert_rect(&l.keybar, 23, 0, 1, 80);
	/* Eleven labs, their header and a blank fit above an 8-row summary. */
	assert_rect(&l.list, 1, 0, 13, 80);
	assert_rect(&l.detail, 14, 0, 8, 80);
	/* Narrow lab view: a tab line, then one pane the full width. */
	assert_rect(&l.tabs, 1, 0, 1, 80);
	assert_rect(&l.reading, 2, 0, 20, 80);
	assert_rect(&l.results, 2, 0, 20, 80);
}

static void test_160x48(void **state)
{
	(void)state;
	struct layout l;
	layout_compute(&l, 160, 48, 11);
	assert_false(l.too_small);
	assert_true(l.split);
	assert_rect(&l.body, 1, 0, 45, 160);
	assert_rect(&l.keybar, 47, 0, 1, 160);
	/* The list takes its rows; the summary (and the reading's start) the rest. */
	assert_rect(&l.list, 1, 0, 13, 160);
	assert_rect(&l.detail, 14, 0, 32, 160);
	assert_int_equal(l.tabs.h, 0);
	assert_rect(&l.reading, 1, 0, 45, 80);
	assert_rect(&l.divider, 1, 80, 45, 1);
	assert_rect(&l.results, 1, 81, 45, 79);
}

static void test_every_size_fits(void **state)
{
	(void)state;
	for (int cols = 80; cols <= 220; cols += 7)
		for (int rows = 24; rows <= 70; rows += 5) {
			struct layout l;
			layout_compute(&l, cols, rows, 11);
			const struct rect *all[] = {&l.title, &l.body, &l.status, &l.keybar, &l.list,
						    &l.detail, &l.tabs, &l.reading, &l.results};
			for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
				assert_true(inside(all[i], cols, rows));
			assert_int_equal(l.reading.w + l.results.w + l.divider.w, l.split ? cols : 2 * cols);
			assert_int_equal(l.list.h + l.detail.h, l.body.h);
		}
}

static void test_too_small(void **state)
{
	(void)state;
	struct layout l;
	layout_compute(&l, 79, 24, 11);
	assert_true(l.too_small);
	layout_compute(&l, 80, 23, 11);
	assert_true(l.too_small);
	/* Many labs: no room for a summary, the list scrolls. */
	layout_compute(&l, 80, 24, 40);
	assert_int_equal(l.detail.h, 0);
	assert_int_equal(l.list.h, 21);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_80x24),
		cmocka_unit_test(test_160x48),
		cmocka_unit_test(test_every_size_fits),
		cmocka_unit_test(test_too_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
