/* lab mutate's verdict on one graded mutant (mutate_classify): a build the compiler
 * rejected at a line of the mutant is stillborn (left out of the kill rate); a build
 * that failed for a reason outside the mutant (the compiler stopped or killed, the
 * emulator's runtime missing at link time, its own file not found) is an ERROR, never
 * silently stillborn; a failed test kills it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "diag.h"
#include "mutate_internal.h"
#include "report.h"

/* A report whose build failed with one error diagnostic. */
static struct report *failed_build(const char *file, unsigned line, const char *message)
{
	struct report *rep = report_new("14-tensor-cores", "/tmp/w/m007/m007.cu", "emu", 14);
	assert_non_null(rep);
	diag_add(&rep->build, DIAG_ERROR, file, line, 0, "%s", message);
	report_add(rep, "build", 0, false, "%s\nThe program does not compile; fix the first error above and grade again.",
		   message);
	report_add(rep, "correctness: tiny", 1, false, "not run: the program does not compile");
	return rep;
}

static enum mutate_outcome outcome(const char *file, unsigned line, const char *message, char *why)
{
	struct report *rep = failed_build(file, line, message);
	struct mutate_result r = { .outcome = MO_SURVIVED };
	mutate_classify(rep, &r);
	snprintf(why, 320, "%s", r.why);
	report_free(rep);
	return r.outcome;
}

static void test_compile_errors_are_stillborn(void **state)
{
	(void)state;
	char why[320];
	assert_int_equal(outcome("/tmp/w/m007/m007.cu", 61, "expected a \";\"", why), MO_STILLBORN);
	/* a template of the mutant instantiated in a toolkit header */
	assert_int_equal(outcome("/usr/local/cuda/include/crt/mma.hpp", 120,
				 "incomplete type is not allowed", why), MO_STILLBORN);
	/* ptxas compiles only what the solution compiled but the mutant's line */
	assert_int_equal(outcome(NULL, 0, "ptxas: Entry function '_Z1kv' uses too much shared data "
				 "(0x10400 bytes, 0xc000 max)", why), MO_STILLBORN);
}

static void test_failures_outside_the_mutant_are_errors(void **state)
{
	(void)state;
	char why[320];
	assert_int_equal(outcome(NULL, 0, "the compiler ran for more than 300 s and was stopped", why),
			 MO_ERROR);
	assert_non_null(strstr(why, "not counted as stillborn"));
	assert_non_null(strstr(why, "the compiler ran for more than 300 s"));
	/* killed: no diagnostic, only the log */
	assert_int_equal(outcome(NULL, 0, "the build failed:\nKilled\n", why), MO_ERROR);
	assert_non_null(strstr(why, "the build failed: Killed")); /* on one line */
	assert_int_equal(outcome(NULL, 0, "link error: 'cudaMalloc' is a CUDA function that this build does not link",
				 why), MO_ERROR);
	assert_int_equal(outcome(NULL, 0, "nvcc fatal   : Could not open output file '/tmp/x/prog'", why),
			 MO_ERROR);
	/* its own file left out of the build's copy (82a88c8's bug): said at the call */
	assert_int_equal(outcome("/tmp/w/m007/m007.cu", 131,
				 "the lab's call of your tcMatMul(...) does not compile: m007.cu: No such file or directory",
				 why), MO_ERROR);
}

static void test_failed_test_kills(void **state)
{
	(void)state;
	struct report *rep = report_new("14-tensor-cores", "/tmp/w/m007/m007.cu", "emu", 14);
	report_add(rep, "build", 0, true, NULL);
	report_add(rep, "correctness: tiny", 1, true, NULL);
	report_add(rep, "memcheck", 2, false, "wrote 4 bytes of shared memory at 0x5000, which is 0 bytes "
		   "past the end of shared array As[20480 bytes]");
	struct mutate_result r = { .outcome = MO_ERROR };
	mutate_classify(rep, &r);
	assert_int_equal(r.outcome, MO_KILLED);
	assert_true(r.oob);
	assert_int_equal(r.killed_by, 1u << MK_MEMCHECK);
	report_free(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compile_errors_are_stillborn),
		cmocka_unit_test(test_failures_outside_the_mutant_are_errors),
		cmocka_unit_test(test_failed_test_kills),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
