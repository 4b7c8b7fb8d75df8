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
	results_render(in, &out, NULL);
}

static void test_running_checklist(void **state)
{
	(void)state;
	struct results_run run = {.running = true, .quick = true, .stage = GRADE_STAGE_DATASET,
				  .index = 1, .count = 2};
	struct results_input in = {.spec = &spec, .student_path = student, .run = &run, .width = 60};
	render(&in);
	assert_true(find("Quick run") == 0);
	assert_true(find(" o build") > 0);                        /* done */
	assert_true(find(" o expected outputs") > 0);             /* done */
	assert_true(find(" o correctness: small (1 of 2)") > 0);  /* done, verdict to come */
	assert_int_equal(find(" + "), -1);                        /* no pass mark before the report */
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
		report_add(r, "correctness: odd", 2, false, "not run: the program does not compile");
		report_add(r, "memcheck", 1, false, "not run: the program does not compile");
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

/* A built program's warnings (the static check's variable read unset among them) show
 * under "Warnings", with the source line. */
static void test_build_warnings(void **state)
{
	(void)state;
	struct report *r = make_report(true);
	diag_add(&r->build, DIAG_WARNING, student, 4, 0,
		 "`i` is read before it is given one: initialise it before the loop");
	struct results_input in = {.spec = &spec, .student_path = student, .report = r, .width = 70};
	render(&in);
	assert_true(find("Warnings") > 0);
	assert_int_equal(find("Compiler errors"), -1);
	int w = find(":4:0: warning: `i` is read before it is"); /* then wrapped */
	assert_true(w > find("Warnings"));
	assert_non_null(strstr(out.lines[w + 2].text, "4 |     int i = blockIdx.x"));
	report_free(r);
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
	/* Issue 18: the errors come right under the build's line, and the tests the build
	 * left unrun make one line after them, not one "not run" line each above them. */
	assert_int_equal(find("Compiler errors"), find(" x build") + 2);
	int unrun = find(" x 3 tests not run  0/5");
	assert_true(unrun > e);
	assert_string_equal(out.lines[unrun + 1].text,
			    "    correctness: small, correctness: odd, memcheck");
	assert_string_equal(out.lines[unrun + 2].text, "    the program does not compile");
	unsigned said = 0;
	for (unsigned i = 0; i < out.n; i++)
		said += strstr(out.lines[i].text, "not run") != NULL;
	assert_int_equal(said, 1);
	report_free(r);
}

/* Issue 18: the tests a first timeout left unrun make one line, under the failure that
 * says why; a test unrun for a reason of its own stays a line of its own. */
static void test_not_run_grouped(void **state)
{
	(void)state;
	static const char why[] = "not run: the program timed out (after 10.0 s) on dataset small";
	struct report *r = report_new("01-vecadd", student, "emu", 7);
	report_add(r, "build", 0, true, NULL);
	report_add(r, "correctness: small", 2, false,
		   "The program timed out after 10.0 s.\n  1 warp at %s:5, in the loop of line 5",
		   student);
	report_add(r, "correctness: odd", 2, false, "%s", why);
	report_add(r, "barriers", 1, false, "not run: the build has no PTX");
	report_add(r, "memcheck", 1, false, "%s", why);
	struct results_input in = {.spec = &spec, .student_path = student, .report = r, .width = 100};
	render(&in);
	int timeout = find(" x correctness: small  0/2");
	int own = find(" x barriers  0/1");
	int group = find(" x 2 tests not run  0/3");
	assert_true(timeout > 0 && own > timeout && group > own);
	/* where the hanging warp was: its source line, though not at the line's start */
	assert_string_equal(out.lines[find("1 warp at") + 1].text, "     5 |     a[i] = 0;");
	assert_string_equal(out.lines[group + 1].text, "    correctness: odd, memcheck");
	assert_string_equal(out.lines[group + 2].text,
			    "    the program timed out (after 10.0 s) on dataset small");
	assert_int_equal(find("correctness: odd  0/2"), -1);
	report_free(r);
}

/* Issue 18: a fault and the note after it name the same line: its source is shown once. */
static void test_fault_source_once(void **state)
{
	(void)state;
	struct report *r = report_new("01-vecadd", student, "emu", 7);
	char *msg;
	if (asprintf(&msg, "%s:5: error: thread 3 wrote past the end\n%s:5: note: kernel k stopped\n"
			   "%s:4: error: later", student, student, student) < 0)
		fail();
	report_add(r, "correctness: small", 2, false, "%s", msg);
	free(msg);
	struct results_input in = {.spec = &spec, .student_path = student, .report = r, .width = 200};
	render(&in);
	unsigned five = 0, four = 0;
	for (unsigned i = 0; i < out.n; i++) {
		five += strcmp(out.lines[i].text, "     5 |     a[i] = 0;") == 0;
		four += strstr(out.lines[i].text, "     4 |") == out.lines[i].text;
	}
	assert_int_equal(five, 1);
	assert_int_equal(four, 1);
	assert_true(find("note: kernel k stopped") > find("     5 |"));
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
	/* No compiler error: the editor opens at the runtime fault's line. */
	assert_int_equal(results_first_error_line(r, student), 5);
	report_free(r);
}

/* Where e (edit) opens the file: the first compiler error, else the first FILE:LINE of
 * the student's file that a failed test's output names (fault, memcheck, barriers). */
static void test_first_error_line_runtime(void **state)
{
	(void)state;
	const char *base = strrchr(student, '/') + 1;
	char *text;
	struct report *r = report_new("01-vecadd", student, "emu", 1);
	report_add(r, "build", 0, true, NULL);
	/* A passed test's locations do not count (barriers warnings, say). */
	assert_true(asprintf(&text, "%s:3: warning: a barrier in a branch", base) > 0);
	report_add(r, "correctness: odd", 2, true, "%s", text);
	free(text);
	/* Other files and numbers that only look like locations do not count either. */
	assert_true(asprintf(&text, "C: 3 of 9 wrong (first at index 0, last at 8)\n"
				    "  C[0]: expected 1.5, got 2\n"
				    "/usr/include/cuda_runtime.h:211: note: in this call\n"
				    "    at 0x7f:12 in libcuda\n"
				    "  %s:17: error: thread (1,0,0) of block (0,0,0): read past the end\n"
				    "%s:37: an illegal memory access was encountered",
		     base, student) > 0);
	report_add(r, "correctness: small", 2, false, "%s", text);
	free(text);
	assert_int_equal(results_first_error_line(r, student), 17);
	report_free(r);

	/* compute-sanitizer's "in FILE:LINE" form, and a barriers finding. */
	r = report_new("05-tiled", student, "gpu", 1);
	assert_true(asprintf(&text, "========= Invalid __global__ read of size 4 bytes\n"
				    "=========     at vecAdd(const float *, float *, int)+0x70 in %s:23\n",
		     student) > 0);
	report_add(r, "memcheck", 2, false, "%s", text);
	free(text);
	assert_int_equal(results_first_error_line(r, student), 23);
	report_free(r);
	r = report_new("05-tiled", student, "emu", 1);
	assert_true(asprintf(&text, "%s:31: error: shared tile read before the barrier\n  why: ...", base) > 0);
	report_add(r, "barriers", 2, false, "%s", text);
	free(text);
	assert_int_equal(results_first_error_line(r, student), 31);
	report_free(r);

	assert_int_equal(results_find_location("no location here: 12 of 40", student), 0);
	assert_int_equal(results_find_location("(see other.cu:4:)", student), 0);
	assert_int_equal(results_find_location(NULL, student), 0);
}

/* A check a quick run (or the emulator) did not measure reads as skipped, not passed. */
static void test_not_measured_is_skipped(void **state)
{
	(void)state;
	struct report *r = report_new("01-vecadd", student, "emu", 1);
	report_add(r, "build", 0, true, NULL);
	report_add(r, "performance: large", 0, true,
		   "NOT MEASURED in a quick run (dataset large was skipped); grade fully to measure speed");
	report_add(r, "memcheck", 2, true, NULL);
	struct results_input in = {.spec = &spec, .student_path = student, .report = r,
				   .report_quick = true, .width = 80};
	render(&in);
	int p = find("performance: large");
	assert_true(p > 0);
	assert_string_equal(out.lines[p].text,
			    " - performance: large (not measured in a quick run)");
	assert_int_equal(sline_role_at(&out.lines[p], 1), ROLE_DIM);
	assert_true(find(" + memcheck  2/2") > p);
	char why[96];
	const struct report_test emu = {.name = "performance: large", .status = TEST_PASSED,
					.output = "NOT MEASURED on the emulator: speed is graded on a GPU"};
	assert_true(results_test_skipped(&emu, why, sizeof(why)));
	assert_string_equal(why, "not measured on the emulator");
	/* With points at stake, or failed, it is a real result. */
	const struct report_test scored = {.name = "p", .status = TEST_PASSED, .max_score = 2,
					   .output = "NOT MEASURED on the emulator"};
	assert_false(results_test_skipped(&scored, why, sizeof(why)));
	report_free(r);
}

/* The reset's note stays on top of the pane, through the run that follows. */
static void test_notice_on_top(void **state)
{
	(void)state;
	struct results_run run = {.running = true, .quick = true, .stage = GRADE_STAGE_BUILD};
	struct results_input in = {.spec = &spec, .student_path = student, .run = &run,
				   .notice = "Reset to the starter. Your file is kept as 01-vecadd/vecadd.cu.bak.3.",
				   .width = 50};
	render(&in);
	assert_int_equal(find("Reset to the starter"), 0);
	assert_true(find("vecadd.cu.bak.3") >= 0);
	assert_int_equal(sline_role_at(&out.lines[0], 1), ROLE_WARN);
	assert_true(find("Quick run") > 0);
}

/* The pane says where each hint is, so the panel can scroll a new one into view. */
static void test_hint_marks(void **state)
{
	(void)state;
	struct report *r = make_report(true);
	struct results_input in = {.spec = &spec, .student_path = student, .report = r,
				   .hints = 2, .width = 30};
	struct results_marks m;
	sline_list_release(&out);
	results_render(&in, &out, &m);
	assert_int_equal(m.nhints, 2);
	assert_true(m.hints_head > 0 && m.hints_head < m.hint_first[0]);
	assert_non_null(strstr(out.lines[m.hints_head].text, "Hints"));
	assert_non_null(strstr(out.lines[m.hint_first[0]].text, " 1. Each thread"));
	assert_true(m.hint_end[0] == m.hint_first[1]);
	assert_non_null(strstr(out.lines[m.hint_first[1]].text, " 2. Round"));
	assert_int_equal(m.hint_end[1], out.n);
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
	struct grade_progress p = {GRADE_STAGE_BUILD, 0, 1, "vecadd.cu", NULL};
	results_run_progress(&run, &p, 5);          /* 5 ms of setup count as build */
	p = (struct grade_progress){GRADE_STAGE_REFERENCE, 0, 1, NULL, NULL};
	results_run_progress(&run, &p, 2105);       /* nvcc: 2.1 s */
	p = (struct grade_progress){GRADE_STAGE_DATASET, 0, 2, "tiny", NULL};
	results_run_progress(&run, &p, 2155);
	p = (struct grade_progress){GRADE_STAGE_DATASET, 1, 2, "odd", NULL};
	results_run_progress(&run, &p, 2455);
	p = (struct grade_progress){GRADE_STAGE_CHECK, 0, 1, "memcheck", NULL};
	results_run_progress(&run, &p, 2955);
	assert_true(run.running);
	p = (struct grade_progress){GRADE_STAGE_DONE, 0, 0, NULL, NULL};
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
		cmocka_unit_test(test_build_warnings),
		cmocka_unit_test(test_fault_source_once),
		cmocka_unit_test(test_not_run_grouped),
		cmocka_unit_test(test_failed_dataset_and_runtime_line),
		cmocka_unit_test(test_hints_one_at_a_time),
		cmocka_unit_test(test_config_error),
		cmocka_unit_test(test_phase_timing),
		cmocka_unit_test(test_output_indent),
		cmocka_unit_test(test_first_error_line_runtime),
		cmocka_unit_test(test_not_measured_is_skipped),
		cmocka_unit_test(test_notice_on_top),
		cmocka_unit_test(test_hint_marks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
