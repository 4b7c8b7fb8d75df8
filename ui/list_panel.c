/* list_panel: the lab list (chapter, title, status, best score) and, below it, the
 * selected lab's summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "draw.h"
#include "glyph.h"
#include "mdview.h"
#include "panel.h"
#include "xmem.h"

struct list_panel {
	struct panel base;
	unsigned top; /* first lab shown */
};

/* Columns: marker, id, chapter, status, best, then the title in what is left, so that
 * a lab's status sits by its name at any width (issue 18: at 200 columns it was 150
 * columns away, at the right edge, after the title's blank space). */
enum { COL_ID = 2, COL_CH = 18, COL_STATUS = 22, COL_BEST = 40, COL_TITLE = 54 };

/* "✔ passed", "✘ failing (quick)" (the latest run was a quick one), "… quick run" while
 * the lab's run goes. */
static void list_status_cell(const struct app *a, const struct lab_spec *spec,
			     const struct lab_state *st, char *buf, size_t n, enum ui_role *role)
{
	if (job_busy(a->job) && a->job_lab == spec) {
		*role = ROLE_RUNNING;
		snprintf(buf, n, "%s %s", glyph(GLYPH_ELLIPSIS), a->run.quick ? "quick run" : "grading");
		return;
	}
	enum lab_status s = st ? st->status : LAB_NOT_STARTED;
	enum glyph g = s == LAB_PASSED ? GLYPH_PASS : s == LAB_FAILING ? GLYPH_FAIL : GLYPH_PENDING;
	*role = s == LAB_PASSED ? ROLE_PASS : s == LAB_FAILING ? ROLE_FAIL : ROLE_DIM;
	snprintf(buf, n, "%s %s%s", glyph(g), state_status_name(s),
		 s != LAB_NOT_STARTED && st->last_quick ? " (quick)" : "");
}

/* The best full grade, else the best quick run marked as such (quick runs skip the
 * large datasets: not a grade, but what the student has done so far), else "-". */
static void list_best_cell(const struct lab_state *st, char *buf, size_t n, enum ui_role *role)
{
	*role = ROLE_NORMAL;
	if (st && st->best_max > 0) {
		snprintf(buf, n, "%g/%g", st->best, st->best_max);
	} else if (st && st->best_quick_max > 0) {
		snprintf(buf, n, "%g/%g quick", st->best_quick, st->best_quick_max);
		*role = ROLE_DIM;
	} else {
		snprintf(buf, n, "-");
	}
}

static void list_row(struct app *a, const struct lab_spec *spec, int y, int w, bool sel)
{
	const struct lab_state *st = state_find(&a->state, spec->id);
	enum ui_role base = sel ? ROLE_SELECTED : ROLE_NORMAL;
	struct rect row = { y, 0, 1, w };
	draw_fill(&row, base);
	char status[48], best[48];
	enum ui_role srole, brole;
	list_status_cell(a, spec, st, status, sizeof(status), &srole);
	list_best_cell(st, best, sizeof(best), &brole);
	draw_text(y, 0, 2, base, sel ? glyph(GLYPH_RUNNING) : " ");
	draw_text(y, COL_ID, COL_CH - COL_ID - 1, base, spec->id);
	char ch[8];
	snprintf(ch, sizeof(ch), "%3u", spec->chapter);
	draw_text(y, COL_CH, COL_STATUS - COL_CH, sel ? base : ROLE_DIM, ch);
	draw_text(y, COL_STATUS, COL_BEST - COL_STATUS - 1, sel ? base : srole, status);
	draw_text(y, COL_BEST, COL_TITLE - COL_BEST - 1, sel ? base : brole, best);
	draw_text_cut(y, COL_TITLE, w - COL_TITLE - 1, base, spec->title ? spec->title : "");
}

/* Fills the summary's spare rows (a tall screen has many) with the start of the lab's
 * reading, its title left out (the summary has it), and says where the rest is. */
static void list_preview(struct app *a, const struct lab_spec *spec, int w, int h,
			 struct sline_list *lines)
{
	int room = h - (int)lines->n - 1;
	if (room < 3)
		return;
	size_t len = 0;
	char *md = lab_readme(a, spec, &len);
	if (!md)
		return;
	size_t skip = 0;
	if (len > 2 && md[0] == '#' && md[1] == ' ') /* the title line */
		while (skip < len && md[skip++] != '\n')
			;
	struct sline_list reading;
	sline_list_init(&reading);
	mdview_render(md + skip, len - skip, w, &reading);
	free(md);
	sline_list_add(lines);
	for (unsigned i = 0; i < reading.n && (int)i < room; i++) {
		struct sline *s = sline_list_add(lines);
		if ((int)i == room - 1 && reading.n > (unsigned)room) {
			sline_printf(s, ROLE_DIM, "%s Enter opens the lab to read on", glyph(GLYPH_ELLIPSIS));
			break;
		}
		const struct sline *from = &reading.lines[i];
		for (unsigned k = 0; k < from->n_spans; k++)
			sline_append(s, from->spans[k].role, from->text + from->spans[k].start,
				     from->spans[k].len);
	}
	sline_list_release(&reading);
}

static void list_draw_detail(struct app *a, const struct rect *r)
{
	const struct lab_spec *spec = app_selected(a);
	draw_fill(r, ROLE_NORMAL);
	if (!spec || r->h < 2)
		return;
	struct sline_list lines;
	sline_list_init(&lines);
	struct sline *s = sline_list_add(&lines);
	sline_printf(s, ROLE_H2, "%s", spec->title ? spec->title : spec->id);
	sline_printf(s, ROLE_DIM, "  chapter %u", spec->chapter);
	if (spec->summary)
		mdview_render(spec->summary, strlen(spec->summary), r->w - 2, &lines);
	char *file = xasprintf("%s/%s/%s", a->ws, spec->id, spec->student ? spec->student : "");
	sline_list_addf(&lines, ROLE_DIM, "Your file: %s", file);
	free(file);
	sline_list_addf(&lines, ROLE_DIM, "Enter opens the lab %s e edits %s r runs %s g grades %s p panels",
			glyph(GLYPH_SEP), glyph(GLYPH_SEP), glyph(GLYPH_SEP), glyph(GLYPH_SEP));
	struct rect in = { r->y + 1, 1, r->h - 1, r->w - 2 };
	list_preview(a, spec, in.w, in.h, &lines);
	struct rect rule = { r->y, 0, 1, r->w };
	draw_fill(&rule, ROLE_NORMAL);
	for (int x = 0; x < r->w; x++)
		draw_text(r->y, x, 1, ROLE_MARKER, glyph(GLYPH_RULE));
	draw_slines(&in, &lines, 0);
	sline_list_release(&lines);
}

static void list_draw(struct panel *p)
{
	struct list_panel *lp = (struct list_panel *)p;
	struct app *a = p->app;
	const struct rect *r = &a->layout.list;
	draw_fill(r, ROLE_NORMAL);
	int w = r->w;
	draw_text(r->y, COL_ID, COL_CH - COL_ID, ROLE_H3, "Lab");
	draw_text(r->y, COL_CH, COL_STATUS - COL_CH, ROLE_H3, " Ch");
	draw_text(r->y, COL_STATUS, COL_BEST - COL_STATUS, ROLE_H3, "Status");
	draw_text(r->y, COL_BEST, COL_TITLE - COL_BEST, ROLE_H3, "Best");
	draw_text(r->y, COL_TITLE, w - COL_TITLE, ROLE_H3, "Title");
	int rows = r->h - 1;
	if (a->selected < lp->top)
		lp->top = a->selected;
	if (rows > 0 && a->selected >= lp->top + (unsigned)rows)
		lp->top = a->selected - (unsigned)rows + 1;
	for (int i = 0; i < rows && lp->top + (unsigned)i < a->labs.n; i++) {
		unsigned k = lp->top + (unsigned)i;
		list_row(a, a->labs.labs[k], r->y + 1 + i, w, k == a->selected);
	}
	if (!a->labs.n)
		draw_text(r->y + 2, 2, w - 4, ROLE_FAIL, "No labs found: check --labs DIR.");
	if (!rect_empty(&a->layout.detail))
		list_draw_detail(a, &a->layout.detail);
}

static unsigned list_key(struct panel *p, enum ui_action action, int key)
{
	(void)key;
	struct app *a = p->app;
	unsigned n = a->labs.n;
	int page = a->layout.list.h > 2 ? a->layout.list.h - 2 : 1;
	switch (action) {
	case ACT_UP:
		if (a->selected > 0)
			a->selected--;
		break;
	case ACT_DOWN:
		if (a->selected + 1 < n)
			a->selected++;
		break;
	case ACT_PGUP:
		a->selected = a->selected > (unsigned)page ? a->selected - (unsigned)page : 0;
		break;
	case ACT_PGDN:
		a->selected = a->selected + (unsigned)page < n ? a->selected + (unsigned)page
			      : n			       ? n - 1
							       : 0;
		break;
	case ACT_HOME: a->selected = 0; break;
	case ACT_END: a->selected = n ? n - 1 : 0; break;
	case ACT_OPEN:
		if (n)
			app_open_lab(a, a->selected);
		break;
	default: return 0;
	}
	return ACTION_HANDLED | ACTION_REDRAW;
}

static void list_resize(struct panel *p, const struct layout *l)
{
	(void)p;
	(void)l;
}

static void list_destroy(struct panel *p)
{
	free(p);
}

static const struct panel_class list_class = {
	.name = "list",
	.draw = list_draw,
	.key = list_key,
	.resize = list_resize,
	.destroy = list_destroy,
};

struct panel *list_panel_new(struct app *app)
{
	struct list_panel *lp = xcalloc(1, sizeof(*lp));
	lp->base = (struct panel){ .cls = &list_class, .app = app };
	return &lp->base;
}
