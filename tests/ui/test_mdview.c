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

/* A code line too wide for the screen is cut, and a marker in its last cell says so:
 * wrapping would move its end (a diagram's arrow) to a row of its own. */
static void test_code_cut(void **state)
{
	(void)state;
	glyph_set_ascii(false);
	/* The diagram line of lab 01 that wrapped its last '>' at 80 columns (78 inside). */
	const char *md = "```\n"
			 "   host memory\n"
			 "                                           |  vecAddKernel<<<blocks, threads>>>\n"
			 "  +-----------+\n"
			 "```\n";
	render(md, 78);
	assert_int_equal(lines.n, 3); /* no continuation row */
	assert_string_equal(line(0), "   host memory");
	assert_int_equal(sline_width(&lines.lines[1]), 78);
	const char *cut = line(1);
	size_t n = strlen(cut);
	assert_true(n > 2 && strcmp(cut + n - 2, "\u00bb") == 0); /* the marker, last */
	assert_int_equal(role_of(1, "\u00bb"), ROLE_MARKER);
	assert_non_null(strstr(cut, "vecAddKernel<<<blocks, threads>"));
	assert_string_equal(line(2), "  +-----------+");
	/* A line that fits exactly is not cut. */
	render("```\n12345678901234567890\n```\n", 20);
	assert_string_equal(line(0), "12345678901234567890");
	/* ASCII terminals get a '$', as nano marks a cut line. */
	glyph_set_ascii(true);
	render("```\nabcdefghijklmnopqrstuvwxyz\n```\n", 20);
	assert_string_equal(line(0), "abcdefghijklmnopqrs$");
	assert_int_equal(lines.n, 1);
	glyph_set_ascii(false);
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
	/* Too wide: the widest column shrinks and its text wraps inside it, nothing lost. */
	render("| a | b |\n|---|---|\n| x | a very long cell that cannot fit |\n", 20);
	for (unsigned i = 0; i < lines.n; i++)
		assert_true(sline_width(&lines.lines[i]) <= 20);
	assert_string_equal(line(2), " x \u2502 a very long");
	assert_string_equal(line(3), "   \u2502 cell that");
	assert_string_equal(line(4), "   \u2502 cannot fit");
	assert_int_equal(lines.n, 5);
	for (unsigned i = 0; i < lines.n; i++)
		assert_null(strstr(line(i), "\u2026"));
}

/* Lab 01's table at 80 columns: the two cudaMemcpy rows differ only at their ends, so
 * cutting them made them read the same; wrapped, both directions show. */
static void test_table_wrap_keeps_text(void **state)
{
	(void)state;
	glyph_set_ascii(false);
	const char *md =
		"| call | what it does |\n|---|---|\n"
		"| `cudaMalloc((void **)&A_d, bytes)` | reserves `bytes` bytes of device memory |\n"
		"| `cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice)` | copies host to device; the destination comes first |\n"
		"| `cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost)` | copies device to host |\n";
	render(md, 78);
	char all[4096] = "";
	for (unsigned i = 0; i < lines.n; i++) {
		assert_true(sline_width(&lines.lines[i]) <= 78);
		assert_null(strstr(line(i), "\u2026"));
		strcat(all, line(i));
		strcat(all, "\n");
	}
	print_message("%s", all);
	/* Each row's cells start on the same line and continue under themselves. */
	int h2d = -1, d2h = -1;
	for (unsigned i = 0; i < lines.n; i++) {
		if (strstr(line(i), "cudaMemcpy(dst") && h2d < 0)
			h2d = (int)i;
		else if (strstr(line(i), "cudaMemcpy(dst"))
			d2h = (int)i;
	}
	assert_true(h2d > 0 && d2h > h2d + 1);
	assert_non_null(strstr(line((unsigned)h2d + 1), "HostToDevice"));
	assert_non_null(strstr(line((unsigned)d2h + 1), "DeviceToHost"));
	assert_int_equal(role_of((unsigned)d2h + 1, "DeviceToHost"), ROLE_CODE);
	assert_non_null(strstr(all, "comes first"));
	/* The second column's continuation lines up under its first line. */
	const char *bar0 = strstr(line((unsigned)h2d), "\u2502");
	const char *bar1 = strstr(line((unsigned)h2d + 1), "\u2502");
	assert_non_null(bar0);
	assert_non_null(bar1);
	assert_int_equal(utf8_width(line((unsigned)h2d), (size_t)(bar0 - line((unsigned)h2d))),
			 utf8_width(line((unsigned)h2d + 1), (size_t)(bar1 - line((unsigned)h2d + 1))));
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
		cmocka_unit_test(test_code_block), cmocka_unit_test(test_code_cut),
		cmocka_unit_test(test_table),	   cmocka_unit_test(test_table_wrap_keeps_text),
		cmocka_unit_test(test_quote_rule_entities), cmocka_unit_test(test_ascii),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	sline_list_release(&lines);
	return rc;
}
