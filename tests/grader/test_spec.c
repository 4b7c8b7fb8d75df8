/* Spec loading: the valid fixture loads with every field; each invalid one is rejected
 * with its own message on the right line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spec.h"

#define SPECS SOURCE_ROOT "/tests/fixtures/specs/"

static void test_valid(void **state)
{
	(void)state;
	struct lab_spec *s;
	struct diag_list d;
	diag_list_init(&d);
	assert_int_equal(spec_load(SPECS "valid", &s, &d), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(s->id, "valid");
	assert_int_equal(s->chapter, 2);
	assert_string_equal(s->entry.function, "scale");
	assert_int_equal(s->entry.args_count, 3);
	assert_int_equal(s->datasets_count, 2);
	int64_t n;
	assert_true(spec_dataset_value(&s->datasets[1], "n", &n));
	assert_int_equal(n, 7003);
	uint64_t count;
	assert_int_equal(spec_buffer_count(s, &s->outputs[0], &s->datasets[1], &count), 0);
	assert_int_equal(count, 7003);
	struct spec_shape shape;
	spec_buffer_shape(s, &s->outputs[0], &s->datasets[1], count, &shape);
	assert_int_equal(shape.n, 2);
	assert_int_equal(shape.dim[0], 1);
	assert_int_equal(shape.dim[1], 7003);
	spec_buffer_shape(s, &s->outputs[0], &s->datasets[1], count + 1, &shape);
	assert_int_equal(shape.n, 0); /* not the buffer's count: no shape */
	assert_non_null(s->outputs[0].tolerance);
	assert_true(s->outputs[0].tolerance->rel > 0);
	assert_int_equal(s->outputs[0].provenance, SPEC_PROV_HOST_COMBINES);
	assert_int_equal(s->inputs[0].provenance, SPEC_PROV_DEVICE);
	assert_int_equal(s->inputs[0].generate->kind, SPEC_GEN_UNIFORM);
	/* a dataset's own generator replaces the input's in that dataset only */
	assert_ptr_equal(spec_dataset_generator(&s->datasets[0], &s->inputs[0]), s->inputs[0].generate);
	const struct spec_generator *g = spec_dataset_generator(&s->datasets[1], &s->inputs[0]);
	assert_int_equal(g->kind, SPEC_GEN_CONST);
	assert_true(g->value == 1);
	assert_int_equal(s->hints_count, 1);
	char *ref = spec_path(s, s->reference.file);
	assert_non_null(strstr(ref, "tests/fixtures/specs/common/reference.c"));
	free(ref);
	spec_free(s);
	diag_list_release(&d);
}

struct bad_case {
	const char *dir;
	unsigned line;      /* 0: the message names no line */
	const char *message;
};

static const struct bad_case bad_cases[] = {
	{ "bad-unknown-key", 3, "Unexpected key: colour" },
	{ "bad-missing-title", 0, "Missing required mapping field: title" },
	{ "bad-dtype", 18, "Invalid ENUM value: float16" },
	{ "bad-size-syntax", 19, "inputs[0].size: 'n +* 2': unexpected character at column 4" },
	{ "bad-size-name", 19, "unknown name 'm'" },
	{ "bad-entry-arg", 8, "entry.args[2]: 'count' is not a param, input or output" },
	{ "bad-dataset-missing-param", 28, "gives no value for param 'n'" },
	{ "bad-dataset-value", 28, "expected 'name = value'" },
	{ "bad-no-tolerance", 22, "floating-point outputs need a tolerance" },
	{ "bad-provenance", 26, "Invalid ENUM value: cpu" },
	{ "bad-input-provenance", 21, "inputs[0]: 'provenance' says who computes an output" },
	{ "bad-missing-file", 9, "file '../common/nothing.cu' not found" },
	{ "bad-id-folder", 1, "differs from its folder name 'bad-id-folder'" },
	{ "bad-duplicate-name", 22, "the name 'x' is already used by inputs[0]" },
	{ "bad-yaml-syntax", 4, "not valid YAML" },
	{ "bad-negative-size", 19, "is -5 in dataset 'odd'" },
	{ "bad-chapter", 3, "chapter: 0 is not a chapter" },
	{ "bad-generator", 20, "min (1) is greater than max (-1)" },
	{ "bad-dataset-generate", 33, "datasets[1].generate[0]: 'z' is not an input" },
	{ "bad-memcheck-datasets", 36, "checks[0].datasets[1]: no dataset is named 'large'" },
	{ "bad-shape", 25, "outputs[0].shape: the dimensions' product is 2000 but size 'n' is 1000 in dataset 'small'" },
	{ "bad-empty", 1, "the lab spec is empty" }, /* crashed before: found by tests/fuzz */
	{ "bad-folder", 0, "cannot read the lab spec: Is a directory" },
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		char dir[512];
		snprintf(dir, sizeof(dir), SPECS "%s", c->dir);
		struct lab_spec *s = (struct lab_spec *)1;
		struct diag_list d;
		diag_list_init(&d);
		int rc = spec_load(dir, &s, &d);
		if (rc == 0 || d.n == 0)
			fail_msg("%s: accepted, expected '%s'", c->dir, c->message);
		assert_null(s);
		const struct diag *first = &d.items[0];
		if (!strstr(first->message, c->message))
			fail_msg("%s: message '%s' lacks '%s'", c->dir, first->message, c->message);
		if (first->line != c->line)
			fail_msg("%s: line %u, expected %u (%s)", c->dir, first->line, c->line, first->message);
		assert_non_null(strstr(first->file, "lab.yaml"));
		diag_list_release(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
