/* layout: screen geometry. See layout.h. */
#include "layout.h"

#include <string.h>

bool rect_empty(const struct rect *r)
{
	return r->h <= 0 || r->w <= 0;
}

void layout_compute(struct layout *l, int cols, int rows, unsigned nlabs)
{
	memset(l, 0, sizeof(*l));
	l->cols = cols;
	l->rows = rows;
	l->too_small = cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS;
	if (l->too_small) {
		l->body = (struct rect){0, 0, rows, cols};
		return;
	}
	l->title = (struct rect){0, 0, 1, cols};
	l->keybar = (struct rect){rows - 1, 0, 1, cols};
	l->status = (struct rect){rows - 2, 0, 1, cols};
	l->body = (struct rect){1, 0, rows - 3, cols};

	/* List view: a header row, one row per lab and a blank row; the selected lab's
	 * summary (and the start of its reading) takes what is left. */
	int list_h = (int)nlabs + 2;
	int detail_h = l->body.h - list_h;
	if (detail_h < 3)
		detail_h = 0;
	l->list = (struct rect){l->body.y, 0, l->body.h - detail_h, cols};
	l->detail = (struct rect){l->body.y + l->list.h, 0, detail_h, cols};

	/* Lab view. */
	l->split = cols >= LAYOUT_SPLIT_COLS;
	if (l->split) {
		int rw = cols / 2;
		l->reading = (struct rect){l->body.y, 0, l->body.h, rw};
		l->divider = (struct rect){l->body.y, rw, l->body.h, 1};
		l->results = (struct rect){l->body.y, rw + 1, l->body.h, cols - rw - 1};
	} else {
		l->tabs = (struct rect){l->body.y, 0, 1, cols};
		l->reading = (struct rect){l->body.y + 1, 0, l->body.h - 1, cols};
		l->results = l->reading;
	}
}
