/* keymap: keys to actions, one table, the htop habit. The input layer turns curses key
 * codes into the KEYMAP_* codes below (so this model never includes curses), looks the
 * action up for the current view, and offers it to the focused panel first; what the
 * panel does not handle goes to the global handler. Handlers return ACTION_* flags. */
#ifndef PMPPLAB_UI_KEYMAP_H
#define PMPPLAB_UI_KEYMAP_H

#include <stdbool.h>

/* Key codes: printable ASCII as itself, the rest above 0x10000. */
enum {
	KEYMAP_ESC = 27,
	KEYMAP_ENTER = '\n',
	KEYMAP_TAB = '\t',
	KEYMAP_CTRL_L = 12,
	KEYMAP_SPECIAL = 0x10000,
	KEYMAP_UP,
	KEYMAP_DOWN,
	KEYMAP_LEFT,
	KEYMAP_RIGHT,
	KEYMAP_PGUP,
	KEYMAP_PGDN,
	KEYMAP_HOME,
	KEYMAP_END,
	KEYMAP_BACKSPACE,
	KEYMAP_RESIZE,
	KEYMAP_BTAB,
	KEYMAP_IGNORE,       /* an escape sequence no binding knows: swallowed, does nothing */
	KEYMAP_F0 = 0x10100, /* KEYMAP_F0 + n is Fn */
};
#define KEYMAP_F(n) (KEYMAP_F0 + (n))

/* keymap_escape's answers besides a key code. */
enum {
	KEYMAP_SEQ_MORE = -2, /* the start of a sequence: read another byte */
	KEYMAP_SEQ_NOT = -3,  /* Esc followed by a key, not a sequence */
};

/* What a key asks for. The order is the help page's order. */
#define UI_ACTIONS(X)                                              \
	X(NONE,    "")                                              \
	X(HELP,    "show this help")                                \
	X(EDIT,    "edit the lab's file (at the first error)")      \
	X(RUN,     "quick run: build and check the small datasets") \
	X(GRADE,   "full grade: every dataset and check")           \
	X(HINT,    "reveal the next hint")                          \
	X(INSPECT, "occupancy, warps and memory panels")            \
	X(QUIT,    "quit")                                          \
	X(UP,      "move up / scroll up")                           \
	X(DOWN,    "move down / scroll down")                       \
	X(PGUP,    "page up")                                       \
	X(PGDN,    "page down")                                     \
	X(HOME,    "go to the top")                                 \
	X(END,     "go to the bottom")                              \
	X(OPEN,    "open the selected lab")                         \
	X(BACK,    "go back")                                       \
	X(SWITCH,  "switch between reading and results")            \
	X(RESET,   "reset the lab to its starter (keeps a backup)") \
	X(REDRAW,  "redraw the screen")                             \
	X(RESIZE,  "")

enum ui_action {
#define UI_ACTION_ENUM(name, doc) ACT_##name,
	UI_ACTIONS(UI_ACTION_ENUM)
#undef UI_ACTION_ENUM
	ACT_COUNT
};

/* Flags handlers return. */
enum {
	ACTION_HANDLED = 1 << 0, /* the key was used; stop offering it */
	ACTION_REDRAW = 1 << 1,  /* the screen must be redrawn */
	ACTION_QUIT = 1 << 2,    /* leave pmpplab */
};

/* Where a binding applies. */
enum keymap_view {
	VIEW_LIST = 1 << 0,
	VIEW_LAB = 1 << 1,
	VIEW_HELP = 1 << 2,
	VIEW_INSPECT = 1 << 3, /* issue 7: the occupancy / warps / memory panels */
	VIEW_ANY = VIEW_LIST | VIEW_LAB | VIEW_HELP | VIEW_INSPECT,
};

struct keymap_binding {
	int key;
	enum ui_action action;
	unsigned views;    /* enum keymap_view mask */
	const char *label; /* key bar label, NULL = not in the key bar */
};

/* The action KEY maps to in VIEW, or ACT_NONE. */
enum ui_action keymap_lookup(int key, enum keymap_view view);
/* The whole table (for the key bar and the help page); *n set to its length. */
const struct keymap_binding *keymap_table(unsigned *n);
/* "F5", "Enter", "j", "Up"... for a key code. Returns a static string. */
const char *keymap_key_name(int key);
/* The action's help text. */
const char *keymap_action_doc(enum ui_action a);

/* An escape sequence a terminal sends for a key (without the leading ESC). */
struct keymap_seq {
	const char *seq;
	int key;
};

/* The xterm, vt220 and Linux console sequences of the keys pmpplab binds (F1-F12,
 * arrows, Home, End, PgUp, PgDn, Shift-Tab), for curses' define_key where the terminfo
 * entry lacks them; *n set to the count. */
const struct keymap_seq *keymap_escape_table(unsigned *n);
/* What the N bytes SEQ that followed an ESC mean: a key code from the table above;
 * KEYMAP_IGNORE for a complete CSI ("[" params final) or SS3 ("O" final) sequence that
 * is not in it (Shift-F5, Insert...), so that it is swallowed whole; KEYMAP_SEQ_MORE
 * when SEQ is the start of a sequence; KEYMAP_SEQ_NOT when SEQ[0] starts none (Esc
 * pressed, then a key). */
int keymap_escape(const char *seq, unsigned n);

/* A handler: a panel's key method or the global one. */
typedef unsigned (*keymap_handler_fn)(void *ctx, enum ui_action action, int key);

/* Offers KEY to FOCUSED first, then (unless it returned ACTION_HANDLED) to GLOBAL.
 * Returns the union of the flags both returned. Either handler may be NULL. */
unsigned keymap_dispatch(int key, enum keymap_view view, keymap_handler_fn focused,
			 void *focused_ctx, keymap_handler_fn global, void *global_ctx);

#endif
