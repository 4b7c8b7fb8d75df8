/* keyread: see keyread.h. */
#include "keyread.h"

#include <curses.h>
#include <stdio.h>

#include "keymap.h"

/* curses' key codes and ours, one table for both directions. */
static const struct {
	int curses, key;
} names[] = {
	{KEY_UP, KEYMAP_UP},       {KEY_DOWN, KEYMAP_DOWN},   {KEY_LEFT, KEYMAP_LEFT},
	{KEY_RIGHT, KEYMAP_RIGHT}, {KEY_PPAGE, KEYMAP_PGUP},  {KEY_NPAGE, KEYMAP_PGDN},
	{KEY_HOME, KEYMAP_HOME},   {KEY_END, KEYMAP_END},     {KEY_BTAB, KEYMAP_BTAB},
	{KEY_RESIZE, KEYMAP_RESIZE}, {KEY_ENTER, KEYMAP_ENTER}, {'\r', KEYMAP_ENTER},
	{KEY_BACKSPACE, KEYMAP_BACKSPACE}, {127, KEYMAP_BACKSPACE}, {8, KEYMAP_BACKSPACE},
};

static int from_curses(int ch)
{
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].curses == ch)
			return names[i].key;
	if (ch >= KEY_F(0) && ch <= KEY_F(24))
		return KEYMAP_F(ch - KEY_F(0));
	return ch;
}

/* 0 when curses has no code for KEY. */
static int to_curses(int key)
{
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].key == key && names[i].curses > 0xff)
			return names[i].curses;
	return key >= KEYMAP_F(1) && key <= KEYMAP_F(24) ? KEY_F(key - KEYMAP_F0) : 0;
}

void keyread_init(void)
{
	unsigned n;
	const struct keymap_seq *t = keymap_escape_table(&n);
	for (unsigned i = 0; i < n; i++) {
		int code = to_curses(t[i].key);
		char seq[16];
		snprintf(seq, sizeof(seq), "\033%s", t[i].seq);
		if (code && key_defined(seq) == 0)
			define_key(seq, code);
	}
}

int keyread_next(void)
{
	int ch = getch();
	if (ch != KEYMAP_ESC)
		return ch == ERR ? ERR : from_curses(ch);
	/* Curses waited ESCDELAY for a known sequence; the rest of an unknown one is in
	 * its buffer already. A lone Esc has nothing after it. */
	char seq[16];
	unsigned n = 0;
	int key = KEYMAP_SEQ_MORE;
	wtimeout(stdscr, 30);
	while (key == KEYMAP_SEQ_MORE && n < sizeof(seq) - 1) {
		int c = getch();
		if (c == ERR)
			break;
		if (c < 0x20 || c > 0x7e) { /* a key of its own (Esc then Home): keep it */
			ungetch(c);
			break;
		}
		seq[n++] = (char)c;
		seq[n] = '\0';
		key = keymap_escape(seq, n);
	}
	nodelay(stdscr, TRUE);
	if (n == 0)
		return KEYMAP_ESC;
	if (key == KEYMAP_SEQ_NOT) { /* Esc, then a key of its own (Alt+key) */
		ungetch((unsigned char)seq[n - 1]);
		return KEYMAP_ESC;
	}
	return key == KEYMAP_SEQ_MORE ? KEYMAP_IGNORE : key;
}
