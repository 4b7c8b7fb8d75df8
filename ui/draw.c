/* draw: clipped, role-coloured text on stdscr. See draw.h. */
#include "draw.h"

#include <curses.h>
#include <string.h>

#include "glyph.h"
#include "theme.h"
#include "utf8.h"

void draw_fill(const struct rect *r, enum ui_role role)
{
	attrset((attr_t)theme_attr(role));
	for (int y = 0; y < r->h; y++)
		mvhline(r->y + y, r->x, ' ', r->w);
	attrset(A_NORMAL);
}

static int draw_bytes(int y, int x, int maxw, enum ui_role role, const char *text, size_t n)
{
	if (maxw <= 0)
		return 0;
	size_t fit = utf8_fit(text, n, maxw);
	attrset((attr_t)theme_attr(role));
	mvaddnstr(y, x, text, (int)fit);
	attrset(A_NORMAL);
	return utf8_width(text, fit);
}

int draw_text(int y, int x, int maxw, enum ui_role role, const char *text)
{
	return draw_bytes(y, x, maxw, role, text, strlen(text));
}

int draw_text_cut(int y, int x, int maxw, enum ui_role role, const char *text)
{
	size_t n = strlen(text);
	if (utf8_width(text, n) <= maxw)
		return draw_bytes(y, x, maxw, role, text, n);
	const char *el = glyph(GLYPH_ELLIPSIS);
	int ew = utf8_width(el, strlen(el));
	int w = draw_bytes(y, x, maxw - ew, role, text, utf8_fit(text, n, maxw - ew));
	return w + draw_bytes(y, x + w, ew, role, el, strlen(el));
}

int draw_sline(int y, int x, int w, const struct sline *l, enum ui_role base)
{
	int used = 0;
	size_t pos = 0;
	for (unsigned i = 0; i <= l->n_spans && used < w; i++) {
		/* Text between spans (none in practice) draws in the base role. */
		size_t start = i < l->n_spans ? l->spans[i].start : l->len;
		if (start > pos)
			used += draw_bytes(y, x + used, w - used, base, l->text + pos, start - pos);
		if (i == l->n_spans)
			break;
		enum ui_role role = l->spans[i].role == ROLE_NORMAL ? base : l->spans[i].role;
		used += draw_bytes(y, x + used, w - used, role, l->text + start, l->spans[i].len);
		pos = start + l->spans[i].len;
	}
	return used;
}

void draw_slines(const struct rect *r, const struct sline_list *l, unsigned first)
{
	draw_fill(r, ROLE_NORMAL);
	for (int y = 0; y < r->h && first + (unsigned)y < l->n; y++)
		draw_sline(r->y + y, r->x, r->w, &l->lines[first + (unsigned)y], ROLE_NORMAL);
}
