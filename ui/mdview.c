/* mdview: Markdown to screen lines. See mdview.h.
 *
 * md4c calls back per block and per span; inline text is gathered as cells (one code
 * point each, with its role and width) until the block that holds it ends, then
 * word-wrapped under the prefix of the enclosing containers (quote bars, list markers).
 * Tables are gathered whole and laid out when they end. */
#include "mdview.h"

#include <errno.h>
#include <md4c.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glyph.h"
#include "utf8.h"
#include "xmem.h"

#define MDV_MIN_WIDTH 20
#define MDV_MAX_DEPTH 32
#define MDV_CODE_INDENT 2

struct cell {
	char b[4];
	uint8_t n; /* bytes in b; 0 for a forced line break */
	uint8_t w; /* cells on screen */
	uint8_t role;
};

struct cells {
	struct cell *v;
	unsigned n, cap;
};

enum container_kind { CT_QUOTE, CT_UL, CT_OL, CT_LI };

struct container {
	enum container_kind kind;
	bool tight;	 /* lists */
	unsigned next;	 /* CT_OL: the number of the next item */
	unsigned items;	 /* lists: items seen so far */
	char marker[16]; /* CT_LI: "• " or "12. " */
	int marker_w;
	bool marker_pending; /* CT_LI: the marker is not drawn yet */
};

struct table {
	struct cells *cells; /* row-major, rows * cols */
	unsigned rows, cols, cap;
	int align[64];
	bool in_cell;
};

struct mdv {
	struct sline_list *out;
	int width;
	struct container stack[MDV_MAX_DEPTH];
	unsigned depth;
	enum ui_role spans[MDV_MAX_DEPTH];
	unsigned n_spans;
	unsigned heading; /* level of the heading being read, 0 outside */
	bool in_code, in_html;
	bool blank_pending;
	bool any_output;
	struct cells inl; /* inline text of the current block */
	char *code;	  /* text of the current code block */
	size_t code_len, code_cap;
	struct table table;
	bool in_table;
};

static void cells_push(struct cells *c, struct cell cell)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n++] = cell;
}

/* Appends TEXT as cells in ROLE; in ASCII mode each non-ASCII code point becomes its
 * fallback spelling so that widths stay true. */
static void cells_add(struct cells *c, const char *text, size_t n, enum ui_role role)
{
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		size_t len = utf8_decode(text + i, n - i, &cp);
		if (cp == '\t' || cp == '\r' || cp == '\n')
			cp = ' ';
		if (cp >= 0x80 && glyph_ascii()) {
			for (const char *f = utf8_ascii_fallback(cp); *f; f++)
				cells_push(c, (struct cell){ { *f }, 1, 1, (uint8_t)role });
		} else {
			struct cell cell = { .w = (uint8_t)utf8_cp_width(cp),
					     .role = (uint8_t)role };
			cell.n = (uint8_t)utf8_encode(cp, cell.b);
			if (cp >= 0x20)
				cells_push(c, cell);
		}
		i += len;
	}
}

static int cells_width(const struct cell *v, unsigned n)
{
	int w = 0;
	for (unsigned i = 0; i < n; i++)
		w += v[i].w;
	return w;
}

static void sline_cells(struct sline *s, const struct cell *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sline_append(s, (enum ui_role)v[i].role, v[i].b, v[i].n);
}

/* The width taken by the prefixes of the enclosing containers. */
static int mdv_prefix_width(const struct mdv *m)
{
	int w = 0;
	for (unsigned i = 0; i < m->depth; i++) {
		if (m->stack[i].kind == CT_QUOTE)
			w += 2;
		else if (m->stack[i].kind == CT_LI)
			w += m->stack[i].marker_w;
	}
	return w;
}

/* Starts a new output line with the containers' prefix. MARKERS says whether pending
 * list markers are drawn (content lines) or left for later (blank lines). */
static struct sline *mdv_line(struct mdv *m, bool markers)
{
	struct sline *s = sline_list_add(m->out);
	for (unsigned i = 0; i < m->depth; i++) {
		struct container *c = &m->stack[i];
		if (c->kind == CT_QUOTE) {
			sline_puts(s, ROLE_QUOTE, glyph(GLYPH_VBAR));
			sline_puts(s, ROLE_QUOTE, " ");
		} else if (c->kind == CT_LI) {
			if (markers && c->marker_pending) {
				sline_puts(s, ROLE_MARKER, c->marker);
				c->marker_pending = false;
			} else {
				sline_printf(s, ROLE_NORMAL, "%*s", c->marker_w, "");
			}
		}
	}
	m->any_output = true;
	return s;
}

/* Drops the spaces at the end of S (and the spans left empty). */
static void line_rtrim(struct sline *s)
{
	while (s->len && s->text[s->len - 1] == ' ')
		s->text[--s->len] = '\0';
	while (s->n_spans && s->spans[s->n_spans - 1].start >= s->len)
		s->n_spans--;
	if (s->n_spans && s->spans[s->n_spans - 1].start + s->spans[s->n_spans - 1].len > s->len)
		s->spans[s->n_spans - 1].len = s->len - s->spans[s->n_spans - 1].start;
}

/* Emits the blank line a previous block asked for, if any content came before. */
static void mdv_blank(struct mdv *m)
{
	if (m->blank_pending && m->any_output) {
		/* A blank line ends with its prefix's text; trim the trailing spaces. */
		line_rtrim(mdv_line(m, false));
	}
	m->blank_pending = false;
}

static int mdv_avail(const struct mdv *m)
{
	int avail = m->width - mdv_prefix_width(m);
	return avail < 10 ? 10 : avail;
}

/* Word-wraps the gathered inline cells under the current prefix, then forgets them. */
static void mdv_flush(struct mdv *m)
{
	struct cells *c = &m->inl;
	unsigned pos = 0;
	while (pos < c->n && c->v[pos].n == 1 && c->v[pos].b[0] == ' ')
		pos++;
	if (pos >= c->n) {
		c->n = 0;
		return;
	}
	mdv_blank(m);
	int avail = mdv_avail(m);
	while (pos < c->n) {
		int w = 0;
		unsigned end = c->n, brk = pos, i;
		for (i = pos; i < c->n; i++) {
			const struct cell *cl = &c->v[i];
			if (cl->n == 0) {
				end = i;
				break;
			}
			if (cl->n == 1 && cl->b[0] == ' ')
				brk = i;
			if (w + cl->w > avail) {
				end = brk > pos ? brk : i;
				break;
			}
			w += cl->w;
		}
		unsigned stop = end;
		while (stop > pos && c->v[stop - 1].n == 1 && c->v[stop - 1].b[0] == ' ')
			stop--;
		struct sline *s = mdv_line(m, true);
		sline_cells(s, c->v + pos, stop - pos);
		pos = end;
		if (pos < c->n && c->v[pos].n == 0)
			pos++;
		while (pos < c->n && c->v[pos].n == 1 && c->v[pos].b[0] == ' ')
			pos++;
	}
	c->n = 0;
}

static enum ui_role mdv_role(const struct mdv *m)
{
	enum ui_role span = m->n_spans ? m->spans[m->n_spans - 1] : ROLE_NORMAL;
	if (m->heading && span != ROLE_CODE)
		return m->heading == 1 ? ROLE_H1 : m->heading == 2 ? ROLE_H2 : ROLE_H3;
	if (span == ROLE_NORMAL) {
		for (unsigned i = 0; i < m->depth; i++)
			if (m->stack[i].kind == CT_QUOTE)
				return ROLE_QUOTE;
	}
	return span;
}

static void mdv_push(struct mdv *m, struct container c)
{
	if (m->depth < MDV_MAX_DEPTH)
		m->stack[m->depth] = c;
	m->depth++;
}

static void mdv_pop(struct mdv *m)
{
	if (m->depth)
		m->depth--;
}

static struct container *mdv_top(struct mdv *m)
{
	return m->depth && m->depth <= MDV_MAX_DEPTH ? &m->stack[m->depth - 1] : NULL;
}

static bool mdv_in_list(const struct mdv *m)
{
	for (unsigned i = 0; i < m->depth && i < MDV_MAX_DEPTH; i++)
		if (m->stack[i].kind == CT_LI)
			return true;
	return false;
}

/* Appends the cells of one code line to S in AVAIL cells. A longer line is cut, and a
 * marker in its last cell says so: wrapping would break a diagram's shape, and a
 * character moved to the next row reads as code that is not there. */
static void mdv_code_cut(struct sline *s, const struct cells *line, int avail)
{
	if (cells_width(line->v, line->n) <= avail) {
		sline_cells(s, line->v, line->n);
		return;
	}
	const char *mark = glyph(GLYPH_CUT);
	int room = avail - utf8_width(mark, strlen(mark));
	unsigned q = 0;
	int w = 0;
	while (q < line->n && w + line->v[q].w <= room)
		w += line->v[q++].w;
	sline_cells(s, line->v, q);
	sline_puts(s, ROLE_MARKER, mark);
}

static void mdv_code_lines(struct mdv *m)
{
	size_t len = m->code_len;
	while (len && m->code[len - 1] == '\n')
		len--;
	mdv_blank(m);
	/* Indent code, unless that would break lines (a diagram) that fit without it. */
	int widest = 0, indent = MDV_CODE_INDENT;
	for (size_t a = 0, b; a < len; a = b + 1) {
		int w = 0;
		for (b = a; b < len && m->code[b] != '\n'; b++)
			w += m->code[b] == '\t' ? 4 : (m->code[b] & 0xc0) != 0x80;
		widest = w > widest ? w : widest;
	}
	if (widest + MDV_CODE_INDENT > mdv_avail(m))
		indent = 0;
	int avail = mdv_avail(m) - indent;
	size_t i = 0;
	while (i <= len && len) {
		size_t j = i;
		while (j < len && m->code[j] != '\n')
			j++;
		/* Tabs become 4 spaces; a line too long for the screen is cut. */
		struct cells line = { 0 };
		for (size_t k = i; k < j; k++) {
			if (m->code[k] == '\t')
				cells_add(&line, "    ", 4, ROLE_CODEBLOCK);
			else {
				uint32_t cp;
				size_t n = utf8_decode(m->code + k, j - k, &cp);
				cells_add(&line, m->code + k, n, ROLE_CODEBLOCK);
				k += n - 1;
			}
		}
		struct sline *s = mdv_line(m, true);
		if (indent)
			sline_printf(s, ROLE_NORMAL, "%*s", indent, "");
		mdv_code_cut(s, &line, avail);
		free(line.v);
		i = j + 1;
		if (j >= len)
			break;
	}
	m->code_len = 0;
	m->blank_pending = true;
}

static void mdv_rule(struct mdv *m, enum glyph g, int w, enum ui_role role)
{
	struct sline *s = mdv_line(m, true);
	for (int i = 0; i < w; i++)
		sline_puts(s, role, glyph(g));
}

static struct cells *table_cell(struct table *t, unsigned row, unsigned col)
{
	return &t->cells[row * t->cols + col];
}

/* A piece of a cell: cells [a, b) on one screen line. */
struct seg {
	unsigned a, b;
};

static bool cell_space(const struct cell *c)
{
	return c->n == 1 && c->b[0] == ' ';
}

/* Splits N cells into lines of at most W cells, at spaces where it can (a word longer
 * than W is split), leaving out the spaces at the breaks. Returns the count (at least
 * one) and sets *out to a malloc'd array. */
static unsigned cells_wrap(const struct cell *v, unsigned n, int w, struct seg **out)
{
	struct seg *segs = xmalloc((n + 1) * sizeof(*segs));
	unsigned count = 0, pos = 0;
	while (pos < n && cell_space(&v[pos]))
		pos++;
	while (pos < n) {
		unsigned end = n, brk = pos;
		int used = 0;
		for (unsigned i = pos; i < n; i++) {
			if (cell_space(&v[i]))
				brk = i;
			if (used + v[i].w > w && i > pos) {
				end = brk > pos ? brk : i;
				break;
			}
			used += v[i].w;
		}
		unsigned stop = end;
		while (stop > pos && cell_space(&v[stop - 1]))
			stop--;
		segs[count++] = (struct seg){ pos, stop };
		pos = end;
		while (pos < n && cell_space(&v[pos]))
			pos++;
	}
	if (!count)
		segs[count++] = (struct seg){ 0, 0 };
	*out = segs;
	return count;
}

/* Column widths for the table in AVAIL cells: each as wide as its widest cell, the
 * widest shrunk first while the table is too wide (their text then wraps). */
static void table_widths(struct table *t, int avail, int sepw, int *colw)
{
	for (unsigned r = 0; r < t->rows; r++)
		for (unsigned c = 0; c < t->cols; c++) {
			struct cells *cl = table_cell(t, r, c);
			int w = cells_width(cl->v, cl->n);
			if (w > colw[c])
				colw[c] = w;
		}
	for (;;) {
		int total = 1;
		unsigned widest = 0;
		for (unsigned c = 0; c < t->cols; c++) {
			total += colw[c] + (c ? sepw : 0);
			if (colw[c] > colw[widest])
				widest = c;
		}
		if (total <= avail || colw[widest] <= 3)
			break;
		colw[widest]--;
	}
}

/* One screen line of a table row: line K of each cell's wrapped text. */
static void table_line(struct mdv *m, struct cells *row, struct seg **segs, unsigned *nsegs,
		       unsigned k, const int *colw)
{
	struct table *t = &m->table;
	struct sline *s = mdv_line(m, true);
	sline_puts(s, ROLE_NORMAL, " ");
	for (unsigned c = 0; c < t->cols; c++) {
		if (c) {
			sline_puts(s, ROLE_NORMAL, " ");
			sline_puts(s, ROLE_MARKER, glyph(GLYPH_VBAR));
			sline_puts(s, ROLE_NORMAL, " ");
		}
		struct seg g = k < nsegs[c] ? segs[c][k] : (struct seg){ 0, 0 };
		int w = cells_width(row[c].v + g.a, g.b - g.a);
		int pad = colw[c] > w ? colw[c] - w : 0;
		int left = t->align[c] == MD_ALIGN_RIGHT    ? pad
			   : t->align[c] == MD_ALIGN_CENTER ? pad / 2
							    : 0;
		if (left)
			sline_printf(s, ROLE_NORMAL, "%*s", left, "");
		sline_cells(s, row[c].v + g.a, g.b - g.a);
		if (c + 1 < t->cols && pad - left)
			sline_printf(s, ROLE_NORMAL, "%*s", pad - left, "");
	}
	line_rtrim(s); /* a row whose last cells ended above */
}

/* The rule under the header row. */
static void table_rule(struct mdv *m, const int *colw)
{
	struct table *t = &m->table;
	struct sline *u = mdv_line(m, true);
	for (unsigned c = 0; c < t->cols; c++) {
		if (c)
			sline_puts(u, ROLE_MARKER, glyph(GLYPH_CROSS));
		/* " cell " between bars; the first has no bar before, the last no space after. */
		for (int i = 0; i < colw[c] + 1 + (c + 1 < t->cols ? 1 : 0); i++)
			sline_puts(u, ROLE_MARKER, glyph(GLYPH_RULE));
	}
}

/* Lays the gathered table out: columns as wide as their widest cell, shrunk from the
 * widest down when the screen is narrower; a cell too long for its column wraps inside
 * it, so no text is lost (two cut cells could read the same). */
static void mdv_table(struct mdv *m)
{
	struct table *t = &m->table;
	if (!t->rows || !t->cols)
		goto out;
	mdv_blank(m);
	int colw[64] = { 0 };
	int sepw = utf8_width(glyph(GLYPH_VBAR), strlen(glyph(GLYPH_VBAR))) + 2;
	table_widths(t, mdv_avail(m), sepw, colw);
	struct seg *segs[64];
	unsigned nsegs[64];
	for (unsigned r = 0; r < t->rows; r++) {
		struct cells *row = table_cell(t, r, 0);
		unsigned height = 1;
		for (unsigned c = 0; c < t->cols; c++) {
			nsegs[c] = cells_wrap(row[c].v, row[c].n, colw[c], &segs[c]);
			height = nsegs[c] > height ? nsegs[c] : height;
		}
		for (unsigned k = 0; k < height; k++)
			table_line(m, row, segs, nsegs, k, colw);
		for (unsigned c = 0; c < t->cols; c++)
			free(segs[c]);
		if (r == 0 && t->rows > 1)
			table_rule(m, colw);
	}
	m->blank_pending = true;
out:
	for (unsigned i = 0; i < t->rows * t->cols; i++)
		free(t->cells[i].v);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static void table_add_row(struct table *t)
{
	unsigned need = (t->rows + 1) * t->cols;
	if (need > t->cap) {
		t->cap = need * 2;
		t->cells = xrealloc(t->cells, t->cap * sizeof(*t->cells));
	}
	memset(&t->cells[t->rows * t->cols], 0, t->cols * sizeof(*t->cells));
	t->rows++;
}

/* The column of the last row that the open cell fills: the first without content. */
static unsigned table_open_col(struct table *t)
{
	unsigned col = 0;
	while (col < t->cols && table_cell(t, t->rows - 1, col)->cap)
		col++;
	return col;
}

static int mdv_enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
	struct mdv *m = ud;
	if (type != MD_BLOCK_DOC && !m->in_table)
		mdv_flush(m);
	switch (type) {
	case MD_BLOCK_QUOTE:
		mdv_blank(m); /* the blank line before a quote has no bar */
		mdv_push(m, (struct container){ .kind = CT_QUOTE });
		break;
	case MD_BLOCK_UL:
	case MD_BLOCK_OL: {
		struct container c = { .kind = type == MD_BLOCK_UL ? CT_UL : CT_OL };
		if (type == MD_BLOCK_UL) {
			c.tight = ((MD_BLOCK_UL_DETAIL *)detail)->is_tight;
		} else {
			c.tight = ((MD_BLOCK_OL_DETAIL *)detail)->is_tight;
			c.next = ((MD_BLOCK_OL_DETAIL *)detail)->start;
		}
		/* A nested list sits right under its item's text. */
		if (mdv_in_list(m))
			m->blank_pending = false;
		mdv_push(m, c);
		break;
	}
	case MD_BLOCK_LI: {
		struct container *list = mdv_top(m);
		struct container c = { .kind = CT_LI, .marker_pending = true };
		unsigned nest = 0;
		for (unsigned i = 0; i < m->depth && i < MDV_MAX_DEPTH; i++)
			nest += m->stack[i].kind == CT_UL;
		if (list && list->kind == CT_OL)
			snprintf(c.marker, sizeof(c.marker), "%u. ", list->next++);
		else
			snprintf(c.marker, sizeof(c.marker), "%s ",
				 glyph(nest % 2 ? GLYPH_BULLET1 : GLYPH_BULLET2));
		c.marker_w = utf8_width(c.marker, strlen(c.marker));
		if (list && list->tight && list->items)
			m->blank_pending = false;
		if (list)
			list->items++;
		mdv_push(m, c);
		break;
	}
	case MD_BLOCK_HR:
		mdv_blank(m);
		mdv_rule(m, GLYPH_RULE, mdv_avail(m), ROLE_MARKER);
		m->blank_pending = true;
		break;
	case MD_BLOCK_H: m->heading = ((MD_BLOCK_H_DETAIL *)detail)->level; break;
	case MD_BLOCK_CODE:
		m->in_code = true;
		m->code_len = 0;
		break;
	case MD_BLOCK_HTML: m->in_html = true; break;
	case MD_BLOCK_TABLE:
		m->in_table = true;
		memset(&m->table, 0, sizeof(m->table));
		m->table.cols = ((MD_BLOCK_TABLE_DETAIL *)detail)->col_count;
		if (m->table.cols > 64)
			m->table.cols = 64;
		break;
	case MD_BLOCK_TR: table_add_row(&m->table); break;
	case MD_BLOCK_TH:
	case MD_BLOCK_TD: {
		struct table *t = &m->table;
		unsigned col = table_open_col(t);
		if (t->rows == 1 && col < t->cols)
			t->align[col] = ((MD_BLOCK_TD_DETAIL *)detail)->align;
		m->inl.n = 0;
		t->in_cell = true;
		break;
	}
	default: break;
	}
	return 0;
}

static int mdv_leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
	(void)detail;
	struct mdv *m = ud;
	switch (type) {
	case MD_BLOCK_TH:
	case MD_BLOCK_TD: {
		struct table *t = &m->table;
		unsigned col = table_open_col(t);
		if (col < t->cols) {
			struct cells *cl = table_cell(t, t->rows - 1, col);
			*cl = m->inl;
			if (!cl->cap) { /* an empty cell still takes its column */
				cl->cap = 1;
				cl->v = xmalloc(sizeof(*cl->v));
			}
			memset(&m->inl, 0, sizeof(m->inl));
		} else {
			m->inl.n = 0;
		}
		t->in_cell = false;
		return 0;
	}
	case MD_BLOCK_TABLE:
		m->in_table = false;
		mdv_table(m);
		return 0;
	default: break;
	}
	if (m->in_table)
		return 0;
	mdv_flush(m);
	switch (type) {
	case MD_BLOCK_QUOTE:
		mdv_pop(m);
		m->blank_pending = true;
		break;
	case MD_BLOCK_UL:
	case MD_BLOCK_OL:
		mdv_pop(m);
		m->blank_pending = true;
		break;
	case MD_BLOCK_LI: mdv_pop(m); break;
	case MD_BLOCK_H: {
		unsigned level = m->heading;
		m->heading = 0;
		if (level <= 2 && m->out->n) {
			int w = sline_width(&m->out->lines[m->out->n - 1]) - mdv_prefix_width(m);
			mdv_rule(m, level == 1 ? GLYPH_RULE2 : GLYPH_RULE, w,
				 level == 1 ? ROLE_H1 : ROLE_H2);
		}
		m->blank_pending = true;
		break;
	}
	case MD_BLOCK_CODE:
		m->in_code = false;
		mdv_code_lines(m);
		break;
	case MD_BLOCK_HTML: m->in_html = false; break;
	case MD_BLOCK_P: m->blank_pending = true; break;
	default: break;
	}
	return 0;
}

static int mdv_enter_span(MD_SPANTYPE type, void *detail, void *ud)
{
	(void)detail;
	struct mdv *m = ud;
	enum ui_role r = m->n_spans ? m->spans[m->n_spans - 1] : ROLE_NORMAL;
	switch (type) {
	case MD_SPAN_EM:
		if (r != ROLE_STRONG)
			r = ROLE_EMPH;
		break;
	case MD_SPAN_STRONG: r = ROLE_STRONG; break;
	case MD_SPAN_CODE:
	case MD_SPAN_LATEXMATH:
	case MD_SPAN_LATEXMATH_DISPLAY: r = ROLE_CODE; break;
	case MD_SPAN_A:
	case MD_SPAN_WIKILINK: r = ROLE_LINK; break;
	case MD_SPAN_IMG:
		cells_add(&m->inl, "[image: ", 8, ROLE_DIM);
		r = ROLE_DIM;
		break;
	default: break;
	}
	if (m->n_spans < MDV_MAX_DEPTH)
		m->spans[m->n_spans++] = r;
	return 0;
}

static int mdv_leave_span(MD_SPANTYPE type, void *detail, void *ud)
{
	(void)detail;
	struct mdv *m = ud;
	if (type == MD_SPAN_IMG)
		cells_add(&m->inl, "]", 1, ROLE_DIM);
	if (m->n_spans)
		m->n_spans--;
	return 0;
}

/* The few named entities a reading uses, and numeric ones. */
static void mdv_entity(struct mdv *m, const char *t, size_t n)
{
	static const struct {
		const char *name;
		uint32_t cp;
	} names[] = { { "&amp;", '&' },	    { "&lt;", '<' },	   { "&gt;", '>' },
		      { "&quot;", '"' },    { "&apos;", '\'' },	   { "&nbsp;", ' ' },
		      { "&times;", 0xd7 },  { "&mdash;", 0x2014 }, { "&ndash;", 0x2013 },
		      { "&rarr;", 0x2192 }, { "&le;", 0x2264 },	   { "&ge;", 0x2265 } };
	uint32_t cp = 0;
	if (n > 3 && t[1] == '#')
		cp = (uint32_t)strtoul(t + 2 + (t[2] == 'x' || t[2] == 'X'), NULL,
				       t[2] == 'x' || t[2] == 'X' ? 16 : 10);
	for (size_t i = 0; !cp && i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, t, n) == 0)
			cp = names[i].cp;
	if (!cp || cp > 0x10ffff) {
		cells_add(&m->inl, t, n, mdv_role(m));
		return;
	}
	char buf[4];
	cells_add(&m->inl, buf, utf8_encode(cp, buf), mdv_role(m));
}

static int mdv_text(MD_TEXTTYPE type, const MD_CHAR *text, MD_SIZE size, void *ud)
{
	struct mdv *m = ud;
	if (m->in_html)
		return 0;
	if (m->in_code) {
		if (m->code_len + size + 1 > m->code_cap) {
			m->code_cap = (m->code_len + size + 1) * 2;
			m->code = xrealloc(m->code, m->code_cap);
		}
		memcpy(m->code + m->code_len, text, size);
		m->code_len += size;
		return 0;
	}
	switch (type) {
	case MD_TEXT_BR: cells_push(&m->inl, (struct cell){ .n = 0 }); break;
	case MD_TEXT_SOFTBR: cells_add(&m->inl, " ", 1, mdv_role(m)); break;
	case MD_TEXT_ENTITY: mdv_entity(m, text, size); break;
	case MD_TEXT_HTML: break;
	case MD_TEXT_NULLCHAR: cells_add(&m->inl, "\xef\xbf\xbd", 3, mdv_role(m)); break;
	default: cells_add(&m->inl, text, size, mdv_role(m)); break;
	}
	return 0;
}

int mdview_render(const char *text, size_t len, int width, struct sline_list *out)
{
	struct mdv m = { .out = out, .width = width < MDV_MIN_WIDTH ? MDV_MIN_WIDTH : width };
	MD_PARSER parser = {
		.abi_version = 0,
		.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_NOHTMLSPANS,
		.enter_block = mdv_enter_block,
		.leave_block = mdv_leave_block,
		.enter_span = mdv_enter_span,
		.leave_span = mdv_leave_span,
		.text = mdv_text,
	};
	int rc = md_parse(text, (MD_SIZE)len, &parser, &m);
	mdv_flush(&m);
	free(m.inl.v);
	free(m.code);
	for (unsigned i = 0; i < m.table.rows * m.table.cols; i++)
		free(m.table.cells[i].v);
	free(m.table.cells);
	return rc ? -EINVAL : 0;
}
