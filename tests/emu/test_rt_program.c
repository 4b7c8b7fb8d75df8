/* test_rt_program — runs one whole CUDA program built for the emulator and checks what
 * it did: its stdout against an expected file (timings go to stderr, so stdout is
 * compared exactly), its exit status or fatal signal, text its stderr must contain (or
 * must not: --no-stderr), and events it must have written to $PMPPLAB_EVENTS.
 *
 * PTX "-" runs the program without $PMPPLAB_EMU_PTX (its embedded PTX is used).
 *
 * usage: test_rt_program PROG PTX [--stdout FILE] [--exit N] [--signal N]
 *                                 [--stderr TEXT]... [--no-stderr TEXT]... [--event TEXT]...
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define MAX_TEXTS 16

struct expect {
	const char *prog, *ptx, *stdout_file;
	int exit_code, signal;
	const char *stderr_texts[MAX_TEXTS], *event_texts[MAX_TEXTS];
	const char *absent_texts[MAX_TEXTS]; /* --no-stderr: must not be in stderr */
	int nstderr, nevents, nabsent;
};

static struct expect want = {.exit_code = 0};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Runs the program with its output in files under dir; returns the wait status. */
static int run_program(const char *dir)
{
	char out[512], err[512], ev[512];
	snprintf(out, sizeof out, "%s/stdout", dir);
	snprintf(err, sizeof err, "%s/stderr", dir);
	snprintf(ev, sizeof ev, "%s/events.jsonl", dir);
	pid_t pid = fork();
	if (pid == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fo < 0 || fe < 0)
			_exit(126);
		dup2(fo, 1);
		dup2(fe, 2);
		if (strcmp(want.ptx, "-") != 0)
			setenv("PMPPLAB_EMU_PTX", want.ptx, 1);
		else
			unsetenv("PMPPLAB_EMU_PTX"); /* the PTX embedded in the program */
		setenv("PMPPLAB_EVENTS", ev, 1);
		execl(want.prog, want.prog, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static void test_program(void **state)
{
	(void)state;
	char dir[] = "/tmp/pmpplab-rt-XXXXXX";
	assert_non_null(mkdtemp(dir));
	int status = run_program(dir);

	char path[600];
	snprintf(path, sizeof path, "%s/stdout", dir);
	char *out = slurp(path);
	snprintf(path, sizeof path, "%s/stderr", dir);
	char *err = slurp(path);
	snprintf(path, sizeof path, "%s/events.jsonl", dir);
	char *events = slurp(path);
	assert_non_null(out);
	assert_non_null(err);
	fprintf(stderr, "---- stdout\n%s---- stderr\n%s----\n", out, err);

	if (want.signal) {
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), want.signal);
	} else {
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), want.exit_code);
	}
	if (want.stdout_file) {
		char *expected = slurp(want.stdout_file);
		assert_non_null(expected);
		assert_string_equal(out, expected);
		free(expected);
	}
	for (int i = 0; i < want.nstderr; i++)
		if (!strstr(err, want.stderr_texts[i]))
			fail_msg("stderr lacks \"%s\"", want.stderr_texts[i]);
	for (int i = 0; i < want.nabsent; i++)
		if (strstr(err, want.absent_texts[i]))
			fail_msg("stderr has \"%s\"", want.absent_texts[i]);
	for (int i = 0; i < want.nevents; i++)
		if (!events || !strstr(events, want.event_texts[i]))
			fail_msg("events lack \"%s\"", want.event_texts[i]);

	free(out), free(err), free(events);
	const char *names[] = {"stdout", "stderr", "events.jsonl"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s PROG PTX [--stdout FILE] [--exit N] [--signal N] "
				"[--stderr TEXT]... [--no-stderr TEXT]... [--event TEXT]...\n", argv[0]);
		return 2;
	}
	want.prog = argv[1];
	want.ptx = argv[2];
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--stdout"))
			want.stdout_file = argv[i + 1];
		else if (!strcmp(argv[i], "--exit"))
			want.exit_code = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--signal"))
			want.signal = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--stderr") && want.nstderr < MAX_TEXTS)
			want.stderr_texts[want.nstderr++] = argv[i + 1];
		else if (!strcmp(argv[i], "--no-stderr") && want.nabsent < MAX_TEXTS)
			want.absent_texts[want.nabsent++] = argv[i + 1];
		else if (!strcmp(argv[i], "--event") && want.nevents < MAX_TEXTS)
			want.event_texts[want.nevents++] = argv[i + 1];
		else {
			fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
			return 2;
		}
	}
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_program)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
