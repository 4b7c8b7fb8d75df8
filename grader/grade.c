/* grade: the run of one lab; see grade.h and docs/ARCHITECTURE.md. */
#include "grade.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "compare.h"
#include "datagen.h"
#include "fsutil.h"
#include "harness/pl_harness.h"
#include "memcheck.h"
#include "ncu.h"
#include "nvccdiag.h"
#include "paths.h"
#include "barriers.h" /* barrier and race analysis (issue 6) */
#include "optim.h"
#include "perf.h" /* pmpplab perf (issue 8) */
#include "provenance.h" /* issue 14 */
#include "runner.h"
#include "sandbox.h"
#include "scratch.h"
#include "subrun.h"

/* Everything one grading run carries between its steps. */
struct grading {
	const struct lab_spec *spec;
	const struct grade_opts *opts;
	enum backend_kind backend;
	struct report *report;
	struct diag_list *diags;
	struct build_result prog, ref_build;
	struct build_result emu;  /* gpu: the submission built for the emulator too */
	int emu_rc;               /* 1 not built yet, 0 built, < 0 could not build */
	struct twin_run {         /* gpu: its race-checked run, for memcheck and barriers */
		const struct spec_dataset *d; /* NULL: not run yet */
		int rc;
		char result[192], events[208];
		struct runner_result res;
	} twin;
	struct kept_run {         /* emu: the run of memcheck's dataset, which is memcheck's */
		const struct spec_dataset *d; /* NULL: none kept */
		struct runner_result res;
	} kept;
	const struct spec_dataset *counted; /* emu: the dataset whose run counted (perf) */
	struct kept_twin {        /* gpu: the twin's provenance run of memcheck's dataset */
		const struct spec_dataset *d; /* NULL: none kept */
		struct runner_result res;
		char result[176], events[192];
	} prov;
	char tmp[64];             /* the grading's folder (scratch.h), holding: */
	char box[80];             /*   the inputs and what the program writes: all it sees */
	char ref[80];             /*   the expected outputs: the grader's only */
	struct subrun runs;       /* every run of the submission (sandbox, fail fast) */
	const char *source;
	unsigned reported;        /* tests of the report sent to opts->progress */
};

static void progress(struct grading *g, enum grade_stage stage, unsigned index, unsigned count,
		     const char *what)
{
	if (!g->opts->progress)
		return;
	/* The tests the last step added are final now (issue 16: results as they come). */
	for (; g->report && g->reported < g->report->n_tests; g->reported++) {
		struct grade_progress r = { .stage = GRADE_STAGE_RESULT, .index = g->reported,
					    .test = &g->report->tests[g->reported] };
		g->opts->progress(g->opts->userdata, &r);
	}
	struct grade_progress p = { stage, index, count, what, NULL };
	g->opts->progress(g->opts->userdata, &p);
}

/* The last LINES lines of TEXT, for a report (a crash's message is at the end). */
static const char *tail_lines(const char *text, unsigned lines)
{
	if (!text)
		return "";
	const char *p = text + strlen(text);
	while (p > text && p[-1] == '\n')
		p--;
	while (p > text && lines) {
		p--;
		if (*p == '\n')
			lines--;
	}
	return p == text ? p : p + 1;
}

static char *dataset_label(const struct spec_dataset *d)
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

/* Compiler errors as the student should see them: file:line:col: message. */
static char *format_build_errors(const struct diag_list *diags)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	diag_print(f, diags);
	fclose(f);
	return text;
}

/* The first line of PATH, outside // and block-comment lines, where NAME( stands as a
 * word, or 0: where the student defines the entry point. */
static unsigned line_of_call(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, len = strlen(name);
	unsigned n = 0, found = 0;
	while (f && !found && getline(&line, &cap, f) > 0) {
		n++;
		const char *t = line + strspn(line, " \t");
		if (t[0] == '*' || (t[0] == '/' && (t[1] == '/' || t[1] == '*')))
			continue;
		for (const char *p = strstr(line, name); p && !found; p = strstr(p + 1, name)) {
			const char *q = p + len;
			while (*q == ' ' || *q == '\t')
				q++;
			bool word = p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
			if (word && *q == '(')
				found = n;
		}
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/* nvcc's errors in the generated glue (glue.h: the call of the lab's entry point) are
 * the student's: a missing, renamed or static entry function, or one whose parameters do
 * not take the lab's buffers. Said about their file, not about a file in the build cache
 * they never saw. */
static void explain_glue_errors(struct grading *g)
{
	const char *fn = g->spec->entry.function;
	for (unsigned i = 0; i < g->prog.diags.n; i++) {
		struct diag *d = &g->prog.diags.items[i];
		const char *base = d->file ? strrchr(d->file, '/') : NULL;
		base = base ? base + 1 : d->file;
		if (!base || (strcmp(base, "glue.cu") != 0 && strcmp(base, "glue.c") != 0))
			continue;
		char *msg = NULL, undefined[300];
		snprintf(undefined, sizeof(undefined), "\"%s\" is undefined", fn);
		bool missing = strstr(d->message, undefined) || strstr(d->message, "undefined reference");
		if (missing)
			asprintf(&msg, "no function %s(...) here: the lab calls it (lab.yaml's entry, "
				 "the reading's signature); check its name, and that it is not static "
				 "or inside #if 0", fn);
		else
			asprintf(&msg, "the lab's call of your %s(...) does not compile: %s (its "
				 "parameters must take the lab's arguments, as in the reading)", fn,
				 d->message);
		char *file = strdup(g->source);
		if (!msg || !file) {
			free(msg);
			free(file);
			continue;
		}
		free(d->file);
		free(d->message);
		d->file = file;
		d->message = msg;
		d->line = missing ? 0 : line_of_call(g->source, fn);
		d->col = 0;
	}
}

static int do_build(struct grading *g)
{
	progress(g, GRADE_STAGE_BUILD, 0, 1, g->source);
	int rc = build_lab(g->spec, g->source, g->backend, g->opts->ptx, &g->prog, g->diags);
	g->report->build_ms_host = g->prog.ms_host;
	g->report->build_ms_ptx = g->prog.ms_ptx;
	g->report->build_host_reused = g->prog.host_reused;
	g->report->build_nvrtc = g->prog.nvrtc;
	if (rc == -ENOEXEC) {
		explain_glue_errors(g);
		nvccdiag_explain(&g->prog.diags); /* a missing ';' shown on the next line */
	}
	for (unsigned i = 0; i < g->prog.diags.n; i++) {
		const struct diag *d = &g->prog.diags.items[i];
		diag_add(&g->report->build, d->severity, d->file, d->line, d->col, "%s", d->message);
	}
	if (rc == -ENOEXEC) {
		char *errs = format_build_errors(&g->prog.diags);
		report_add(g->report, "build", 0, false, "%s\nThe program does not compile; fix the first error above and grade again.",
			   errs ? errs : "");
		free(errs);
		return rc;
	}
	if (rc < 0)
		return rc;
	unsigned warnings = diag_count(&g->prog.diags, DIAG_WARNING);
	char *w = warnings ? format_build_errors(&g->prog.diags) : NULL;
	report_add(g->report, "build", 0, true, w ? "%s" : NULL, w);
	free(w);
	return 0;
}

/* Runs ARGV (B's program, under a tool or not) on REQUEST, writing RESULT (and its
 * events; LOG: a tool's file, may be NULL), with the emulator's environment where B is
 * an emulator build, and EXTRA (NAME=value each, up to 4, NULL-terminated; may be NULL)
 * in it. WHAT names the run in messages. */
static int run_argv_env(struct grading *g, const struct build_result *b, const char **argv,
			const char *request, const char *result, const char *log,
			unsigned timeout_ms, const char *what, const char *const *extra,
			bool deferred, struct runner_result *res)
{
	char ptx_env[PATH_MAX + 32], events_env[PATH_MAX + 32], events[PATH_MAX];
	snprintf(ptx_env, sizeof(ptx_env), "PMPPLAB_EMU_PTX=%s", b->ptx ? b->ptx : "");
	snprintf(events, sizeof(events), "%s.events", result);
	snprintf(events_env, sizeof(events_env), "PMPPLAB_EVENTS=%s", events);
	/* The emulator says where a kernel's warps are when this is nearly over (a little
	 * before the runner stops it: emu/exec_stuck.c). */
	char stop_env[48];
	unsigned margin = timeout_ms / 10 > 1000 ? timeout_ms / 10 : 1000;
	snprintf(stop_env, sizeof(stop_env), "PMPPLAB_EMU_STOP_MS=%u",
		 timeout_ms > 2 * margin ? timeout_ms - margin : timeout_ms / 2);
	char *env[8] = { ptx_env, events_env, stop_env };
	for (unsigned i = 0, n = 3; extra && extra[i] && n < 7; i++)
		env[n++] = (char *)extra[i];
	struct subrun_call c = {
		.b = b, .argv = argv, .env = b->ptx ? env : NULL,
		.reads = { request }, .writes = { result, events, log },
		.timeout_ms = timeout_ms, .output_cap = 64 * 1024, .what = what,
		.deferred = deferred,
	};
	return subrun_run(&g->runs, &c, res);
}

/* run_argv_env without the extra variable. */
static int run_argv(struct grading *g, const struct build_result *b, const char **argv,
		    const char *request, const char *result, const char *log,
		    unsigned timeout_ms, const char *what, struct runner_result *res)
{
	return run_argv_env(g, b, argv, request, result, log, timeout_ms, what, NULL, false, res);
}

/* Runs PROGRAM on REQUEST, writing RESULT; under compute-sanitizer's memcheck when
 * WRAPPER_TOOL names it. */
static int run_program(struct grading *g, const struct build_result *b, const char *request,
		       const char *result, unsigned timeout_ms, struct runner_result *res,
		       const char *wrapper_tool, const char *what)
{
	const char *argv[9];
	memcheck_command(argv, wrapper_tool, "memcheck", b->program, request, result);
	return run_argv(g, b, argv, request, result, NULL, timeout_ms, what, res);
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

/* A check or dataset (its input REQUEST) not run because an earlier run would only be
 * repeated (subrun.h). */
static bool skipped(struct grading *g, const char *request, const char *label, double points)
{
	const char *why = subrun_stopped(&g->runs, request);
	if (why)
		report_add(g->report, label, points, false,
			   "not run: %s, and running it again would only repeat that (see the first failure above)",
			   why);
	return why != NULL;
}

static unsigned lab_timeout_ms(const struct lab_spec *s)
{
	return (s->timeout ? s->timeout : 10) * 1000u;
}

/* The student's run did not produce results: say how it ended and what to look at. */
static void report_run_failure(struct grading *g, const char *label, const struct runner_result *res)
{
	char how[128];
	runner_describe(res, lab_timeout_ms(g->spec), how, sizeof(how));
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
		   tail_lines(res->err, 15));
}

/* Reads both results and compares every output. Returns true when all match. */
static bool check_outputs(struct grading *g, const char *expected_path, const char *actual_path,
			  char **text)
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
		compare_buffers(o->type, &tol, e->data, a->data, e->count, &r);
		if (r.wrong) {
			char *d = compare_describe(&r, o->name, o->type);
			fputs(d ? d : "", f);
			free(d);
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

static const struct build_result *emu_twin(struct grading *g);

static bool is_memcheck_dataset(const struct grading *g, const struct spec_dataset *d);

/* gpu: the emulator twin's run of REQUEST (dataset D), judged for provenance (issue 14).
 * On memcheck's dataset the run is kept: it is memcheck's emulator run too (the same
 * program, input and environment; issue 16: the twin ran twice there). */
static enum provenance_verdict twin_provenance(struct grading *g, const struct spec_dataset *d,
					       const char *request, const char *actual, char **why)
{
	const struct build_result *twin = emu_twin(g);
	if (!twin)
		return PROVENANCE_UNKNOWN;
	char result[176];
	snprintf(result, sizeof(result), "%s.prov", actual);
	struct runner_result res;
	if (run_program(g, twin, request, result, 12 * lab_timeout_ms(g->spec), &res, NULL,
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

static const struct spec_dataset *check_dataset(const struct lab_spec *s, const struct spec_check *c);
static long result_launches(const char *result);

/* A dataset's min_launches: right values from fewer kernels than the version it runs is
 * made of (lab 15's version 2 computed by version 1's kernel) are not the assignment. */
static bool judge_launches(const struct grading *g, const struct spec_dataset *d, const char *actual,
			   char **text)
{
	char prov[176];
	snprintf(prov, sizeof(prov), "%s.prov", actual);
	long n = result_launches(actual);
	if (n < 0)
		n = g->backend == BACKEND_GPU ? result_launches(prov) : -1;
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
		if (check_dataset(g->spec, c) == d)
			return true;
		for (unsigned k = 0; k < c->datasets_count; k++)
			if (spec_dataset_named(g->spec, c->datasets[k]) == d)
				return true;
	}
	return false;
}

/* Whether opts->cancel asks the run to stop (the runner stops the child running). */
static bool stopped(const struct grading *g)
{
	return g->opts->cancel && atomic_load(g->opts->cancel);
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
	const char *extra[3] = { 0 };
	unsigned n = 0;
	if (no_trace)
		extra[n++] = "PMPPLAB_TRACE=";
	if (counted_dataset(g) == d)
		extra[n++] = "PMPPLAB_COUNTERS=1";
	r->rc = run_argv_env(g, &g->prog, argv, r->request, r->actual, NULL, lab_timeout_ms(g->spec),
			     r->what, extra, deferred, &r->sr);
	if (r->rc == 0)
		r->stage = DATASET_RAN;
}

/* Dataset INDEX's test in the report, from its runs R (released). DEFERRED: R's program
 * run is counted for fail fast here. */
static void judge_dataset(struct grading *g, unsigned index, struct dataset_run *r, bool deferred)
{
	const struct spec_dataset *d = &g->spec->datasets[index];
	char *label = dataset_label(d);
	if (deferred && skipped(g, r->request, label, d->points)) /* an earlier run stopped it */
		goto out;
	if (r->stage == DATASET_NO_INPUTS) {
		report_add(g->report, label, d->points, false, "could not prepare the inputs: %s", r->err);
		goto out;
	}
	if (r->stage == DATASET_NO_REFERENCE) {
		report_add(g->report, label, d->points, false,
			   "the lab's CPU reference failed on this dataset (a bug in the lab, not your code)\n%s",
			   tail_lines(r->rr.err, 10));
		goto out;
	}
	if (r->stage == DATASET_NO_START) {
		report_add(g->report, label, d->points, false, "could not start the program: %s", strerror(-r->rc));
		goto out;
	}
	struct runner_result *sr = &r->sr;
	if (deferred) {
		struct subrun_call c = { .reads = { r->request }, .timeout_ms = lab_timeout_ms(g->spec),
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
	} else {
		char events[176];
		snprintf(events, sizeof(events), "%s.events", r->actual);
		int launches = count_launches(&g->prog, events);
		if (launches > g->report->launches)
			g->report->launches = launches;
		char *text;
		bool ok = check_outputs(g, r->expected, r->actual, &text);
		if (ok)
			ok = judge_provenance(g, d, r->request, r->actual, &text);
		if (ok && d->min_launches)
			ok = judge_launches(g, d, r->actual, &text);
		report_add(g->report, label, d->points, ok, "%s", text ? text : "");
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
	char *label = dataset_label(d);
	bool skip = skipped(g, r.request, label, d->points);
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
		if (stopped(p->g)) {
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
		if (stopped(g))
			return -ECANCELED;
		progress(g, GRADE_STAGE_DATASET, k, n, g->spec->datasets[order[k]].name);
		grade_dataset(g, order[k]);
	}
	return 0;
}

/* The datasets ORDER[0..N), side by side where dataset_jobs says so. -ECANCELED when the
 * run was stopped. */
static int grade_datasets(struct grading *g, const unsigned *order, unsigned n)
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
		progress(g, GRADE_STAGE_DATASET, k, n, g->spec->datasets[order[k]].name);
		pthread_mutex_lock(&p.lock);
		while (!p.done[k] && !(p.stop && k >= p.next)) /* not taken: fail fast stopped it */
			pthread_cond_wait(&p.changed, &p.lock);
		bool ran = p.done[k];
		pthread_mutex_unlock(&p.lock);
		if (stopped(g)) {
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

static const struct spec_dataset *check_dataset(const struct lab_spec *s, const struct spec_check *c)
{
	if (!c->dataset && c->datasets_count) /* a memcheck of several: its first */
		return spec_dataset_named(s, c->datasets[0]);
	for (unsigned i = 0; c->dataset && i < s->datasets_count; i++)
		if (strcmp(s->datasets[i].name, c->dataset) == 0)
			return &s->datasets[i];
	return &s->datasets[0];
}

/* Whether the correctness test of dataset D is in the report and passed. */
static bool dataset_passed(const struct report *r, const struct spec_dataset *d)
{
	char *label = dataset_label(d);
	bool passed = false;
	for (unsigned i = 0; label && i < r->n_tests; i++)
		if (strcmp(r->tests[i].name, label) == 0)
			passed = r->tests[i].status == TEST_PASSED;
	free(label);
	return passed;
}

/* On a GPU, the submission built for the emulator as well (once, when a check needs
 * it): the emulator's checks see what the GPU's tools cannot (a read past a shared
 * array that stays inside the block's shared memory, a race through atomics), so a
 * mistake is caught on both backends alike. NULL when it does not build for the
 * emulator (a feature it lacks): the GPU's tools then decide alone. */
static const struct build_result *emu_twin(struct grading *g)
{
	if (g->backend != BACKEND_GPU)
		return NULL;
	if (g->emu_rc == 1) {
		struct diag_list ignored;
		diag_list_init(&ignored);
		g->emu_rc = build_lab(g->spec, g->source, BACKEND_EMU, BUILD_PTX_NVCC, &g->emu, &ignored);
		diag_list_release(&ignored);
	}
	return g->emu_rc == 0 ? &g->emu : NULL;
}

/* The dataset of the spec's barriers check, or NULL when it has none. */
static const struct spec_dataset *barriers_dataset(const struct lab_spec *s)
{
	for (unsigned i = 0; i < s->checks_count; i++)
		if (s->checks[i].kind == SPEC_CHECK_BARRIERS)
			return check_dataset(s, &s->checks[i]);
	return NULL;
}

/* gpu: the emulator twin's run on dataset D under the race checker, made once for the
 * barriers check (its race findings and its forward result) and memcheck (the
 * emulator checks every access on every run, race-checked or not), which used to run
 * the twin again on the same dataset (issue 16). NULL when there is no twin, when D is
 * not the barriers check's dataset, or when the run could not start. */
static const struct twin_run *twin_race_run(struct grading *g, const struct spec_dataset *d)
{
	const struct build_result *twin = emu_twin(g);
	struct twin_run *t = &g->twin;
	if (!twin || d != barriers_dataset(g->spec))
		return NULL;
	if (t->d)
		return t->rc == 0 ? t : NULL;
	t->d = d;
	char request[160], err[160];
	snprintf(request, sizeof(request), "%s/%s.in", g->box, d->name);
	snprintf(t->result, sizeof(t->result), "%s/%s.twin", g->box, d->name);
	snprintf(t->events, sizeof(t->events), "%s.events", t->result);
	t->rc = datagen_request_file(g->spec, d, g->report->seed, request, err, sizeof(err));
	if (t->rc == 0) {
		const char *argv[9];
		memcheck_command(argv, NULL, NULL, twin->program, request, t->result);
		t->rc = run_argv_env(g, twin, argv, request, t->result, NULL,
				     20 * lab_timeout_ms(g->spec), "the emulator build, race-checked",
				     (const char *const[]){ "PMPPLAB_EMU_RACECHECK=1", NULL }, false,
				     &t->res);
	}
	return t->rc == 0 ? t : NULL;
}

/* gpu: runs the emulator twin on REQUEST (dataset D); true (and *f) when it found a bad
 * access. */
static bool emu_memcheck(struct grading *g, const struct spec_dataset *d, const char *request,
			 const char *actual, struct memcheck_finding *f)
{
	const struct build_result *twin = emu_twin(g);
	if (!twin)
		return false;
	const struct twin_run *t = twin_race_run(g, d);
	if (t)
		return memcheck_scan(t->res.out, t->events, f) ||
		       memcheck_scan(t->res.err, t->events, f);
	char result[176], events[192];
	snprintf(result, sizeof(result), "%s.emu", actual);
	snprintf(events, sizeof(events), "%s.events", result);
	if (g->prov.d == d) { /* its provenance run (twin_provenance), as this run */
		if (link(g->prov.result, result) != 0) /* where result_launches reads it */
			fs_copy_new(g->prov.result, result);
		return memcheck_scan(g->prov.res.out, g->prov.events, f) ||
		       memcheck_scan(g->prov.res.err, g->prov.events, f);
	}
	struct runner_result res;
	if (run_program(g, twin, request, result, 12 * lab_timeout_ms(g->spec), &res, NULL,
			"memcheck (the emulator build)") < 0)
		return false;
	bool found = memcheck_scan(res.out, events, f) || memcheck_scan(res.err, events, f);
	runner_result_release(&res);
	return found;
}

/* The kernels the run that wrote RESULT launched; -1 when it does not say (a GPU run
 * under compute-sanitizer: then the emulator twin's result, RESULT.emu, may). */
static long result_launches(const char *result)
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

/* memcheck of one dataset: on a GPU, the dataset again under compute-sanitizer, then on
 * the emulator twin; on the emulator every access is checked on every run, so the
 * dataset's run already answered. A run that launched no kernel checked nothing (issue
 * 14). Returns whether it passes; *text (malloc'd) says why. */
static bool memcheck_dataset(struct grading *g, const struct spec_dataset *d, char **text)
{
	char request[160], actual[160], events[176], err[160] = "";
	snprintf(request, sizeof(request), "%s/%s.in", g->box, d->name);
	bool kept = g->kept.d == d && g->kept.res.status == RUNNER_EXITED;
	if (!kept && datagen_request_file(g->spec, d, g->report->seed, request, err, sizeof(err)) < 0) {
		asprintf(text, "could not prepare the inputs of dataset %s: %s", d->name, err);
		return false;
	}
	snprintf(actual, sizeof(actual), "%s/%s.%s", g->box, d->name, kept ? "out" : "memcheck");
	snprintf(events, sizeof(events), "%s.events", actual);
	bool gpu = g->backend == BACKEND_GPU;
	char *sanitizer = gpu ? paths_cuda_tool("compute-sanitizer") : NULL;
	struct runner_result res = g->kept.res;
	int rc = 0;
	if (kept) /* the dataset's run (memcheck_reuses) */
		memset(&g->kept, 0, sizeof(g->kept));
	else
		rc = run_program(g, &g->prog, request, actual, 12 * lab_timeout_ms(g->spec), &res,
				 sanitizer, "memcheck");
	bool ran = rc == 0 && res.status == RUNNER_EXITED && res.exit_code == 0;
	bool pass = false;
	struct memcheck_finding f;
	if (rc < 0) {
		asprintf(text, "could not start the program: %s", strerror(-rc));
	} else if (memcheck_scan(res.out, events, &f) || memcheck_scan(res.err, events, &f)) {
		asprintf(text, "%s", f.text);
	} else if (ran && emu_memcheck(g, d, request, actual, &f)) {
		asprintf(text, "%s\n(Found by pmpplab's emulator, %s)", f.text,
			 sanitizer ? "which leaves a gap after every array; on the GPU this access "
				     "landed in memory the program owns (the next array, or the padding "
				     "after this one, or shared memory past the array but inside the "
				     "block's), so compute-sanitizer did not see it, but it is still a bug."
				   : "on a build of your file for the CPU: compute-sanitizer is not "
				     "installed on this GPU machine.");
	} else if (!ran) {
		char how[128];
		runner_describe(&res, 12 * lab_timeout_ms(g->spec), how, sizeof(how));
		asprintf(text, "not checked: under the memory checker the program %s on dataset %s before every access could be checked; fix that first (see the correctness tests)",
			 how, d->name);
	} else if (gpu && !sanitizer && !emu_twin(g)) {
		pass = true;
		asprintf(text, "NOT CHECKED: compute-sanitizer is not installed and this file does not build for pmpplab's emulator, so out-of-bounds accesses cannot be detected here.");
	} else if (result_launches(actual) == 0) {
		asprintf(text, "NOT MEASURED: no kernel ran on dataset %s, so no device memory access was checked; the lab's work belongs in kernels",
			 d->name);
	} else if (!dataset_passed(g->report, d)) {
		asprintf(text, "no invalid access seen on dataset %s, but its correctness test failed: these points count once it passes",
			 d->name);
	} else {
		pass = true;
		asprintf(text, "no out-of-bounds or misaligned access (dataset %s%s)", d->name,
			 gpu && !sanitizer ? "; checked by pmpplab's emulator: compute-sanitizer is not installed here" : "");
	}
	if (rc == 0)
		runner_result_release(&res);
	free(sanitizer);
	return pass;
}

/* memcheck: every dataset of the check (`datasets`, or its one `dataset`); the first that
 * fails decides, so a lab whose versions run on different datasets (lab 15) has each
 * version's accesses checked, and an access out of bounds is named by this check. */
static void grade_memcheck(struct grading *g, const struct spec_check *c)
{
	progress(g, GRADE_STAGE_CHECK, 0, 1, "memcheck");
	const struct spec_dataset *first = check_dataset(g->spec, c);
	unsigned n = c->datasets_count ? c->datasets_count : 1;
	char *text = NULL, *all = NULL;
	bool pass = true;
	for (unsigned i = 0; i < n && pass; i++) {
		const struct spec_dataset *d = c->datasets_count ? spec_dataset_named(g->spec, c->datasets[i]) : first;
		char request[160];
		snprintf(request, sizeof(request), "%s/%s.in", g->box, d->name);
		if (skipped(g, request, "memcheck", c->points)) {
			free(text);
			free(all);
			return;
		}
		free(text);
		text = NULL;
		pass = memcheck_dataset(g, d, &text);
		if (pass) { /* every dataset's verdict, one line each */
			char *joined = NULL;
			asprintf(&joined, "%s%s%s", all ? all : "", all ? "\n" : "", text ? text : "");
			free(all);
			all = joined;
		}
	}
	if (pass) {
		free(text);
		text = all;
		all = NULL;
	}
	free(all);
	report_add(g->report, "memcheck", c->points, pass, "%s", text ? text : "");
	free(text);
}

/* pmpplab perf (issue 8): checks of kind performance live in perf.c. */
static int grade_performance(struct grading *g, const struct spec_check *c)
{
	progress(g, GRADE_STAGE_CHECK, 0, 1, "performance");
	struct perf_context ctx = {
		.spec = g->spec, .backend = g->backend, .student = &g->prog, .tmp = g->box,
		.student_source = g->source, .seed = g->report->seed,
		.timeout_ms = lab_timeout_ms(g->spec), .quick = g->opts->quick, .runs = &g->runs,
		.seed_given = g->opts->seed != 0, .counted = g->counted,
	};
	char counted[176];
	if (g->counted) {
		snprintf(counted, sizeof(counted), "%s/%s.out", g->box, g->counted->name);
		ctx.counted_result = counted;
	}
	return perf_grade(&ctx, c, g->report, g->diags);
}

/* Which optimisations the run used, and the leaderboard: optim.c. */
static int grade_optimisations(struct grading *g, const struct spec_check *c)
{
	progress(g, GRADE_STAGE_CHECK, 0, 1, "optimisations");
	struct perf_context ctx = {
		.spec = g->spec, .backend = g->backend, .student = &g->prog, .tmp = g->box,
		.student_source = g->source, .seed = g->report->seed,
		.timeout_ms = lab_timeout_ms(g->spec), .quick = g->opts->quick, .runs = &g->runs,
	};
	return optim_grade(&ctx, c, g->report, g->diags);
}

/* Barrier and race analysis (issue 6): checks of kind barriers live in barriers.c. */
static int grade_barriers(struct grading *g, const struct spec_check *c)
{
	progress(g, GRADE_STAGE_CHECK, 0, 1, "barriers");
	struct barriers_context ctx = {
		.spec = g->spec, .backend = g->backend, .student = &g->prog, .tmp = g->box,
		.seed = g->report->seed, .timeout_ms = lab_timeout_ms(g->spec), .runs = &g->runs,
		.student_source = g->source,
	};
	ctx.emu_twin = emu_twin(g);
	const struct twin_run *t = twin_race_run(g, check_dataset(g->spec, c));
	if (t) {
		ctx.twin_forward = t->result;
		ctx.twin_forward_res = &t->res;
	}
	return barriers_grade(&ctx, c, g->report, g->diags);
}

/* The dataset ncu measures: the performance check's (sized for a GPU), else the last. */
static const struct spec_dataset *profile_dataset(const struct lab_spec *s)
{
	for (unsigned i = 0; i < s->checks_count; i++)
		if (s->checks[i].kind == SPEC_CHECK_PERFORMANCE)
			return check_dataset(s, &s->checks[i]);
	return s->datasets_count ? &s->datasets[s->datasets_count - 1] : NULL;
}

/* --profile: the GPU's counters for each kernel (ncu.h), as a 0-point entry that the
 * text and JSON reports show and report->profile for the TUI's memory panel. On the
 * emulator the panels and the performance check already give the modelled figures. */
static void grade_profile(struct grading *g)
{
	const struct spec_dataset *d = profile_dataset(g->spec);
	if (!d)
		return;
	if (g->backend != BACKEND_GPU) {
		report_add(g->report, NCU_REPORT_TEST, 0, true,
			   "NOT MEASURED: ncu reads a GPU's counters and this grading ran on the emulator, "
			   "whose modelled figures are in the performance check and, per source line, "
			   "in the memory panel of the terminal UI");
		return;
	}
	progress(g, GRADE_STAGE_CHECK, 0, 1, NCU_REPORT_TEST);
	char *ncu = paths_cuda_tool("ncu");
	char request[160], actual[160], log[176], why[1400] = "";
	snprintf(request, sizeof(request), "%s/%s.in", g->box, d->name);
	snprintf(actual, sizeof(actual), "%s/%s.ncu", g->box, d->name);
	snprintf(log, sizeof(log), "%s/%s.ncu.csv", g->box, d->name);
	const char *argv[16];
	if (ncu)
		ncu_command(argv, ncu, log, g->prog.program, request, actual);
	struct runner_result res;
	int rc = -ENOENT;
	char *text = NULL;
	struct ncu_profile *p = NULL;
	if (!ncu)
		snprintf(why, sizeof(why), "Nsight Compute (ncu) is not installed with the CUDA toolkit here");
	else if (subrun_stopped(&g->runs, request))
		snprintf(why, sizeof(why), "not run: %s", subrun_stopped(&g->runs, request));
	else if (datagen_request_file(g->spec, d, g->report->seed, request, why, sizeof(why)) < 0)
		; /* why says it */
	else if ((rc = run_argv(g, &g->prog, argv, request, actual, log, 30 * lab_timeout_ms(g->spec),
				"the profile (ncu)", &res)) < 0)
		snprintf(why, sizeof(why), "ncu could not be started: %s", strerror(-rc));
	else if ((text = fs_read(log, NULL)) && strstr(text, "ERR_NVGPUCTRPERM"))
		snprintf(why, sizeof(why),
			 "the GPU driver lets only administrators read its counters (ERR_NVGPUCTRPERM)%s: allow them for all users (the nvidia module option NVreg_RestrictProfilingToAdminUsers=0)%s",
			 res.sandboxed ? ", and the sandbox runs the program as an unprivileged user" : "",
			 res.sandboxed ? ", or profile with --sandbox=off" : "");
	else if (!text || !*text) {
		char how[128];
		runner_describe(&res, 30 * lab_timeout_ms(g->spec), how, sizeof(how));
		snprintf(why, sizeof(why), "ncu wrote no table (it %s)%s%s", how,
			 res.err && *res.err ? "; it said:\n" : "", tail_lines(res.err, 6));
	}
	else if (!(p = calloc(1, sizeof(*p))))
		snprintf(why, sizeof(why), "out of memory");
	else if (ncu_parse(text, p, why, sizeof(why)) == 0 && p->n) {
		snprintf(p->dataset, sizeof(p->dataset), "%s", d->name);
		char *table = ncu_table(p);
		report_add(g->report, NCU_REPORT_TEST, 0, true, "%s", table ? table : "");
		free(table);
		g->report->profile = p;
		p = NULL;
	}
	if (!g->report->profile)
		report_add(g->report, NCU_REPORT_TEST, 0, true, "NOT MEASURED (dataset %s): %s", d->name, why);
	free(p);
	free(text);
	free(ncu);
	if (rc == 0)
		runner_result_release(&res);
}

static int grade_run(struct grading *g)
{
	int rc = do_build(g);
	if (stopped(g))
		return -ECANCELED;
	if (rc < 0 && rc != -ENOEXEC)
		return rc;
	bool built = rc == 0;
	if (built) {
		progress(g, GRADE_STAGE_REFERENCE, 0, 1, NULL);
		rc = build_reference(g->spec, &g->ref_build, g->diags);
		if (rc < 0)
			return rc;
	}
	unsigned count = 0, order[g->spec->datasets_count + 1];
	for (unsigned i = 0; i < g->spec->datasets_count; i++)
		if (!(g->opts->quick && g->spec->datasets[i].perf))
			order[count++] = i;
	if (built && (rc = grade_datasets(g, order, count)) < 0)
		return rc;
	for (unsigned k = 0; !built && k < count; k++) {
		const struct spec_dataset *d = &g->spec->datasets[order[k]];
		progress(g, GRADE_STAGE_DATASET, k, count, d->name);
		char *label = dataset_label(d);
		report_add(g->report, label ? label : d->name, d->points, false, "not run: the program does not compile");
		free(label);
	}
	for (unsigned i = 0; i < g->spec->checks_count; i++) {
		const struct spec_check *c = &g->spec->checks[i];
		if (stopped(g))
			return -ECANCELED;
		if (!built) {
			/* the names the checks give themselves, so a class's gradebook has one
			 * column per check */
			char name[160];
			snprintf(name, sizeof(name), "performance: %s", check_dataset(g->spec, c)->name);
			report_add(g->report, c->kind == SPEC_CHECK_PERFORMANCE ? name
					      : c->kind == SPEC_CHECK_BARRIERS ? "barriers"
					      : c->kind == SPEC_CHECK_OPTIMISATIONS ? "optimisations" : "memcheck",
				   c->points, false, "not run: the program does not compile");
		}
		else if (c->kind == SPEC_CHECK_MEMCHECK)
			grade_memcheck(g, c);
		else if (c->kind == SPEC_CHECK_PERFORMANCE && (rc = grade_performance(g, c)) < 0)
			return rc;
		else if (c->kind == SPEC_CHECK_BARRIERS && (rc = grade_barriers(g, c)) < 0)
			return rc;
		else if (c->kind == SPEC_CHECK_OPTIMISATIONS && (rc = grade_optimisations(g, c)) < 0)
			return rc;
	}
	if (built && g->opts->profile)
		grade_profile(g);
	return stopped(g) ? -ECANCELED : 0;
}

static void sweep_stale(void)
{
	char *cache = paths_cache_dir();
	char build[PATH_MAX];
	snprintf(build, sizeof(build), "%s/build", cache ? cache : "/tmp/pmpplab-cache");
	scratch_sweep_stale(build);
	free(cache);
}

/* Before the first grading of a process: the scratch folders that graders killed before
 * they could remove them left behind; and the lab collection and the lab's kernels,
 * which no sandbox may show even where they are installed under /usr. */
static void hide_lab(const struct lab_spec *spec)
{
	static pthread_once_t swept = PTHREAD_ONCE_INIT;
	pthread_once(&swept, sweep_stale);
	char *labs = spec->dir ? strdup(spec->dir) : NULL;
	char *slash = labs ? strrchr(labs, '/') : NULL;
	if (slash && slash != labs) {
		*slash = '\0';
		sandbox_hide(labs);
	}
	char *ref = spec_path(spec, spec->reference.file);
	for (int up = 0; ref && up < 2 && (slash = strrchr(ref, '/')) && slash != ref; up++)
		*slash = '\0';
	sandbox_hide(ref);
	free(labs);
	free(ref);
}

int grade_lab(const struct lab_spec *spec, const struct grade_opts *opts, struct report **out,
	      struct diag_list *diags)
{
	*out = NULL;
	struct grading g = { .spec = spec, .opts = opts, .diags = diags, .emu_rc = 1 };
	g.backend = backend_resolve(opts->backend);
	if (g.backend == BACKEND_GPU && opts->backend == BACKEND_GPU && !backend_gpu_present()) {
		diag_add(diags, DIAG_ERROR, NULL, 0, 0,
			 "--backend gpu, but no GPU is usable here (no CUDA driver, or no device): grade with --backend emu, or leave --backend out to choose automatically");
		return -ENODEV;
	}
	char *student = opts->submission ? NULL : spec_path(spec, spec->student);
	g.source = opts->submission ? opts->submission : student;
	if (access(g.source, R_OK) != 0) {
		diag_add(diags, DIAG_ERROR, g.source, 0, 0, "cannot read the submission: %s", strerror(errno));
		free(student);
		return -ENOENT;
	}
	char why[1024];
	if (runner_sandbox_check(g.backend == BACKEND_GPU, why, sizeof(why)) < 0) {
		diag_add(diags, DIAG_ERROR, NULL, 0, 0, "%s", why);
		free(student);
		return -EPERM;
	}
	hide_lab(spec);
	uint64_t seed = opts->seed ? opts->seed : datagen_fresh_seed();
	g.report = report_new(spec->id, g.source, backend_label(g.backend), seed);
	int rc = g.report ? scratch_new(g.tmp, sizeof(g.tmp)) : -ENOMEM;
	bool made = rc == 0;
	snprintf(g.box, sizeof(g.box), "%s/box", g.tmp);
	snprintf(g.ref, sizeof(g.ref), "%s/ref", g.tmp);
	g.runs.box = g.box;
	if (rc == 0 && (mkdir(g.box, 0711) != 0 || mkdir(g.ref, 0700) != 0))
		rc = -errno;
	if (rc == 0) {
		const atomic_bool *outer = runner_cancel_flag();
		runner_set_cancel(opts->cancel);
		g.report->sandboxed = sandbox_enabled();
		rc = grade_run(&g);
		runner_set_cancel(outer);
	}
	if (made)
		fs_remove_tree(g.tmp);
	build_result_release(&g.prog);
	build_result_release(&g.ref_build);
	build_result_release(&g.emu);
	if (g.twin.d && g.twin.rc == 0)
		runner_result_release(&g.twin.res);
	if (g.kept.d)
		runner_result_release(&g.kept.res);
	if (g.prov.d)
		runner_result_release(&g.prov.res);
	free(student);
	progress(&g, GRADE_STAGE_DONE, 0, 0, NULL);
	if (rc < 0) {
		report_free(g.report);
		return rc;
	}
	*out = g.report;
	return 0;
}
