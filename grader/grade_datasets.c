/* grade_datasets: the datasets' tests of one grading (grade_internal.h). Each dataset's
 * runs (its inputs; the reference's expected outputs, kept by their inputs when the seed
 * was given; the program's run) and their judging (the outputs against the expected ones,
 * whether they are the kernels' work, how many kernels made them), side by side on the
 * emulator and judged in the spec's order. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "datagen.h"
#include "fsutil.h"
#include "grade_internal.h"
#include "harness/pl_harness.h"
#include "memcheck.h"
#include "paths.h"
#include "provenance.h" /* issue 14 */
#include "runner.h"
#include "subrun.h"

char *grade_dataset_label(const struct spec_dataset *d)
{
	char *label = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&label, &len);
	if (!f)
		return NULL;
	fprintf(f, "correctness: %s (", d->name);
	for (unsigned i = 0; i < d->n_vals; i++)
		fprintf(f, "%s%s=%lld", i ? ", " : "", d->vals[i].name, (long long)d->vals[i].value);
	fputc(')', f);
	fclose(f);
	return label;
}

/* Where the expected outputs for REQUEST are kept: they depend on the reference program
 * (its build's path holds its hash) and the inputs only. Kept only when the seed was
 * given (a class, a lab check: every submission gets the same inputs, issue 16); a fresh
 * seed's would never be asked for again. */
static bool expected_kept(const struct grading *g, const char *request, char *path, size_t len)
{
	char *cache = g->opts->seed ? paths_cache_dir() : NULL;
	if (!cache)
		return false;
	struct fs_hash h;
	char hex[33];
	fs_hash_init(&h);
	fs_hash_str(&h, "pmpplab-expected-1");
	fs_hash_str(&h, g->ref_build.program);
	fs_hash_content(&h, request); /* its folder is the grading's own */
	fs_hash_hex(&h, hex);
	snprintf(path, len, "%s/expected", cache);
	static int swept; /* once a process: what a grader killed while keeping one left */
	if (!__atomic_exchange_n(&swept, 1, __ATOMIC_RELAXED))
		fs_sweep_stale(path);
	snprintf(path, len, "%s/expected/%s", cache, hex);
	free(cache);
	return true;
}

/* The lab's CPU reference on REQUEST, writing the expected outputs where only the grader
 * looks: the lab's own code, not sandboxed; or the outputs it gave an earlier grading on
 * the same inputs (then *res is a clean exit with no output). */
static int run_reference(struct grading *g, const char *request, const char *expected,
			 struct runner_result *res)
{
	char kept[PATH_MAX];
	bool keep = expected_kept(g, request, kept, sizeof(kept));
	/* a link, not a copy: nothing writes either file again, and a copy's fsync costs
	 * more than the reference's run on small inputs (another file system: the copy) */
	if (keep && (link(kept, expected) == 0 || fs_copy_new(kept, expected) == 0)) {
		memset(res, 0, sizeof(*res));
		res->status = RUNNER_EXITED;
		return 0;
	}
	const char *argv[] = { g->ref_build.program, request, expected, NULL };
	struct runner_opts o = { .argv = (char *const *)argv, .cwd = g->ref,
				 .timeout_ms = 120 * 1000, .output_cap = 64 * 1024 };
	int rc = runner_run(&o, res);
	if (rc == 0 && keep && res->status == RUNNER_EXITED && res->exit_code == 0) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", kept);
		*strrchr(dir, '/') = '\0';
		/* whole or absent under its name; -EEXIST: another grader kept it first */
		if (paths_mkdirs(dir) == 0)
			fs_copy_new(expected, kept);
	}
	return rc;
}

/* The student's run did not produce results: say how it ended and what to look at. */
static void report_run_failure(struct grading *g, const char *label, const struct runner_result *res)
{
	char how[128];
	runner_describe(res, grade_timeout_ms(g->spec), how, sizeof(how));
	const char *advice = "";
	if (res->status == RUNNER_FLOOD) {
		char head[2048];
		subrun_head(res->out && *res->out ? res->out : res->err, 12, head, sizeof(head));
		report_add(g->report, label, 0, false,
			   "The program %s.\nPrinting in a loop, or in a kernel that every thread runs, does this: print a few values, not every element. The first lines it wrote:\n%s",
			   how, head);
		return;
	}
	/* The emulator names the kernel it stopped (exec_stuck.c); a timeout without that
	 * line on the emulator is the host code's: a kernel hint would mislead. */
	if (res->status == RUNNER_TIMEOUT && g->backend == BACKEND_EMU &&
	    !(res->err && strstr(res->err, "did not finish in time")))
		advice = "\nNo kernel was running when it was stopped: the host code did not finish. A host loop that never ends, a wait for input that never comes (sleep, reading stdin), or a process that keeps starting others does this.";
	else if (res->status == RUNNER_TIMEOUT)
		advice = "\nA loop that never ends, or a __syncthreads() that not every thread of the block reaches, keeps a kernel running forever.";
	else if (res->status == RUNNER_SIGNALED)
		advice = "\nThe host code crashed. Dereferencing a device pointer (one set by cudaMalloc) on the host, or a host buffer too small for a cudaMemcpy, does this.";
	else if (res->err && (strstr(res->err, "invalid configuration") || strstr(res->err, "invalid argument")))
		advice = "\nA CUDA call rejected its arguments. For a kernel launch: the grid needs at least one block (n / 256 is 0 when n < 256; round up), and a block at most 1024 threads.";
	else if (res->exit_code == PL_EXIT_CUDA)
		advice = "\nA CUDA call or kernel failed. Check every CUDA call's return value and call cudaGetLastError() after each launch.";
	report_add(g->report, label, 0, false, "The program %s.%s\n%s", how, advice,
		   grade_tail_lines(res->err, 15));
}

/* Reads both results and compares every output. Returns true when all match. */
static bool check_outputs(struct grading *g, const struct spec_dataset *d,
			  const char *expected_path, const char *actual_path, char **text)
{
	struct pl_file exp, act;
	char err[256];
	*text = NULL;
	if (pl_read(&exp, expected_path, err, sizeof(err)) < 0) {
		asprintf(text, "the reference produced no result (%s): the lab's reference is broken", err);
		return false;
	}
	if (pl_read(&act, actual_path, err, sizeof(err)) < 0) {
		pl_release(&exp);
		asprintf(text, "the program produced no result (%s)", err);
		return false;
	}
	bool ok = true;
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	for (unsigned i = 0; i < g->spec->outputs_count && f; i++) {
		const struct spec_buffer *o = &g->spec->outputs[i];
		struct pl_item *e = pl_find(&exp, PL_OUTPUT, o->name), *a = pl_find(&act, PL_OUTPUT, o->name);
		if (!e || !a) {
			fprintf(f, "%s: missing from the results\n", o->name);
			ok = false;
			continue;
		}
		if (!pl_same_shape(a, e)) {
			fprintf(f, "%s: the program's result file holds %llu %s values%s where the "
				"reference's holds %llu %s values: it was not written by the harness "
				"(does your code write to the result file or exit from the entry "
				"point?)\n", o->name, (unsigned long long)a->count,
				spec_dtype_name((enum spec_dtype)a->dtype), a->data ? "" : " without data",
				(unsigned long long)e->count, spec_dtype_name((enum spec_dtype)e->dtype));
			ok = false;
			continue;
		}
		struct spec_tolerance tol = o->tolerance ? *o->tolerance : compare_default_tolerance(o->type);
		struct compare_result r;
		struct spec_shape shape;
		spec_buffer_shape(g->spec, o, d, e->count, &shape);
		compare_buffers(o->type, &tol, e->data, a->data, e->count, &shape, &r);
		if (r.wrong) {
			char *why = compare_describe(&r, o->name, o->type);
			fputs(why ? why : "", f);
			free(why);
			ok = false;
		}
	}
	if (f)
		fclose(f);
	pl_release(&exp);
	pl_release(&act);
	return ok;
}

/* The kernels a run launched, from the emulator's events (emu/README.md: one
 * {"event":"launch",...} line each); -1 where there are none to read (a GPU build). */
static int count_launches(const struct build_result *b, const char *events)
{
	if (!b->ptx)
		return -1;
	char *text = fs_read(events, NULL);
	int n = 0;
	for (const char *p = text; p && (p = strstr(p, "{\"event\":\"launch\"")); p++)
		n++;
	free(text);
	return n;
}

static bool is_memcheck_dataset(const struct grading *g, const struct spec_dataset *d);

/* gpu: the emulator twin's run of REQUEST (dataset D), judged for provenance (issue 14).
 * On memcheck's dataset the run is kept: it is memcheck's emulator run too (the same
 * program, input and environment; issue 16: the twin ran twice there). */
static enum provenance_verdict twin_provenance(struct grading *g, const struct spec_dataset *d,
					       const char *request, const char *actual, char **why)
{
	const struct build_result *twin = grading_emu_twin(g);
	if (!twin)
		return PROVENANCE_UNKNOWN;
	char result[176];
	snprintf(result, sizeof(result), "%s.prov", actual);
	struct runner_result res;
	int (*run)(struct grading *, const struct build_result *, const char *, const char *,
		   unsigned, struct runner_result *, const char *, const char *) =
		is_memcheck_dataset(g, d) ? grading_run_memchecked : grading_run_program;
	if (run(g, twin, request, result, 12 * grade_timeout_ms(g->spec), &res, NULL,
		"provenance (the emulator build)") < 0)
		return PROVENANCE_UNKNOWN;
	bool ran = res.status == RUNNER_EXITED && res.exit_code == 0;
	if (!g->prov.d && is_memcheck_dataset(g, d)) {
		g->prov.d = d;
		g->prov.res = res;
		snprintf(g->prov.result, sizeof(g->prov.result), "%s", result);
		snprintf(g->prov.events, sizeof(g->prov.events), "%s.events", result);
	} else {
		runner_result_release(&res);
	}
	struct pl_file f;
	char err[256];
	if (!ran || pl_read(&f, result, err, sizeof(err)) < 0)
		return PROVENANCE_UNKNOWN;
	enum provenance_verdict v = provenance_judge(g->spec, &f, why);
	pl_release(&f);
	return v;
}

/* Issue 14: right values are not enough, they must be the kernels' work. The run's
 * result says which kernels ran (and on the emulator where every element came from);
 * on a GPU the emulator build of the file tracks the rest, on the datasets it runs
 * quickly (not the perf ones, where the launch records alone judge). True when the
 * outputs pass; else *text says why. */
static bool judge_provenance(struct grading *g, const struct spec_dataset *d, const char *request,
			     const char *actual, char **text)
{
	struct pl_file act;
	char err[256], *why = NULL;
	if (pl_read(&act, actual, err, sizeof(err)) < 0)
		return true; /* check_outputs read it: cannot happen */
	enum provenance_verdict v = provenance_judge(g->spec, &act, &why);
	pl_release(&act);
	bool twin = false;
	if (v != PROVENANCE_BAD && g->backend == BACKEND_GPU && !d->perf) {
		free(why);
		why = NULL;
		v = twin_provenance(g, d, request, actual, &why);
		twin = true;
	}
	if (v != PROVENANCE_BAD)
		return true;
	free(*text);
	*text = NULL;
	asprintf(text, "%s%s", why ? why : "",
		 twin ? "(Found by pmpplab's emulator, which tracks every byte a kernel writes, on a build of your file for the CPU.)\n" : "");
	free(why);
	return false;
}

/* A dataset's min_launches: right values from fewer kernels than the version it runs is
 * made of (lab 15's version 2 computed by version 1's kernel) are not the assignment. */
static bool judge_launches(const struct grading *g, const struct spec_dataset *d, const char *actual,
			   char **text)
{
	char prov[176];
	snprintf(prov, sizeof(prov), "%s.prov", actual);
	long n = grade_result_launches(actual);
	if (n < 0)
		n = g->backend == BACKEND_GPU ? grade_result_launches(prov) : -1;
	if (n < 0 || n >= (long)d->min_launches)
		return true;
	free(*text);
	*text = NULL;
	asprintf(text, "the outputs are right, but the call launched %ld kernel%s: the version this dataset "
		       "runs is made of at least %u kernel launches, so these values did not come from "
		       "it; write that version as the lab asks (the reading and the hints say how)\n",
		 n, n == 1 ? "" : "s", d->min_launches);
	return false;
}

/* On the emulator every run checks every access, so the run of memcheck's dataset is
 * memcheck's run (the same program, input and environment): memcheck reads it instead
 * of running it again (issue 16: one run less a save). Only a run that ended by itself
 * is kept; one stopped at the dataset's time limit is repeated with memcheck's. */
static bool memcheck_reuses(const struct grading *g, const struct spec_dataset *d)
{
	return g->backend == BACKEND_EMU && !g->kept.d && is_memcheck_dataset(g, d);
}

/* Whether a memcheck check of the spec checks dataset D. */
static bool is_memcheck_dataset(const struct grading *g, const struct spec_dataset *d)
{
	for (unsigned i = 0; i < g->spec->checks_count; i++) {
		const struct spec_check *c = &g->spec->checks[i];
		if (c->kind != SPEC_CHECK_MEMCHECK)
			continue;
		if (grade_check_dataset(g->spec, c) == d)
			return true;
		for (unsigned k = 0; k < c->datasets_count; k++)
			if (spec_dataset_named(g->spec, c->datasets[k]) == d)
				return true;
	}
	return false;
}

/* A dataset's runs (its inputs, the expected outputs, the program's run), made apart
 * from their judging: on the emulator several datasets run side by side (issue 16), and
 * are judged one after another in the spec's order, as if made so. */
struct dataset_run {
	char request[160], expected[160], actual[160], what[96];
	int stage;                /* DATASET_* below: how far it got */
	char err[256];            /* DATASET_NO_INPUTS: why */
	struct runner_result rr;  /* DATASET_NO_REFERENCE: the reference's run */
	int rc;                   /* DATASET_NO_START: why (-errno); -ECANCELED: not run */
	struct runner_result sr;  /* DATASET_RAN: the program's run */
};
enum { DATASET_NO_INPUTS, DATASET_NO_REFERENCE, DATASET_NO_START, DATASET_RAN };

static void dataset_paths(const struct grading *g, const struct spec_dataset *d, struct dataset_run *r)
{
	snprintf(r->request, sizeof(r->request), "%s/%s.in", g->box, d->name);
	snprintf(r->expected, sizeof(r->expected), "%s/%s.expected", g->ref, d->name);
	snprintf(r->actual, sizeof(r->actual), "%s/%s.out", g->box, d->name);
	snprintf(r->what, sizeof(r->what), "dataset %s", d->name);
}

/* On the emulator, the dataset the (first) performance check counts (its emu_dataset, as
 * perf.c picks it): that dataset's run counts too (PMPPLAB_COUNTERS=1, the same program
 * and input as the check's counted run), and the check reads it instead of running the
 * program again (issue 16). NULL: none. */
static const struct spec_dataset *counted_dataset(const struct grading *g)
{
	for (unsigned i = 0; g->backend == BACKEND_EMU && i < g->spec->checks_count; i++) {
		const struct spec_check *c = &g->spec->checks[i];
		if (c->kind != SPEC_CHECK_PERFORMANCE)
			continue;
		const struct spec_dataset *d =
			spec_dataset_named(g->spec, c->emu_dataset ? c->emu_dataset : c->dataset);
		return d ? d : &g->spec->datasets[0];
	}
	return NULL;
}

/* The runs of dataset D into *R; NO_TRACE: the run leaves the live trace alone (made
 * beside others). A deferred run (made beside others) is counted for fail fast by
 * judge_dataset. */
static void run_dataset(struct grading *g, const struct spec_dataset *d, struct dataset_run *r,
			bool no_trace, bool deferred)
{
	memset(&r->rr, 0, sizeof(r->rr));
	memset(&r->sr, 0, sizeof(r->sr));
	r->stage = DATASET_NO_INPUTS;
	if (datagen_request_file(g->spec, d, g->report->seed, r->request, r->err, sizeof(r->err)) < 0)
		return;
	r->stage = DATASET_NO_REFERENCE;
	if (run_reference(g, r->request, r->expected, &r->rr) < 0 || r->rr.status != RUNNER_EXITED ||
	    r->rr.exit_code != 0)
		return;
	runner_result_release(&r->rr);
	r->stage = DATASET_NO_START;
	const char *argv[9];
	memcheck_command(argv, NULL, "memcheck", g->prog.program, r->request, r->actual);
	const char *extra[4] = { 0 };
	unsigned n = 0;
	if (no_trace)
		extra[n++] = "PMPPLAB_TRACE=";
	if (counted_dataset(g) == d)
		extra[n++] = "PMPPLAB_COUNTERS=1";
	if (g->backend == BACKEND_EMU && is_memcheck_dataset(g, d)) /* memcheck_reuses it */
		extra[n++] = memcheck_emu_env[0];
	r->rc = grading_run_env(g, &g->prog, argv, r->request, r->actual, NULL, grade_timeout_ms(g->spec),
				r->what, extra, deferred, &r->sr);
	if (r->rc == 0)
		r->stage = DATASET_RAN;
}

/* Dataset INDEX's test in the report, from its runs R (released). DEFERRED: R's program
 * run is counted for fail fast here. */
static void judge_dataset(struct grading *g, unsigned index, struct dataset_run *r, bool deferred)
{
	const struct spec_dataset *d = &g->spec->datasets[index];
	char *label = grade_dataset_label(d);
	if (deferred && grading_skipped(g, r->request, label, d->points)) /* an earlier run stopped it */
		goto out;
	if (r->stage == DATASET_NO_INPUTS) {
		report_add(g->report, label, d->points, false, "could not prepare the inputs: %s", r->err);
		goto out;
	}
	if (r->stage == DATASET_NO_REFERENCE) {
		report_add(g->report, label, d->points, false,
			   "the lab's CPU reference failed on this dataset (a bug in the lab, not your code)\n%s",
			   grade_tail_lines(r->rr.err, 10));
		goto out;
	}
	if (r->stage == DATASET_NO_START) {
		report_add(g->report, label, d->points, false, "could not start the program: %s", strerror(-r->rc));
		goto out;
	}
	struct runner_result *sr = &r->sr;
	if (deferred) {
		struct subrun_call c = { .reads = { r->request }, .timeout_ms = grade_timeout_ms(g->spec),
					 .what = r->what };
		subrun_account(&g->runs, &c, sr);
	}
	if (sr->status == RUNNER_EXITED && memcheck_reuses(g, d)) {
		g->kept.d = d; /* a copy: sr is released below */
		g->kept.res = *sr;
		g->kept.res.out = sr->out ? strdup(sr->out) : NULL;
		g->kept.res.err = sr->err ? strdup(sr->err) : NULL;
	}
	if (sr->status == RUNNER_EXITED && sr->exit_code == 0 && counted_dataset(g) == d)
		g->counted = d; /* its result holds the counters: perf reads it (r->actual) */
	if (sr->status != RUNNER_EXITED || sr->exit_code != 0) {
		report_run_failure(g, label, sr);
		g->report->tests[g->report->n_tests - 1].max_score = d->points;
		grading_uninit_note(g);
	} else {
		char events[176];
		snprintf(events, sizeof(events), "%s.events", r->actual);
		int launches = count_launches(&g->prog, events);
		if (launches > g->report->launches)
			g->report->launches = launches;
		char *text;
		bool ok = check_outputs(g, d, r->expected, r->actual, &text);
		if (ok)
			ok = judge_provenance(g, d, r->request, r->actual, &text);
		if (ok && d->min_launches)
			ok = judge_launches(g, d, r->actual, &text);
		report_add(g->report, label, d->points, ok, "%s", text ? text : "");
		if (!ok)
			grading_uninit_note(g);
		free(text);
	}
out:
	runner_result_release(&r->rr);
	runner_result_release(&r->sr);
	free(label);
}

/* Dataset INDEX, run and judged now (one after another). */
static void grade_dataset(struct grading *g, unsigned index)
{
	const struct spec_dataset *d = &g->spec->datasets[index];
	struct dataset_run r = { 0 };
	dataset_paths(g, d, &r);
	char *label = grade_dataset_label(d);
	bool skip = grading_skipped(g, r.request, label, d->points);
	free(label);
	if (skip)
		return;
	run_dataset(g, d, &r, false, false);
	judge_dataset(g, index, &r, false);
}

/* Datasets side by side (issue 16): workers run them (run_dataset) while the grading's
 * thread judges them in order. A worker starts the dataset at position K of the order
 * only once the one at K - jobs is judged, so a program that hangs or crashes from the
 * start (subrun.h: fail fast) costs no more runs than one after another would; their
 * results are then said "not run", as before. Each run but the order's last leaves the
 * live trace (the TUI's panels) alone: two writers would mix it. */
struct dataset_pool {
	struct grading *g;
	const unsigned *order;    /* dataset indices, in the spec's order */
	unsigned n, jobs;
	struct dataset_run *runs; /* by position in order */
	bool *done;
	unsigned next, judged;    /* next position to take; positions judged */
	bool stop;                /* no more runs: cancelled, or fail fast */
	pthread_mutex_t lock;
	pthread_cond_t changed;
};

static void *dataset_worker(void *arg)
{
	struct dataset_pool *p = arg;
	runner_set_cancel(p->g->opts->cancel); /* the runner's flag is per thread */
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && p->next < p->n && p->next >= p->judged + p->jobs)
			pthread_cond_wait(&p->changed, &p->lock);
		if (p->stop || p->next >= p->n)
			break;
		unsigned k = p->next++;
		pthread_mutex_unlock(&p->lock);
		struct dataset_run *r = &p->runs[k];
		if (grading_stopped(p->g)) {
			r->stage = DATASET_NO_START;
			r->rc = -ECANCELED;
		} else {
			run_dataset(p->g, &p->g->spec->datasets[p->order[k]], r,
				    k + 1 < p->n, true);
		}
		pthread_mutex_lock(&p->lock);
		p->done[k] = true;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* How many datasets run side by side: on the emulator, one per core up to 4
 * ($PMPPLAB_DATASET_JOBS: another count; 1, one after another); on a GPU one (the
 * emulator twin's runs and the GPU's timing stay as they were). */
static unsigned dataset_jobs(const struct grading *g, unsigned n)
{
	if (g->backend != BACKEND_EMU || n < 2)
		return 1;
	const char *e = getenv("PMPPLAB_DATASET_JOBS");
	long jobs = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	jobs = jobs < 1 ? 1 : jobs > 4 ? 4 : jobs;
	return (unsigned)jobs < n ? (unsigned)jobs : n;
}

/* The datasets ORDER[0..N), one after another. -ECANCELED when the run was stopped. */
static int grade_datasets_in_turn(struct grading *g, const unsigned *order, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		if (grading_stopped(g))
			return -ECANCELED;
		grading_progress(g, GRADE_STAGE_DATASET, k, n, g->spec->datasets[order[k]].name);
		grade_dataset(g, order[k]);
	}
	return 0;
}

/* The datasets ORDER[0..N), side by side where dataset_jobs says so. -ECANCELED when the
 * run was stopped. */
int grade_datasets(struct grading *g, const unsigned *order, unsigned n)
{
	unsigned jobs = dataset_jobs(g, n);
	if (jobs < 2)
		return grade_datasets_in_turn(g, order, n);
	struct dataset_pool p = { .g = g, .order = order, .n = n, .jobs = jobs };
	p.runs = calloc(n, sizeof(*p.runs));
	p.done = calloc(n, sizeof(*p.done));
	pthread_t t[4];
	unsigned started = 0;
	if (p.runs && p.done) {
		pthread_mutex_init(&p.lock, NULL);
		pthread_cond_init(&p.changed, NULL);
		for (unsigned k = 0; k < n; k++)
			dataset_paths(g, &g->spec->datasets[order[k]], &p.runs[k]);
		for (; started < jobs && pthread_create(&t[started], NULL, dataset_worker, &p) == 0; started++)
			;
	}
	if (!started) { /* no threads (or memory): one after another */
		if (p.runs && p.done) {
			pthread_cond_destroy(&p.changed);
			pthread_mutex_destroy(&p.lock);
		}
		free(p.runs);
		free(p.done);
		return grade_datasets_in_turn(g, order, n);
	}
	int rc = 0;
	for (unsigned k = 0; k < n; k++) {
		grading_progress(g, GRADE_STAGE_DATASET, k, n, g->spec->datasets[order[k]].name);
		pthread_mutex_lock(&p.lock);
		while (!p.done[k] && !(p.stop && k >= p.next)) /* not taken: fail fast stopped it */
			pthread_cond_wait(&p.changed, &p.lock);
		bool ran = p.done[k];
		pthread_mutex_unlock(&p.lock);
		if (grading_stopped(g)) {
			rc = -ECANCELED;
			break;
		}
		if (ran)
			judge_dataset(g, order[k], &p.runs[k], true);
		else /* "not run", as one after another */
			grade_dataset(g, order[k]);
		pthread_mutex_lock(&p.lock);
		p.judged = k + 1;
		p.stop = subrun_stopped(&g->runs, NULL) != NULL;
		pthread_cond_broadcast(&p.changed);
		pthread_mutex_unlock(&p.lock);
	}
	pthread_mutex_lock(&p.lock);
	p.stop = true;
	pthread_cond_broadcast(&p.changed);
	pthread_mutex_unlock(&p.lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	for (unsigned k = p.judged; k < n; k++) { /* cancelled: what ran is dropped */
		runner_result_release(&p.runs[k].rr);
		runner_result_release(&p.runs[k].sr);
	}
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.lock);
	free(p.runs);
	free(p.done);
	return rc;
}

/* Whether the correctness test of dataset D is in the report and passed. */
bool grade_dataset_passed(const struct report *r, const struct spec_dataset *d)
{
	char *label = grade_dataset_label(d);
	bool passed = false;
	for (unsigned i = 0; label && i < r->n_tests; i++)
		if (strcmp(r->tests[i].name, label) == 0)
			passed = r->tests[i].status == TEST_PASSED;
	free(label);
	return passed;
}

/* The kernels the run that wrote RESULT launched; -1 when it does not say (a GPU run
 * under compute-sanitizer: then the emulator twin's result, RESULT.emu, may). */
long grade_result_launches(const char *result)
{
	struct pl_file f;
	char err[256], twin[176];
	long n = -1;
	if (pl_read(&f, result, err, sizeof(err)) == 0) {
		n = provenance_launches(&f);
		pl_release(&f);
	}
	snprintf(twin, sizeof(twin), "%s.emu", result);
	if (n < 0 && pl_read(&f, twin, err, sizeof(err)) == 0) {
		n = provenance_launches(&f);
		pl_release(&f);
	}
	return n;
}
