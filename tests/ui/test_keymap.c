/* keymap: the table maps keys per view, and dispatch offers keys to the focused panel
 * before the global handler. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "keymap.h"

static void test_lookup(void **state)
{
	(void)state;
	struct {
		int key;
		enum keymap_view view;
		enum ui_action want;
	} cases[] = {
		{KEYMAP_F(1), VIEW_LIST, ACT_HELP},   {'?', VIEW_LAB, ACT_HELP},
		{'h', VIEW_LIST, ACT_HELP},	      {KEYMAP_F(2), VIEW_LAB, ACT_EDIT},
		{'e', VIEW_LAB, ACT_EDIT},	      {KEYMAP_F(5), VIEW_LAB, ACT_RUN},
		{'r', VIEW_LAB, ACT_RUN},	      {KEYMAP_F(6), VIEW_LAB, ACT_GRADE},
		{'g', VIEW_LIST, ACT_GRADE},	      {KEYMAP_F(7), VIEW_LAB, ACT_HINT},
		{'n', VIEW_LAB, ACT_HINT},	      {'n', VIEW_LIST, ACT_NONE},
		{KEYMAP_F(10), VIEW_HELP, ACT_QUIT},  {'q', VIEW_LIST, ACT_QUIT},
		{'q', VIEW_LAB, ACT_BACK},	      {'q', VIEW_HELP, ACT_BACK},
		{'j', VIEW_LIST, ACT_DOWN},	      {KEYMAP_DOWN, VIEW_LAB, ACT_DOWN},
		{'k', VIEW_HELP, ACT_UP},	      {KEYMAP_UP, VIEW_LIST, ACT_UP},
		{KEYMAP_ENTER, VIEW_LIST, ACT_OPEN},  {KEYMAP_ENTER, VIEW_LAB, ACT_NONE},
		{KEYMAP_ESC, VIEW_LAB, ACT_BACK},     {KEYMAP_BACKSPACE, VIEW_HELP, ACT_BACK},
		{KEYMAP_ESC, VIEW_LIST, ACT_NONE},    {KEYMAP_TAB, VIEW_LAB, ACT_SWITCH},
		{'R', VIEW_LIST, ACT_RESET},	      {KEYMAP_RESIZE, VIEW_HELP, ACT_RESIZE},
		{'x', VIEW_LIST, ACT_NONE},
		/* the panels: p and F8 open them; r runs there (the occupancy tab sees it first) */
		{'p', VIEW_LIST, ACT_INSPECT},	      {KEYMAP_F(8), VIEW_LAB, ACT_INSPECT},
		{'r', VIEW_INSPECT, ACT_RUN},	      {KEYMAP_F(5), VIEW_INSPECT, ACT_RUN},
		{'q', VIEW_INSPECT, ACT_BACK},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum ui_action got = keymap_lookup(cases[i].key, cases[i].view);
		if (got != cases[i].want)
			fail_msg("key %s in view %d: action %d, want %d", keymap_key_name(cases[i].key),
				 cases[i].view, got, cases[i].want);
	}
}

/* The key bar shows F1 F2 F5 F6 F7 F8 F10 in that order, each once. */
static void test_keybar(void **state)
{
	(void)state;
	unsigned n;
	const struct keymap_binding *b = keymap_table(&n);
	char bar[128] = "";
	for (unsigned i = 0; i < n; i++)
		if (b[i].label) {
			strcat(bar, keymap_key_name(b[i].key));
			strcat(bar, b[i].label);
			strcat(bar, " ");
		}
	assert_string_equal(bar, "F1Help F2Edit F5Run F6Grade F7Hint F8Panels F10Quit ");
}

struct calls {
	int focused, global;
	enum ui_action last;
	unsigned focused_ret;
};

static unsigned focused_fn(void *ctx, enum ui_action a, int key)
{
	(void)key;
	struct calls *c = ctx;
	c->focused++;
	c->last = a;
	return c->focused_ret;
}

static unsigned global_fn(void *ctx, enum ui_action a, int key)
{
	(void)key;
	struct calls *c = ctx;
	c->global++;
	c->last = a;
	return a == ACT_QUIT ? ACTION_HANDLED | ACTION_QUIT : ACTION_HANDLED | ACTION_REDRAW;
}

static void test_dispatch(void **state)
{
	(void)state;
	struct calls c = {.focused_ret = ACTION_HANDLED | ACTION_REDRAW};
	/* The panel handles j: the global handler never sees it. */
	assert_int_equal(keymap_dispatch('j', VIEW_LIST, focused_fn, &c, global_fn, &c),
			 ACTION_HANDLED | ACTION_REDRAW);
	assert_int_equal(c.focused, 1);
	assert_int_equal(c.global, 0);
	assert_int_equal(c.last, ACT_DOWN);
	/* The panel passes on q: the global handler quits. */
	c = (struct calls){.focused_ret = 0};
	assert_int_equal(keymap_dispatch('q', VIEW_LIST, focused_fn, &c, global_fn, &c),
			 ACTION_HANDLED | ACTION_QUIT);
	assert_int_equal(c.focused, 1);
	assert_int_equal(c.global, 1);
	/* Flags from both are combined when the panel redraws without handling. */
	c = (struct calls){.focused_ret = ACTION_REDRAW};
	assert_int_equal(keymap_dispatch(KEYMAP_F(10), VIEW_LAB, focused_fn, &c, global_fn, &c),
			 ACTION_HANDLED | ACTION_QUIT | ACTION_REDRAW);
	/* No focused panel (terminal too small): straight to global. */
	c = (struct calls){0};
	keymap_dispatch(KEYMAP_RESIZE, VIEW_LIST, NULL, NULL, global_fn, &c);
	assert_int_equal(c.global, 1);
	assert_int_equal(c.last, ACT_RESIZE);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(keymap_key_name(KEYMAP_F(10)), "F10");
	assert_string_equal(keymap_key_name('?'), "?");
	assert_string_equal(keymap_key_name(KEYMAP_ESC), "Esc");
	assert_string_equal(keymap_action_doc(ACT_HINT), "reveal the next hint");
}

/* Escape sequences a terminal sends that its terminfo may not name: known ones become
 * keys, unknown complete ones are swallowed, Esc then a letter stays Esc + letter. */
static void test_escape_sequences(void **state)
{
	(void)state;
	struct {
		const char *seq;
		int want;
	} cases[] = {
		{"[15~", KEYMAP_F(5)},  {"[17~", KEYMAP_F(6)},	 {"[21~", KEYMAP_F(10)},
		{"OP", KEYMAP_F(1)},    {"[11~", KEYMAP_F(1)},	 {"[[E", KEYMAP_F(5)},
		{"[A", KEYMAP_UP},      {"OD", KEYMAP_LEFT},	 {"[5~", KEYMAP_PGUP},
		{"[6~", KEYMAP_PGDN},   {"[Z", KEYMAP_BTAB},	 {"[1~", KEYMAP_HOME},
		/* complete but unknown: swallowed whole */
		{"[15;2~", KEYMAP_IGNORE}, {"[2~", KEYMAP_IGNORE}, {"[200~", KEYMAP_IGNORE},
		{"OX", KEYMAP_IGNORE},  {"[?1;2c", KEYMAP_IGNORE},
		/* not finished yet: read more */
		{"[", KEYMAP_SEQ_MORE}, {"[1", KEYMAP_SEQ_MORE}, {"[15", KEYMAP_SEQ_MORE},
		{"[15;", KEYMAP_SEQ_MORE}, {"O", KEYMAP_SEQ_MORE}, {"[[", KEYMAP_SEQ_MORE},
		/* Esc then a key (Alt+x) */
		{"x", KEYMAP_SEQ_NOT},  {"q", KEYMAP_SEQ_NOT},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = keymap_escape(cases[i].seq, (unsigned)strlen(cases[i].seq));
		if (got != cases[i].want)
			fail_msg("ESC %s: %d, want %d", cases[i].seq, got, cases[i].want);
	}
	/* Every sequence in the table decodes to its key (define_key gets the same). */
	unsigned n;
	const struct keymap_seq *t = keymap_escape_table(&n);
	assert_true(n >= 12);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(keymap_escape(t[i].seq, (unsigned)strlen(t[i].seq)), t[i].key);
	/* F5 runs in the lab view, wherever its sequence came from. */
	assert_int_equal(keymap_lookup(keymap_escape("[15~", 4), VIEW_LAB), ACT_RUN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_keybar),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_escape_sequences),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
