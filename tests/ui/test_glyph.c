/* glyph: the ASCII spelling is chosen for non-UTF-8 locales and old terminals, and
 * every glyph has a printable ASCII form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "glyph.h"
#include "utf8.h"

static void test_detect(void **state)
{
	(void)state;
	assert_false(glyph_detect_ascii("UTF-8", "xterm-256color", NULL));
	assert_false(glyph_detect_ascii("UTF-8", "tmux-256color", ""));
	assert_true(glyph_detect_ascii("ANSI_X3.4-1968", "xterm", NULL)); /* LANG=C */
	assert_true(glyph_detect_ascii("UTF-8", "vt100", NULL));
	assert_true(glyph_detect_ascii("UTF-8", "vt220", NULL));
	assert_true(glyph_detect_ascii("UTF-8", "xterm", "1"));
	assert_false(glyph_detect_ascii("UTF-8", NULL, "0"));
	assert_true(glyph_detect_ascii(NULL, "xterm", NULL));
}

static void test_ascii_column(void **state)
{
	(void)state;
	glyph_set_ascii(true);
	for (int g = 0; g < GLYPH_COUNT; g++) {
		const char *s = glyph((enum glyph)g);
		assert_true(*s);
		for (; *s; s++)
			assert_true(*s >= ' ' && *s <= '~');
	}
	glyph_set_ascii(false);
	assert_string_equal(glyph(GLYPH_PASS), "\u2714");
}

static void test_utf8(void **state)
{
	(void)state;
	uint32_t cp;
	assert_int_equal(utf8_decode("\u2500x", 4, &cp), 3);
	assert_int_equal(cp, 0x2500);
	assert_int_equal(utf8_decode("\xc3", 1, &cp), 1); /* truncated */
	assert_int_equal(cp, 0xfffd);
	assert_int_equal(utf8_decode("\xc0\xaf", 2, &cp), 1); /* overlong '/' */
	assert_int_equal(cp, 0xfffd);
	char buf[4];
	assert_int_equal(utf8_encode(0x1f600, buf), 4);
	assert_int_equal(utf8_decode(buf, 4, &cp), 4);
	assert_int_equal(cp, 0x1f600);
	assert_string_equal(utf8_ascii_fallback(0x2014), "--");
	assert_string_equal(utf8_ascii_fallback(0x4e2d), "?");
	/* Fitting counts cells, not bytes, and never splits a character. */
	assert_int_equal(utf8_fit("a\u2500b", 5, 2), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_ascii_column),
		cmocka_unit_test(test_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
