/* theme: what each role (roles.h) looks like on this terminal. One table in theme.c
 * holds a colour column and a monochrome column; monochrome is used when NO_COLOR is
 * set, when the terminal has no colours (TERM=vt100), or when asked. */
#ifndef PMPPLAB_UI_THEME_H
#define PMPPLAB_UI_THEME_H

#include <stdbool.h>

#include "roles.h"

/* Sets up colour pairs after initscr(). MONO forces the monochrome column. Returns
 * true when colours are in use. */
bool theme_init(bool mono);
/* The curses attributes (pair and flags) for ROLE, as an attr_t in an unsigned long so
 * that this header stays free of curses. */
unsigned long theme_attr(enum ui_role role);
/* Whether NO_COLOR (https://no-color.org) asks for no colour: set and not empty. */
bool theme_no_color_env(const char *value);

#endif
