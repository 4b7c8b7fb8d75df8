/* gradebook: see gradebook.h. */
#include "gradebook.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Inserts NAME into the column list after column AFTER (-1: at the front) unless it is
 * there already; returns its index. Reports list their tests in the lab's order, so
 * merging them this way keeps that order even when one report lacks a test. */
static int add_column(struct gradebook *gb, const char *name, int after)
{
	for (unsigned i = 0; i < gb->n_columns; i++)
		if (strcmp(gb->columns[i], name) == 0)
			return (int)i;
	char **c = realloc(gb->columns, (gb->n_columns + 1) * sizeof(char *));
	if (!c)
		return after;
	gb->columns = c;
	unsigned at = (unsigned)(after + 1);
	memmove(c + at + 1, c + at, (gb->n_columns - at) * sizeof(char *));
	c[at] = strdup(name);
	gb->n_columns++;
	return (int)at;
}

static void read_tests(struct gradebook *gb, struct gb_row *r, json_t *tests)
{
	size_t n = json_array_size(tests);
	r->tests = calloc(n ? n : 1, sizeof(*r->tests));
	int prev = -1;
	for (size_t i = 0; r->tests && i < n; i++) {
		json_t *t = json_array_get(tests, i);
		const char *name = "?", *status = "failed", *output = NULL;
		double score = 0, max = 0;
		json_unpack(t, "{s?s, s?F, s?F, s?s, s?s}", "name", &name, "score", &score, "max_score",
			    &max, "status", &status, "output", &output);
		struct gb_test *g = &r->tests[r->n_tests++];
		g->name = strdup(name);
		g->score = score;
		g->max = max;
		g->passed = strcmp(status, "passed") == 0;
		g->output = dup_or_null(output);
		if (r->status == GB_GRADED)
			prev = add_column(gb, name, prev);
	}
}

static void read_row(struct gradebook *gb, const struct batch *b, unsigned i)
{
	const struct batch_student *s = &b->students[i];
	struct gb_row *r = &gb->rows[i];
	r->student = strdup(s->name);
	memcpy(r->hash, s->hash, sizeof(r->hash));
	r->launches = -1;
	r->same_as = -1;
	enum batch_state st = batch_state(b, s);
	char *path = batch_results_path(b, s);
	r->doc = st == BATCH_LEFT || !path ? NULL : json_load_file(path, 0, NULL);
	free(path);
	if (!r->doc) {
		r->status = GB_MISSING;
		r->why = strdup("not graded yet");
		return;
	}
	r->status = st == BATCH_GRADED ? GB_GRADED : st == BATCH_INVALID ? GB_INVALID : GB_ERROR;
	const char *output = NULL;
	json_unpack(r->doc, "{s?F, s?F, s?s, s?{s?{s?F}}}", "score", &r->score, "max_score", &r->max,
		    "output", &output, "extra_data", "batch", "seconds", &r->seconds);
	json_t *lab = json_array_get(json_object_get(json_object_get(r->doc, "extra_data"), "pmpplab"), 0);
	json_int_t launches = -1;
	json_unpack(lab, "{s?I, s?F, s?F}", "launches", &launches, "kernel_ms", &r->kernel_ms,
		    "solution_ms", &r->solution_ms);
	r->launches = (int)launches;
	if (r->status != GB_GRADED)
		r->why = dup_or_null(output);
	read_tests(gb, r, json_object_get(r->doc, "tests"));
	if (r->max > gb->max)
		gb->max = r->max;
}

/* ---- findings ---------------------------------------------------------------------- */

bool gradebook_locate(const char *text, char **file, unsigned *line, char **message)
{
	*file = *message = NULL;
	*line = 0;
	const char *first = NULL;
	size_t first_len = 0;
	bool first_error = false;
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		const char *colon = memchr(p, ':', n);
		/* "name.cu:12:" or "name.cu:12:3:" then the message; the file has no spaces */
		if (colon && colon > p && memchr(p, ' ', (size_t)(colon - p)) == NULL &&
		    isdigit((unsigned char)colon[1])) {
			char *end;
			unsigned long ln = strtoul(colon + 1, &end, 10);
			if (*end == ':' && isdigit((unsigned char)end[1]))
				strtoul(end + 1, &end, 10);
			if (*end == ':' && end < p + n) {
				const char *msg = end + 1;
				while (*msg == ' ')
					msg++;
				if (strncmp(msg, "error: ", 7) == 0) /* the severity says nothing here */
					msg += 7;
				*file = strndup(p, (size_t)(colon - p));
				*line = (unsigned)ln;
				*message = strndup(msg, (size_t)(p + n - msg));
				return true;
			}
		}
		/* without a location, the runtime's "error: ..." line says more than the first
		 * ("The program crashed: ...") */
		bool error = n > 7 && strncmp(p, "error: ", 7) == 0;
		if ((!first && n) || (error && !first_error)) {
			first = error ? p + 7 : p;
			first_len = error ? n - 7 : n;
			first_error |= error;
		}
		p += n + (p[n] == '\n');
	}
	*message = first ? strndup(first, first_len) : strdup("");
	return false;
}

char *gradebook_signature(const char *message)
{
	size_t len = strlen(message);
	char *out = malloc(len + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (const char *p = message; *p;) {
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
			p += 2;
			while (isxdigit((unsigned char)*p))
				p++;
			out[o++] = '0', out[o++] = 'x', out[o++] = 'N';
		} else if (isdigit((unsigned char)*p) && (p == message || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
			while (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
				p++;
			if (*p == 'e' && (isdigit((unsigned char)p[1]) || p[1] == '-' || p[1] == '+'))
				for (p += 2; isdigit((unsigned char)*p); p++)
					;
			out[o++] = 'N';
		} else if (*p == '-' && isdigit((unsigned char)p[1]) && (p == message || p[-1] == ' ' || p[-1] == '(')) {
			p++; /* a sign belongs to the number that follows */
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	return out;
}

/* "correctness: tiny (n=1)" -> "correctness"; "memcheck" -> "memcheck". */
static char *check_kind(const char *test)
{
	return strndup(test, strcspn(test, ":"));
}

static void add_finding(struct gradebook *gb, unsigned row, const struct gb_test *t)
{
	char *file, *message;
	unsigned line;
	gradebook_locate(t->output, &file, &line, &message);
	char *kind = check_kind(t->name), *sig = message ? gradebook_signature(message) : NULL;
	struct gb_finding *fs = NULL;
	for (unsigned i = 0; sig && kind && i < gb->n_findings; i++) {
		struct gb_finding *f = &gb->findings[i];
		if (strcmp(f->check, kind) == 0 && strcmp(f->signature, sig) == 0) {
			f->count += f->last_row != row; /* once per student */
			f->last_row = row;
			goto drop;
		}
	}
	if (sig && kind && (fs = realloc(gb->findings, (gb->n_findings + 1) * sizeof(*fs)))) {
		gb->findings = fs;
		fs[gb->n_findings++] = (struct gb_finding){ .check = kind, .signature = sig, .count = 1,
							    .example = row, .file = file, .line = line,
							    .message = message, .last_row = row };
		return;
	}
drop:
	free(kind);
	free(sig);
	free(file);
	free(message);
}

static int cmp_finding(const void *a, const void *b)
{
	const struct gb_finding *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(x->check, y->check);
	return c ? c : strcmp(x->signature, y->signature);
}

/* Whether a failed test's output is a finding of its own, not the echo of another
 * failure ("not run: the program does not compile", "not measured: ... are wrong"). */
static bool is_finding(const struct gb_test *t)
{
	/* memcheck's "no invalid access seen ..., but its output is wrong" repeats the
	 * correctness finding */
	static const char *echoes[] = { "not run", "not measured", "not checked", "NOT MEASURED",
					"no invalid access seen" };
	if (t->passed || !t->output || !*t->output)
		return false;
	for (unsigned i = 0; i < sizeof(echoes) / sizeof(*echoes); i++)
		if (strncmp(t->output, echoes[i], strlen(echoes[i])) == 0)
			return false;
	return true;
}

/* Every graded student's failed tests, grouped by check and message. */
static void collect_findings(struct gradebook *gb)
{
	for (unsigned r = 0; r < gb->n; r++)
		for (unsigned i = 0; gb->rows[r].status == GB_GRADED && i < gb->rows[r].n_tests; i++)
			if (is_finding(&gb->rows[r].tests[i]))
				add_finding(gb, r, &gb->rows[r].tests[i]);
	qsort(gb->findings, gb->n_findings, sizeof(*gb->findings), cmp_finding);
}

/* ---- the table ---------------------------------------------------------------------- */

int gradebook_load(struct gradebook *gb, const struct batch *b)
{
	memset(gb, 0, sizeof(*gb));
	gb->lab = strdup(b->lab);
	gb->backend = strdup(backend_name(b->backend));
	gb->seed = b->seed;
	gb->rows = calloc(b->n ? b->n : 1, sizeof(*gb->rows));
	if (!gb->rows || !gb->lab || !gb->backend)
		return -ENOMEM;
	gb->n = b->n;
	for (unsigned i = 0; i < b->n; i++)
		read_row(gb, b, i);
	for (unsigned i = 0; i < gb->n; i++)
		for (unsigned j = 0; j < i; j++)
			if (gradebook_same(gb, i, j)) {
				gb->rows[i].same_as = (int)j;
				if (gb->rows[j].same_as < 0)
					gb->rows[j].same_as = (int)j; /* the first of a group points at itself */
				break;
			}
	collect_findings(gb);
	return 0;
}

void gradebook_release(struct gradebook *gb)
{
	for (unsigned i = 0; i < gb->n; i++) {
		struct gb_row *r = &gb->rows[i];
		for (unsigned k = 0; k < r->n_tests; k++) {
			free(r->tests[k].name);
			free(r->tests[k].output);
		}
		free(r->tests);
		free(r->student);
		free(r->why);
		json_decref(r->doc);
	}
	for (unsigned i = 0; i < gb->n_columns; i++)
		free(gb->columns[i]);
	for (unsigned i = 0; i < gb->n_findings; i++) {
		free(gb->findings[i].check);
		free(gb->findings[i].signature);
		free(gb->findings[i].file);
		free(gb->findings[i].message);
	}
	free(gb->findings);
	free(gb->columns);
	free(gb->rows);
	free(gb->lab);
	free(gb->backend);
	memset(gb, 0, sizeof(*gb));
}

bool gradebook_same(const struct gradebook *gb, unsigned a, unsigned b)
{
	const struct gb_row *x = &gb->rows[a], *y = &gb->rows[b];
	return x->status == GB_GRADED && y->status == GB_GRADED && strcmp(x->hash, y->hash) == 0;
}

bool gradebook_no_launch(const struct gradebook *gb, unsigned r)
{
	const struct gb_row *row = &gb->rows[r];
	if (row->status != GB_GRADED || row->launches != 0)
		return false;
	for (unsigned i = 0; i < row->n_tests; i++)
		if (strcmp(row->tests[i].name, "build") == 0)
			return row->tests[i].passed;
	return false;
}

unsigned gradebook_count(const struct gradebook *gb, enum gb_status s)
{
	unsigned n = 0;
	for (unsigned i = 0; i < gb->n; i++)
		n += gb->rows[i].status == s;
	return n;
}

const struct gb_test *gradebook_cell(const struct gradebook *gb, unsigned r, unsigned c)
{
	const struct gb_row *row = &gb->rows[r];
	for (unsigned i = 0; i < row->n_tests; i++)
		if (strcmp(row->tests[i].name, gb->columns[c]) == 0)
			return &row->tests[i];
	return NULL;
}

unsigned gradebook_failures(const struct gradebook *gb, unsigned c)
{
	unsigned n = 0;
	for (unsigned r = 0; r < gb->n; r++) {
		const struct gb_test *t = gb->rows[r].status == GB_GRADED ? gradebook_cell(gb, r, c) : NULL;
		n += t && !t->passed;
	}
	return n;
}

/* A CSV field, quoted when it needs to be (RFC 4180). */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char *status_name(enum gb_status s)
{
	static const char *names[] = { "graded", "invalid", "error", "missing" };
	return names[s];
}

void gradebook_notes(const struct gradebook *gb, unsigned r, char *buf, size_t len)
{
	const struct gb_row *row = &gb->rows[r];
	size_t o = 0;
	buf[0] = '\0';
	if (row->same_as >= 0) {
		unsigned shown = 0, others = 0;
		o += (size_t)snprintf(buf + o, len - o, "identical to");
		for (unsigned j = 0; j < gb->n; j++)
			if (j != r && gradebook_same(gb, r, j) && others++ < 5 && o < len)
				o += (size_t)snprintf(buf + o, len - o, "%s %s", shown++ ? "," : "", gb->rows[j].student);
		if (others > shown && o < len)
			o += (size_t)snprintf(buf + o, len - o, " and %u more", others - shown);
	}
	if (o < len && gradebook_no_launch(gb, r))
		o += (size_t)snprintf(buf + o, len - o, "%sbuilds but never launches a kernel", o ? "; " : "");
	if (o < len && row->why)
		snprintf(buf + o, len - o, "%s%.*s", o ? "; " : "", (int)strcspn(row->why, "\n"), row->why);
}

int gradebook_write_csv(const struct gradebook *gb, FILE *f)
{
	fputs("student,score,max_score", f);
	for (unsigned c = 0; c < gb->n_columns; c++) {
		fputc(',', f);
		csv_field(f, gb->columns[c]);
	}
	fputs(",status,notes\n", f);
	for (unsigned r = 0; r < gb->n; r++) {
		const struct gb_row *row = &gb->rows[r];
		csv_field(f, row->student);
		fprintf(f, ",%g,%g", row->score, row->status == GB_GRADED ? row->max : gb->max);
		for (unsigned c = 0; c < gb->n_columns; c++) {
			const struct gb_test *t = row->status == GB_GRADED ? gradebook_cell(gb, r, c) : NULL;
			if (!t)
				fputs(",", f);
			else if (t->max > 0)
				fprintf(f, ",%g", t->score);
			else
				fprintf(f, ",%s", t->passed ? "pass" : "fail");
		}
		char notes[1024];
		gradebook_notes(gb, r, notes, sizeof(notes));
		fprintf(f, ",%s,", status_name(row->status));
		csv_field(f, notes);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
