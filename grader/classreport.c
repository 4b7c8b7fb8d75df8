/* classreport: see classreport.h. The sections are written once, through a small
 * document interface (headings, paragraphs, tables with an optional bar per row) that
 * has a Markdown and an HTML form. */
#include "classreport.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct doc {
	FILE *f;
	bool html;
	unsigned cols;     /* of the open table */
	bool bar;          /* the open table has a bar column */
};

/* Text for the page: HTML-escaped or Markdown-escaped (table cells: pipes). */
static void put_text(struct doc *d, const char *s)
{
	for (; *s; s++) {
		if (d->html && *s == '<')
			fputs("&lt;", d->f);
		else if (d->html && *s == '>')
			fputs("&gt;", d->f);
		else if (d->html && *s == '&')
			fputs("&amp;", d->f);
		else if (d->html && *s == '"')
			fputs("&quot;", d->f);
		else if (!d->html && *s == '|')
			fputs("\\|", d->f);
		else if (!d->html && (*s == '\n' || *s == '\r'))
			fputc(' ', d->f);
		else
			fputc(*s, d->f);
	}
}

static void heading(struct doc *d, int level, const char *text)
{
	if (d->html) {
		fprintf(d->f, "<h%d>", level);
		put_text(d, text);
		fprintf(d->f, "</h%d>\n", level);
	} else {
		fprintf(d->f, "\n%.*s ", level, "####");
		put_text(d, text);
		fputs("\n\n", d->f);
	}
}

static void para(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void para(struct doc *d, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	fputs(d->html ? "<p>" : "", d->f);
	put_text(d, text ? text : "");
	fputs(d->html ? "</p>\n" : "\n\n", d->f);
	free(text);
}

static void table_start(struct doc *d, const char *const *heads, unsigned n, bool bar)
{
	d->cols = n;
	d->bar = bar;
	fputs(d->html ? "<table><tr>" : "|", d->f);
	for (unsigned i = 0; i < n + bar; i++) {
		fputs(!d->html ? " " : i < n ? "<th>" : "<th class=\"barcell\">", d->f);
		put_text(d, i < n ? heads[i] : "");
		fputs(d->html ? "</th>" : " |", d->f);
	}
	fputs(d->html ? "</tr>\n" : "\n|", d->f);
	for (unsigned i = 0; !d->html && i < n + bar; i++)
		fputs("---|", d->f);
	if (!d->html)
		fputc('\n', d->f);
}

/* One row; BAR in [0, 1] draws a bar of that length in the last column. */
static void table_row(struct doc *d, const char *const *cells, double bar, const char *cls)
{
	if (d->html)
		fprintf(d->f, "<tr%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	else
		fputc('|', d->f);
	for (unsigned i = 0; i < d->cols; i++) {
		fputs(d->html ? "<td>" : " ", d->f);
		put_text(d, cells[i] ? cells[i] : "");
		fputs(d->html ? "</td>" : " |", d->f);
	}
	if (d->bar && d->html)
		fprintf(d->f, "<td class=\"barcell\"><div class=\"bar\" style=\"width:%.1f%%\"></div></td>", 100 * bar);
	else if (d->bar) {
		fputc(' ', d->f);
		for (int i = 0; i < (int)lround(bar * 30); i++)
			fputs("\u2588", d->f);
		fputs(" |", d->f);
	}
	fputs(d->html ? "</tr>\n" : "\n", d->f);
}

static void table_end(struct doc *d)
{
	fputs(d->html ? "</table>\n" : "\n", d->f);
}

/* ---- the sections ---------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void summary(struct doc *d, const struct gradebook *gb)
{
	unsigned graded = gradebook_count(gb, GB_GRADED);
	double *s = calloc(graded ? graded : 1, sizeof(double)), sum = 0;
	unsigned k = 0, full = 0;
	for (unsigned i = 0; s && i < gb->n; i++)
		if (gb->rows[i].status == GB_GRADED) {
			s[k++] = gb->rows[i].score;
			sum += gb->rows[i].score;
			full += gb->rows[i].score >= gb->rows[i].max && gb->rows[i].max > 0;
		}
	if (s)
		qsort(s, k, sizeof(double), cmp_double);
	para(d, "Lab %s, backend %s, seed %llu: %u submissions; %u graded, %u could not be graded "
		"(%u invalid, %u grader errors), %u not graded yet.",
	     gb->lab, gb->backend, (unsigned long long)gb->seed, gb->n, graded,
	     gradebook_count(gb, GB_INVALID) + gradebook_count(gb, GB_ERROR),
	     gradebook_count(gb, GB_INVALID), gradebook_count(gb, GB_ERROR),
	     gradebook_count(gb, GB_MISSING));
	if (k)
		para(d, "Score out of %g: mean %.2f, median %g, lowest %g, highest %g; %u with full marks.",
		     gb->max, sum / k, k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2, s[0], s[k - 1], full);
	free(s);
}

static void distribution(struct doc *d, const struct gradebook *gb)
{
	heading(d, 2, "Score distribution");
	/* one bin per point up to 20 points, else 10 equal bins */
	unsigned bins = gb->max > 0 && gb->max <= 20 ? (unsigned)ceil(gb->max) + 1 : 11;
	double width = gb->max > 20 ? gb->max / 10 : 1;
	unsigned count[32] = { 0 }, most = 1;
	for (unsigned i = 0; i < gb->n; i++) {
		if (gb->rows[i].status != GB_GRADED)
			continue;
		unsigned b = (unsigned)floor(gb->rows[i].score / width);
		count[b < bins ? b : bins - 1]++;
	}
	for (unsigned b = 0; b < bins; b++)
		most = count[b] > most ? count[b] : most;
	const char *heads[] = { "score", "students" };
	table_start(d, heads, 2, true);
	for (unsigned b = 0; b < bins; b++) {
		char range[64], n[16];
		if (width == 1)
			snprintf(range, sizeof(range), "%u", b);
		else
			snprintf(range, sizeof(range), b + 1 < bins ? "%g to %g" : "%g", b * width, (b + 1) * width);
		snprintf(n, sizeof(n), "%u", count[b]);
		const char *cells[] = { range, n };
		table_row(d, cells, (double)count[b] / most, NULL);
	}
	table_end(d);
}

static void failing_checks(struct doc *d, const struct gradebook *gb)
{
	heading(d, 2, "Checks that fail most");
	unsigned graded = gradebook_count(gb, GB_GRADED);
	unsigned *order = calloc(gb->n_columns ? gb->n_columns : 1, sizeof(unsigned));
	unsigned *fails = calloc(gb->n_columns ? gb->n_columns : 1, sizeof(unsigned));
	if (!order || !fails || !graded) {
		para(d, "No submission was graded.");
		goto out;
	}
	for (unsigned c = 0; c < gb->n_columns; c++) {
		fails[c] = gradebook_failures(gb, c);
		unsigned at = c;
		while (at && fails[order[at - 1]] < fails[c]) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = c;
	}
	const char *heads[] = { "check", "failed", "of graded" };
	table_start(d, heads, 3, true);
	for (unsigned i = 0; i < gb->n_columns; i++) {
		unsigned c = order[i];
		char n[16], pct[16];
		snprintf(n, sizeof(n), "%u", fails[c]);
		snprintf(pct, sizeof(pct), "%.0f%%", 100.0 * fails[c] / graded);
		const char *cells[] = { gb->columns[c], n, pct };
		table_row(d, cells, (double)fails[c] / graded, NULL);
	}
	table_end(d);
out:
	free(order);
	free(fails);
}

/* Findings grouped by kind (the check); kinds in the order of their most common one. */
static void findings(struct doc *d, const struct gradebook *gb)
{
	heading(d, 2, "Most common findings");
	if (!gb->n_findings) {
		para(d, "No test failed.");
		return;
	}
	para(d, "Each failed test's first message, with its numbers blanked out so one mistake "
		"made by many reads the same; counted once per student, with the first student's "
		"message as the example.");
	bool *shown = calloc(gb->n_findings, sizeof(bool));
	for (unsigned i = 0; shown && i < gb->n_findings; i++) {
		if (shown[i])
			continue;
		const char *kind = gb->findings[i].check;
		heading(d, 3, kind);
		const char *heads[] = { "students", "finding", "example" };
		table_start(d, heads, 3, false);
		for (unsigned j = i, listed = 0; j < gb->n_findings; j++) {
			const struct gb_finding *f = &gb->findings[j];
			if (strcmp(f->check, kind) != 0)
				continue;
			shown[j] = true;
			if (listed++ >= 10)
				continue;
			char n[16], *ex = NULL;
			snprintf(n, sizeof(n), "%u", f->count);
			if (f->file)
				asprintf(&ex, "%s, %s:%u: %s", gb->rows[f->example].student, f->file, f->line, f->message);
			else
				asprintf(&ex, "%s: %s", gb->rows[f->example].student, f->message);
			const char *cells[] = { n, f->signature, ex };
			table_row(d, cells, 0, NULL);
			free(ex);
		}
		table_end(d);
	}
	free(shown);
}

static void identical(struct doc *d, const struct gradebook *gb)
{
	heading(d, 2, "Identical submissions");
	unsigned groups = 0;
	for (unsigned i = 0; i < gb->n; i++) {
		if (gb->rows[i].same_as != (int)i)
			continue;
		char *list = NULL;
		size_t len = 0;
		unsigned members = 0;
		FILE *m = open_memstream(&list, &len);
		for (unsigned j = i; m && j < gb->n; j++)
			if (gradebook_same(gb, i, j))
				fprintf(m, "%s%s", members++ ? ", " : "", gb->rows[j].student);
		if (m)
			fclose(m);
		para(d, "%u submissions with the same content (hash %.12s, %g/%g): %s", members,
		     gb->rows[i].hash, gb->rows[i].score, gb->rows[i].max, list ? list : "");
		free(list);
		groups++;
	}
	if (!groups)
		para(d, "None: every graded submission differs from the others.");
}

static void no_launch(struct doc *d, const struct gradebook *gb)
{
	heading(d, 2, "Builds but never launches a kernel");
	char *list = NULL;
	size_t len = 0;
	unsigned n = 0, known = 0;
	FILE *m = open_memstream(&list, &len);
	for (unsigned i = 0; m && i < gb->n; i++) {
		known += gb->rows[i].launches >= 0;
		if (gradebook_no_launch(gb, i))
			fprintf(m, "%s%s", n++ ? ", " : "", gb->rows[i].student);
	}
	if (m)
		fclose(m);
	if (n)
		para(d, "%u submissions compute without the GPU (no kernel launch on any dataset): %s", n, list);
	else if (known)
		para(d, "None: every submission that built and ran launched at least one kernel.");
	else
		para(d, "Not known for this batch: kernel launches are counted on the emulator, and "
			"on a GPU by the performance check's timed runs (CUPTI).");
	free(list);
}

static int cmp_kernel(const void *a, const void *b, void *gbv)
{
	const struct gradebook *gb = gbv;
	double x = gb->rows[*(const unsigned *)a].kernel_ms, y = gb->rows[*(const unsigned *)b].kernel_ms;
	return x < y ? -1 : x > y;
}

static void kernel_row(struct doc *d, const struct gb_row *r)
{
	char ms[32], ratio[32];
	snprintf(ms, sizeof(ms), "%.4g", r->kernel_ms);
	snprintf(ratio, sizeof(ratio), r->solution_ms > 0 ? "%.2fx" : "-", r->kernel_ms / r->solution_ms);
	const char *cells[] = { r->student, ms, ratio };
	table_row(d, cells, 0, NULL);
}

static void kernels(struct doc *d, const struct gradebook *gb)
{
	heading(d, 2, "Fastest and slowest kernels");
	unsigned *idx = calloc(gb->n ? gb->n : 1, sizeof(unsigned)), n = 0;
	for (unsigned i = 0; idx && i < gb->n; i++)
		if (gb->rows[i].status == GB_GRADED && gb->rows[i].kernel_ms > 0)
			idx[n++] = i;
	if (!n) {
		para(d, "Not measured: kernel times come from the performance check on a GPU%s.",
		     strcmp(gb->backend, "gpu") ? ", and this batch ran on the emulator" : "");
		free(idx);
		return;
	}
	qsort_r(idx, n, sizeof(unsigned), cmp_kernel, (void *)gb);
	para(d, "Median kernel time per call in the performance check, and its ratio to the lab's "
		"solution timed in the same grading.");
	const char *heads[] = { "student", "kernel ms", "vs solution" };
	heading(d, 3, "Fastest");
	table_start(d, heads, 3, false);
	for (unsigned i = 0; i < n && i < 5; i++)
		kernel_row(d, &gb->rows[idx[i]]);
	table_end(d);
	heading(d, 3, "Slowest");
	table_start(d, heads, 3, false);
	for (unsigned i = 0; i < n && i < 5; i++)
		kernel_row(d, &gb->rows[idx[n - 1 - i]]);
	table_end(d);
	free(idx);
}

static void students(struct doc *d, const struct gradebook *gb)
{
	heading(d, 2, "Students");
	const char *heads[] = { "student", "score", "status", "notes" };
	table_start(d, heads, 4, false);
	for (unsigned i = 0; i < gb->n; i++) {
		const struct gb_row *r = &gb->rows[i];
		char score[48], notes[1024];
		static const char *status[] = { "graded", "invalid", "error", "not graded" };
		snprintf(score, sizeof(score), "%g/%g", r->score, r->status == GB_GRADED ? r->max : gb->max);
		gradebook_notes(gb, i, notes, sizeof(notes));
		const char *cells[] = { r->student, score, status[r->status], notes };
		table_row(d, cells, 0, r->status == GB_GRADED ? (r->score >= r->max ? "full" : NULL) : "bad");
	}
	table_end(d);
}

static void sections(struct doc *d, const struct gradebook *gb)
{
	summary(d, gb);
	distribution(d, gb);
	failing_checks(d, gb);
	findings(d, gb);
	identical(d, gb);
	no_launch(d, gb);
	kernels(d, gb);
	students(d, gb);
}

int classreport_write_md(const struct gradebook *gb, FILE *f)
{
	struct doc d = { .f = f, .html = false };
	fprintf(f, "# Class report: %s\n\n", gb->lab);
	sections(&d, gb);
	return ferror(f) ? -EIO : 0;
}

static const char css[] =
	"body{font:14px/1.45 system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}"
	"h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}h3{font-size:1.05em}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .6em;"
	"text-align:left;vertical-align:top}th{background:#f4f4f4}"
	"td.barcell,th.barcell{width:18em;border:none;background:none}div.bar{height:.9em;background:#4a7fd4;border-radius:2px}"
	"tr.full td:first-child{border-left:4px solid #3a3}tr.bad td{color:#a33}";

int classreport_write_html(const struct gradebook *gb, FILE *f)
{
	struct doc d = { .f = f, .html = true };
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Class report: ", f);
	put_text(&d, gb->lab);
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>Class report: ", css);
	put_text(&d, gb->lab);
	fputs("</h1>\n", f);
	sections(&d, gb);
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
