/* state: round trip through state.json, atomic replacement, and the best-score rule. */
#include <dirent.h>
#include <errno.h>
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

#include "state.h"

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/pmpplab-state-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

static unsigned count_files(void)
{
	unsigned n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_missing_is_empty(void **state)
{
	(void)state;
	struct ui_state s;
	state_init(&s);
	assert_int_equal(state_load(&s, path), 0);
	assert_int_equal(s.n, 0);
	assert_null(s.selected);
	state_release(&s);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct ui_state s, t;
	state_init(&s);
	state_record(state_lab(&s, "01-vecadd"), 6, 10, false, false);
	state_record(state_lab(&s, "01-vecadd"), 4, 4, true, true);
	state_lab(&s, "01-vecadd")->hints = 2;
	state_lab(&s, "05-tiled");
	state_set_selected(&s, "01-vecadd");
	assert_int_equal(state_save(&s, path), 0);

	state_init(&t);
	assert_int_equal(state_load(&t, path), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.selected, "01-vecadd");
	const struct lab_state *l = state_find(&t, "01-vecadd");
	assert_non_null(l);
	assert_int_equal(l->status, LAB_PASSED);
	assert_true(l->best == 6 && l->best_max == 10); /* the quick run does not set best */
	assert_true(l->last == 4 && l->last_max == 4 && l->last_quick);
	/* issue 18: it has a best of its own, kept with the rest */
	assert_true(l->best_quick == 4 && l->best_quick_max == 4);
	assert_int_equal(l->runs, 2);
	assert_int_equal(l->hints, 2);
	assert_int_equal(state_find(&t, "05-tiled")->status, LAB_NOT_STARTED);
	assert_null(state_find(&t, "02-grey"));
	state_release(&s);
	state_release(&t);
}

static void test_best_keeps_max(void **state)
{
	(void)state;
	struct lab_state l = {0};
	state_record(&l, 8, 10, false, false);
	state_record(&l, 3, 10, false, false);
	assert_true(l.best == 8);
	assert_int_equal(l.status, LAB_FAILING);
	state_record(&l, 10, 10, true, false);
	assert_true(l.best == 10);
	assert_int_equal(l.status, LAB_PASSED);
	/* Quick runs: a best of their own (issue 18), which leaves the grade's alone. */
	state_record(&l, 2, 4, false, true);
	state_record(&l, 1, 4, false, true);
	assert_true(l.best_quick == 2 && l.best_quick_max == 4 && l.best == 10);
	assert_int_equal(l.status, LAB_FAILING);
	assert_true(l.last_quick);
}

/* A save replaces the file by rename (a new inode), leaves no temporary file behind,
 * and a reader sees the old or the new content, never a mix. */
static void test_atomic_replace(void **state)
{
	(void)state;
	struct ui_state s;
	struct stat before, after;
	state_init(&s);
	state_lab(&s, "a");
	assert_int_equal(state_save(&s, path), 0);
	assert_int_equal(stat(path, &before), 0);
	/* Keep the old inode alive through an open descriptor, as a reader would. */
	FILE *old = fopen(path, "r");
	assert_non_null(old);
	state_lab(&s, "b");
	assert_int_equal(state_save(&s, path), 0);
	assert_int_equal(stat(path, &after), 0);
	assert_true(before.st_ino != after.st_ino);
	assert_int_equal(count_files(), 2); /* state.json and the state before it, .bak */
	char bak[160];
	snprintf(bak, sizeof(bak), "%s.bak", path);
	struct ui_state prev;
	state_init(&prev);
	assert_int_equal(state_load(&prev, bak), 0);
	assert_int_equal(prev.n, 1); /* "a" only */
	state_release(&prev);
	/* killed after the backup link, before the new state: .bak and state.json are one
	 * file; the next save must still leave no temporary name (found by tests/crash) */
	assert_int_equal(unlink(bak), 0);
	assert_int_equal(link(path, bak), 0);
	assert_int_equal(state_save(&s, path), 0);
	assert_int_equal(count_files(), 2);
	char buf[4096] = "";
	size_t n = fread(buf, 1, sizeof(buf) - 1, old);
	fclose(old);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\"a\""));
	assert_null(strstr(buf, "\"b\"")); /* the reader's copy was never rewritten */
	state_release(&s);
}

static void test_save_error_keeps_file(void **state)
{
	(void)state;
	struct ui_state s;
	state_init(&s);
	state_lab(&s, "a");
	char bad[192];
	snprintf(bad, sizeof(bad), "%s/no-such-dir/state.json", dir);
	assert_int_equal(state_save(&s, bad), -ENOENT);
	assert_int_equal(count_files(), 0);
	state_release(&s);
}

static void test_corrupt(void **state)
{
	(void)state;
	FILE *f = fopen(path, "w");
	fputs("{\"labs\": {\"01\": ", f); /* cut off mid-write by someone else */
	fclose(f);
	struct ui_state s;
	state_init(&s);
	assert_int_equal(state_load(&s, path), -EINVAL);
	assert_int_equal(s.n, 0);
	/* valid JSON of another shape is as damaged: the backup is restored, with a note */
	f = fopen(path, "w");
	fputs("{\"labs\": [1, 2], \"selected\": 7}", f);
	fclose(f);
	assert_int_equal(state_load(&s, path), -EINVAL);
	assert_int_equal(s.n, 0);
	state_release(&s);
}

/* A damaged state.json is set aside and the backup restored, with a note; without a
 * backup the state starts empty, also with a note. Never an error. */
static void test_recover(void **state)
{
	(void)state;
	struct ui_state s;
	state_init(&s);
	state_record(state_lab(&s, "01-vecadd"), 10, 10, true, false);
	assert_int_equal(state_save(&s, path), 0);
	state_lab(&s, "02-greyscale");
	assert_int_equal(state_save(&s, path), 0); /* .bak: 01 only */
	state_release(&s);
	assert_int_equal(truncate(path, 20), 0); /* cut short by something else */
	char *note = state_load_recover(&s, path);
	assert_non_null(note);
	assert_non_null(strstr(note, "restored from state.json.bak"));
	free(note);
	assert_int_equal(s.n, 1);
	assert_true(state_find(&s, "01-vecadd")->best == 10);
	state_release(&s);
	char aside[160];
	snprintf(aside, sizeof(aside), "%s.unreadable", path);
	assert_int_equal(access(aside, F_OK), 0);
	assert_null(state_load_recover(&s, path)); /* rewritten whole */
	assert_int_equal(s.n, 1);
	state_release(&s);
	/* neither file usable: afresh */
	FILE *f = fopen(path, "w");
	fputs("\x01garbage", f);
	fclose(f);
	char bak[160];
	snprintf(bak, sizeof(bak), "%s.bak", path);
	f = fopen(bak, "w");
	fputs("[", f);
	fclose(f);
	note = state_load_recover(&s, path);
	assert_non_null(strstr(note, "starts afresh"));
	free(note);
	assert_int_equal(s.n, 0);
	state_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_missing_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test(test_best_keeps_max),
		cmocka_unit_test_setup_teardown(test_atomic_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_error_keeps_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
