/* labcheck: see labcheck.h. */
#include "labcheck.h"

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "datagen.h"
#include "fsutil.h"
#include "grade.h"
#include "spec.h"
#include "starter.h"

enum expectation { EXPECT_PASS, EXPECT_FAIL_CORRECTNESS, EXPECT_FAIL_NAMED };

struct row {
	const char *label;
	enum expectation expect;
	char check[64];   /* EXPECT_FAIL_NAMED: test name prefix */
	char text[160];   /* optional: output must contain */
	char on[16];      /* optional: the only backend the expectation holds on */
};

/* Reads "// expect: X", "// expect-text: Y" and "// expect-on: B" from the comment
 * lines that open a file (a later "// expect:" in the code is not a header). */
static void read_expectation(const char *path, struct row *r)
{
	char *src = fs_read(path, NULL);
	r->expect = EXPECT_FAIL_NAMED;
	snprintf(r->check, sizeof(r->check), "?");
	for (const char *p = src; p && strncmp(p, "//", 2) == 0;) {
		size_t n = strcspn(p, "\n");
		if (strncmp(p, "// expect: ", 11) == 0)
			snprintf(r->check, sizeof(r->check), "%.*s", (int)(n - 11), p + 11);
		else if (strncmp(p, "// expect-text: ", 16) == 0)
			snprintf(r->text, sizeof(r->text), "%.*s", (int)(n - 16), p + 16);
		else if (strncmp(p, "// expect-on: ", 14) == 0)
			snprintf(r->on, sizeof(r->on), "%.*s", (int)(n - 14), p + 14);
		p += n + (p[n] == '\n');
	}
	free(src);
}

/* Whether the report meets the row's expectation; WHY says what was seen. */
static bool judge(const struct report *rep, const struct row *r, char *why, size_t len)
{
	const struct report_test *failed = NULL;
	for (unsigned i = 0; i < rep->n_tests && !failed; i++) {
		const struct report_test *t = &rep->tests[i];
		if (t->status != TEST_FAILED)
			continue;
		if (r->expect == EXPECT_FAIL_CORRECTNESS && strncmp(t->name, "correctness", 11) == 0)
			failed = t;
		else if (r->expect == EXPECT_FAIL_NAMED && strncmp(t->name, r->check, strlen(r->check)) == 0 &&
			 (!r->text[0] || (t->output && strstr(t->output, r->text))))
			failed = t;
		else if (r->expect == EXPECT_PASS)
			failed = t;
	}
	snprintf(why, len, "%g/%g", report_score(rep), report_max_score(rep));
	if (r->expect == EXPECT_PASS) {
		if (failed)
			snprintf(why, len, "%g/%g, failed '%s'", report_score(rep), report_max_score(rep), failed->name);
		return !failed;
	}
	if (failed)
		snprintf(why, len, "failed '%s' as expected", failed->name);
	return failed != NULL;
}

static bool check_one(const struct lab_spec *spec, const char *path, const struct row *r,
		      enum backend_kind backend, uint64_t seed, FILE *out, int *config_error)
{
	struct grade_opts o = { .backend = backend, .submission = path, .seed = seed,
				.quick = backend_resolve(backend) == BACKEND_EMU };
	struct report *rep = NULL;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = grade_lab(spec, &o, &rep, &diags);
	char why[300];
	bool ok = false;
	/* An expectation for another backend: graded and shown, not judged (a GPU's caches
	 * can hide an uncoalesced access that the emulator's model counts every time). */
	const char *here = backend_name(backend_resolve(backend));
	bool judged = !r->on[0] || strcmp(r->on, here) == 0;
	if (r->on[0] && strcmp(r->on, backend_name(BACKEND_GPU)) != 0 &&
	    strcmp(r->on, backend_name(BACKEND_EMU)) != 0) {
		fprintf(out, "%s:1: error: expect-on takes %s or %s, not '%s'\n", path,
			backend_name(BACKEND_EMU), backend_name(BACKEND_GPU), r->on);
		*config_error = 1;
	}
	if (rc < 0) {
		diag_print(out, &diags);
		snprintf(why, sizeof(why), "could not grade");
		*config_error = 1;
	} else {
		ok = judge(rep, r, why, sizeof(why));
		if (!judged) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 " (%s only: not judged on %s)", r->on, here);
			ok = true;
		}
	}
	const char *want = r->expect == EXPECT_PASS ? "pass" :
			   r->expect == EXPECT_FAIL_CORRECTNESS ? "fail correctness" : r->check;
	fprintf(out, "  %-4s %-34s expect %-18s %s\n", !judged ? "--" : ok ? "ok" : "BAD",
		r->label, want, why);
	if (!ok && rep)
		report_write_text(out, rep, false);
	report_free(rep);
	diag_list_release(&diags);
	return ok;
}

/* A solution with BEGIN SOLUTION markers is the starter's single source: the committed
 * starter must be the one generated from it (starter.h). */
static bool check_generated(const char *solution, const char *starter, const char *lab, FILE *out,
			    int *config_error)
{
	if (!starter_marked(solution))
		return true;
	char *generated;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = starter_generate(solution, &generated, &diags);
	diag_print(out, &diags);
	diag_list_release(&diags);
	if (rc < 0) {
		*config_error = 1;
		return false;
	}
	long line = starter_compare(generated, starter);
	free(generated);
	if (line == 0)
		fprintf(out, "  %-4s %-34s %s\n", "ok", "starter from solution", "generated from the solution's markers");
	else if (line < 0)
		fprintf(out, "  %-4s %-34s %s is missing: make it with pmpplab lab starter %s\n", "BAD",
			"starter from solution", starter, lab);
	else
		fprintf(out, "  %-4s %-34s %s:%ld: differs from the starter generated from %s; regenerate it with pmpplab lab starter %s\n",
			"BAD", "starter from solution", starter, line, solution, lab);
	return line == 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .cu file in the spec's folder REL, sorted. */
static unsigned list_cu(const struct lab_spec *spec, const char *rel, char **names, unsigned cap)
{
	if (!rel)
		return 0;
	char *dir = spec_path(spec, rel);
	DIR *d = dir ? opendir(dir) : NULL;
	unsigned n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) && n < cap) {
		size_t len = strlen(e->d_name);
		if (len > 3 && strcmp(e->d_name + len - 3, ".cu") == 0)
			asprintf(&names[n++], "%s/%s", dir, e->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
	qsort(names, n, sizeof(*names), by_name);
	return n;
}

/* One row of the table: what is graded, how, and (after grading) what it printed. */
struct task {
	const struct lab_spec *spec; /* the lab, or vendor's view of it */
	struct lab_spec view;        /* a vendor's view (add_vendors) */
	bool is_view;
	char *path;
	char label[200];
	struct row row;
	bool ok;
	int config_error;
	char *text;                  /* the row and any report, printed in order */
	size_t len;
	bool done;
};

#define MAX_TASKS 160

struct plan {
	struct task t[MAX_TASKS];
	unsigned n, next, printed; /* rows handed out; rows printed, in order */
	FILE *out;
	bool ok;
	int config_error;
	enum backend_kind backend;
	uint64_t seed;
	pthread_mutex_t lock;
};

static struct task *add_task(struct plan *p, const struct lab_spec *spec, char *path,
			     enum expectation expect)
{
	if (p->n == MAX_TASKS) {
		free(path);
		return NULL;
	}
	struct task *t = &p->t[p->n++];
	t->done = false;
	t->spec = spec;
	t->path = path;
	t->row.expect = expect;
	t->row.label = t->label;
	return t;
}

static void add_folder(struct plan *p, const struct lab_spec *spec, const char *rel, bool wrong)
{
	char *files[128];
	unsigned n = list_cu(spec, rel, files, 128);
	for (unsigned i = 0; i < n; i++) {
		struct task *t = add_task(p, spec, files[i], EXPECT_PASS);
		if (!t)
			continue;
		if (wrong)
			read_expectation(files[i], &t->row);
		snprintf(t->label, sizeof(t->label), "%s/%s", wrong ? "wrong" : "right",
			 strrchr(files[i], '/') + 1);
	}
}

/* The vendor programs that compute the lab's outputs (vendor.checked) must compute them
 * right, or the vendor line would time something else. Graded like a known-right file,
 * correctness only, on a GPU; the emulator runs no vendor library. */
static void add_vendors(struct plan *p, const struct lab_spec *spec, int *config_error)
{
	for (unsigned i = 0; i < spec->checks_count; i++) {
		const struct spec_vendor *v = spec->checks[i].vendor;
		if (!v || !v->checked)
			continue;
		char label[200], *file = spec_path(spec, v->file);
		snprintf(label, sizeof(label), "vendor %s:%s", file ? strrchr(file, '/') + 1 : v->file,
			 v->function ? v->function : spec->entry.function);
		struct task *t = file ? add_task(p, NULL, file, EXPECT_PASS) : NULL;
		if (t && backend_resolve(p->backend) != BACKEND_GPU) {
			t->ok = true;
			if (asprintf(&t->text, "  %-4s %-34s expect %-18s (the vendor library runs on a GPU only)\n",
				     "--", label, "pass") > 0)
				t->len = strlen(t->text);
			continue;
		}
		if (!t || spec_vendor_view(spec, v, &t->view) < 0) {
			*config_error = 1;
			continue;
		}
		t->spec = &t->view;
		t->is_view = true;
		snprintf(t->label, sizeof(t->label), "%s", label);
	}
}

/* Prints the rows that are done and follow the last printed one (under p->lock): the
 * table grows in order as the gradings finish, so a run cut short keeps what it did. */
static void print_ready(struct plan *p)
{
	while (p->printed < p->n && p->t[p->printed].done) {
		struct task *t = &p->t[p->printed++];
		if (t->text)
			fwrite(t->text, 1, t->len, p->out);
		fflush(p->out);
		p->ok &= t->ok;
		p->config_error |= t->config_error;
	}
}

static void *worker(void *arg)
{
	struct plan *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		unsigned i = p->next < p->n ? p->next++ : p->n;
		pthread_mutex_unlock(&p->lock);
		if (i == p->n)
			return NULL;
		struct task *t = &p->t[i];
		if (!t->text) { /* else decided without grading */
			FILE *f = open_memstream(&t->text, &t->len);
			if (f) {
				t->ok = check_one(t->spec, t->path, &t->row, p->backend, p->seed, f,
						  &t->config_error);
				fclose(f);
			} else {
				t->config_error = 1;
			}
		}
		pthread_mutex_lock(&p->lock);
		t->done = true;
		print_ready(p);
		pthread_mutex_unlock(&p->lock);
	}
}

/* $PMPPLAB_LABCHECK_JOBS submissions graded at once (default 1). Each GPU timing run
 * still has the GPU to itself (perf.h, perf_gpu_lock). */
static unsigned jobs(void)
{
	const char *v = getenv("PMPPLAB_LABCHECK_JOBS");
	long n = v ? strtol(v, NULL, 10) : 1;
	return n < 1 ? 1 : n > 32 ? 32 : (unsigned)n;
}

int labcheck_run(const char *dir, enum backend_kind backend, FILE *out)
{
	struct lab_spec *spec;
	struct diag_list diags;
	diag_list_init(&diags);
	if (spec_load(dir, &spec, &diags) < 0) {
		diag_print(out, &diags);
		diag_list_release(&diags);
		return 2;
	}
	diag_list_release(&diags);
	struct plan *p = calloc(1, sizeof(*p));
	if (!p) {
		spec_free(spec);
		return 2;
	}
	p->backend = backend;
	p->seed = datagen_fresh_seed();
	p->out = out;
	p->ok = true;
	pthread_mutex_init(&p->lock, NULL);
	fprintf(out, "lab check %s (backend %s, seed %llu)\n", spec->id,
		backend_label(backend_resolve(backend)), (unsigned long long)p->seed);
	fflush(out);
	int config_error = 0;
	char *solution = spec_path(spec, spec->solution);
	char *starter = spec_path(spec, spec->student);
	bool ok = check_generated(solution, starter, spec->dir, out, &config_error);
	struct task *t = add_task(p, spec, solution, EXPECT_PASS);
	snprintf(t->label, sizeof(t->label), "solution");
	t = add_task(p, spec, starter, EXPECT_FAIL_CORRECTNESS);
	snprintf(t->label, sizeof(t->label), "starter");
	add_folder(p, spec, spec->wrong, true);
	add_folder(p, spec, spec->right, false);
	add_vendors(p, spec, &config_error);

	pthread_t threads[32];
	unsigned started = 0, want = jobs();
	for (unsigned i = 1; i < want && i < p->n; i++)
		started += pthread_create(&threads[started], NULL, worker, p) == 0;
	worker(p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);

	ok &= p->ok;
	config_error |= p->config_error;
	for (unsigned i = 0; i < p->n; i++) {
		t = &p->t[i];
		free(t->text);
		free(t->path);
		if (t->is_view)
			spec_vendor_view_release(&t->view);
	}
	fprintf(out, "%s\n", config_error ? "lab check: could not grade (see above)" :
			     ok ? "lab check: all as expected" : "lab check: some rows are BAD");
	pthread_mutex_destroy(&p->lock);
	free(p);
	spec_free(spec);
	return config_error ? 2 : ok ? 0 : 1;
}
