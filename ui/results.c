/* results: checklist, compiler errors and hints as screen lines. See results.h. */
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "glyph.h"
#include "mdview.h"
#include "utf8.h"
#include "xmem.h"

#define RESULTS_MAX_SOURCE_DIAGS 8

/* Whether diagnostics about FILE are about the student's file. */
static bool is_student_file(const char *file, const char *student)
{
	return file && student && strcmp(fs_base_name(file), fs_base_name(student)) == 0;
}

/* Reads line LINE (1-based) of PATH into a new string, tabs as 4 spaces; NULL if none. */
static char *source_line(const char *path, unsigned line)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return NULL;
	char *buf = NULL, *res = NULL;
	size_t cap = 0;
	unsigned n = 0;
	ssize_t len;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		if (++n < line)
			continue;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		res = xmalloc((size_t)len * 4 + 1);
		char *o = res;
		for (char *c = buf; *c; c++) {
			if (*c == '\t') {
				memcpy(o, "    ", 4);
				o += 4;
			} else {
				*o++ = *c;
			}
		}
		*o = '\0';
		break;
	}
	free(buf);
	fclose(f);
	return res;
}

/* "  12 | code" and, with a column, "     |     ^" under it. */
static void show_source(struct sline_list *out, const char *path, unsigned line, unsigned col)
{
	char *src = source_line(path, line);
	if (!src)
		return;
	struct sline *s = sline_list_add(out);
	sline_printf(s, ROLE_DIM, "%6u ", line);
	sline_puts(s, ROLE_MARKER, glyph(GLYPH_VBAR));
	sline_puts(s, ROLE_SOURCE, " ");
	sline_puts(s, ROLE_SOURCE, src);
	if (col) {
		s = sline_list_add(out);
		sline_printf(s, ROLE_NORMAL, "%6s ", "");
		sline_puts(s, ROLE_MARKER, glyph(GLYPH_VBAR));
		/* Columns count bytes in the original line; tabs there are 4 cells here,
		 * which nvcc counts as 1: close enough for a caret. */
		sline_printf(s, ROLE_NORMAL, "%*s", (int)col, "");
		sline_puts(s, ROLE_CARET, glyph(GLYPH_CARET));
	}
	free(src);
}

/* One checklist row: " <glyph> name  score". */
static void check_line(struct sline_list *out, enum glyph g, enum ui_role role,
		       enum ui_role name_role, const char *name, const char *score)
{
	struct sline *s = sline_list_add(out);
	sline_puts(s, ROLE_NORMAL, " ");
	sline_puts(s, role, glyph(g));
	sline_puts(s, ROLE_NORMAL, " ");
	sline_puts(s, name_role, name);
	if (score) {
		sline_puts(s, ROLE_NORMAL, "  ");
		sline_puts(s, ROLE_DIM, score);
	}
}

static void fmt_score(char *buf, size_t n, double score, double max);
static void render_output(const struct results_input *in, const char *output,
			  struct sline_list *out);

/* The checklist of tests T[0..N): a mark and the score each, and what to do under each
 * failed one. BUILD_DIAGS: the report's compiler diagnostics, shown apart. */
static void render_tests(const struct results_input *in, const struct report_test *t, unsigned n,
			 unsigned build_diags, struct sline_list *out)
{
	char buf[64];
	for (unsigned i = 0; i < n; i++) {
		bool ok = t[i].status == TEST_PASSED;
		char why[96];
		if (results_test_skipped(&t[i], why, sizeof(why))) {
			/* Not a pass: nothing was measured and no points were at stake. */
			check_line(out, GLYPH_SKIPPED, ROLE_DIM, ROLE_DIM, t[i].name, NULL);
			sline_printf(&out->lines[out->n - 1], ROLE_DIM, " (%s)", why);
			continue;
		}
		fmt_score(buf, sizeof(buf), t[i].score, t[i].max_score);
		check_line(out, ok ? GLYPH_PASS : GLYPH_FAIL, ok ? ROLE_PASS : ROLE_FAIL,
			   ROLE_NORMAL, t[i].name, *buf ? buf : NULL);
		/* Passed tests say little worth reading; failed ones say what to do. The
		 * build's text repeats the diagnostics shown below with source lines. */
		bool is_build = strcmp(t[i].name, "build") == 0;
		if (!ok && t[i].output && !(is_build && build_diags))
			render_output(in, t[i].output, out);
	}
}

/* One row of the running checklist: step STEP when step CUR is running. A finished step
 * is only done: whether it passed is the report's to say (a dataset whose output is
 * wrong finishes too), so no pass mark before the report. */
static void step_line(struct sline_list *out, unsigned step, unsigned cur, const char *name)
{
	if (step < cur)
		check_line(out, GLYPH_DONE, ROLE_DIM, ROLE_NORMAL, name, NULL);
	else if (step == cur)
		check_line(out, GLYPH_RUNNING, ROLE_RUNNING, ROLE_RUNNING, name, NULL);
	else
		check_line(out, GLYPH_PENDING, ROLE_DIM, ROLE_DIM, name, NULL);
}

/* The test of P named NAME (EXACT) or whose name starts with it, or NULL. */
static const struct report_test *partial_test(const struct report *p, const char *name, bool exact)
{
	for (unsigned i = 0; p && i < p->n_tests; i++)
		if (exact ? strcmp(p->tests[i].name, name) == 0
			  : strncmp(p->tests[i].name, name, strlen(name)) == 0)
			return &p->tests[i];
	return NULL;
}

/* The checklist of a run in progress: steps before the current one are done, the
 * current one is running, the rest are pending. */
static void render_running(const struct results_input *in, struct sline_list *out)
{
	const struct results_run *run = in->run;
	const struct lab_spec *spec = in->spec;
	sline_list_addf(out, ROLE_H2, "%s %s", run->quick ? "Quick run" : "Grading",
			glyph(GLYPH_ELLIPSIS));
	sline_list_add(out);
	/* Step numbers: build 0, reference 1, datasets 2.., checks after them. */
	unsigned ndata = 0;
	for (unsigned i = 0; i < spec->datasets_count; i++)
		ndata += !(run->quick && spec->datasets[i].perf);
	unsigned cur;
	switch (run->stage) {
	case GRADE_STAGE_BUILD: cur = 0; break;
	case GRADE_STAGE_REFERENCE: cur = 1; break;
	case GRADE_STAGE_DATASET: cur = 2 + run->index; break;
	case GRADE_STAGE_CHECK: cur = 2 + ndata; break;
	default: cur = 1000; break;
	}
	/* A step whose test is final shows it as the report will (issue 16): the first
	 * verdict comes before the run ends. */
	const struct report *p = in->partial;
	const struct report_test *checks[64];
	unsigned nchecks = 0;
	for (unsigned i = 0; p && i < p->n_tests && nchecks < 64; i++)
		if (strcmp(p->tests[i].name, "build") != 0 &&
		    strncmp(p->tests[i].name, "correctness: ", 13) != 0)
			checks[nchecks++] = &p->tests[i];
	unsigned step = 0;
	const struct report_test *t = partial_test(p, "build", true);
	if (t)
		render_tests(in, t, 1, 0, out);
	else
		step_line(out, step, cur, "build");
	step++;
	step_line(out, step++, cur, "expected outputs (CPU reference)");
	unsigned k = 0;
	for (unsigned i = 0; i < spec->datasets_count; i++) {
		if (run->quick && spec->datasets[i].perf)
			continue;
		char *name =
			xasprintf("correctness: %s (%u of %u)", spec->datasets[i].name, ++k, ndata);
		char *prefix = xasprintf("correctness: %s (", spec->datasets[i].name);
		if ((t = partial_test(p, prefix, false)))
			render_tests(in, t, 1, 0, out);
		else
			step_line(out, step, cur, name);
		step++;
		free(prefix);
		free(name);
	}
	/* The checks share one stage: those with a test are done, the next one runs. */
	for (unsigned i = 0; i < spec->checks_count; i++) {
		enum spec_check_kind kind = spec->checks[i].kind;
		const char *name = kind == SPEC_CHECK_PERFORMANCE ? "performance"
				   : kind == SPEC_CHECK_BARRIERS ? "barriers"
				   : kind == SPEC_CHECK_OPTIMISATIONS ? "optimisations" : "memcheck";
		if (i < nchecks)
			render_tests(in, checks[i], 1, 0, out);
		else
			step_line(out, step + (cur == step && i > nchecks), cur, name);
	}
}

static void fmt_score(char *buf, size_t n, double score, double max)
{
	if (max > 0)
		snprintf(buf, n, "%g/%g", score, max);
	else
		buf[0] = '\0';
}

/* The build's diagnostics (the compiler's, uninitcheck.h's) with the student's source
 * line under each. */
static void render_build_diags(const struct results_input *in, struct sline_list *out)
{
	const struct diag_list *b = &in->report->build;
	if (!b->n)
		return;
	sline_list_add(out);
	/* warnings: the compiler's and the static checks' (a variable read unset) */
	sline_list_addf(out, ROLE_H2, "%s",
			diag_count(b, DIAG_ERROR) ? "Compiler errors" : "Warnings");
	unsigned shown = 0;
	for (unsigned i = 0; i < b->n && shown < RESULTS_MAX_SOURCE_DIAGS; i++) {
		const struct diag *d = &b->items[i];
		if (d->severity == DIAG_NOTE && !d->line)
			continue;
		shown++;
		char *head = d->line ? xasprintf("%s:%u:%u: %s: ", fs_base_name(d->file), d->line,
						 d->col, diag_severity_name(d->severity))
				     : xasprintf("%s: ", diag_severity_name(d->severity));
		char *text = xasprintf("%s%s", head, d->message ? d->message : "");
		sline_list_wrap(out,
				d->severity == DIAG_ERROR     ? ROLE_FAIL
				: d->severity == DIAG_WARNING ? ROLE_WARN
							      : ROLE_DIM,
				1, in->width, text);
		free(head);
		free(text);
		if (d->line && is_student_file(d->file, in->student_path))
			show_source(out, in->student_path, d->line, d->col);
	}
	if (b->n > shown)
		sline_list_addf(out, ROLE_DIM, " (%u more)", b->n - shown);
}

/* A test's output; lines naming "file.cu:LINE" of the student's file get the source line
 * under them (runtime faults from the emulator, where a hanging kernel's warps were). */
static void render_output(const struct results_input *in, const char *output,
			  struct sline_list *out)
{
	char *copy = xstrdup(output);
	char *save = NULL;
	unsigned shown = 0; /* the source line last shown: a fault and its note name the same */
	for (char *ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		sline_list_wrap(out, ROLE_NORMAL, 4, in->width, ln);
		/* anywhere in the line: "  1 warp at f.cu:26, in the loop..." (a hang) too */
		unsigned line = results_find_location(ln, in->student_path);
		if (line && line != shown) {
			show_source(out, in->student_path, line, 0);
			shown = line;
		}
	}
	free(copy);
}

/* Why the grader did not run T ("not run: WHY"), or NULL when it ran. */
static const char *not_run(const struct report_test *t)
{
	static const char tag[] = "not run: ";
	return t->status != TEST_PASSED && t->output && strncmp(t->output, tag, sizeof(tag) - 1) == 0
		       ? t->output + sizeof(tag) - 1
		       : NULL;
}

/* The reason shared by the tests R did not run, when two or more share it (a build
 * that failed, a first dataset that timed out): they make one line (issue 18: a compile
 * error sat under five "not run" lines, off an 80x24 screen). NULL: none to group. */
static const char *grouped_reason(const struct report *r)
{
	const char *why = NULL;
	unsigned n = 0;
	for (unsigned i = 0; i < r->n_tests; i++) {
		const char *w = not_run(&r->tests[i]);
		if (w && !why)
			why = w;
		n += w && strcmp(w, why) == 0;
	}
	return n >= 2 ? why : NULL;
}

static bool in_group(const struct report_test *t, const char *why)
{
	return why && not_run(t) && strcmp(not_run(t), why) == 0;
}

/* The tests left unrun for WHY, as one line, their names and why under it. */
static void render_not_run(const struct results_input *in, const struct report *r,
			   const char *why, struct sline_list *out)
{
	unsigned n = 0;
	double max = 0;
	char *names = xstrdup("");
	for (unsigned i = 0; i < r->n_tests; i++) {
		if (!in_group(&r->tests[i], why))
			continue;
		char *more = xasprintf("%s%s%s", names, n ? ", " : "", r->tests[i].name);
		free(names);
		names = more;
		n++;
		max += r->tests[i].max_score;
	}
	char score[64], *what = xasprintf("%u tests not run", n);
	fmt_score(score, sizeof(score), 0, max);
	sline_list_add(out);
	check_line(out, GLYPH_FAIL, ROLE_FAIL, ROLE_NORMAL, what, *score ? score : NULL);
	sline_list_wrap(out, ROLE_DIM, 4, in->width, names);
	sline_list_wrap(out, ROLE_NORMAL, 4, in->width, why);
	free(what);
	free(names);
}

static void render_report(const struct results_input *in, struct sline_list *out)
{
	const struct report *r = in->report;
	char buf[64];
	bool passed = report_passed(r);
	struct sline *s = sline_list_add(out);
	sline_puts(s, passed ? ROLE_PASS : ROLE_FAIL, passed ? "PASSED" : "FAILED");
	fmt_score(buf, sizeof(buf), report_score(r), report_max_score(r));
	if (*buf)
		sline_printf(s, ROLE_NORMAL, "  %s", buf);
	sline_printf(s, ROLE_DIM, "  %s %s", in->report_quick ? "quick run" : "full grade",
		     glyph(GLYPH_SEP));
	sline_printf(s, ROLE_DIM, " %s", r->backend ? r->backend : "?");
	if (!r->sandboxed)
		sline_printf(s, ROLE_WARN, " %s not sandboxed", glyph(GLYPH_SEP));
	if (in->elapsed_ms > 0)
		sline_printf(s, ROLE_DIM, " %s %.1f s", glyph(GLYPH_SEP), in->elapsed_ms / 1000);
	if (in->timing) {
		char t[160];
		results_run_timing(in->timing, t, sizeof(t));
		if (*t)
			sline_list_addf(out, ROLE_DIM, "%s", t);
		if (*t && r->build_host_reused) /* the fast build: the PTX only */
			sline_list_addf(out, ROLE_DIM, "%s: PTX %.2f s (host code unchanged: program reused)",
					r->build_nvrtc ? "NVRTC" : "nvcc", r->build_ms_ptx / 1000);
		else if (*t && r->build_ms_ptx > 0) /* the emulator's two compiles, side by side */
			sline_list_addf(out, ROLE_DIM, "nvcc: program %.2f s, %s: PTX %.2f s, in parallel",
					r->build_ms_host / 1000, r->build_nvrtc ? "NVRTC" : "nvcc",
					r->build_ms_ptx / 1000);
	}
	sline_list_add(out);
	const char *why = grouped_reason(r);
	for (unsigned i = 0; i < r->n_tests; i++)
		if (!in_group(&r->tests[i], why))
			render_tests(in, &r->tests[i], 1, r->build.n, out);
	render_build_diags(in, out);
	if (why)
		render_not_run(in, r, why, out);
	if (in->report_quick)
		sline_list_addf(out, ROLE_DIM,
				"Quick runs skip the large datasets: g (F6) grades in full.");
}

static void render_hints(const struct results_input *in, struct sline_list *out,
			 struct results_marks *marks)
{
	const struct lab_spec *spec = in->spec;
	if (!spec->hints_count)
		return;
	sline_list_add(out);
	unsigned shown = in->hints < spec->hints_count ? in->hints : spec->hints_count;
	if (marks)
		marks->hints_head = out->n;
	struct sline *s = sline_list_add(out);
	sline_printf(s, ROLE_H2, "Hints");
	sline_printf(s, ROLE_DIM, "  %u of %u shown%s", shown, spec->hints_count,
		     shown < spec->hints_count ? "; n (F7) shows the next" : "");
	for (unsigned i = 0; i < shown; i++) {
		if (marks && i < RESULTS_MAX_MARKS)
			marks->hint_first[i] = out->n;
		struct sline_list md;
		sline_list_init(&md);
		mdview_render(spec->hints[i], strlen(spec->hints[i]), in->width - 4, &md);
		for (unsigned k = 0; k < md.n; k++) {
			struct sline *h = sline_list_add(out);
			if (k == 0)
				sline_printf(h, ROLE_HINT, " %u. ", i + 1);
			else
				sline_puts(h, ROLE_NORMAL, "    ");
			/* Keep the hint's own roles, but plain text reads as hint text. */
			for (unsigned sp = 0; sp < md.lines[k].n_spans; sp++) {
				const struct sline_span *span = &md.lines[k].spans[sp];
				enum ui_role role =
					span->role == ROLE_NORMAL ? ROLE_HINT : span->role;
				sline_append(h, role, md.lines[k].text + span->start, span->len);
			}
		}
		sline_list_release(&md);
		if (marks && i < RESULTS_MAX_MARKS) {
			marks->hint_end[i] = out->n;
			marks->nhints = i + 1;
		}
	}
}

void results_run_start(struct results_run *run, bool quick)
{
	memset(run, 0, sizeof(*run));
	run->running = true;
	run->quick = quick;
	run->stage = GRADE_STAGE_BUILD;
}

static enum results_phase phase_of(enum grade_stage st)
{
	switch (st) {
	case GRADE_STAGE_BUILD: return PHASE_BUILD;
	case GRADE_STAGE_REFERENCE: return PHASE_REFERENCE;
	case GRADE_STAGE_DATASET: return PHASE_RUN;
	default: return PHASE_CHECKS;
	}
}

void results_run_progress(struct results_run *run, const struct grade_progress *p, double at_ms)
{
	if (p->stage == GRADE_STAGE_RESULT) {
		if (run->first_result_ms <= 0)
			run->first_result_ms = at_ms > 0 ? at_ms : 0.001;
		return;
	}
	if (at_ms > run->last_ms)
		run->phase_ms[phase_of(run->stage)] += at_ms - run->last_ms;
	run->last_ms = at_ms > run->last_ms ? at_ms : run->last_ms;
	run->stage = p->stage;
	run->index = p->index;
	run->count = p->count;
	snprintf(run->what, sizeof(run->what), "%s", p->what ? p->what : "");
	if (p->stage == GRADE_STAGE_DONE)
		run->running = false;
}

void results_run_timing(const struct results_run *run, char *buf, unsigned len)
{
	static const char *const names[PHASE_COUNT] = { "build", "reference", "run", "checks" };
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < PHASE_COUNT; i++) {
		if (run->phase_ms[i] < 5) /* shown to 10 ms */
			continue;
		/* " · " between entries. */
		const char *sep = used ? glyph(GLYPH_SEP) : "";
		int n = snprintf(buf + used, len - used, "%s%s%s%s %.2f s", used ? " " : "", sep,
				 used ? " " : "", names[i], run->phase_ms[i] / 1000);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

void results_render(const struct results_input *in, struct sline_list *out,
		    struct results_marks *marks)
{
	unsigned base = out->n;
	if (marks)
		memset(marks, 0, sizeof(*marks));
	if (in->notice && *in->notice) {
		sline_list_wrap(out, ROLE_WARN, 1, in->width, in->notice);
		sline_list_add(out);
	}
	if (in->run && in->run->running) {
		render_running(in, out);
	} else if (in->errors && in->errors->n) {
		sline_list_addf(out, ROLE_FAIL, "Could not grade");
		sline_list_add(out);
		for (unsigned i = 0; i < in->errors->n; i++) {
			const struct diag *d = &in->errors->items[i];
			char *text = d->file && d->line
					     ? xasprintf("%s:%u: %s", d->file, d->line, d->message)
				     : d->file ? xasprintf("%s: %s", d->file, d->message)
					       : xstrdup(d->message);
			sline_list_wrap(out, ROLE_FAIL, 1, in->width, text);
			free(text);
		}
	} else if (in->report) {
		render_report(in, out);
	} else {
		sline_list_addf(out, ROLE_H2, "No results yet");
		sline_list_add(out);
		sline_list_wrap(out, ROLE_NORMAL, 1, in->width,
				"Edit the file (e or F2), then press r (F5) for a quick run or g (F6) "
				"for a full grade. Every save runs it again.");
	}
	render_hints(in, out, marks);
	if (marks) { /* line numbers from the first line this call added */
		marks->hints_head -= marks->hints_head ? base : 0;
		for (unsigned i = 0; i < marks->nhints; i++) {
			marks->hint_first[i] -= base;
			marks->hint_end[i] -= base;
		}
	}
}

unsigned results_first_error_line(const struct report *r, const char *student_path)
{
	if (!r)
		return 0;
	for (unsigned i = 0; i < r->build.n; i++) {
		const struct diag *d = &r->build.items[i];
		if (d->severity == DIAG_ERROR && d->line && is_student_file(d->file, student_path))
			return d->line;
	}
	/* Then what running it found: faults, memcheck and barriers findings. */
	for (unsigned i = 0; i < r->n_tests; i++) {
		const struct report_test *t = &r->tests[i];
		unsigned line = t->status == TEST_PASSED
					? 0
					: results_find_location(t->output, student_path);
		if (line)
			return line;
	}
	return 0;
}

/* Characters that end a file name in a message ("in vecadd.cu:9", "(vecadd.cu:9)"). */
static bool name_stop(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '(' || c == ')' || c == '"' ||
	       c == '\'' || c == '`' || c == '=' || c == ',' || c == ':';
}

unsigned results_find_location(const char *text, const char *student_path)
{
	if (!text || !student_path)
		return 0;
	for (const char *p = strchr(text, ':'); p; p = strchr(p + 1, ':')) {
		if (p == text || p[1] < '0' || p[1] > '9')
			continue;
		const char *start = p;
		while (start > text && !name_stop(start[-1]))
			start--;
		char *end;
		unsigned long line = strtoul(p + 1, &end, 10);
		if (start == p || line == 0 || line > 1000000 || !(*end == ':' || *end == '\0' ||
		    name_stop(*end) || *end == '.'))
			continue;
		char file[512];
		snprintf(file, sizeof(file), "%.*s", (int)(p - start), start);
		if (is_student_file(file, student_path))
			return (unsigned)line;
	}
	return 0;
}

bool results_test_skipped(const struct report_test *t, char *buf, size_t len)
{
	static const char tag[] = "NOT MEASURED";
	if (t->status != TEST_PASSED || t->max_score > 0 || !t->output ||
	    strncmp(t->output, tag, sizeof(tag) - 1) != 0)
		return false;
	/* "NOT MEASURED in a quick run (dataset large was skipped); ..." */
	const char *why = t->output + sizeof(tag) - 1;
	while (*why == ' ')
		why++;
	size_t n = strcspn(why, ":;(\n");
	while (n && why[n - 1] == ' ')
		n--;
	snprintf(buf, len, "not measured%s%.*s", n ? " " : "", (int)n, why);
	return true;
}
