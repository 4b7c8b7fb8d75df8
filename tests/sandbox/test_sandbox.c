/* The sandbox's parts (issue 13, 14, 17): bwrap command lines and limits, a sandboxed
 * run for real (skipped where bwrap cannot make namespaces), floods, fail fast, the
 * include rules, and the sweep of scratch folders left by a killed grader. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsutil.h"
#include "incl.h"
#include "runner.h"
#include "sandbox.h"
#include "scratch.h"
#include "subrun.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-sandbox-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fs_remove_tree(dir);
	return 0;
}

static bool has_arg(char **argv, const char *a, const char *b)
{
	for (size_t i = 0; argv[i]; i++)
		if (strcmp(argv[i], a) == 0 && (!b || (argv[i + 1] && strcmp(argv[i + 1], b) == 0)))
			return true;
	return false;
}

static bool has_env(char **env, const char *prefix)
{
	for (size_t i = 0; env[i]; i++)
		if (strncmp(env[i], prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

static rlim_t limit_of(const struct sandbox_cmd *c, int resource)
{
	for (unsigned i = 0; i < c->n_limits; i++)
		if (c->limits[i].resource == resource)
			return c->limits[i].value;
	return RLIM_INFINITY;
}

/* Without a view: the command as it is, our whole environment, the old limits. */
static void test_command_plain(void **state)
{
	(void)state;
	setenv("TEST_SANDBOX_TOKEN", "secret", 1);
	char *argv[] = { "/bin/true", "x", NULL };
	char *extra[] = { "PMPPLAB_X=1", NULL };
	struct sandbox_cmd c;
	assert_int_equal(sandbox_command(NULL, argv, extra, -1, &c), 0);
	assert_false(c.sandboxed);
	assert_string_equal(c.argv[0], "/bin/true");
	assert_string_equal(c.argv[1], "x");
	assert_null(c.argv[2]);
	assert_true(has_env(c.env, "TEST_SANDBOX_TOKEN=secret"));
	assert_true(has_env(c.env, "PMPPLAB_X=1"));
	assert_int_equal(limit_of(&c, RLIMIT_NOFILE), 1024);
	assert_int_equal(limit_of(&c, RLIMIT_CORE), 0);
	assert_int_equal(limit_of(&c, RLIMIT_NPROC), RLIM_INFINITY);
	sandbox_cmd_release(&c);
}

/* A view: bwrap with its namespaces, the system read-only, the caller's paths, a
 * filtered environment and the limits of the profile. */
static void test_command_view(void **state)
{
	(void)state;
	char ro[128], rw[128];
	snprintf(ro, sizeof(ro), "%s/in", dir);
	snprintf(rw, sizeof(rw), "%s/out", dir);
	fs_write_atomic(ro, "x", 1);
	struct sandbox_view v = { .profile = SANDBOX_RUN, .timeout_ms = 10000 };
	sandbox_view_ro(&v, ro);
	sandbox_view_rw(&v, rw);
	char *argv[] = { "/bin/true", NULL };
	char *extra[] = { "PMPPLAB_EMU_PTX=/p", NULL };
	struct sandbox_cmd c;
	int rc = sandbox_command(&v, argv, extra, -1, &c);
	if (rc == -ENOENT)
		skip(); /* no bwrap here: the e2e test says so */
	assert_int_equal(rc, 0);
	assert_true(c.sandboxed);
	assert_non_null(strstr(c.argv[0], "bwrap"));
	for (const char *ns = "--unshare-pid\0--unshare-net\0--unshare-ipc\0--die-with-parent\0--new-session\0";
	     *ns; ns += strlen(ns) + 1)
		assert_true(has_arg(c.argv, ns, NULL));
	assert_true(has_arg(c.argv, "--ro-bind", "/usr"));
	assert_true(has_arg(c.argv, "--tmpfs", "/tmp"));
	assert_true(has_arg(c.argv, "--ro-bind", ro));
	assert_true(has_arg(c.argv, "--bind", rw));
	assert_true(has_arg(c.argv, "--chdir", "/tmp"));
	assert_int_equal(access(rw, F_OK), 0); /* made, to be bound */
	if (geteuid() == 0) {
		assert_true(has_arg(c.argv, "--reuid", NULL));
		assert_true(c.uid != 0);
		struct stat st;
		assert_int_equal(stat(rw, &st), 0);
		assert_int_equal(st.st_uid, c.uid); /* the command's own uid writes it */
	}
	assert_false(has_env(c.env, "TEST_SANDBOX_TOKEN"));
	assert_true(has_env(c.env, "HOME=/tmp"));
	assert_true(has_env(c.env, "PMPPLAB_EMU_PTX=/p"));
	assert_int_equal(limit_of(&c, RLIMIT_AS), (rlim_t)8 << 30);
	assert_true(limit_of(&c, RLIMIT_NPROC) != RLIM_INFINITY);
	assert_true(limit_of(&c, RLIMIT_CPU) != RLIM_INFINITY);
	sandbox_cmd_release(&c);
	v.gpu = true; /* the CUDA runtime maps huge ranges: a data limit instead */
	assert_int_equal(sandbox_command(&v, argv, NULL, -1, &c), 0);
	assert_int_equal(limit_of(&c, RLIMIT_AS), RLIM_INFINITY);
	assert_true(limit_of(&c, RLIMIT_DATA) != RLIM_INFINITY);
	assert_true(has_arg(c.argv, "--ro-bind", "/sys"));
	sandbox_cmd_release(&c);
	sandbox_set_enabled(false); /* off: the command as it is */
	assert_int_equal(sandbox_command(&v, argv, NULL, -1, &c), 0);
	assert_false(c.sandboxed);
	assert_string_equal(c.argv[0], "/bin/true");
	sandbox_cmd_release(&c);
	sandbox_set_enabled(true);
}

static struct runner_result run(const char *script, const struct sandbox_view *v, size_t flood)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct runner_opts o = { .argv = argv, .timeout_ms = 10000, .sandbox = v, .flood_cap = flood };
	struct runner_result r;
	assert_int_equal(runner_run(&o, &r), 0);
	return r;
}

/* For real, where bwrap works: what the command sees, can write, and how it ends. */
static void test_sandboxed_run(void **state)
{
	(void)state;
	char why[2048];
	if (runner_sandbox_check(false, why, sizeof(why)) < 0) {
		print_message("skipped: %s\n", why);
		skip();
	}
	char ro[128], rw[128], script[1024];
	snprintf(ro, sizeof(ro), "%s/seen", dir);
	snprintf(rw, sizeof(rw), "%s/written", dir);
	fs_write_atomic(ro, "seen\n", 5);
	struct sandbox_view v = { .profile = SANDBOX_RUN, .timeout_ms = 10000 };
	sandbox_view_ro(&v, ro);
	sandbox_view_rw(&v, rw);
	snprintf(script, sizeof(script),
		 "cat %s; echo ok > %s; echo no > %s 2>/dev/null || echo read-only; "
		 "ls %s/.. | wc -l; ls /root /home 2>/dev/null | wc -l; id -u; echo $$; "
		 "unshare -U true 2>/dev/null && echo userns || echo no-userns; exit 7",
		 ro, rw, ro, dir);
	struct runner_result r = run(script, &v, 0);
	assert_true(r.sandboxed);
	assert_int_equal(r.status, RUNNER_EXITED);
	assert_int_equal(r.exit_code, 7);
	char *out = r.out, *line[8];
	unsigned n = 0;
	for (char *s = strtok(out, "\n"); s && n < 8; s = strtok(NULL, "\n"))
		line[n++] = s;
	assert_int_equal(n, 7);
	assert_string_equal(line[0], "seen");
	assert_string_equal(line[1], "read-only");
	assert_string_equal(line[2], "1");   /* of /tmp/test-sandbox-X's neighbours: none */
	assert_string_equal(line[3], "0");   /* no /root, no /home */
	if (geteuid() == 0)
		assert_string_not_equal(line[4], "0");
	assert_string_equal(line[5], "2");   /* a PID namespace: bwrap is 1 */
	assert_string_equal(line[6], "no-userns"); /* no capabilities to be had inside */
	char *text = fs_read(rw, NULL);
	assert_string_equal(text, "ok\n");
	free(text);
	runner_result_release(&r);
	/* a crash comes back as a crash, not as bwrap's exit status 139 */
	r = run("kill -SEGV $$", &v, 0);
	assert_int_equal(r.status, RUNNER_SIGNALED);
	assert_int_equal(r.term_signal, SIGSEGV);
	runner_result_release(&r);
}

/* A flood is stopped at the cap at once, its start kept. */
static void test_flood(void **state)
{
	(void)state;
	struct runner_result r = run("yes flood", NULL, 100000);
	assert_int_equal(r.status, RUNNER_FLOOD);
	assert_true(r.written > 100000);
	assert_true(r.wall_ms < 5000);
	assert_memory_equal(r.out, "flood\nflood\n", 12);
	char how[256];
	runner_describe(&r, 10000, how, sizeof(how));
	assert_non_null(strstr(how, "flooded its output"));
	runner_result_release(&r);
}

/* Fail fast: a hang from the start stops every later run; one after other runs finished
 * only the runs on its input; the same crash twice stops them; the lab's own runs go on. */
static void test_fail_fast(void **state)
{
	(void)state;
	sandbox_set_enabled(false); /* the logic, not the sandbox */
	struct build_result b = { .program = "/bin/sh" };
	const char *hang[] = { "/bin/sh", "-c", "sleep 5", NULL };
	const char *ok[] = { "/bin/sh", "-c", "exit 0", NULL };
	const char *segv[] = { "/bin/sh", "-c", "kill -SEGV $$", NULL };
	struct subrun_call c = { .b = &b, .timeout_ms = 200, .what = "dataset a", .reads = { "a" } };
	struct runner_result r;
	struct subrun s = { .box = dir };
	c.argv = hang;
	assert_int_equal(subrun_run(&s, &c, &r), 0);
	assert_int_equal(r.status, RUNNER_TIMEOUT);
	runner_result_release(&r);
	assert_non_null(strstr(subrun_stopped(&s, "b"), "timed out"));
	c.argv = ok;
	c.reads[0] = "b";
	assert_int_equal(subrun_run(&s, &c, &r), -ECANCELED);
	c.lab_code = true;
	assert_int_equal(subrun_run(&s, &c, &r), 0);
	runner_result_release(&r);
	c.lab_code = false;

	struct subrun t = { .box = dir };
	assert_int_equal(subrun_run(&t, &c, &r), 0); /* b finishes */
	runner_result_release(&r);
	c.argv = hang;
	c.reads[0] = "a";
	assert_int_equal(subrun_run(&t, &c, &r), 0);
	runner_result_release(&r);
	assert_null(subrun_stopped(&t, "b"));
	assert_non_null(subrun_stopped(&t, "a"));
	c.argv = ok;
	assert_int_equal(subrun_run(&t, &c, &r), -ECANCELED);
	c.reads[0] = "b";
	assert_int_equal(subrun_run(&t, &c, &r), 0);
	runner_result_release(&r);

	struct subrun u = { .box = dir };
	c.argv = segv;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(subrun_run(&u, &c, &r), 0);
		assert_int_equal(r.status, RUNNER_SIGNALED);
		runner_result_release(&r);
		assert_true(i == 0 ? !subrun_stopped(&u, NULL) : !!strstr(subrun_stopped(&u, NULL), "the same way (SIGSEGV)"));
	}
	sandbox_set_enabled(true);
}

static void write_file(const char *path, const char *text)
{
	assert_int_equal(fs_write_atomic(path, text, strlen(text)), 0);
}

/* The compiler's file list: the own folder (even inside the lab collection), the
 * system's folders; never the rest of the collection or anything else. */
static void test_incl_refused(void **state)
{
	(void)state;
	char own[128], lab[128], sol[160], hdr[160], deps[128], other[160], src[160];
	snprintf(lab, sizeof(lab), "%s/kernels", dir);
	snprintf(own, sizeof(own), "%s/kernels/wrong", dir);
	mkdir(lab, 0755);
	mkdir(own, 0755);
	snprintf(sol, sizeof(sol), "%s/solution.cu", lab);
	snprintf(hdr, sizeof(hdr), "%s/my header.cuh", own);
	snprintf(other, sizeof(other), "%s/elsewhere.h", dir);
	write_file(sol, "");
	write_file(hdr, "");
	write_file(other, "");
	snprintf(src, sizeof(src), "%s/a.cu", own);
	write_file(src, "");
	snprintf(deps, sizeof(deps), "%s/deps.d", dir);
	const char *sys[] = { "/usr/include", "/usr/lib" };
	const char *hidden[] = { lab };
	struct incl_rules rules = { .own = own, .system = sys, .n_system = 2, .hidden = hidden, .n_hidden = 1 };
	char text[1024];
	int err;
	snprintf(text, sizeof(text), "prog: %s/a.cu \\\n  %s/my\\ header.cuh \\\n  /usr/include/stdio.h \\\n  wrong/my\\ header.cuh\n",
		 own, own);
	write_file(deps, text);
	assert_null(incl_refused(deps, lab, &rules, &err));
	assert_int_equal(err, 0);
	snprintf(text, sizeof(text), "prog: /usr/include/stdio.h \\\n  wrong/../solution.cu\n");
	write_file(deps, text);
	char *bad = incl_refused(deps, lab, &rules, &err);
	assert_string_equal(bad, "wrong/../solution.cu");
	free(bad);
	snprintf(text, sizeof(text), "prog: %s\n", other);
	write_file(deps, text);
	bad = incl_refused(deps, lab, &rules, &err);
	assert_string_equal(bad, other);
	free(bad);
	assert_null(incl_refused("/nonexistent/deps.d", lab, &rules, &err));
	assert_int_equal(err, -ENOENT);
}

/* The line of the #include, from the preprocessor's line markers (nested files too). */
static void test_incl_locate(void **state)
{
	(void)state;
	char pre[128];
	snprintf(pre, sizeof(pre), "%s/pre.ii", dir);
	write_file(pre, "# 1 \"/own/a.cu\"\n# 1 \"<built-in>\" 1\n# 1 \"/own/a.cu\" 2\nint x;\n\n"
			"# 1 \"/own/ok.h\" 1\nint z;\n# 4 \"/own/a.cu\" 2\n"
			"# 1 \"/k/sol.cu\" 1\n# 1 \"/k/inner.h\" 1\n# 2 \"/k/sol.cu\" 2\nint y;\n"
			"# 6 \"/own/a.cu\" 2\n");
	char *file = NULL;
	unsigned line = 0;
	assert_int_equal(incl_locate(pre, "/k/sol.cu", &file, &line), 0);
	assert_string_equal(file, "/own/a.cu");
	assert_int_equal(line, 5);
	free(file);
	assert_int_equal(incl_locate(pre, "/k/none.cu", &file, &line), -ENOENT);
}

/* A run folder whose grader is gone is swept; a live grader's is kept. */
static void test_sweep(void **state)
{
	(void)state;
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char stale[96], unrecorded[96], owner[128], mine[96], foreign[96];
	snprintf(stale, sizeof(stale), "/tmp/pmpplab-run-%d-test01", (int)dead);
	snprintf(unrecorded, sizeof(unrecorded), "/tmp/pmpplab-run-%d-test02", (int)dead);
	mkdir(stale, 0700);
	mkdir(unrecorded, 0700);
	/* not ours: no '-' after the digits (mkdtemp's "pmpplab-run-XXXXXX" of old builds) */
	snprintf(foreign, sizeof(foreign), "/tmp/pmpplab-run-%djbOy", (int)dead);
	mkdir(foreign, 0700);
	snprintf(owner, sizeof(owner), "%s/.owner", stale);
	char text[64];
	snprintf(text, sizeof(text), "%d 12345\n", (int)dead);
	write_file(owner, text);
	assert_int_equal(scratch_new(mine, sizeof(mine)), 0);
	scratch_sweep_stale(NULL);
	assert_int_equal(access(stale, F_OK), -1);
	assert_int_equal(access(unrecorded, F_OK), -1);
	assert_int_equal(access(mine, F_OK), 0);
	assert_int_equal(access(foreign, F_OK), 0);
	fs_remove_tree(mine);
	rmdir(foreign);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_plain),
		cmocka_unit_test(test_command_view),
		cmocka_unit_test(test_sandboxed_run),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_fail_fast),
		cmocka_unit_test(test_incl_refused),
		cmocka_unit_test(test_incl_locate),
		cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
