/* Size expressions of lab specs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr.h"

static bool lookup(void *ud, const char *name, size_t len, int64_t *out)
{
	(void)ud;
	if (len == 1 && name[0] == 'n') {
		*out = 1000;
		return true;
	}
	if (len == 4 && strncmp(name, "rows", 4) == 0) {
		*out = 7;
		return true;
	}
	return false;
}

static void test_eval(void **state)
{
	(void)state;
	struct { const char *text; int64_t value; } ok[] = {
		{ "n", 1000 }, { "rows*n*3", 21000 }, { "(n + 255) / 256", 4 }, { "-n + 1", -999 },
		{ "n % 7", 6 }, { " 2 * (rows - 1) ", 12 }, { "0x10", 16 },
		{ "-9223372036854775807 - 1", INT64_MIN }, { "(-9223372036854775807 - 1) % -1", 0 },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t v;
		char err[64];
		assert_int_equal(expr_eval(ok[i].text, lookup, NULL, &v, err, sizeof(err)), 0);
		assert_int_equal(v, ok[i].value);
	}
	struct { const char *text; const char *err; } bad[] = {
		{ "m", "unknown name 'm'" }, { "n / 0", "division by zero" }, { "(n", "expected ')'" },
		{ "n n", "unexpected text" }, { "", "unexpected end" },
		/* found by fuzzing (tests/fuzz): 64-bit overflow is an error, never wrapped */
		{ "9223372036854775807 + 1", "out of range" }, { "-(-9223372036854775807 - 1)", "out of range" },
		{ "4294967296 * 4294967296", "out of range" }, { "(-9223372036854775807 - 1) / -1", "out of range" },
		{ "-9223372036854775807 - 2", "out of range" },
		{ "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
		  "-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(n", "nested too deeply" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v;
		char err[64];
		assert_int_equal(expr_eval(bad[i].text, lookup, NULL, &v, err, sizeof(err)), -22);
		if (!strstr(err, bad[i].err))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].text, err, bad[i].err);
	}
}

static void test_assignment(void **state)
{
	(void)state;
	char *name;
	int64_t v;
	char err[64];
	assert_int_equal(expr_assignment("rows = n * 2", lookup, NULL, &name, &v, err, sizeof(err)), 0);
	assert_string_equal(name, "rows");
	assert_int_equal(v, 2000);
	free(name);
	assert_int_equal(expr_assignment("n: 5", lookup, NULL, &name, &v, err, sizeof(err)), -22);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_assignment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
