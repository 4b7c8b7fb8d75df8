/* barriers_check: the run of a check of kind barriers (see barriers_check.h). */
#include "barriers_check.h"
#include "barriers_internal.h"
#include "barriers_shapes.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "datagen.h"
#include "harness/pl_io.h"
#include "memcheck.h"
#include "paths.h"
#include "runner.h"

/* The PMPP idea of a result that changes with the warps' order (the other ideas:
 * barriers.c). */
static const char idea_sched[] =
	"A correct kernel gives the same result whatever order the warps run in; a result that "
	"changes with the order depends on a race, usually a missing __syncthreads() "
	"(PMPP ch. 4: barrier synchronisation).";

static const struct spec_dataset *dataset_of(const struct lab_spec *s, const struct spec_check *c)
{
	for (unsigned i = 0; c->dataset && i < s->datasets_count; i++)
		if (!strcmp(s->datasets[i].name, c->dataset))
			return &s->datasets[i];
	return &s->datasets[0];
}

/* Runs build b of the student program once; tool: compute-sanitizer's path (GPU) or
 * NULL. -ECANCELED: an earlier run stopped the grading's runs (subrun.h). */
static int run_once(const struct barriers_context *ctx, const struct build_result *b,
		    const char *tool, const char *toolname, const char *request,
		    const char *result, const char *events, const char *schedule,
		    struct runner_result *res)
{
	char ptx_env[PATH_MAX + 32], events_env[PATH_MAX + 32], sched_env[96];
	snprintf(ptx_env, sizeof ptx_env, "PMPPLAB_EMU_PTX=%s", b->ptx ? b->ptx : "");
	snprintf(events_env, sizeof events_env, "PMPPLAB_EVENTS=%s", events);
	snprintf(sched_env, sizeof sched_env, "PMPPLAB_EMU_SCHEDULE=%s", schedule ? schedule : "");
	/* the race checker on the forward run only; the reordered runs compare outputs */
	char *env[] = { ptx_env, events_env, schedule ? sched_env : "PMPPLAB_EMU_RACECHECK=1",
			NULL };
	const char *argv[9];
	memcheck_command(argv, tool, toolname, b->program, request, result);
	char what[96];
	snprintf(what, sizeof what, "the barriers check (%s)",
		 toolname ? toolname : schedule ? schedule : "race checker");
	struct subrun_call c = {
		.b = b, .argv = argv, .env = env, .reads = { request }, .writes = { result, events },
		.timeout_ms = 20 * ctx->timeout_ms, .output_cap = 256 * 1024, .what = what,
	};
	return subrun_run(ctx->runs, &c, res);
}

/* Compares the outputs in result with those in expected (the reference's, or another
 * run's); on a difference
 * writes its description into why (malloc'd) and returns false. */
static bool same_outputs(const struct lab_spec *spec, const struct spec_dataset *d,
			 const char *expected, const char *result, char **why)
{
	struct pl_file exp, act;
	char err[256];
	*why = NULL;
	if (pl_read(&exp, expected, err, sizeof err) < 0)
		return true; /* no reference result: nothing to compare with */
	if (pl_read(&act, result, err, sizeof err) < 0) {
		pl_release(&exp);
		*why = strdup("the program produced no result");
		return false;
	}
	bool same = true;
	for (unsigned i = 0; i < spec->outputs_count && same; i++) {
		const struct spec_buffer *o = &spec->outputs[i];
		struct pl_item *e = pl_find(&exp, PL_OUTPUT, o->name), *a = pl_find(&act, PL_OUTPUT, o->name);
		if (!pl_same_shape(a, e))
			continue; /* the correctness test reports missing or malformed outputs */
		struct spec_tolerance tol = o->tolerance ? *o->tolerance : compare_default_tolerance(o->type);
		struct compare_result r;
		struct spec_shape shape;
		spec_buffer_shape(spec, o, d, e->count, &shape);
		compare_buffers(o->type, &tol, e->data, a->data, e->count, &shape, &r);
		if (r.wrong) {
			*why = compare_describe(&r, o->name, o->type);
			same = false;
		}
	}
	pl_release(&exp);
	pl_release(&act);
	return same;
}

/* The emulator runs the dataset again with the warps and blocks in other orders and
 * switching warps often; a result that changes is a race the forward order hid. The
 * comparison is with the forward run, not the reference: a kernel that is wrong the same
 * way in every order has a bug, but not a race (its correctness test says so). */
static void schedule_checks(const struct barriers_context *ctx, const struct build_result *b,
			    const struct spec_dataset *d, const char *request, const char *forward,
			    struct barriers_findings *fs, FILE *notes)
{
	char order[2][48];
	struct stat st;
	if (subrun_stopped(ctx->runs, request)) {
		fprintf(notes, "warp orders not compared: %s\n", subrun_stopped(ctx->runs, request));
		return;
	}
	if (stat(forward, &st) != 0 || st.st_size == 0) {
		fprintf(notes, "warp orders not compared: the program gave no result on dataset %s\n",
			d->name);
		return;
	}
	snprintf(order[0], sizeof order[0], "reverse");
	snprintf(order[1], sizeof order[1], "random:%llu/7", (unsigned long long)(ctx->seed % 100000));
	for (unsigned i = 0; i < 2; i++) {
		char result[PATH_MAX], events[PATH_MAX];
		snprintf(result, sizeof result, "%s/%s.order%u", ctx->tmp, d->name, i);
		snprintf(events, sizeof events, "%s.events", result);
		struct runner_result res;
		if (run_once(ctx, b, NULL, NULL, request, result, events, order[i], &res) < 0)
			continue;
		char *why = NULL;
		bool ran = res.status == RUNNER_EXITED && res.exit_code == 0;
		bool broke = ran && !same_outputs(ctx->spec, d, forward, result, &why);
		if (broke) {
			struct barriers_finding f = { .severity = BARRIERS_ERROR, .idea = idea_sched };
			snprintf(f.kind, sizeof f.kind, "schedule-dependent");
			snprintf(f.source, sizeof f.source, "emulator");
			const char *nl = why ? strchr(why, '\n') : NULL;
			barriers_set_msg(&f, "with the warps run in %s order the result changes on dataset %s "
				"(compared with the default order: %.*s)",
				i ? "a random (seeded) interleaved" : "reverse", d->name,
				nl ? (int)(nl - why) : 300, why ? why : "");
			/* no file:line: no single line is to blame, the whole run's result is */
			barriers_add(fs, &f);
		}
		free(why);
		runner_result_release(&res);
		if (broke)
			break; /* one order that breaks the result is enough */
	}
}

/* The kernels the run that wrote RESULT launched (its "launches" metric,
 * grader/harness/pl_provenance.h); -1 when it does not say. */
static long launches_of(const char *result)
{
	struct pl_file f;
	char err[160];
	if (pl_read(&f, result, err, sizeof err) < 0)
		return -1;
	const struct pl_item *m = pl_find(&f, PL_METRIC, "launches");
	long n = m ? (long)m->dval : -1;
	pl_release(&f);
	return n;
}

/* The emulator's race checker on build b (an emulator build), then the other orders.
 * Returns the kernels the checked run launched (-1: unknown). */
static long emulator_checks(const struct barriers_context *ctx, const struct build_result *b,
			    const struct spec_dataset *d, const char *request,
			    struct barriers_findings *fs, FILE *notes)
{
	char result[PATH_MAX], events[PATH_MAX];
	snprintf(result, sizeof result, "%s/%s.barriers", ctx->tmp, d->name);
	struct runner_result res = { 0 };
	int rc = 0;
	if (b == ctx->emu_twin && ctx->twin_forward) { /* made already (grade_checks.c) */
		snprintf(result, sizeof result, "%s", ctx->twin_forward);
		res.status = ctx->twin_forward_res->status;
		res.exit_code = ctx->twin_forward_res->exit_code;
	}
	snprintf(events, sizeof events, "%s.events", result);
	if (!(b == ctx->emu_twin && ctx->twin_forward))
		rc = run_once(ctx, b, NULL, NULL, request, result, events, NULL, &res);
	if (rc < 0) {
		if (rc == -ECANCELED)
			fprintf(notes, "the race check did not run: %s\n",
				subrun_stopped(ctx->runs, request));
		else
			fprintf(notes, "could not start the program for the race check\n");
		return -1;
	}
	long launches = launches_of(result);
	barriers_scan_events(events, fs);
	if (res.status == RUNNER_TIMEOUT)
		fprintf(notes, "the program ran out of time under the race checker (dataset "
			"%s); the findings above are from the part that ran\n", d->name);
	else if (res.status != RUNNER_EXITED || res.exit_code != 0)
		fs->partial = true; /* a slow run is the checker's cost; a failed one is not */
	runner_result_release(&res);
	schedule_checks(ctx, b, d, request, result, fs, notes);
	return launches;
}

/* racecheck and synccheck on the GPU. Returns false when compute-sanitizer is missing. */
static bool sanitizer_checks(const struct barriers_context *ctx, const struct spec_dataset *d,
			     const char *request, struct barriers_findings *fs)
{
	char *sanitizer = paths_cuda_tool("compute-sanitizer");
	if (!sanitizer)
		return false;
	static const char *const tools[] = { "racecheck", "synccheck" };
	for (unsigned i = 0; i < 2; i++) {
		char result[PATH_MAX], events[PATH_MAX];
		snprintf(result, sizeof result, "%s/%s.%s", ctx->tmp, d->name, tools[i]);
		snprintf(events, sizeof events, "%s.events", result);
		struct runner_result res;
		if (run_once(ctx, ctx->student, sanitizer, tools[i], request, result, events, NULL,
			     &res) < 0)
			continue;
		barriers_scan_sanitizer(res.out, tools[i], fs);
		barriers_scan_sanitizer(res.err, tools[i], fs);
		runner_result_release(&res);
	}
	free(sanitizer);
	return true;
}

/* The dynamic half: the emulator's tracker, and on a GPU racecheck and synccheck too.
 * Adds a line to notes when something could not be checked. Returns the kernels the
 * emulator's run launched (-1: unknown, or not run). */
static long dynamic_checks(const struct barriers_context *ctx, const struct spec_check *c,
			   struct barriers_findings *fs, FILE *notes)
{
	const struct spec_dataset *d = dataset_of(ctx->spec, c);
	char request[PATH_MAX];
	snprintf(request, sizeof request, "%s/%s.in", ctx->tmp, d->name);
	char err[160] = "";
	if (datagen_request_file(ctx->spec, d, ctx->seed, request, err, sizeof err) < 0) {
		fprintf(notes, "not run: could not prepare the inputs of dataset %s: %s\n", d->name, err);
		return -1;
	}
	if (ctx->backend != BACKEND_GPU)
		return emulator_checks(ctx, ctx->student, d, request, fs, notes);
	bool sanitized = sanitizer_checks(ctx, d, request, fs);
	long launches = -1;
	if (ctx->emu_twin)
		launches = emulator_checks(ctx, ctx->emu_twin, d, request, fs, notes);
	if (!sanitized)
		fprintf(notes, "compute-sanitizer is not installed: racecheck and synccheck did "
			"not run on the GPU%s\n", ctx->emu_twin ? "; the emulator's race checker did" :
			", and the program could not be built for the emulator either, so races "
			"were NOT CHECKED at run time");
	else if (!ctx->emu_twin)
		fprintf(notes, "the program could not be built for the emulator, so only "
			"racecheck and synccheck looked for races (they do not see races that "
			"involve atomics)\n");
	return launches;
}

int barriers_grade(const struct barriers_context *ctx, const struct spec_check *c,
		   struct report *r, struct diag_list *diags)
{
	(void)diags;
	struct barriers_findings fs = { 0 };
	char *notes = NULL;
	size_t nlen = 0;
	FILE *nf = open_memstream(&notes, &nlen);
	if (!nf)
		return -ENOMEM;
	const char *ptx = ctx->student->barriers_ptx ? ctx->student->barriers_ptx : ctx->student->ptx;
	bool forbid = !c->forbid_divergent || *c->forbid_divergent;
	char err[512] = "";
	bool analysed = false;
	if (!ptx)
		fprintf(nf, "static analysis not run: the build has no PTX\n");
	else if (barriers_static(ptx, c->kernel, c->min_barriers, forbid, &fs, err, sizeof err) < 0)
		fprintf(nf, "static analysis not run: %s\n", err);
	else
		analysed = true;
	long launches = dynamic_checks(ctx, c, &fs, nf);
	barriers_racecheck_gaps(&fs);
	barriers_show_shapes(&fs, ctx->student_source);
	fclose(nf);
	/* Issue 14: no finding is a pass only where something was looked at: a run that
	 * launched no kernel had no barrier to reach, and without the PTX nor a run
	 * nothing was checked at all. */
	const char *empty = launches == 0 ? "NOT MEASURED: no kernel ran on dataset %s, so no barrier was reached and no shared memory was touched; this lab's barriers are its kernels'\n"
			    : !analysed && launches < 0 ? "NOT CHECKED: neither the PTX analysis nor a checked run of dataset %s was possible (see below)\n"
							: NULL;
	char *text = NULL;
	size_t tlen = 0;
	FILE *tf = open_memstream(&text, &tlen);
	if (tf) {
		if (fs.n)
			barriers_format(tf, &fs, 10);
		else if (fs.partial && !empty)
			fprintf(tf, "not judged: the checked run of dataset %s stopped before its end "
				"(see the correctness tests for why); no barrier misuse or race was seen "
				"in the part that ran, and these points count once it runs to the end\n",
				dataset_of(ctx->spec, c)->name);
		else if (empty)
			fprintf(tf, empty, dataset_of(ctx->spec, c)->name);
		else
			fprintf(tf, "no barrier misuse or shared-memory race found (dataset %s)\n",
				dataset_of(ctx->spec, c)->name);
		if (ptx)
			barriers_describe(ptx, tf);
		fputs(notes ? notes : "", tf);
		fclose(tf);
	}
	report_add(r, "barriers", c->points, fs.n == 0 && !empty && !fs.partial, "%s",
		   text ? text : "");
	free(text);
	free(notes);
	barriers_findings_release(&fs);
	return 0;
}
