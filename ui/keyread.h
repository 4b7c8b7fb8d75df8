/* keyread: keys from curses as keymap.h's KEYMAP_* codes, escape sequences included.
 * The only input code that includes <curses.h>; keymap.c decodes the sequences. */
#ifndef PMPPLAB_KEYREAD_H
#define PMPPLAB_KEYREAD_H

/* After initscr: teaches curses the xterm and vt220 sequences of the keys pmpplab uses
 * that the terminal's terminfo entry does not name (a vt100 entry knows no F5,
 * "\E[15~", which tmux, screen and terminal emulators send whatever TERM says). */
void keyread_init(void);

/* The next key as a KEYMAP_* code: ERR (curses') when there is none, KEYMAP_IGNORE for
 * an escape sequence nobody knows (swallowed whole, so that its bytes do not act as
 * keys: ESC as Back, then '[', '1', '5', '~'). */
int keyread_next(void);

#endif
