/* theme: the role table, in colour and in monochrome. See theme.h. The only file that
 * names COLOR_* constants. */
#include "theme.h"

#include <curses.h>

struct theme_entry {
	short fg, bg;        /* -1 = the terminal's default */
	attr_t color_attr;   /* added to the pair in the colour column */
	attr_t mono_attr;    /* the whole look in the monochrome column */
};

/*                       colour: fg, bg, attributes              monochrome */
static const struct theme_entry theme[ROLE_COUNT] = {
	[ROLE_NORMAL]     = {-1, -1, A_NORMAL,                     A_NORMAL},
	[ROLE_DIM]        = {-1, -1, A_DIM,                        A_DIM},
	[ROLE_TITLE]      = {COLOR_BLACK, COLOR_CYAN, A_NORMAL,    A_REVERSE},
	[ROLE_KEY]        = {COLOR_WHITE, COLOR_BLACK, A_BOLD,     A_BOLD},
	[ROLE_KEYLABEL]   = {COLOR_BLACK, COLOR_CYAN, A_NORMAL,    A_REVERSE},
	[ROLE_SELECTED]   = {COLOR_BLACK, COLOR_CYAN, A_NORMAL,    A_REVERSE},
	[ROLE_STATUS]     = {COLOR_CYAN, -1, A_NORMAL,             A_NORMAL},
	[ROLE_PASS]       = {COLOR_GREEN, -1, A_BOLD,              A_BOLD},
	[ROLE_FAIL]       = {COLOR_RED, -1, A_BOLD,                A_BOLD | A_UNDERLINE},
	[ROLE_WARN]       = {COLOR_YELLOW, -1, A_NORMAL,           A_UNDERLINE},
	[ROLE_RUNNING]    = {COLOR_YELLOW, -1, A_BOLD,             A_BOLD},
	[ROLE_TAB]        = {-1, -1, A_NORMAL,                     A_NORMAL},
	[ROLE_TAB_ACTIVE] = {COLOR_BLACK, COLOR_CYAN, A_BOLD,      A_REVERSE},
	[ROLE_H1]         = {COLOR_CYAN, -1, A_BOLD,               A_BOLD},
	[ROLE_H2]         = {COLOR_CYAN, -1, A_BOLD,               A_BOLD},
	[ROLE_H3]         = {-1, -1, A_BOLD,                       A_BOLD},
	[ROLE_EMPH]       = {-1, -1, A_ITALIC,                     A_UNDERLINE},
	[ROLE_STRONG]     = {-1, -1, A_BOLD,                       A_BOLD},
	[ROLE_CODE]       = {COLOR_YELLOW, -1, A_NORMAL,           A_BOLD},
	[ROLE_CODEBLOCK]  = {COLOR_YELLOW, -1, A_NORMAL,           A_NORMAL},
	[ROLE_LINK]       = {COLOR_BLUE, -1, A_UNDERLINE,          A_UNDERLINE},
	[ROLE_QUOTE]      = {COLOR_MAGENTA, -1, A_NORMAL,          A_DIM},
	[ROLE_MARKER]     = {COLOR_CYAN, -1, A_NORMAL,             A_NORMAL},
	[ROLE_SOURCE]     = {-1, -1, A_NORMAL,                     A_NORMAL},
	[ROLE_CARET]      = {COLOR_GREEN, -1, A_BOLD,              A_BOLD},
	[ROLE_HINT]       = {COLOR_GREEN, -1, A_NORMAL,            A_NORMAL},
};

static bool use_color;

bool theme_no_color_env(const char *value)
{
	return value && *value;
}

bool theme_init(bool mono)
{
	use_color = !mono && has_colors() && start_color() == OK;
	if (!use_color)
		return false;
	use_default_colors();
	for (int r = 0; r < ROLE_COUNT; r++)
		init_pair((short)(r + 1), theme[r].fg, theme[r].bg);
	return true;
}

unsigned long theme_attr(enum ui_role role)
{
	if (role >= ROLE_COUNT)
		role = ROLE_NORMAL;
	if (!use_color)
		return theme[role].mono_attr;
	return COLOR_PAIR(role + 1) | theme[role].color_attr;
}
