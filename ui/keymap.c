/* keymap: the key table and dispatch. See keymap.h. */
#include "keymap.h"

#include <stdio.h>
#include <string.h>

/* Function keys as in htop and mc; letters as in htop, less and vim. Labels mark the
 * bindings shown in the bottom key bar, in this order. */
static const struct keymap_binding bindings[] = {
	{KEYMAP_F(1), ACT_HELP, VIEW_ANY, "Help"},
	/* VIEW_INSPECT: issue 7, run and watch the panels fill */
	{KEYMAP_F(2), ACT_EDIT, VIEW_LIST | VIEW_LAB | VIEW_INSPECT, "Edit"},
	{KEYMAP_F(5), ACT_RUN, VIEW_LIST | VIEW_LAB | VIEW_INSPECT, "Run"},
	{KEYMAP_F(6), ACT_GRADE, VIEW_LIST | VIEW_LAB | VIEW_INSPECT, "Grade"},
	{KEYMAP_F(7), ACT_HINT, VIEW_LAB, "Hint"},
	{KEYMAP_F(8), ACT_INSPECT, VIEW_LIST | VIEW_LAB, "Panels"}, /* issue 7 */
	{'p', ACT_INSPECT, VIEW_LIST | VIEW_LAB, NULL},                /* issue 7 */
	{KEYMAP_F(10), ACT_QUIT, VIEW_ANY, "Quit"},
	{'h', ACT_HELP, VIEW_LIST | VIEW_LAB, NULL},
	{'?', ACT_HELP, VIEW_ANY, NULL},
	/* VIEW_INSPECT: the occupancy tab takes e, r and g first (what-if keys) */
	{'e', ACT_EDIT, VIEW_LIST | VIEW_LAB | VIEW_INSPECT, NULL},
	{'r', ACT_RUN, VIEW_LIST | VIEW_LAB | VIEW_INSPECT, NULL},
	{'g', ACT_GRADE, VIEW_LIST | VIEW_LAB | VIEW_INSPECT, NULL},
	{'n', ACT_HINT, VIEW_LAB, NULL},
	{'q', ACT_QUIT, VIEW_LIST, NULL},
	{'q', ACT_BACK, VIEW_LAB | VIEW_HELP | VIEW_INSPECT, NULL}, /* issue 7: + inspect */
	{'R', ACT_RESET, VIEW_LIST | VIEW_LAB, NULL},
	{'k', ACT_UP, VIEW_ANY, NULL},
	{KEYMAP_UP, ACT_UP, VIEW_ANY, NULL},
	{'j', ACT_DOWN, VIEW_ANY, NULL},
	{KEYMAP_DOWN, ACT_DOWN, VIEW_ANY, NULL},
	{KEYMAP_PGUP, ACT_PGUP, VIEW_ANY, NULL},
	{'b', ACT_PGUP, VIEW_LAB | VIEW_HELP, NULL},
	{KEYMAP_PGDN, ACT_PGDN, VIEW_ANY, NULL},
	{' ', ACT_PGDN, VIEW_LAB | VIEW_HELP, NULL},
	{KEYMAP_HOME, ACT_HOME, VIEW_ANY, NULL},
	{KEYMAP_END, ACT_END, VIEW_ANY, NULL},
	{'G', ACT_END, VIEW_ANY, NULL},
	{KEYMAP_ENTER, ACT_OPEN, VIEW_LIST, NULL},
	{'\r', ACT_OPEN, VIEW_LIST, NULL},
	{'l', ACT_OPEN, VIEW_LIST, NULL},
	{KEYMAP_RIGHT, ACT_OPEN, VIEW_LIST, NULL},
	{KEYMAP_ESC, ACT_BACK, VIEW_LAB | VIEW_HELP | VIEW_INSPECT, NULL}, /* issue 7: + inspect */
	{KEYMAP_BACKSPACE, ACT_BACK, VIEW_LAB | VIEW_HELP, NULL},
	{KEYMAP_LEFT, ACT_BACK, VIEW_LAB | VIEW_HELP, NULL},
	{KEYMAP_TAB, ACT_SWITCH, VIEW_LAB, NULL},
	{KEYMAP_BTAB, ACT_SWITCH, VIEW_LAB, NULL},
	{KEYMAP_CTRL_L, ACT_REDRAW, VIEW_ANY, NULL},
	{KEYMAP_RESIZE, ACT_RESIZE, VIEW_ANY, NULL},
};

enum ui_action keymap_lookup(int key, enum keymap_view view)
{
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (bindings[i].key == key && (bindings[i].views & view))
			return bindings[i].action;
	return ACT_NONE;
}

const struct keymap_binding *keymap_table(unsigned *n)
{
	*n = sizeof(bindings) / sizeof(bindings[0]);
	return bindings;
}

const char *keymap_key_name(int key)
{
	static char buf[16];
	switch (key) {
	case KEYMAP_ESC: return "Esc";
	case KEYMAP_ENTER:
	case '\r': return "Enter";
	case KEYMAP_TAB: return "Tab";
	case KEYMAP_BTAB: return "S-Tab";
	case KEYMAP_CTRL_L: return "^L";
	case ' ': return "Space";
	case KEYMAP_UP: return "Up";
	case KEYMAP_DOWN: return "Down";
	case KEYMAP_LEFT: return "Left";
	case KEYMAP_RIGHT: return "Right";
	case KEYMAP_PGUP: return "PgUp";
	case KEYMAP_PGDN: return "PgDn";
	case KEYMAP_HOME: return "Home";
	case KEYMAP_END: return "End";
	case KEYMAP_BACKSPACE: return "Backspace";
	case KEYMAP_RESIZE: return "resize";
	default: break;
	}
	if (key >= KEYMAP_F0 && key <= KEYMAP_F(24))
		snprintf(buf, sizeof(buf), "F%d", key - KEYMAP_F0);
	else if (key > ' ' && key < 0x7f)
		snprintf(buf, sizeof(buf), "%c", key);
	else
		snprintf(buf, sizeof(buf), "#%d", key);
	return buf;
}

static const char *const action_docs[] = {
#define UI_ACTION_DOC(name, doc) [ACT_##name] = doc,
	UI_ACTIONS(UI_ACTION_DOC)
#undef UI_ACTION_DOC
};

const char *keymap_action_doc(enum ui_action a)
{
	return a < ACT_COUNT ? action_docs[a] : "";
}

static const struct keymap_seq escapes[] = {
	/* xterm (and tmux, whatever TERM says) */
	{"OP", KEYMAP_F(1)},    {"OQ", KEYMAP_F(2)},    {"OR", KEYMAP_F(3)},
	{"OS", KEYMAP_F(4)},    {"[15~", KEYMAP_F(5)},  {"[17~", KEYMAP_F(6)},
	{"[18~", KEYMAP_F(7)},  {"[19~", KEYMAP_F(8)},  {"[20~", KEYMAP_F(9)},
	{"[21~", KEYMAP_F(10)}, {"[23~", KEYMAP_F(11)}, {"[24~", KEYMAP_F(12)},
	/* vt220, rxvt: F1-F4 */
	{"[11~", KEYMAP_F(1)},  {"[12~", KEYMAP_F(2)},  {"[13~", KEYMAP_F(3)},
	{"[14~", KEYMAP_F(4)},
	/* the Linux console */
	{"[[A", KEYMAP_F(1)},   {"[[B", KEYMAP_F(2)},   {"[[C", KEYMAP_F(3)},
	{"[[D", KEYMAP_F(4)},   {"[[E", KEYMAP_F(5)},
	/* cursor keys, normal and application mode */
	{"[A", KEYMAP_UP},      {"[B", KEYMAP_DOWN},    {"[C", KEYMAP_RIGHT},
	{"[D", KEYMAP_LEFT},    {"OA", KEYMAP_UP},      {"OB", KEYMAP_DOWN},
	{"OC", KEYMAP_RIGHT},   {"OD", KEYMAP_LEFT},
	{"[H", KEYMAP_HOME},    {"OH", KEYMAP_HOME},    {"[1~", KEYMAP_HOME},
	{"[7~", KEYMAP_HOME},   {"[F", KEYMAP_END},     {"OF", KEYMAP_END},
	{"[4~", KEYMAP_END},    {"[8~", KEYMAP_END},    {"[5~", KEYMAP_PGUP},
	{"[6~", KEYMAP_PGDN},   {"[Z", KEYMAP_BTAB},
};

const struct keymap_seq *keymap_escape_table(unsigned *n)
{
	*n = sizeof(escapes) / sizeof(escapes[0]);
	return escapes;
}

int keymap_escape(const char *seq, unsigned n)
{
	if (n == 0)
		return KEYMAP_SEQ_MORE;
	if (seq[0] != '[' && seq[0] != 'O')
		return KEYMAP_SEQ_NOT;
	if (n == 1)
		return KEYMAP_SEQ_MORE;
	/* SS3: one final byte. CSI: parameter bytes 0x30-0x3f, intermediate bytes
	 * 0x20-0x2f, one final byte 0x40-0x7e; the Linux console's "[[A" has a '['
	 * where a final byte could not be. */
	unsigned i = 1;
	if (seq[0] == '[') {
		if (seq[1] == '[' && n == 2)
			return KEYMAP_SEQ_MORE;
		i += seq[1] == '[';
		while (i < n && seq[i] >= 0x20 && seq[i] <= 0x3f)
			i++;
		if (i == n)
			return KEYMAP_SEQ_MORE;
	}
	if (i + 1 != n || seq[i] < 0x40 || seq[i] > 0x7e)
		return KEYMAP_IGNORE; /* not a well-formed sequence: swallow what was read */
	for (size_t k = 0; k < sizeof(escapes) / sizeof(escapes[0]); k++)
		if (strlen(escapes[k].seq) == n && memcmp(escapes[k].seq, seq, n) == 0)
			return escapes[k].key;
	return KEYMAP_IGNORE;
}

unsigned keymap_dispatch(int key, enum keymap_view view, keymap_handler_fn focused,
			 void *focused_ctx, keymap_handler_fn global, void *global_ctx)
{
	enum ui_action a = keymap_lookup(key, view);
	unsigned flags = 0;
	if (focused)
		flags |= focused(focused_ctx, a, key);
	if (!(flags & ACTION_HANDLED) && global)
		flags |= global(global_ctx, a, key);
	return flags;
}
