/* mdview: each Markdown construct becomes the screen lines a reader expects. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "glyph.h"
#include "mdview.h"
#include "utf8.h"

static struct sline_list lines;

static void render(const char *md, int width)
{
	sline_list_release(&lines);
	sline_list_init(&lines);
	assert_int_equal(mdview_render(md, strlen(md), width, &lines), 0);
}

static const char *line(unsigned i)
{
	assert_true(i < lines.n);
	return lines.lines[i].text;
}

/* The role of the first occurrence of NEEDLE in line I. */
static enum ui_role role_of(unsigned i, const char *needle)
{
	const char *p = strstr(line(i), needle);
	assert_non_null(p);
	return sline_role_at(&lines.lines[i], (size_t)(p - line(i)));
}

static void test_headings(void **state)
{
	(void)state;
	glyph_set_ascii(false);
	render("# Vector add\n\nText.\n\n## Steps\n\n### Detail\n", 60);
	assert_string_equal(line(0), "Vector add");
	assert_int_equal(role_of(0, "Vector"), ROLE_H1);
	assert_string_equal(line(1), "\u2550\u2550\u2550\u2550\u2550\u2550\u2550\u2550\u2550\u2550");
	assert_string_equal(line(2), "");
	assert_string_equal(line(3), "Text.");
	assert_string_equal(line(5), "Steps");
	assert_string_equal(line(6), "\u2500\u2500\u2500\u2500\u2500");
	assert_int_equal(role_of(5, "Steps"), ROLE_H2);
	assert_string_equal(line(8), "Detail");
	assert_int_equal(role_of(8, "Detail"), ROLE_H3);
	assert_int_equal(lines.n, 9);
}

static void test_emphasis(void **state)
{
	(void)state;
	render("Plain *em* **strong** `code` [link](http://x) ***both***.", 80);
	assert_int_equal(lines.n, 1);
	assert_string_equal(line(0), "Plain em strong code link both.");
	assert_int_equal(role_of(0, "Plain"), ROLE_NORMAL);
	assert_int_equal(role_of(0, "em "), ROLE_EMPH);
	assert_int_equal(role_of(0, "strong"), ROLE_STRONG);
	assert_int_equal(role_of(0, "code"), ROLE_CODE);
	assert_int_equal(role_of(0, "link"), ROLE_LINK);
	assert_int_equal(role_of(0, "both"), ROLE_STRONG);
}

static void test_wrap(void **state)
{
	(void)state;
	render("one two three four five six seven eight nine ten eleven twelve", 20);
	for (unsigned i = 0; i < lines.n; i++)
		assert_true(sline_width(&lines.lines[i]) <= 20);
	assert_string_equal(line(0), "one two three four");
	assert_string_equal(line(1), "five six seven eight");
	assert_string_equal(line(2), "nine ten eleven");
	assert_string_equal(line(3), "twelve");
	/* A word longer than the line is cut, not lost. */
	render("abcdefghijklmnopqrstuvwxyz", 20);
	assert_string_equal(line(0), "abcdefghijklmnopqrst");
	assert_string_equal(line(1), "uvwxyz");
}

static void test_lists(void **state)
{
	(void)state;
	glyph_set_ascii(false);
	render("Intro.\n\n1. first\n2. second item that is long enough to wrap here\n"
	       "   - nested\n3. third\n\n- a\n- b\n",
	       30);
	assert_string_equal(line(0), "Intro.");
	assert_string_equal(line(1), "");
	assert_string_equal(line(2), "1. first");
	assert_int_equal(role_of(2, "1."), ROLE_MARKER);
	assert_string_equal(line(3), "2. second item that is long");
	assert_string_equal(line(4), "   enough to wrap here"); /* hanging indent */
	assert_string_equal(line(5), "   \u2022 nested");
	assert_string_equal(line(6), "3. third");
	assert_string_equal(line(7), "");
	assert_string_equal(line(8), "\u2022 a");
	assert_string_equal(line(9), "\u2022 b");
	assert_int_equal(lines.n, 10);
	/* Ordered lists keep their start number. */
	render("7. seven\n8. eight\n", 30);
	assert_string_equal(line(0), "7. seven");
	assert_string_equal(line(1), "8. eight");
}

static void test_code_block(void **state)
{
	(void)state;
	render("Before:\n\n```c\nint main(void)\n{\n\treturn 0;\n}\n```\n\nAfter.\n", 40);
	assert_string_equal(line(0), "Before:");
	assert_string_equal(line(1), "");
	assert_string_equal(line(2), "  int main(void)");
	assert_string_equal(line(3), "  {");
	assert_string_equal(line(4), "      return 0;"); /* tab = 4 spaces, after the indent */
	assert_string_equal(line(5), "  }");
	assert_int_equal(role_of(2, "int"), ROLE_CODEBLOCK);
	assert_string_equal(line(6), "");
	assert_string_equal(line(7), "After.");
	/* A block that fits only without the indent loses the indent, not its shape. */
	render("```\n+------------------+\n|  diagram 20 wide |\n```\n", 21);
	assert_string_equal(line(0), "+------------------+");
	assert_string_equal(line(1), "|  diagram 20 wide |");
	assert_int_equal(lines.n, 2);
	/* Code is not re-flowed: * and _ stay as written. */
	render("    a_b * c_d\n", 40);
	assert_string_equal(line(0), "  a_b * c_d");
}

static void test_table(void **state)
{
	(void)state;
	glyph_set_ascii(false);
	render("| dataset | n |\n|---|--:|\n| small | 1000 |\n| odd | 70001 |\n", 60);
	assert_string_equal(line(0), " dataset \u2502     n");
	assert_string_equal(line(1), "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u253c"
				     "\u2500\u2500\u2500\u2500\u2500\u2500");
	assert_string_equal(line(2), " small   \u2502  1000"); /* right-aligned column */
	assert_string_equal(line(3), " odd     \u2502 70001");
	assert_int_equal(lines.n, 4);
	/* Too wide: the widest column shrinks and shows an ellipsis. */
	render("| a | b |\n|---|---|\n| x | a very long cell that cannot fit |\n", 20);
	for (unsigned i = 0; i < lines.n; i++)
		assert_true(sline_width(&lines.lines[i]) <= 20);
	assert_non_null(strstr(line(2), "\u2026"));
}

static void test_quote_rule_entities(void **state)
{
	(void)state;
	glyph_set_ascii(false);
	render("> quoted\n\n---\n\nA &amp; B &lt; C\n", 10 + 20);
	assert_string_equal(line(0), "\u2502 quoted");
	assert_int_equal(role_of(0, "quoted"), ROLE_QUOTE);
	assert_string_equal(line(1), "");
	assert_int_equal(utf8_width(line(2), strlen(line(2))), 30);
	assert_string_equal(line(4), "A & B < C");
}

static void test_ascii(void **state)
{
	(void)state;
	glyph_set_ascii(true);
	render("# T\n\n- item \u2014 dash\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", 40);
	assert_string_equal(line(0), "T");
	assert_string_equal(line(1), "=");
	assert_string_equal(line(3), "* item -- dash");
	assert_string_equal(line(5), " a | b");
	assert_string_equal(line(6), "---+--");
	for (unsigned i = 0; i < lines.n; i++)
		for (const char *p = line(i); *p; p++)
			assert_true((unsigned char)*p < 0x80);
	glyph_set_ascii(false);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	sline_list_init(&lines);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headings), cmocka_unit_test(test_emphasis),
		cmocka_unit_test(test_wrap),	 cmocka_unit_test(test_lists),
		cmocka_unit_test(test_code_block), cmocka_unit_test(test_table),
		cmocka_unit_test(test_quote_rule_entities), cmocka_unit_test(test_ascii),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	sline_list_release(&lines);
	return rc;
}
