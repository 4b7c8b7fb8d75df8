/* results: the checklist while running and after, compiler errors with the student's
 * source line and a caret, and hints one at a time. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "glyph.h"
#include "results.h"

static struct spec_dataset datasets[] = {
	{.name = "small", .points = 2},
	{.name = "odd", .points = 2},
	{.name = "large", .points = 2, .perf = true},
};
static char *hints[] = {"Each thread handles **one** element.", "Round the grid size up."};
static struct spec_check checks[] = {{.kind = SPEC_CHECK_MEMCHECK, .points = 1}};
static struct lab_spec spec = {
	.id = "01-vecadd",
	.datasets = datasets,
	.datasets_count = 3,
	.checks = checks,
	.checks_count = 1,
	.hints = hints,
	.hints_count = 2,
};

static char student[64];
static struct sline_list out;

static int setup(void **state)
{
	(void)state;
	strcpy(student, "/tmp/pmpplab-results-XXXXXX.cu");
	int fd = mkstemps(student, 3);
	assert_true(fd >= 0);
	const char *src = "#include <cuda.h>\n__global__ void k(float *a, int n)\n{\n"
			  "    int i = blockIdx.x * blockDim.x + threadIdx.x\n    a[i] = 0;\n}\n";
	assert_int_equal(write(fd, src, strlen(src)), (int)strlen(src));
	close(fd);
	sline_list_init(&out);
	glyph_set_ascii(true); /* plain ASCII makes expected lines easy to write */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(student);
	sline_list_release(&out);
	return 0;
}

/* The index of the first line containing NEEDLE, or -1. */
static int find(const char *needle)
{
	for (unsigned i = 0; i < out.n; i++)
		if (strstr(out.lines[i].text, needle))
			return (int)i;
	return -1;
}

static void render(const struct results_input *in)
{
	sline_list_release(&out);
	results_render(in, &out);
}

static void test_running_checklist(void **state)
{
	(void)state;
	struct results_run run = {.running = true, .quick = true, .stage = GRADE_STAGE_DATASET,
				  .index = 1, .count = 2};
	struct results_input in = {.spec = &spec, .student_path = student, .run = &run, .width = 60};
	render(&in);
	assert_true(find("Quick run") == 0);
	assert_true(find(" + build") > 0);                        /* done */
	assert_true(find(" + expected outputs") > 0);             /* done */
	assert_true(find(" + correctness: small (1 of 2)") > 0);  /* done */
	assert_true(find(" > correctness: odd (2 of 2)") > 0);    /* running */
	assert_int_equal(find("large"), -1);                      /* quick: perf skipped */
	assert_true(find(" . memcheck") > 0);                     /* pending */
	assert_int_equal(sline_role_at(&out.lines[find("odd")], 1), ROLE_RUNNING);
}

static struct report *make_report(bool build_ok)
{
	struct report *r = report_new("01-vecadd", student, "emu", 7);
	if (!build_ok) {
		diag_add(&r->build, DIAG_ERROR, "/cache/abc/vecadd-XXXXXX.cu", 99, 1, "elsewhere");
		char *copy = strdup(student);
		diag_add(&r->build, DIAG_ERROR, copy, 4, 51, "expected a \";\"");
		free(copy);
		report_add(r, "build", 0, false, "does not compile");
		report_add(r, "correctness: small", 2, false, "not run: the program does not compile");
	} else {
		report_add(r, "build", 0, true, NULL);
		char *msg;
		if (asprintf(&msg, "%s:5: error: thread 3 wrote past the end\n3 of 1000 wrong", student) < 0)
			fail();
		report_add(r, "correctness: small", 2, false, "%s", msg);
		free(msg);
		report_add(r, "correctness: odd", 2, true, "all 70001 right");
	}
	return r;
}

static void test_compile_errors(void **state)
{
	(void)state;
	struct report *r = make_report(false);
	struct results_input in = {.spec = &spec, .student_path = student, .report = r, .width = 70};
	render(&in);
	assert_int_equal(find("FAILED"), 0);
	assert_true(find(" x build") > 0);
	assert_true(find("Compiler errors") > 0);
	int e = find(":4:51: error: expected a \";\"");
	assert_true(e > 0);
	/* The source line under it, then the caret under column 51. */
	assert_string_equal(out.lines[e + 1].text,
			    "     4 |     int i = blockIdx.x * blockDim.x + threadIdx.x");
	const char *caret = out.lines[e + 2].text;
	/* Column 1 of the source sits two cells after the bar ("| x"), so column 51 is 52
	 * cells after it, in both lines. */
	assert_int_equal(strchr(caret, '^') - strchr(caret, '|'), 52);
	/* A diagnostic about another file gets no source line. */
	int other = find(":99:1: error: elsewhere");
	assert_true(other > 0);
	assert_null(strstr(out.lines[other + 1].text, " | "));
	assert_int_equal(results_first_error_line(r, student), 4);
	report_free(r);
}

static void test_failed_dataset_and_runtime_line(void **state)
{
	(void)state;
	struct report *r = make_report(true);
	struct results_input in = {.spec = &spec, .student_path = student, .report = r,
				   .report_quick = true, .elapsed_ms = 1840, .width = 100};
	render(&in);
	int head = find("FAILED");
	assert_int_equal(head, 0);
	assert_non_null(strstr(out.lines[0].text, "2/4"));
	assert_non_null(strstr(out.lines[0].text, "quick run"));
	assert_non_null(strstr(out.lines[0].text, "1.8 s"));
	int small = find(" x correctness: small  0/2");
	assert_true(small > 0);
	assert_true(find(" + correctness: odd  2/2") > small);
	assert_int_equal(find("all 70001 right"), -1); /* passed tests stay short */
	int fault = find("thread 3 wrote past the end");
	assert_true(fault > small);
	assert_string_equal(out.lines[fault + 1].text, "     5 |     a[i] = 0;");
	assert_true(find("3 of 1000 wrong") > fault);
	assert_int_equal(results_first_error_line(r, student), 0);
	report_free(r);
}

static void test_hints_one_at_a_time(void **state)
{
	(void)state;
	struct results_input in = {.spec = &spec, .student_path = student, .width = 60};
	render(&in);
	assert_true(find("No results yet") == 0);
	assert_true(find("0 of 2 shown") > 0);
	assert_int_equal(find("one"), -1);
	in.hints = 1;
	render(&in);
	int h = find(" 1. Each thread handles one element.");
	assert_true(h > 0);
	assert_int_equal(find("Round the grid"), -1);
	in.hints = 5; /* more than there are: all, and no more */
	render(&in);
	assert_true(find(" 2. Round the grid size up.") > 0);
	assert_true(find("2 of 2 shown") > 0);
}

static void test_config_error(void **state)
{
	(void)state;
	struct diag_list d;
	diag_list_init(&d);
	diag_add(&d, DIAG_ERROR, NULL, 0, 0, "nvcc not found: install the CUDA toolkit");
	struct results_input in = {.spec = &spec, .student_path = student, .errors = &d, .width = 60};
	render(&in);
	assert_int_equal(find("Could not grade"), 0);
	assert_true(find("nvcc not found") > 0);
	diag_list_release(&d);
}

/* Indented lines of a test's output keep their indent when they wrap. */
static void test_output_indent(void **state)
{
	(void)state;
	struct report *r = report_new("01-vecadd", student, "emu", 1);
	report_add(r, "correctness: small", 1, false,
		   "C: 3 wrong\n  No element of C was written: the result never reached the host");
	struct results_input in = {.spec = &spec, .student_path = student, .report = r, .width = 44};
	render(&in);
	int l = find("No element");
	assert_true(l > 0);
	assert_string_equal(out.lines[l].text, "      No element of C was written: the");
	assert_string_equal(out.lines[l + 1].text, "      result never reached the host");
	assert_string_equal(out.lines[l - 1].text, "    C: 3 wrong");
	report_free(r);
}

/* Time between progress messages goes to the phase that was running. */
static void test_phase_timing(void **state)
{
	(void)state;
	struct results_run run;
	results_run_start(&run, true);
	struct grade_progress p = {GRADE_STAGE_BUILD, 0, 1, "vecadd.cu"};
	results_run_progress(&run, &p, 5);          /* 5 ms of setup count as build */
	p = (struct grade_progress){GRADE_STAGE_REFERENCE, 0, 1, NULL};
	results_run_progress(&run, &p, 2105);       /* nvcc: 2.1 s */
	p = (struct grade_progress){GRADE_STAGE_DATASET, 0, 2, "tiny"};
	results_run_progress(&run, &p, 2155);
	p = (struct grade_progress){GRADE_STAGE_DATASET, 1, 2, "odd"};
	results_run_progress(&run, &p, 2455);
	p = (struct grade_progress){GRADE_STAGE_CHECK, 0, 1, "memcheck"};
	results_run_progress(&run, &p, 2955);
	assert_true(run.running);
	p = (struct grade_progress){GRADE_STAGE_DONE, 0, 0, NULL};
	results_run_progress(&run, &p, 3355);
	assert_false(run.running);
	assert_true(run.phase_ms[PHASE_BUILD] == 2105);
	assert_true(run.phase_ms[PHASE_REFERENCE] == 50);
	assert_true(run.phase_ms[PHASE_RUN] == 800);
	assert_true(run.phase_ms[PHASE_CHECKS] == 400);
	char buf[160];
	results_run_timing(&run, buf, sizeof(buf));
	assert_string_equal(buf, "build 2.10 s | reference 0.05 s | run 0.80 s | checks 0.40 s");
	/* Shown under the verdict of the report it belongs to. */
	struct report *r = report_new("01-vecadd", student, "emu", 1);
	report_add(r, "build", 0, true, NULL);
	struct results_input in = {.spec = &spec, .student_path = student, .report = r,
				   .timing = &run, .width = 80};
	render(&in);
	assert_int_equal(find("build 2.10 s"), 1);
	report_free(r);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_running_checklist),
		cmocka_unit_test(test_compile_errors),
		cmocka_unit_test(test_failed_dataset_and_runtime_line),
		cmocka_unit_test(test_hints_one_at_a_time),
		cmocka_unit_test(test_config_error),
		cmocka_unit_test(test_phase_timing),
		cmocka_unit_test(test_output_indent),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
