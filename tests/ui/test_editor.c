/* editor: which editor runs, with which arguments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "editor.h"

static bool have_nano, have_vi;

static bool fake_exists(const char *prog)
{
	return (strcmp(prog, "nano") == 0 && have_nano) || (strcmp(prog, "vi") == 0 && have_vi);
}

static void assert_argv(char **argv, const char *const *want)
{
	assert_non_null(argv);
	unsigned i = 0;
	for (; want[i]; i++) {
		assert_non_null(argv[i]);
		assert_string_equal(argv[i], want[i]);
	}
	assert_null(argv[i]);
	editor_argv_free(argv);
}

static void test_visual_first(void **state)
{
	(void)state;
	have_nano = have_vi = true;
	assert_argv(editor_argv("vim", "emacs", fake_exists, "a.cu", 12),
		    (const char *const[]){"vim", "+12", "a.cu", NULL});
	assert_argv(editor_argv("", "emacs", fake_exists, "a.cu", 3),
		    (const char *const[]){"emacs", "+3", "a.cu", NULL});
	assert_argv(editor_argv(NULL, "/usr/bin/nano", fake_exists, "a.cu", 7),
		    (const char *const[]){"/usr/bin/nano", "+7", "a.cu", NULL});
}

static void test_arguments_and_unknown_editors(void **state)
{
	(void)state;
	/* An editor with its own arguments; no +LINE for editors that do not know it. */
	assert_argv(editor_argv("code --wait", NULL, fake_exists, "a.cu", 12),
		    (const char *const[]){"code", "--wait", "a.cu", NULL});
	/* No line: no +LINE. */
	assert_argv(editor_argv("vi", NULL, fake_exists, "a.cu", 0),
		    (const char *const[]){"vi", "a.cu", NULL});
}

static void test_fallbacks(void **state)
{
	(void)state;
	have_nano = true;
	have_vi = true;
	assert_argv(editor_argv(NULL, NULL, fake_exists, "a.cu", 2),
		    (const char *const[]){"nano", "+2", "a.cu", NULL});
	have_nano = false;
	assert_argv(editor_argv(NULL, "", fake_exists, "a.cu", 2),
		    (const char *const[]){"vi", "+2", "a.cu", NULL});
	have_vi = false;
	assert_null(editor_argv(NULL, NULL, fake_exists, "a.cu", 2));
	assert_null(editor_argv("   ", NULL, fake_exists, "a.cu", 2));
}

static void test_on_path(void **state)
{
	(void)state;
	assert_true(editor_on_path("sh"));
	assert_true(editor_on_path("/bin/sh"));
	assert_false(editor_on_path("no-such-editor-pmpplab"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visual_first),
		cmocka_unit_test(test_arguments_and_unknown_editors),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_on_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
