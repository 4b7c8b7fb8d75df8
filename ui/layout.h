/* layout: where everything goes for a terminal of COLS x ROWS, computed in one place on
 * start and on every resize. Title bar on top, status line and key bar at the bottom.
 * The list view puts the lab table above the selected lab's summary, which gets every
 * row the table does not need; the lab view puts
 * the reading and the results side by side when there is room (LAYOUT_SPLIT_COLS
 * columns), else one above a tab line, switched with Tab. Below 80x24 nothing but a
 * "too small" note is drawn. A pure model. */
#ifndef PMPPLAB_UI_LAYOUT_H
#define PMPPLAB_UI_LAYOUT_H

#include <stdbool.h>

#define LAYOUT_MIN_COLS 80
#define LAYOUT_MIN_ROWS 24
#define LAYOUT_SPLIT_COLS 120

struct rect {
	int y, x, h, w;
};

struct layout {
	int cols, rows;
	bool too_small;
	bool split;          /* lab view: reading and results side by side */
	struct rect title;   /* top bar */
	struct rect body;    /* between the title and the status line */
	struct rect status;  /* progress and messages */
	struct rect keybar;  /* bottom key bar */
	struct rect list;    /* list view: the lab table */
	struct rect detail;  /* list view: the selected lab's summary (h may be 0) */
	struct rect tabs;    /* lab view, not split: the tab line (h 0 when split) */
	struct rect reading; /* lab view: the README */
	struct rect results; /* lab view: results, errors, hints; equals reading when not split */
	struct rect divider; /* lab view, split: the column between the two */
};

/* Fills L for a COLS x ROWS screen and a list of NLABS labs. */
void layout_compute(struct layout *l, int cols, int rows, unsigned nlabs);
/* True when R has no cells. */
bool rect_empty(const struct rect *r);

#endif
