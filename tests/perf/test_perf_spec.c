/* Performance checks in lab.yaml: lab 01's spec with a check appended loads with its
 * fields; each wrong use is rejected with its own message on the check's line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsutil.h"
#include "spec.h"

static char tmp[64];
static unsigned checks_line; /* the line of "checks:" in the written spec */

/* Writes TMP/01-vecadd/lab.yaml: lab 01's spec with absolute paths and CHECK (YAML lines
 * of one list entry) first under checks:. Returns the lab folder. */
static const char *lab_with(const char *check)
{
	static char dir[128];
	snprintf(dir, sizeof(dir), "%s/01-vecadd", tmp);
	mkdir(dir, 0755);
	FILE *in = fopen(SOURCE_ROOT "/labs/01-vecadd/lab.yaml", "r");
	char path[192];
	snprintf(path, sizeof(path), "%s/lab.yaml", dir);
	FILE *out = fopen(path, "w");
	assert_non_null(in);
	assert_non_null(out);
	char line[1024];
	unsigned n = 0;
	while (fgets(line, sizeof(line), in)) {
		n++;
		char *k = strstr(line, "../../kernels");
		if (strncmp(line, "student:", 8) == 0) {
			fprintf(out, "student: %s/labs/01-vecadd/vecadd.cu\n", SOURCE_ROOT);
		} else if (k) {
			fprintf(out, "%.*s%s/kernels%s", (int)(k - line), line, SOURCE_ROOT, k + 13);
		} else {
			fputs(line, out);
			if (strncmp(line, "checks:", 7) == 0) {
				fputs(check, out);
				checks_line = n;
			}
		}
	}
	fclose(in);
	fclose(out);
	return dir;
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/pmpplab-perfspec-XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fs_remove_tree(tmp);
	return 0;
}

static void test_valid(void **state)
{
	(void)state;
	struct lab_spec *s;
	struct diag_list d;
	diag_list_init(&d);
	const char *dir = lab_with("  - kind: performance\n    points: 2\n    dataset: large\n"
				   "    metric: bandwidth\n    bytes: 3 * n * 4\n"
				   "    max_ratio: 3\n    min_peak: 0.25\n");
	int rc = spec_load(dir, &s, &d);
	if (rc)
		diag_print(stderr, &d);
	assert_int_equal(rc, 0);
	const struct spec_check *c = &s->checks[0];
	assert_int_equal(c->kind, SPEC_CHECK_PERFORMANCE);
	assert_int_equal(c->metric, SPEC_PERF_BANDWIDTH);
	assert_true(c->max_ratio == 3 && c->min_peak == 0.25);
	int64_t bytes;
	const struct spec_dataset *large = NULL; /* by name: lab 01 gains datasets */
	for (unsigned i = 0; i < s->datasets_count; i++)
		if (strcmp(s->datasets[i].name, "large") == 0)
			large = &s->datasets[i];
	assert_non_null(large);
	assert_int_equal(spec_dataset_eval(s, large, c->bytes, &bytes), 0);
	assert_int_equal(bytes, 3LL * 16777216 * 4);
	assert_int_equal(s->checks[s->checks_count - 1].kind, SPEC_CHECK_MEMCHECK);
	spec_free(s);
	diag_list_release(&d);
}

/* A vendor line: its fields load, and the view the vendor's program is built from has
 * its function, args and flags (after the lab's) and no checks. */
static void test_vendor(void **state)
{
	(void)state;
	struct lab_spec *s;
	struct diag_list d;
	diag_list_init(&d);
	const char *dir = lab_with("  - kind: performance\n    points: 2\n    dataset: large\n"
				   "    metric: bandwidth\n    bytes: 3 * n * 4\n    max_ratio: 3\n"
				   "    max_insn_ratio: 1.5\n"
				   "    vendor:\n      name: a copy kernel\n"
				   "      file: " SOURCE_ROOT "/kernels/vendor/copy.cu\n"
				   "      function: copyFloats\n      args: [A, C, n]\n"
				   "      bytes: 2 * n * 4\n      nvcc_flags: [-DVENDOR]\n");
	int rc = spec_load(dir, &s, &d);
	if (rc)
		diag_print(stderr, &d);
	assert_int_equal(rc, 0);
	const struct spec_check *c = &s->checks[0];
	assert_true(c->max_insn_ratio == 1.5);
	assert_non_null(c->vendor);
	assert_string_equal(c->vendor->name, "a copy kernel");
	assert_false(c->vendor->checked);
	struct lab_spec view;
	assert_int_equal(spec_vendor_view(s, c->vendor, &view), 0);
	assert_string_equal(view.entry.function, "copyFloats");
	assert_int_equal(view.entry.args_count, 3);
	assert_string_equal(view.entry.args[1], "C");
	/* the CPU reference keeps the lab's entry args (the vendor's would not compile) */
	assert_null(s->reference.args);
	assert_int_equal(view.reference.args_count, s->entry.args_count);
	assert_ptr_equal(view.reference.args, s->entry.args);
	assert_int_equal(view.checks_count, 0);
	assert_int_equal(view.nvcc_flags_count, s->nvcc_flags_count + 1);
	assert_string_equal(view.nvcc_flags[view.nvcc_flags_count - 1], "-DVENDOR");
	assert_int_equal(view.datasets_count, s->datasets_count);
	spec_vendor_view_release(&view);
	spec_free(s);
	diag_list_release(&d);
}

/* Each invalid check: its text and a piece of the message it must give. */
static const struct {
	const char *check, *message;
} invalid[] = {
	{ "  - kind: performance\n    points: 1\n    metric: bandwidth\n    max_ratio: 2\n",
	  "metric bandwidth needs 'bytes'" },
	{ "  - kind: performance\n    points: 1\n    metric: flops\n    max_ratio: 2\n",
	  "metric flops needs 'flops'" },
	{ "  - kind: performance\n    points: 1\n    metric: bandwidth\n    bytes: 12 * n\n",
	  "needs a threshold" },
	{ "  - kind: performance\n    points: 1\n    metric: bandwidth\n    bytes: 12 * n\n    min_peak: 40\n",
	  "min_peak in 0..1" },
	{ "  - kind: performance\n    points: 1\n    min_peak: 0.5\n", "min_peak needs metric bandwidth or flops" },
	{ "  - kind: memcheck\n    points: 1\n    max_ratio: 2\n", "belong to kind: performance" },
	{ "  - kind: performance\n    points: 1\n    metric: bandwidth\n    bytes: 12 * m\n    max_ratio: 2\n",
	  "checks[0].bytes: '12 * m'" },
	{ "  - kind: performance\n    points: 1\n    metric: speed\n    max_ratio: 2\n", "field 'metric'" },
	{ "  - kind: optimisations\n    points: 1\n", "needs recognisers" },
	{ "  - kind: optimisations\n    points: 1\n    recognisers:\n      - name: x\n", "no condition" },
	{ "  - kind: optimisations\n    points: 1\n    recognisers:\n      - {name: x, ptx: 'a(b'}\n",
	  "is not an extended regular expression" },
	{ "  - kind: optimisations\n    points: 1\n    min_used: 2\n    recognisers:\n      - {name: x, max_kernels: 1}\n",
	  "min_used (2) is more than the 1 recognisers" },
	{ "  - kind: optimisations\n    points: 1\n    baseline: nope\n    recognisers:\n      - {name: x, max_kernels: 1}\n",
	  "checks[0].baseline: no dataset is named 'nope'" },
	{ "  - kind: memcheck\n    points: 1\n    leaderboard: true\n", "belong to kind: optimisations" },
	{ "  - kind: performance\n    points: 1\n    max_ratio: 2\n    max_insn_ratio: -1\n",
	  "max_insn_ratio must be > 0" },
	{ "  - kind: memcheck\n    points: 1\n    vendor: {name: copy, file: ../x.cu}\n",
	  "belong to kind: performance" },
	{ "  - kind: performance\n    points: 1\n    max_ratio: 2\n    vendor: {name: copy, file: no-such.cu}\n",
	  "file 'no-such.cu' not found" },
	{ "  - kind: performance\n    points: 1\n    max_ratio: 2\n    vendor: {name: copy, file: " SOURCE_ROOT
	  "/kernels/vendor/copy.cu, args: [A, D, n]}\n",
	  "vendor.args[1]: 'D' is not a param" },
	{ "  - kind: performance\n    points: 1\n    max_ratio: 2\n    vendor: {name: copy, file: " SOURCE_ROOT
	  "/kernels/vendor/copy.cu, bytes: 8 * n, flops: n}\n",
	  "bytes or flops, not both" },
	{ "  - kind: performance\n    points: 1\n    metric: bandwidth\n    bytes: 12 * n\n    max_ratio: 2\n"
	  "    vendor: {name: copy, file: " SOURCE_ROOT "/kernels/vendor/copy.cu, bytes: 8 * q}\n",
	  "checks[0].vendor.bytes: '8 * q'" },
};

static void test_invalid(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		struct lab_spec *s = NULL;
		struct diag_list d;
		diag_list_init(&d);
		assert_int_not_equal(spec_load(lab_with(invalid[i].check), &s, &d), 0);
		bool found = false;
		for (unsigned k = 0; k < d.n; k++) {
			if (strstr(d.items[k].message, invalid[i].message)) {
				found = true;
				/* on the check's lines */
				assert_true(d.items[k].line > checks_line && d.items[k].line <= checks_line + 6);
			}
		}
		if (!found) {
			fprintf(stderr, "case %u: wanted '%s', got:\n", i, invalid[i].message);
			diag_print(stderr, &d);
		}
		assert_true(found);
		diag_list_release(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_vendor),
		cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
