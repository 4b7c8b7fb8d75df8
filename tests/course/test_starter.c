/* Solution markers: the starter generated from a marked solution (grader/starter.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "diag.h"
#include "fsutil.h"
#include "starter.h"

static char path[64];

static char *generate(const char *solution, int *rc, struct diag_list *diags)
{
	snprintf(path, sizeof(path), "/tmp/pmpplab-starter-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, solution, strlen(solution)), (ssize_t)strlen(solution));
	close(fd);
	char *out = NULL;
	*rc = starter_generate(path, &out, diags);
	return out;
}

static void test_blocks(void **state)
{
	(void)state;
	const char *sol =
		"// BEGIN SOLUTION\n"
		"// Lab 01 solution.\n"
		"// STARTER\n"
		"// Lab 01: fill in the TODOs.\n"
		"// END SOLUTION\n"
		"__global__ void k(float *x)\n"
		"{\n"
		"    // BEGIN SOLUTION\n"
		"    x[threadIdx.x] = 1;\n"
		"    // END SOLUTION\n"
		"}\n"
		"int f(void)\n"
		"{\n"
		"\t// BEGIN SOLUTION: launch the kernel\n"
		"\tk<<<1, 1>>>(0);\n"
		"\treturn 1;\n"
		"\t// STARTER\n"
		"\t// TODO 2: launch k\n"
		"\t//> return 0;\n"
		"\t//>\n"
		"\t// END SOLUTION\n"
		"// STARTER lines are prose, not a marker\n"
		"}\n";
	const char *want =
		"// Lab 01: fill in the TODOs.\n"
		"__global__ void k(float *x)\n"
		"{\n"
		"    // TODO\n"
		"}\n"
		"int f(void)\n"
		"{\n"
		"\t// TODO 2: launch k\n"
		"\treturn 0;\n"
		"\n"
		"// STARTER lines are prose, not a marker\n"
		"}\n";
	struct diag_list d;
	diag_list_init(&d);
	int rc;
	char *out = generate(sol, &rc, &d);
	assert_int_equal(rc, 0);
	assert_string_equal(out, want);
	assert_true(starter_marked(path));
	/* compare: equal, then the first differing line */
	char other[64];
	snprintf(other, sizeof(other), "%s.st", path);
	fs_write_atomic(other, want, strlen(want));
	assert_int_equal(starter_compare(out, other), 0);
	fs_write_atomic(other, "// Lab 01: fill in the TODOs.\n__global__ void k(int *x)\n", 55);
	assert_int_equal(starter_compare(out, other), 2);
	unlink(other);
	free(out);
	unlink(path);
	diag_list_release(&d);
}

static void test_todo_text(void **state)
{
	(void)state;
	struct diag_list d;
	diag_list_init(&d);
	int rc;
	char *out = generate("  // BEGIN SOLUTION: copy C back\n  x = 1;\n  // END SOLUTION\n", &rc, &d);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "  // TODO: copy C back\n");
	free(out);
	unlink(path);
	diag_list_release(&d);
}

static void test_malformed(void **state)
{
	(void)state;
	static const char *bad[] = {
		"// BEGIN SOLUTION\nx\n",                                  /* never closed */
		"x\n// END SOLUTION\n",                                    /* no begin */
		"// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n", /* nested */
		"// STARTER\n",                                            /* outside */
	};
	static const unsigned line[] = { 1, 2, 2, 1 };
	for (unsigned i = 0; i < 4; i++) {
		struct diag_list d;
		diag_list_init(&d);
		int rc;
		char *out = generate(bad[i], &rc, &d);
		assert_int_equal(rc, -EINVAL);
		assert_null(out);
		assert_true(d.n >= 1);
		assert_int_equal(d.items[0].line, line[i]);
		assert_string_equal(d.items[0].file, path);
		unlink(path);
		diag_list_release(&d);
	}
	assert_false(starter_marked("/nonexistent"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_todo_text),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
