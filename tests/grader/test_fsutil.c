/* fsutil: atomic writes and copies leave nothing half-written or temporary, the sweep
 * removes exactly what a dead writer left, and content hashes ignore the folder. */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
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

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/pmpplab-fsutil-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fs_remove_tree(dir);
	return 0;
}

static char *at(const char *name)
{
	static char p[4][256];
	static unsigned k;
	char *s = p[k++ % 4];
	snprintf(s, 256, "%s/%s", dir, name);
	return s;
}

static unsigned entries(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	FILE *f = popen(cmd, "r");
	unsigned n = 0;
	assert_int_equal(fscanf(f, "%u", &n), 1);
	pclose(f);
	return n;
}

static void test_write_and_copy(void **state)
{
	(void)state;
	assert_int_equal(fs_write_atomic(at("a"), "one", 3), 0);
	assert_int_equal(fs_write_atomic(at("a"), "two!", 4), 0);
	size_t len;
	char *t = fs_read(at("a"), &len);
	assert_int_equal(len, 4);
	assert_memory_equal(t, "two!", 4);
	free(t);
	assert_int_equal(fs_copy_new(at("a"), at("b")), 0);
	assert_int_equal(fs_copy_new(at("a"), at("b")), -EEXIST); /* never overwrites */
	assert_int_equal(fs_copy_new(at("missing"), at("c")), -ENOENT);
	assert_int_equal(entries(), 2); /* a, b: no temporary left */
	assert_int_equal(fs_write_atomic(at("no/such/dir"), "x", 1), -ENOENT);
}

static pid_t dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static void test_sweep(void **state)
{
	(void)state;
	char name[128];
	pid_t dead = dead_pid();
	snprintf(name, sizeof(name), "state.json.tmp.%d.3", (int)dead);
	assert_int_equal(fs_write_atomic(at(name), "x", 1), 0); /* a killed writer's file */
	snprintf(name, sizeof(name), "0123abcd.tmp.%d.7f01", (int)dead);
	assert_int_equal(mkdir(at(name), 0755), 0); /* a killed build's folder, with content */
	snprintf(name, sizeof(name), "0123abcd.tmp.%d.7f01/prog", (int)dead);
	assert_int_equal(fs_write_atomic(at(name), "x", 1), 0);
	snprintf(name, sizeof(name), "vecadd.cu.tmp.%d.1", (int)getppid());
	assert_int_equal(fs_write_atomic(at(name), "x", 1), 0); /* a live writer's */
	assert_int_equal(fs_write_atomic(at("notes.tmp.txt"), "x", 1), 0); /* the student's */
	snprintf(name, sizeof(name), "x.tmp.%dz", (int)dead);
	assert_int_equal(fs_write_atomic(at(name), "x", 1), 0); /* not our pattern */
	assert_int_equal(entries(), 5);
	assert_int_equal(fs_sweep_stale(dir), 2);
	assert_int_equal(entries(), 3);
	assert_int_equal(fs_sweep_stale(at("nothing-here")), 0);
}

static void hex_of(char out[33], const char *path, bool with_path)
{
	struct fs_hash h;
	fs_hash_init(&h);
	if (with_path)
		fs_hash_file(&h, path);
	else
		fs_hash_content(&h, path);
	fs_hash_hex(&h, out);
}

/* Issue 16: a grading's inputs lie in a folder of its own, so what is kept by their
 * content (expected outputs, the solution's counted run) must not hash the name. */
static void test_hash_content(void **state)
{
	(void)state;
	char a[33], b[33], c[33], missing[33];
	assert_int_equal(fs_write_atomic(at("one.in"), "inputs", 6), 0);
	assert_int_equal(fs_write_atomic(at("two.in"), "inputs", 6), 0);
	hex_of(a, at("one.in"), false);
	hex_of(b, at("two.in"), false);
	assert_string_equal(a, b);
	hex_of(a, at("one.in"), true);
	hex_of(b, at("two.in"), true);
	assert_string_not_equal(a, b); /* fs_hash_file: the path counts */
	assert_int_equal(fs_write_atomic(at("two.in"), "inputz", 6), 0);
	hex_of(a, at("one.in"), false);
	hex_of(c, at("two.in"), false);
	assert_string_not_equal(a, c);
	hex_of(missing, at("none.in"), false);
	assert_string_not_equal(a, missing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_and_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hash_content, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
