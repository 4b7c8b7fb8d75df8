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
#include "datagen.h"
#include "fsutil.h"
#include "grade_internal.h"
#include "memcheck.h"
#include "nvccdiag.h"
#include "paths.h"
#include "runner.h"
#include "sandbox.h"
#include "scratch.h"
#include "subrun.h"

void grading_progress(struct grading *g, enum grade_stage stage, unsigned index, unsigned count,
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
const char *grade_tail_lines(const char *text, unsigned lines)
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

static void find_uninit(struct grading *g);

static int do_build(struct grading *g)
{
	grading_progress(g, GRADE_STAGE_BUILD, 0, 1, g->source);
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
	find_uninit(g);
	unsigned warnings = diag_count(&g->prog.diags, DIAG_WARNING);
	char *w = warnings ? format_build_errors(&g->prog.diags) : NULL;
	char *u = uninitcheck_text(&g->uninit, UNINITCHECK_MAX);
	report_add(g->report, "build", 0, true, w || u ? "%s%s%s" : NULL, w ? w : "",
		   w && u ? "\n" : "", u ? u : "");
	free(w);
	free(u);
	return 0;
}

/* The registers the kernels read before giving them a value (uninitcheck.h), from the
 * build's PTX (the emulator's, or the one a GPU build makes beside the program): each a
 * warning with the compiler's, and again under a failing correctness test and in
 * memcheck. */
static void find_uninit(struct grading *g)
{
	const char *ptx = g->prog.ptx ? g->prog.ptx : g->prog.barriers_ptx;
	if (!ptx || uninitcheck_scan(ptx, g->source, &g->uninit) < 0)
		return;
	const char *base = fs_base_name(g->source);
	for (unsigned i = 0; i < g->uninit.n; i++) {
		const struct uninitcheck_finding *f = &g->uninit.items[i];
		diag_add(&g->report->build, DIAG_WARNING, strcmp(f->file, base) ? f->file : g->source,
			 f->line, 0, "%s", f->message);
	}
}

void grading_uninit_note(struct grading *g)
{
	struct report_test *t = g->report->n_tests ? &g->report->tests[g->report->n_tests - 1] : NULL;
	if (!t || !g->uninit.n)
		return;
	/* the whole text under the first failing test, a pointer to it under the others */
	const struct uninitcheck_finding *f = &g->uninit.items[0];
	char *u = NULL, *o = NULL;
	if (g->uninit_told)
		asprintf(&u, "%s:%u: %s%s%s is read before it is given a value (see the first failing test)",
			 f->file, f->line, f->var[0] ? "`" : "a variable", f->var, f->var[0] ? "`" : "");
	else
		u = uninitcheck_text(&g->uninit, 3);
	if (u && asprintf(&o, "%s%sProbably why: %s%s", t->output ? t->output : "",
			  t->output && *t->output ? "\n" : "", g->uninit_told ? "" : "\n", u) >= 0) {
		free(t->output);
		t->output = o;
		g->uninit_told = true;
	}
	free(u);
}

/* Runs ARGV (B's program, under a tool or not) on REQUEST, writing RESULT (and its
 * events; LOG: a tool's file, may be NULL), with the emulator's environment where B is
 * an emulator build, and EXTRA (NAME=value each, up to 4, NULL-terminated; may be NULL)
 * in it. WHAT names the run in messages. */
int grading_run_env(struct grading *g, const struct build_result *b, const char **argv,
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

/* grading_run_env without the extra variable. */
int grading_run_argv(struct grading *g, const struct build_result *b, const char **argv,
		     const char *request, const char *result, const char *log,
		     unsigned timeout_ms, const char *what, struct runner_result *res)
{
	return grading_run_env(g, b, argv, request, result, log, timeout_ms, what, NULL, false, res);
}

/* Runs PROGRAM on REQUEST, writing RESULT; under compute-sanitizer's memcheck when
 * WRAPPER_TOOL names it; EXTRA as grading_run_env's. */
static int run_program_env(struct grading *g, const struct build_result *b, const char *request,
			   const char *result, unsigned timeout_ms, struct runner_result *res,
			   const char *wrapper_tool, const char *what, const char *const *extra)
{
	const char *argv[9];
	memcheck_command(argv, wrapper_tool, "memcheck", b->program, request, result);
	return grading_run_env(g, b, argv, request, result, NULL, timeout_ms, what, extra, false,
			       res);
}

int grading_run_program(struct grading *g, const struct build_result *b, const char *request,
			const char *result, unsigned timeout_ms, struct runner_result *res,
			const char *wrapper_tool, const char *what)
{
	return run_program_env(g, b, request, result, timeout_ms, res, wrapper_tool, what, NULL);
}

int grading_run_memchecked(struct grading *g, const struct build_result *b, const char *request,
			   const char *result, unsigned timeout_ms, struct runner_result *res,
			   const char *wrapper_tool, const char *what)
{
	return run_program_env(g, b, request, result, timeout_ms, res, wrapper_tool, what,
			       memcheck_emu_env);
}

/* A check or dataset (its input REQUEST) not run because an earlier run would only be
 * repeated (subrun.h). */
bool grading_skipped(struct grading *g, const char *request, const char *label, double points)
{
	const char *why = subrun_stopped(&g->runs, request);
	if (why)
		report_add(g->report, label, points, false,
			   "not run: %s, and running it again would only repeat that (see the first failure above)",
			   why);
	return why != NULL;
}

unsigned grade_timeout_ms(const struct lab_spec *s)
{
	return (s->timeout ? s->timeout : 10) * 1000u;
}

/* Whether opts->cancel asks the run to stop (the runner stops the child running). */
bool grading_stopped(const struct grading *g)
{
	return g->opts->cancel && atomic_load(g->opts->cancel);
}

const struct spec_dataset *grade_check_dataset(const struct lab_spec *s, const struct spec_check *c)
{
	if (!c->dataset && c->datasets_count) /* a memcheck of several: its first */
		return spec_dataset_named(s, c->datasets[0]);
	for (unsigned i = 0; c->dataset && i < s->datasets_count; i++)
		if (strcmp(s->datasets[i].name, c->dataset) == 0)
			return &s->datasets[i];
	return &s->datasets[0];
}

/* On a GPU, the submission built for the emulator as well (once, when a check needs
 * it): the emulator's checks see what the GPU's tools cannot (a read past a shared
 * array that stays inside the block's shared memory, a race through atomics), so a
 * mistake is caught on both backends alike. NULL when it does not build for the
 * emulator (a feature it lacks): the GPU's tools then decide alone. */
const struct build_result *grading_emu_twin(struct grading *g)
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

static int grade_run(struct grading *g)
{
	int rc = do_build(g);
	if (grading_stopped(g))
		return -ECANCELED;
	if (rc < 0 && rc != -ENOEXEC)
		return rc;
	bool built = rc == 0;
	if (built) {
		grading_progress(g, GRADE_STAGE_REFERENCE, 0, 1, NULL);
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
		grading_progress(g, GRADE_STAGE_DATASET, k, count, d->name);
		char *label = grade_dataset_label(d);
		report_add(g->report, label ? label : d->name, d->points, false, "not run: the program does not compile");
		free(label);
	}
	for (unsigned i = 0; i < g->spec->checks_count; i++) {
		const struct spec_check *c = &g->spec->checks[i];
		if (grading_stopped(g))
			return -ECANCELED;
		if (!built) {
			/* the names the checks give themselves, so a class's gradebook has one
			 * column per check */
			char name[160];
			snprintf(name, sizeof(name), "performance: %s", grade_check_dataset(g->spec, c)->name);
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
	return grading_stopped(g) ? -ECANCELED : 0;
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
	uninitcheck_release(&g.uninit);
	if (g.twin.d && g.twin.rc == 0)
		runner_result_release(&g.twin.res);
	if (g.kept.d)
		runner_result_release(&g.kept.res);
	if (g.prov.d)
		runner_result_release(&g.prov.res);
	free(student);
	grading_progress(&g, GRADE_STAGE_DONE, 0, 0, NULL);
	if (rc < 0) {
		report_free(g.report);
		return rc;
	}
	*out = g.report;
	return 0;
}
