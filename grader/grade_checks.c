/* grade_checks: the checks of one grading that follow its datasets (grade_internal.h):
 * memcheck (on a GPU under compute-sanitizer, then on the emulator twin), performance
 * (perf.c), optimisations (optim.c), barriers (barriers_check.c) and the --profile entry
 * (ncu.c). On a GPU the emulator twin's race-checked run serves barriers and memcheck. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "barriers_check.h" /* barrier and race analysis (issue 6) */
#include "datagen.h"
#include "fsutil.h"
#include "grade_internal.h"
#include "memcheck.h"
#include "ncu.h"
#include "optim.h"
#include "paths.h"
#include "perf.h" /* pmpplab perf (issue 8) */
#include "runner.h"
#include "subrun.h"

/* The dataset of the spec's barriers check, or NULL when it has none. */
static const struct spec_dataset *barriers_dataset(const struct lab_spec *s)
{
	for (unsigned i = 0; i < s->checks_count; i++)
		if (s->checks[i].kind == SPEC_CHECK_BARRIERS)
			return grade_check_dataset(s, &s->checks[i]);
	return NULL;
}

/* gpu: the emulator twin's run on dataset D under the race checker, made once for the
 * barriers check (its race findings and its forward result) and memcheck (the
 * emulator checks every access on every run, race-checked or not), which used to run
 * the twin again on the same dataset (issue 16). NULL when there is no twin, when D is
 * not the barriers check's dataset, or when the run could not start. */
static const struct twin_run *twin_race_run(struct grading *g, const struct spec_dataset *d)
{
	const struct build_result *twin = grading_emu_twin(g);
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
		t->rc = grading_run_env(g, twin, argv, request, t->result, NULL,
					20 * grade_timeout_ms(g->spec), "the emulator build, race-checked",
					memcheck_emu_race_env, false,
					&t->res);
	}
	return t->rc == 0 ? t : NULL;
}

/* gpu: runs the emulator twin on REQUEST (dataset D); true (and *f) when it found a bad
 * access. */
static bool emu_memcheck(struct grading *g, const struct spec_dataset *d, const char *request,
			 const char *actual, struct memcheck_finding *f)
{
	const struct build_result *twin = grading_emu_twin(g);
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
		if (link(g->prov.result, result) != 0) /* where grade_result_launches reads it */
			fs_copy_new(g->prov.result, result);
		return memcheck_scan(g->prov.res.out, g->prov.events, f) ||
		       memcheck_scan(g->prov.res.err, g->prov.events, f);
	}
	struct runner_result res;
	if (grading_run_memchecked(g, twin, request, result, 12 * grade_timeout_ms(g->spec), &res,
				   NULL, "memcheck (the emulator build)") < 0)
		return false;
	bool found = memcheck_scan(res.out, events, f) || memcheck_scan(res.err, events, f);
	runner_result_release(&res);
	return found;
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
		rc = grading_run_memchecked(g, &g->prog, request, actual,
					    12 * grade_timeout_ms(g->spec), &res, sanitizer, "memcheck");
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
		runner_describe(&res, 12 * grade_timeout_ms(g->spec), how, sizeof(how));
		asprintf(text, "not checked: under the memory checker the program %s on dataset %s before every access could be checked; fix that first (see the correctness tests)",
			 how, d->name);
	} else if (gpu && !sanitizer && !grading_emu_twin(g)) {
		pass = true;
		asprintf(text, "NOT CHECKED: compute-sanitizer is not installed and this file does not build for pmpplab's emulator, so out-of-bounds accesses cannot be detected here.");
	} else if (grade_result_launches(actual) == 0) {
		asprintf(text, "NOT MEASURED: no kernel ran on dataset %s, so no device memory access was checked; the lab's work belongs in kernels",
			 d->name);
	} else if (!grade_dataset_passed(g->report, d)) {
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
void grade_memcheck(struct grading *g, const struct spec_check *c)
{
	grading_progress(g, GRADE_STAGE_CHECK, 0, 1, "memcheck");
	const struct spec_dataset *first = grade_check_dataset(g->spec, c);
	unsigned n = c->datasets_count ? c->datasets_count : 1;
	char *text = NULL, *all = NULL;
	bool pass = true;
	for (unsigned i = 0; i < n && pass; i++) {
		const struct spec_dataset *d = c->datasets_count ? spec_dataset_named(g->spec, c->datasets[i]) : first;
		char request[160];
		snprintf(request, sizeof(request), "%s/%s.in", g->box, d->name);
		if (grading_skipped(g, request, "memcheck", c->points)) {
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
	char *u = uninitcheck_text(&g->uninit, UNINITCHECK_MAX), *joined = NULL;
	if (u && asprintf(&joined, "%s%s%s\nReading a value before it is given one is undefined behaviour, as compute-sanitizer's initcheck says of memory: the numbers may come out right here and wrong on another GPU, compiler or run.",
			  pass || !text ? "" : text, pass || !text ? "" : "\n", u) >= 0) {
		free(text);
		text = joined;
		pass = false;
	}
	free(u);
	report_add(g->report, "memcheck", c->points, pass, "%s", text ? text : "");
	free(text);
}

/* pmpplab perf (issue 8): checks of kind performance live in perf.c. */
int grade_performance(struct grading *g, const struct spec_check *c)
{
	grading_progress(g, GRADE_STAGE_CHECK, 0, 1, "performance");
	struct perf_context ctx = {
		.spec = g->spec, .backend = g->backend, .student = &g->prog, .tmp = g->box,
		.student_source = g->source, .seed = g->report->seed,
		.timeout_ms = grade_timeout_ms(g->spec), .quick = g->opts->quick, .runs = &g->runs,
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
int grade_optimisations(struct grading *g, const struct spec_check *c)
{
	grading_progress(g, GRADE_STAGE_CHECK, 0, 1, "optimisations");
	struct perf_context ctx = {
		.spec = g->spec, .backend = g->backend, .student = &g->prog, .tmp = g->box,
		.student_source = g->source, .seed = g->report->seed,
		.timeout_ms = grade_timeout_ms(g->spec), .quick = g->opts->quick, .runs = &g->runs,
	};
	return optim_grade(&ctx, c, g->report, g->diags);
}

/* Barrier and race analysis (issue 6): checks of kind barriers live in barriers.c. */
int grade_barriers(struct grading *g, const struct spec_check *c)
{
	grading_progress(g, GRADE_STAGE_CHECK, 0, 1, "barriers");
	struct barriers_context ctx = {
		.spec = g->spec, .backend = g->backend, .student = &g->prog, .tmp = g->box,
		.seed = g->report->seed, .timeout_ms = grade_timeout_ms(g->spec), .runs = &g->runs,
		.student_source = g->source,
	};
	ctx.emu_twin = grading_emu_twin(g);
	const struct twin_run *t = twin_race_run(g, grade_check_dataset(g->spec, c));
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
			return grade_check_dataset(s, &s->checks[i]);
	return s->datasets_count ? &s->datasets[s->datasets_count - 1] : NULL;
}

/* --profile: the GPU's counters for each kernel (ncu.h), as a 0-point entry that the
 * text and JSON reports show and report->profile for the TUI's memory panel. On the
 * emulator the panels and the performance check already give the modelled figures. */
void grade_profile(struct grading *g)
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
	grading_progress(g, GRADE_STAGE_CHECK, 0, 1, NCU_REPORT_TEST);
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
	else if ((rc = grading_run_argv(g, &g->prog, argv, request, actual, log, 30 * grade_timeout_ms(g->spec),
					"the profile (ncu)", &res)) < 0)
		snprintf(why, sizeof(why), "ncu could not be started: %s", strerror(-rc));
	else if ((text = fs_read(log, NULL)) && strstr(text, "ERR_NVGPUCTRPERM"))
		snprintf(why, sizeof(why),
			 "the GPU driver lets only administrators read its counters (ERR_NVGPUCTRPERM)%s: allow them for all users (the nvidia module option NVreg_RestrictProfilingToAdminUsers=0)%s",
			 res.sandboxed ? ", and the sandbox runs the program as an unprivileged user" : "",
			 res.sandboxed ? ", or profile with --sandbox=off" : "");
	else if (!text || !*text) {
		char how[128];
		runner_describe(&res, 30 * grade_timeout_ms(g->spec), how, sizeof(how));
		snprintf(why, sizeof(why), "ncu wrote no table (it %s)%s%s", how,
			 res.err && *res.err ? "; it said:\n" : "", grade_tail_lines(res.err, 6));
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
