/* lab_panel: one lab: the reading (README.md through mdview) and the results pane
 * (checklist, compiler errors, hints), side by side on wide screens, as two tabs on
 * narrow ones. j/k scroll the focused pane; Tab switches. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "draw.h"
#include "glyph.h"
#include "mdview.h"
#include "panel.h"
#include "results.h"
#include "xmem.h"

enum lab_pane { PANE_READING, PANE_RESULTS };

struct lab_panel {
	struct panel base;
	struct sline_list reading; /* rendered for reading_w */
	int reading_w;
	const struct lab_spec *reading_lab;
	unsigned scroll[2];
	enum lab_pane focus;
	struct sline_list results; /* rendered on every draw */
	struct results_marks marks; /* where its hints are */
	unsigned reveal_hint;      /* 1-based: scroll to this hint at the next draw; 0 none */
};

char *lab_readme(const struct app *a, const struct lab_spec *spec, size_t *len)
{
	char *paths[2] = { xasprintf("%s/%s/README.md", a->ws, spec->id),
			   xasprintf("%s/README.md", spec->dir) };
	char *text = NULL;
	for (int i = 0; i < 2 && !text; i++) {
		FILE *f = fopen(paths[i], "r");
		if (!f)
			continue;
		size_t cap = 1 << 14, n = 0, got;
		text = xmalloc(cap);
		while ((got = fread(text + n, 1, cap - n, f)) > 0) {
			n += got;
			if (n == cap)
				text = xrealloc(text, cap *= 2);
		}
		fclose(f);
		*len = n;
	}
	free(paths[0]);
	free(paths[1]);
	return text;
}

static void lab_render_reading(struct lab_panel *lp, int width)
{
	struct app *a = lp->base.app;
	if (lp->reading_lab == a->open && lp->reading_w == width)
		return;
	sline_list_release(&lp->reading);
	lp->reading_lab = a->open;
	lp->reading_w = width;
	size_t len = 0;
	char *md = lab_readme(a, a->open, &len);
	if (!md) {
		sline_list_addf(&lp->reading, ROLE_FAIL, "%s has no README.md.", a->open->id);
		return;
	}
	if (mdview_render(md, len, width, &lp->reading) != 0)
		sline_list_addf(&lp->reading, ROLE_FAIL,
				"README.md could not be read as Markdown.");
	free(md);
}

static void lab_render_results(struct lab_panel *lp, int width)
{
	struct app *a = lp->base.app;
	sline_list_release(&lp->results);
	const struct lab_state *st = state_find(&a->state, a->open->id);
	bool mine = a->report_lab == a->open;
	struct results_input in = {
		.spec = a->open,
		.student_path = a->student_path,
		.run = a->job_lab == a->open ? &a->run : NULL,
		.partial = a->job_lab == a->open ? a->partial : NULL,
		.report = mine ? a->report : NULL,
		.report_quick = a->report_quick,
		.elapsed_ms = a->elapsed_ms,
		.timing = mine ? &a->timing : NULL,
		.errors = mine ? &a->errors : NULL,
		.hints = st ? st->hints : 0,
		.notice = a->notice_lab == a->open ? a->notice : NULL,
		.width = width,
	};
	results_render(&in, &lp->results, &lp->marks);
}

/* After a hint is revealed: scroll the results so that it shows, its end on the last
 * row (so what comes before stays in view) unless it is taller than the pane, then from
 * its first line. A hint already in view leaves the scroll alone. */
static void lab_scroll_to_hint(struct lab_panel *lp, int h)
{
	unsigned i = lp->reveal_hint - 1;
	lp->reveal_hint = 0;
	if (i >= lp->marks.nhints || h <= 0)
		return;
	unsigned first = lp->marks.hint_first[i], end = lp->marks.hint_end[i];
	unsigned *scroll = &lp->scroll[PANE_RESULTS];
	if (first >= *scroll && end <= *scroll + (unsigned)h)
		return;
	unsigned top = end > (unsigned)h ? end - (unsigned)h : 0;
	*scroll = top > first ? first : top;
}

/* Keeps a scroll offset inside the content. */
static unsigned clamp_scroll(unsigned scroll, unsigned n, int h)
{
	unsigned max = n > (unsigned)h ? n - (unsigned)h : 0;
	return scroll > max ? max : scroll;
}

static void lab_draw_pane(struct lab_panel *lp, enum lab_pane pane, const struct rect *r)
{
	struct sline_list *l = pane == PANE_READING ? &lp->reading : &lp->results;
	struct rect in = { r->y, r->x + 1, r->h, r->w - 2 };
	lp->scroll[pane] = clamp_scroll(lp->scroll[pane], l->n, r->h);
	struct rect full = *r;
	draw_fill(&full, ROLE_NORMAL);
	draw_slines(&in, l, lp->scroll[pane]);
	/* A "more below" mark on the last row's right edge. */
	if (lp->scroll[pane] + (unsigned)r->h < l->n)
		draw_text(r->y + r->h - 1, r->x + r->w - 1, 1, ROLE_MARKER, "v");
}

static void lab_draw_tabs(struct lab_panel *lp, const struct rect *r)
{
	draw_fill(r, ROLE_NORMAL);
	int x = 1;
	x += draw_text(r->y, x, r->w - x, lp->focus == PANE_READING ? ROLE_TAB_ACTIVE : ROLE_TAB,
		       " Reading ");
	x += 1;
	x += draw_text(r->y, x, r->w - x, lp->focus == PANE_RESULTS ? ROLE_TAB_ACTIVE : ROLE_TAB,
		       " Results ");
	draw_text(r->y, x + 2, r->w - x - 2, ROLE_DIM, "Tab switches");
}

static void lab_draw(struct panel *p)
{
	struct lab_panel *lp = (struct lab_panel *)p;
	struct app *a = p->app;
	const struct layout *l = &a->layout;
	if (!a->open)
		return;
	lab_render_reading(lp, l->reading.w - 2);
	lab_render_results(lp, l->results.w - 2);
	if (lp->reveal_hint)
		lab_scroll_to_hint(lp, l->results.h);
	if (l->split) {
		lab_draw_pane(lp, PANE_READING, &l->reading);
		for (int y = 0; y < l->divider.h; y++)
			draw_text(l->divider.y + y, l->divider.x, 1, ROLE_MARKER,
				  glyph(GLYPH_VBAR));
		lab_draw_pane(lp, PANE_RESULTS, &l->results);
	} else {
		lab_draw_tabs(lp, &l->tabs);
		lab_draw_pane(lp, lp->focus, lp->focus == PANE_READING ? &l->reading : &l->results);
	}
}

static unsigned lab_key(struct panel *p, enum ui_action action, int key)
{
	(void)key;
	struct lab_panel *lp = (struct lab_panel *)p;
	const struct layout *l = &p->app->layout;
	unsigned *s = &lp->scroll[lp->focus];
	unsigned page = (unsigned)(l->reading.h > 2 ? l->reading.h - 2 : 1);
	switch (action) {
	case ACT_UP: *s = *s ? *s - 1 : 0; break;
	case ACT_DOWN: (*s)++; break;
	case ACT_PGUP: *s = *s > page ? *s - page : 0; break;
	case ACT_PGDN: *s += page; break;
	case ACT_HOME: *s = 0; break;
	case ACT_END:
		*s = 1u << 30; /* clamped when drawn */
		break;
	case ACT_SWITCH: lp->focus = lp->focus == PANE_READING ? PANE_RESULTS : PANE_READING; break;
	default: return 0;
	}
	return ACTION_HANDLED | ACTION_REDRAW;
}

static void lab_resize(struct panel *p, const struct layout *l)
{
	(void)l;
	struct lab_panel *lp = (struct lab_panel *)p;
	lp->reading_w = 0; /* re-wrap the reading at the new width */
}

static void lab_destroy(struct panel *p)
{
	struct lab_panel *lp = (struct lab_panel *)p;
	if (!lp)
		return;
	sline_list_release(&lp->reading);
	sline_list_release(&lp->results);
	free(lp);
}

void lab_panel_open(struct panel *p)
{
	struct lab_panel *lp = (struct lab_panel *)p;
	lp->reading_lab = NULL;
	lp->scroll[0] = lp->scroll[1] = 0;
	lp->focus = PANE_READING;
}

void lab_panel_show_results(struct panel *p)
{
	struct lab_panel *lp = (struct lab_panel *)p;
	lp->focus = PANE_RESULTS;
	lp->scroll[PANE_RESULTS] = 0;
	lp->reveal_hint = 0;
}

void lab_panel_show_hint(struct panel *p, unsigned hint)
{
	struct lab_panel *lp = (struct lab_panel *)p;
	lp->focus = PANE_RESULTS;
	lp->reveal_hint = hint;
}

static const struct panel_class lab_class = {
	.name = "lab",
	.draw = lab_draw,
	.key = lab_key,
	.resize = lab_resize,
	.destroy = lab_destroy,
};

struct panel *lab_panel_new(struct app *app)
{
	struct lab_panel *lp = xcalloc(1, sizeof(*lp));
	lp->base = (struct panel){ .cls = &lab_class, .app = app };
	sline_list_init(&lp->reading);
	sline_list_init(&lp->results);
	return &lp->base;
}
