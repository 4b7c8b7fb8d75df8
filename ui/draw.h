/* draw: the few drawing primitives every panel uses, on stdscr, clipped to a rect and
 * measured in cells (UTF-8 aware). Roles become attributes through theme.c. */
#ifndef PMPPLAB_UI_DRAW_H
#define PMPPLAB_UI_DRAW_H

#include "layout.h"
#include "roles.h"
#include "sline.h"

/* Fills R with blanks in ROLE. */
void draw_fill(const struct rect *r, enum ui_role role);
/* Draws TEXT at (Y, X) in at most MAXW cells. Returns the cells drawn. */
int draw_text(int y, int x, int maxw, enum ui_role role, const char *text);
/* As draw_text, but text too long for MAXW ends in an ellipsis glyph. */
int draw_text_cut(int y, int x, int maxw, enum ui_role role, const char *text);
/* Draws line L at (Y, X) in at most W cells; BASE replaces ROLE_NORMAL (a selected row). */
int draw_sline(int y, int x, int w, const struct sline *l, enum ui_role base);
/* Draws lines FIRST.. of L into R, blank-filling below. */
void draw_slines(const struct rect *r, const struct sline_list *l, unsigned first);

#endif
