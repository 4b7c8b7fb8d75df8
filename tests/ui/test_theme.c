/* theme: without colour (NO_COLOR, vt100) the roles a student must tell apart still look
 * different, through attributes alone. */
#include <curses.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "theme.h"

static void test_mono_distinct(void **state)
{
	(void)state;
	/* Before theme_init, and after it with mono, the monochrome column is used. */
	const enum ui_role pairs[][2] = {
		{ROLE_PASS, ROLE_FAIL},        {ROLE_TAB, ROLE_TAB_ACTIVE}, {ROLE_NORMAL, ROLE_SELECTED},
		{ROLE_NORMAL, ROLE_FAIL},      {ROLE_NORMAL, ROLE_H1},      {ROLE_NORMAL, ROLE_EMPH},
		{ROLE_NORMAL, ROLE_CODE},      {ROLE_NORMAL, ROLE_LINK},    {ROLE_KEY, ROLE_KEYLABEL},
		{ROLE_NORMAL, ROLE_TITLE},     {ROLE_NORMAL, ROLE_DIM},     {ROLE_NORMAL, ROLE_WARN},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (theme_attr(pairs[i][0]) == theme_attr(pairs[i][1]))
			fail_msg("roles %d and %d look the same without colour", pairs[i][0], pairs[i][1]);
	assert_true(theme_attr(ROLE_SELECTED) & A_REVERSE);
	assert_true(theme_attr(ROLE_TAB_ACTIVE) & A_REVERSE);
}

static void test_no_color_env(void **state)
{
	(void)state;
	assert_false(theme_no_color_env(NULL));
	assert_false(theme_no_color_env(""));
	assert_true(theme_no_color_env("1"));
	assert_true(theme_no_color_env("yes please"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mono_distinct),
		cmocka_unit_test(test_no_color_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
