/* report: see report.h. */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct report *report_new(const char *lab, const char *submission, const char *backend,
			  uint64_t seed)
{
	struct report *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->lab = strdup(lab);
	r->submission = strdup(submission ? submission : "");
	r->backend = strdup(backend);
	r->seed = seed;
	r->launches = -1;
	diag_list_init(&r->build);
	return r;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->n_tests; i++) {
		free(r->tests[i].name);
		free(r->tests[i].output);
	}
	free(r->tests);
	free(r->lab);
	free(r->submission);
	free(r->backend);
	free(r->profile);
	diag_list_release(&r->build);
	free(r);
}

struct report_test *report_add(struct report *r, const char *name, double max_score,
			       bool passed, const char *fmt, ...)
{
	struct report_test *tests = realloc(r->tests, (r->n_tests + 1) * sizeof(*tests));
	if (!tests)
		return NULL;
	r->tests = tests;
	struct report_test *t = &r->tests[r->n_tests++];
	memset(t, 0, sizeof(*t));
	t->name = strdup(name);
	t->max_score = max_score;
	t->score = passed ? max_score : 0;
	t->status = passed ? TEST_PASSED : TEST_FAILED;
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		if (vasprintf(&t->output, fmt, ap) < 0)
			t->output = NULL;
		va_end(ap);
	}
	return t;
}

double report_score(const struct report *r)
{
	double s = 0;
	for (unsigned i = 0; i < r->n_tests; i++)
		s += r->tests[i].score;
	return s;
}

double report_max_score(const struct report *r)
{
	double s = 0;
	for (unsigned i = 0; i < r->n_tests; i++)
		s += r->tests[i].max_score;
	return s;
}

bool report_passed(const struct report *r)
{
	for (unsigned i = 0; i < r->n_tests; i++)
		if (r->tests[i].status != TEST_PASSED)
			return false;
	return r->n_tests > 0;
}

/* Indents every line of TEXT by four spaces. */
static void print_indented(FILE *f, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		fprintf(f, "    %.*s\n", (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

void report_write_text(FILE *f, const struct report *r, bool color)
{
	const char *green = color ? "\033[32m" : "", *red = color ? "\033[31m" : "";
	const char *bold = color ? "\033[1m" : "", *off = color ? "\033[0m" : "";
	fprintf(f, "%s%s%s: %s (backend %s, seed %llu%s)\n", bold, r->lab, off, r->submission,
		r->backend, (unsigned long long)r->seed, r->sandboxed ? "" : ", not sandboxed");
	for (unsigned i = 0; i < r->n_tests; i++) {
		const struct report_test *t = &r->tests[i];
		bool ok = t->status == TEST_PASSED;
		fprintf(f, "  %s%s%s %-40s %g/%g\n", ok ? green : red, ok ? "PASS" : "FAIL", off,
			t->name, t->score, t->max_score);
		if (t->output && *t->output)
			print_indented(f, t->output);
	}
	fprintf(f, "  score %g/%g\n", report_score(r), report_max_score(r));
}

static json_t *test_json(const struct report *r, const struct report_test *t, bool prefix)
{
	char name[512];
	snprintf(name, sizeof(name), "%s%s%s", prefix ? r->lab : "", prefix ? ": " : "", t->name);
	return json_pack("{s:s, s:f, s:f, s:s, s:s}", "name", name, "score", t->score,
			 "max_score", t->max_score, "status",
			 t->status == TEST_PASSED ? "passed" : "failed", "output",
			 t->output ? t->output : "");
}

/* What the class report needs beyond the tests: kernel launches and times. */
static json_t *lab_json(const struct report *r)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:b}", "lab", r->lab, "submission", r->submission,
			      "backend", r->backend, "seed", (json_int_t)r->seed, "sandboxed",
			      r->sandboxed);
	if (o && r->launches >= 0)
		json_object_set_new(o, "launches", json_integer(r->launches));
	if (o && r->kernel_ms > 0)
		json_object_set_new(o, "kernel_ms", json_real(r->kernel_ms));
	if (o && r->solution_ms > 0)
		json_object_set_new(o, "solution_ms", json_real(r->solution_ms));
	if (o && r->build_host_reused) /* the fast build (issue 16) */
		json_object_set_new(o, "build", json_string("ptx only, program reused"));
	if (o && r->build_nvrtc)
		json_object_set_new(o, "ptx", json_string("nvrtc"));
	return o;
}

json_t *report_json(struct report *const *reports, unsigned n)
{
	json_t *tests = json_array();
	json_t *labs = json_array();
	double score = 0, max = 0;
	bool sandboxed = true;
	for (unsigned k = 0; k < n; k++) {
		const struct report *r = reports[k];
		for (unsigned i = 0; i < r->n_tests; i++)
			json_array_append_new(tests, test_json(r, &r->tests[i], n > 1));
		score += report_score(r);
		max += report_max_score(r);
		json_array_append_new(labs, lab_json(r));
		sandboxed &= r->sandboxed;
	}
	char summary[160];
	snprintf(summary, sizeof(summary), "pmpplab: %g/%g%s", score, max,
		 sandboxed ? "" : " (not sandboxed: the submission ran with the grader's rights)");
	return json_pack("{s:f, s:f, s:s, s:o, s:{s:o}}", "score", score, "max_score", max,
			 "output", summary, "tests", tests, "extra_data", "pmpplab", labs);
}

int report_write_json(FILE *f, struct report *const *reports, unsigned n)
{
	json_t *root = report_json(reports, n);
	if (!root)
		return -ENOMEM;
	int rc = json_dumpf(root, f, JSON_INDENT(2)) == 0 ? 0 : -EIO;
	fputc('\n', f);
	json_decref(root);
	return rc;
}
