/* The child runner: exit codes, crashes, timeouts (with grandchildren), capped output. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runner.h"

static struct runner_result sh(const char *script, unsigned timeout_ms, size_t cap)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	char *env[] = { "PMPPLAB_TEST=yes", NULL };
	struct runner_opts o = { .argv = argv, .env = env, .timeout_ms = timeout_ms, .output_cap = cap };
	struct runner_result r;
	assert_int_equal(runner_run(&o, &r), 0);
	return r;
}

static void test_exit_and_output(void **state)
{
	(void)state;
	struct runner_result r = sh("echo out; echo err >&2; echo $PMPPLAB_TEST; exit 3", 5000, 0);
	assert_int_equal(r.status, RUNNER_EXITED);
	assert_int_equal(r.exit_code, 3);
	assert_string_equal(r.out, "out\nyes\n");
	assert_string_equal(r.err, "err\n");
	char how[64];
	runner_describe(&r, 5000, how, sizeof(how));
	assert_string_equal(how, "exited with status 3");
	runner_result_release(&r);
}

static void test_crash(void **state)
{
	(void)state;
	struct runner_result r = sh("kill -SEGV $$", 5000, 0);
	assert_int_equal(r.status, RUNNER_SIGNALED);
	assert_int_equal(r.term_signal, SIGSEGV);
	char how[64];
	runner_describe(&r, 5000, how, sizeof(how));
	assert_non_null(strstr(how, "segmentation fault"));
	runner_result_release(&r);
}

static void test_timeout_kills_group(void **state)
{
	(void)state;
	/* The grandchild holds the pipes open: the runner must still return on time. */
	struct runner_result r = sh("sleep 30 & sleep 30; echo never", 300, 0);
	assert_int_equal(r.status, RUNNER_TIMEOUT);
	assert_true(r.wall_ms < 5000);
	assert_null(strstr(r.out, "never"));
	char how[64];
	runner_describe(&r, 300, how, sizeof(how));
	assert_non_null(strstr(how, "timed out after 0.3 s"));
	runner_result_release(&r);
}

static void test_output_cap(void **state)
{
	(void)state;
	struct runner_result r = sh("head -c 1000000 /dev/zero | tr '\\0' x", 10000, 1000);
	assert_int_equal(r.status, RUNNER_EXITED);
	assert_int_equal(r.out_len, 1000);
	assert_true(r.out_truncated);
	runner_result_release(&r);
}

static void test_missing_program(void **state)
{
	(void)state;
	char *argv[] = { "/nonexistent/prog", NULL };
	struct runner_opts o = { .argv = argv, .timeout_ms = 5000 };
	struct runner_result r;
	assert_int_equal(runner_run(&o, &r), 0);
	assert_int_equal(r.exit_code, 127);
	assert_non_null(strstr(r.err, "cannot run /nonexistent/prog"));
	runner_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_and_output),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_output_cap),
		cmocka_unit_test(test_missing_program),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
