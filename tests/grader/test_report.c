/* Reports: Gradescope results.json shape, and scores. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report.h"

static json_t *to_json(struct report **r, unsigned n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(report_write_json(f, r, n), 0);
	fclose(f);
	json_error_t err;
	json_t *root = json_loads(buf, 0, &err);
	if (!root)
		fail_msg("invalid JSON: %s\n%s", err.text, buf);
	free(buf);
	return root;
}

static void test_json_shape(void **state)
{
	(void)state;
	struct report *r = report_new("01-vecadd", "a.cu", "emu", 42);
	report_add(r, "build", 0, true, NULL);
	report_add(r, "correctness: small (n=10)", 3, true, "fine");
	report_add(r, "correctness: odd (n=7)", 2, false, "C: 1 of 7 wrong \"quoted\"\nline 2");
	assert_false(report_passed(r));
	json_t *root = to_json(&r, 1);
	assert_true(json_is_number(json_object_get(root, "score")));
	assert_true(json_number_value(json_object_get(root, "score")) == 3.0);
	assert_true(json_number_value(json_object_get(root, "max_score")) == 5.0);
	json_t *tests = json_object_get(root, "tests");
	assert_int_equal(json_array_size(tests), 3);
	size_t i;
	json_t *t;
	json_array_foreach(tests, i, t) {
		assert_true(json_is_string(json_object_get(t, "name")));
		assert_true(json_is_number(json_object_get(t, "score")));
		assert_true(json_is_number(json_object_get(t, "max_score")));
		assert_true(json_is_string(json_object_get(t, "output")));
		const char *status = json_string_value(json_object_get(t, "status"));
		assert_true(strcmp(status, "passed") == 0 || strcmp(status, "failed") == 0);
	}
	t = json_array_get(tests, 2);
	assert_string_equal(json_string_value(json_object_get(t, "status")), "failed");
	assert_non_null(strstr(json_string_value(json_object_get(t, "output")), "\"quoted\"\nline 2"));
	json_t *extra = json_array_get(json_object_get(json_object_get(root, "extra_data"), "pmpplab"), 0);
	assert_int_equal(json_integer_value(json_object_get(extra, "seed")), 42);
	json_decref(root);
	report_free(r);
}

static void test_json_several_labs(void **state)
{
	(void)state;
	struct report *r[2] = { report_new("01-a", "a.cu", "gpu", 1), report_new("02-b", "b.cu", "gpu", 1) };
	report_add(r[0], "x", 1, true, NULL);
	report_add(r[1], "x", 2, true, NULL);
	json_t *root = to_json(r, 2);
	assert_true(json_number_value(json_object_get(root, "score")) == 3.0);
	json_t *tests = json_object_get(root, "tests");
	assert_string_equal(json_string_value(json_object_get(json_array_get(tests, 1), "name")), "02-b: x");
	json_decref(root);
	report_free(r[0]);
	report_free(r[1]);
}

static void test_text(void **state)
{
	(void)state;
	struct report *r = report_new("01-vecadd", "a.cu", "emu", 7);
	report_add(r, "correctness: odd", 2, false, "C: wrong\nsecond");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	report_write_text(f, r, false);
	fclose(f);
	assert_non_null(strstr(buf, "FAIL correctness: odd"));
	assert_non_null(strstr(buf, "    second\n"));
	assert_non_null(strstr(buf, "seed 7"));
	assert_non_null(strstr(buf, "score 0/2"));
	free(buf);
	report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_json_several_labs),
		cmocka_unit_test(test_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
