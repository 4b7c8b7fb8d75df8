/* watch: saves are seen whether the editor writes in place or renames a new file over
 * the old one, other files are ignored, a save whose last event ends it is due at once
 * (issue 16) and a burst of other events gives one change. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "watch.h"

static char dir[64], file[128], tmp[128], other[128];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/pmpplab-watch-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/vecadd.cu", dir);
	snprintf(tmp, sizeof(tmp), "%s/.vecadd.cu.swp", dir);
	snprintf(other, sizeof(other), "%s/notes.txt", dir);
	FILE *f = fopen(file, "w");
	fputs("// starter\n", f);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(file);
	unlink(tmp);
	unlink(other);
	rmdir(dir);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A watch of PATH alone (index 0). */
static struct watch *watch_one(const char *path)
{
	struct watch *w = watch_new();
	assert_non_null(w);
	assert_int_equal(watch_add(w, path), 0);
	return w;
}

/* Waits up to 1 s for the watch to have input, then reads it at time NOW. */
static bool wait_read(struct watch *w, uint64_t now)
{
	struct pollfd p = {watch_fd(w), POLLIN, 0};
	if (poll(&p, 1, 1000) <= 0)
		return false;
	return watch_read(w, now);
}

static void test_in_place(void **state)
{
	(void)state;
	struct watch *w = watch_one(file);
	assert_non_null(w);
	assert_int_equal(watch_timeout(w, 1000), -1);
	write_file(file, "// edited\n");
	assert_true(wait_read(w, 1000));
	/* the writer closed the file: the save is whole, no debounce (issue 16) */
	assert_int_equal(watch_timeout(w, 1000), 0);
	assert_int_equal(watch_take(w, 1000), 0);
	assert_int_equal(watch_take(w, 5000), -1); /* once */
	watch_free(w);
}

/* A file created and still open (an editor writing it now): debounced until it is
 * closed, then due at once. */
static void test_created_open(void **state)
{
	(void)state;
	struct watch *w = watch_one(file);
	assert_int_equal(unlink(file), 0);
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_true(wait_read(w, 1000));
	assert_int_equal(watch_take(w, 1000), -1); /* not yet: debounce */
	assert_int_equal(watch_timeout(w, 1000), WATCH_DEBOUNCE_MS);
	assert_int_equal(write(fd, "// new\n", 7), 7);
	assert_int_equal(close(fd), 0);
	assert_true(wait_read(w, 1010));
	assert_int_equal(watch_take(w, 1010), 0);
	watch_free(w);
}

static void test_rename_save(void **state)
{
	(void)state;
	struct watch *w = watch_one(file);
	assert_non_null(w);
	/* vim-style: write a new file, rename it over the original; twice, since a watch
	 * on the file itself would have died with the first rename. */
	for (int i = 0; i < 2; i++) {
		write_file(tmp, "// saved by rename\n");
		assert_false(wait_read(w, 0)); /* the new file alone is not the file */
		assert_int_equal(rename(tmp, file), 0);
		struct pollfd p = {watch_fd(w), POLLIN, 0};
		assert_true(poll(&p, 1, 1000) > 0);
		assert_true(watch_read(w, 2000));
		assert_int_equal(watch_take(w, 2000), 0); /* renamed into place: whole */
	}
	watch_free(w);
}

static void test_other_files_ignored(void **state)
{
	(void)state;
	struct watch *w = watch_one(file);
	write_file(other, "hello\n");
	struct pollfd p = {watch_fd(w), POLLIN, 0};
	assert_true(poll(&p, 1, 1000) > 0);
	assert_false(watch_read(w, 0));
	assert_int_equal(watch_timeout(w, 0), -1);
	watch_free(w);
}

static void test_debounce_burst(void **state)
{
	(void)state;
	struct watch *w = watch_one(file);
	watch_touch(w, 0, 100);
	watch_touch(w, 0, 200); /* a second event in the burst moves the deadline */
	assert_int_equal(watch_take(w, 100 + WATCH_DEBOUNCE_MS), -1);
	assert_int_equal(watch_take(w, 200 + WATCH_DEBOUNCE_MS), 0);
	watch_free(w);
}

static void test_missing_dir(void **state)
{
	(void)state;
	struct watch *w = watch_new();
	assert_true(watch_add(w, "/nonexistent-pmpplab/x.cu") < 0);
	assert_int_equal(watch_add(w, ""), -ENOENT); /* a lab without a file */
	watch_touch(w, 5, 0); /* no such file: nothing */
	assert_int_equal(watch_timeout(w, 0), -1);
	watch_free(w);
}

/* Issue 18: on the list every lab's file is watched; a save says which one, by the
 * order the files were added in, a folder that cannot be watched included. */
static void test_several_files(void **state)
{
	(void)state;
	char dir2[64], file2[160];
	strcpy(dir2, "/tmp/pmpplab-watch2-XXXXXX");
	assert_non_null(mkdtemp(dir2));
	snprintf(file2, sizeof(file2), "%s/blur.cu", dir2);
	struct watch *w = watch_new();
	assert_int_equal(watch_add(w, file), 0);
	assert_true(watch_add(w, "/nonexistent-pmpplab/x.cu") < 0);
	assert_int_equal(watch_add(w, file2), 2);
	assert_int_equal(watch_add(w, other), 3); /* a second file of file's folder */
	watch_touch(w, 2, 1000); /* changes recorded by hand are debounced */
	watch_touch(w, 3, 1050);
	assert_int_equal(watch_take(w, 1000 + WATCH_DEBOUNCE_MS), 2);
	assert_int_equal(watch_take(w, 1000 + WATCH_DEBOUNCE_MS), -1); /* other: not yet */
	assert_int_equal(watch_take(w, 1050 + WATCH_DEBOUNCE_MS), 3);
	write_file(file2, "// saved\n");
	assert_true(wait_read(w, 2000));
	write_file(other, "saved later\n");
	assert_true(wait_read(w, 2050));
	assert_int_equal(watch_take(w, 2050), 2); /* both whole: by the order added */
	assert_int_equal(watch_take(w, 2050), 3);
	assert_int_equal(watch_timeout(w, 5000), -1); /* vecadd.cu was not saved */
	watch_free(w);
	unlink(file2);
	rmdir(dir2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_created_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rename_save, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_files_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debounce_burst, setup, teardown),
		cmocka_unit_test(test_missing_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
