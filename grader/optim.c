/* optim: see optim.h. */
#include "optim.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "devinfo.h"
#include "fsutil.h"
#include "harness/pl_timing.h"
#include "leaderboard.h"
#include "workspace.h"

/* The emulator's modelled cost: one warp instruction issued costs 1, one 32-byte sector
 * of global memory 4 (an H100 SM issues up to 4 warp instructions a cycle, and its
 * share of the L2's bandwidth is about one sector a cycle). */
#define OPTIM_SECTOR_COST 4.0

void optim_base_name(const char *name, char *out, size_t len)
{
	const char *p = name;
	size_t n = 0;
	if (strncmp(p, "_Z", 2) == 0 && isdigit((unsigned char)p[2])) {
		/* <length><identifier>: a function at namespace scope */
		char *end;
		unsigned long id = strtoul(p + 2, &end, 10);
		if (id > 0 && strlen(end) >= id) {
			p = end;
			n = id;
		}
	}
	if (!n) /* demangled ("tile<16>", "f(int)") or extern "C" */
		n = strcspn(p, "<(");
	snprintf(out, len, "%.*s", (int)n, p);
}

void optim_launches_release(struct optim_launches *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->names[i]);
	memset(l, 0, sizeof(*l));
}

/* Adds COUNT launches of NAME. Returns 0 or -ENOMEM. */
static int add_launch(struct optim_launches *l, const char *name, unsigned count)
{
	for (unsigned i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0) {
			l->counts[i] += count;
			return 0;
		}
	if (l->n == OPTIM_MAX_KERNELS)
		return 0; /* more kernels than that: the first ones are enough to recognise */
	if (!(l->names[l->n] = strdup(name)))
		return -ENOMEM;
	l->counts[l->n++] = count;
	return 0;
}

int optim_launches_from_events(const char *events, struct optim_launches *l)
{
	memset(l, 0, sizeof(*l));
	l->streams = -1;
	for (const char *p = events; p && *p;) {
		size_t n = strcspn(p, "\n");
		json_t *o = json_loadb(p, n, 0, NULL);
		const char *ev = json_string_value(json_object_get(o, "event"));
		/* the PTX entry (mangled) name where the emulator gives it: "tile<16>" and
		 * "tile<32>" are two kernels, one base name */
		const char *kernel = json_string_value(json_object_get(o, "entry"));
		if (!kernel)
			kernel = json_string_value(json_object_get(o, "kernel"));
		const char *status = json_string_value(json_object_get(o, "status"));
		int rc = 0;
		if (ev && kernel && strcmp(ev, "launch") == 0 && status && strcmp(status, "ok") == 0)
			rc = add_launch(l, kernel, 1);
		json_decref(o);
		if (rc < 0)
			return rc;
		p += n + (p[n] == '\n');
	}
	return 0;
}

int optim_launches_from_result(const struct pl_file *result, struct optim_launches *l)
{
	memset(l, 0, sizeof(*l));
	l->streams = 0;
	for (uint32_t i = 0; i < result->n; i++) {
		const struct pl_item *it = &result->items[i];
		if (it->kind != PL_METRIC)
			continue;
		if (strcmp(it->name, "streams_per_call") == 0)
			l->streams = (int)it->dval;
		else if (strncmp(it->name, "launched ", 9) == 0 &&
			 add_launch(l, it->name + 9, (unsigned)it->dval) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Whether the PTX entry MANGLED is the launched kernel NAME: a mangled NAME (CUPTI's, the
 * emulator's "entry") names one instantiation of a template, so it must match whole;
 * a source name ("tile<16>", extern "C") is matched by its base name. */
static bool optim_entry_is(const char *mangled, const char *name)
{
	if (strncmp(name, "_Z", 2) == 0)
		return strcmp(mangled, name) == 0;
	char base[256], other[256];
	optim_base_name(mangled, base, sizeof(base));
	optim_base_name(name, other, sizeof(other));
	return strcmp(base, other) == 0;
}

/* The body of each ".entry NAME(" that was launched, up to its closing "}" at the start
 * of a line. */
char *optim_launched_ptx(const char *ptx, const struct optim_launches *l)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	for (const char *p = ptx ? strstr(ptx, ".entry ") : NULL; p; p = strstr(p + 1, ".entry ")) {
		const char *name = p + 7;
		size_t n = strcspn(name, "( \t\n");
		char mangled[512];
		snprintf(mangled, sizeof(mangled), "%.*s", (int)n, name);
		bool launched = false;
		for (unsigned i = 0; i < l->n && !launched; i++)
			launched = optim_entry_is(mangled, l->names[i]);
		const char *end = strstr(p, "\n}");
		size_t body = end ? (size_t)(end - p) + 2 : strlen(p);
		if (launched)
			fprintf(f, "%.*s\n", (int)body, p);
	}
	fclose(f);
	return text;
}

/* Copies the register names of the operand list TEXT (up to ';') into REGS. */
static unsigned registers_of(const char *text, char regs[][32], unsigned cap)
{
	unsigned n = 0;
	for (const char *p = text; *p && *p != ';' && n < cap; p++) {
		if (*p != '%')
			continue;
		size_t len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		snprintf(regs[n++], 32, "%.*s", (int)len + 1, p);
		p += len;
	}
	return n;
}

unsigned optim_fma_per_load(const char *ptx)
{
	/* the registers a load wrote, and the multiply-adds that read each since */
	enum { CAP = 512 };
	static __thread char loaded[CAP][32];
	static __thread unsigned uses[CAP];
	unsigned n = 0, best = 0;
	for (const char *line = ptx; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *op = line + strspn(line, " \t");
		size_t oplen = strcspn(op, " \t\n;");
		char regs[8][32];
		unsigned nr = registers_of(op + oplen, regs, 8);
		bool is_load = strncmp(op, "ld.", 3) == 0;
		bool is_fma = strncmp(op, "fma.", 4) == 0;
		unsigned dests = 0;
		if (nr && op[oplen] != '\n') {
			/* destinations: the first operand, or all of a {vector} */
			const char *args = op + oplen + strspn(op + oplen, " \t");
			if (*args == '{') {
				char tmp[8][32];
				const char *close = strchr(args, '}');
				char vec[256];
				snprintf(vec, sizeof(vec), "%.*s", close ? (int)(close - args) : 0, args);
				dests = registers_of(vec, tmp, 8);
			} else {
				dests = 1;
			}
		}
		for (unsigned k = dests; is_fma && k < nr; k++)
			for (unsigned i = 0; i < n; i++)
				if (strcmp(loaded[i], regs[k]) == 0 && ++uses[i] > best)
					best = uses[i];
		for (unsigned k = 0; k < dests && k < nr; k++) {
			unsigned i = 0;
			while (i < n && strcmp(loaded[i], regs[k]) != 0)
				i++;
			if (i < n) { /* redefined: a new value */
				n--;
				memcpy(loaded[i], loaded[n], sizeof(loaded[i]));
				uses[i] = uses[n];
			}
			if (is_load && n < CAP) {
				snprintf(loaded[n], sizeof(loaded[n]), "%s", regs[k]);
				uses[n++] = 0;
			}
		}
	}
	return best;
}

int optim_recognise(const struct spec_recogniser *r, const char *ptx,
		    const struct optim_launches *l, char *why, size_t len)
{
	why[0] = '\0';
	if (r->max_kernels && l->n > r->max_kernels) {
		snprintf(why, len, "%u kernels launched, more than %u", l->n, r->max_kernels);
		return 0;
	}
	if (r->min_streams && l->streams < 0) {
		snprintf(why, len, "not observable on the emulator: its launches run one after another");
		return -1;
	}
	if (r->min_streams && (unsigned)l->streams < r->min_streams) {
		snprintf(why, len, "kernels on %d stream%s", l->streams, l->streams == 1 ? "" : "s");
		return 0;
	}
	unsigned reuse = r->min_fma_per_load ? optim_fma_per_load(ptx) : 0;
	if (r->min_fma_per_load && reuse < r->min_fma_per_load) {
		snprintf(why, len, "a loaded value feeds at most %u multiply-add%s", reuse, reuse == 1 ? "" : "s");
		return 0;
	}
	if (r->ptx) {
		regex_t re;
		regmatch_t m;
		if (regcomp(&re, r->ptx, REG_EXTENDED | REG_NEWLINE) != 0)
			return 0; /* spec_load compiled it already */
		int rc = regexec(&re, ptx ? ptx : "", 1, &m, 0);
		regfree(&re);
		if (rc != 0) {
			snprintf(why, len, "no '%s' in the launched kernels' PTX", r->ptx);
			return 0;
		}
		/* the evidence: the matched PTX and the kernel it is in */
		const char *entry = NULL;
		for (const char *e = strstr(ptx, ".entry "); e && e < ptx + m.rm_so; e = strstr(e + 1, ".entry "))
			entry = e + 7;
		char base[128] = "?", mangled[512];
		if (entry) {
			snprintf(mangled, sizeof(mangled), "%.*s", (int)strcspn(entry, "( \t\n"), entry);
			optim_base_name(mangled, base, sizeof(base));
		}
		snprintf(why, len, "'%.*s' in %s", (int)(m.rm_eo - m.rm_so > 40 ? 40 : m.rm_eo - m.rm_so),
			 ptx + m.rm_so, base);
		return 1;
	}
	if (r->max_kernels)
		snprintf(why, len, "%u kernel%s launched", l->n, l->n == 1 ? "" : "s");
	if (r->min_fma_per_load)
		snprintf(why + strlen(why), len - strlen(why), "%sa loaded value feeds %u multiply-adds",
			 why[0] ? ", " : "", reuse);
	if (r->min_streams)
		snprintf(why + strlen(why), len - strlen(why), "%skernels on %d streams",
			 why[0] ? ", " : "", l->streams);
	return 1;
}

/* ---- the runs -------------------------------------------------------------------- */

/* One measured run of the student on D. */
struct optim_run {
	double value;        /* GPU: kernel ms per call; emulator: modelled cost */
	double entry_ms;     /* GPU: the whole call (copies included) */
	struct optim_launches launches;
	struct devinfo dev;
	char why[1024];      /* when the run failed */
};

static int run_dataset(const struct perf_context *ctx, const struct spec_dataset *d,
		       struct optim_run *out)
{
	memset(out, 0, sizeof(*out));
	char request[PATH_MAX], events[PATH_MAX + 32], mode[256];
	if (perf_request(ctx, d, request, sizeof(request), out->why, sizeof(out->why)) < 0)
		return -1;
	bool gpu = ctx->backend == BACKEND_GPU;
	snprintf(events, sizeof(events), "PMPPLAB_EVENTS=%s/optim-%s.events", ctx->tmp, d->name);
	unlink(events + 15);
	if (gpu)
		perf_timing_env(mode, sizeof(mode));
	else
		snprintf(mode, sizeof(mode), "PMPPLAB_COUNTERS=1");
	struct pl_file res;
	int lock = gpu ? perf_gpu_lock() : -1;
	int ran = perf_run(ctx, ctx->student, mode, gpu ? NULL : events, request, &res, out->why,
			   sizeof(out->why));
	perf_gpu_unlock(lock);
	if (ran < 0)
		return -1;
	int rc = 0;
	if (gpu) {
		struct perf_measure m = { 0 };
		devinfo_from_result(&res, &out->dev);
		if (perf_measure_add(&m, &res) < 0 || m.source != PL_TIMING_CUPTI) {
			snprintf(out->why, sizeof(out->why), "no kernel times from CUPTI on this machine, so the kernels launched are unknown");
			rc = -1;
		} else {
			out->value = m.kernel_ms;
			const struct pl_item *e = pl_find(&res, PL_METRIC, "entry_ms_median");
			out->entry_ms = e ? e->dval : 0;
			rc = optim_launches_from_result(&res, &out->launches);
		}
	} else {
		struct perf_model pm;
		char *text = fs_read(events + 15, NULL);
		if (perf_model_from_result(&res, &pm) < 0) {
			snprintf(out->why, sizeof(out->why), "the emulator reported no counters");
			rc = -1;
		} else {
			out->value = pm.warp_insns + OPTIM_SECTOR_COST * (pm.gld_sectors + pm.gst_sectors);
			rc = optim_launches_from_events(text, &out->launches);
		}
		free(text);
	}
	pl_release(&res);
	return rc;
}


static void format_value(double v, bool gpu, char *buf, size_t len)
{
	if (gpu)
		snprintf(buf, len, "%.4g ms", v);
	else
		snprintf(buf, len, "%.4g cost units", v);
}

/* ---- the leaderboard ------------------------------------------------------------- */

/* Records this run in the workspace's leaderboard and says what it shows. */
static void leaderboard_lines(FILE *f, const struct perf_context *ctx, const struct spec_check *c,
			      const struct optim_run *run, double baseline, const bool *used)
{
	bool gpu = ctx->backend == BACKEND_GPU;
	char *ws = workspace_find(ctx->student_source);
	if (!ws) {
		fprintf(f, "leaderboard: not recorded (%s is not in a workspace; pmpplab init DIR makes one)\n",
			ctx->student_source);
		return;
	}
	struct leaderboard_run r = { .value = run->value, .baseline = baseline };
	time_t now = time(NULL);
	strftime(r.when, sizeof(r.when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(r.backend, sizeof(r.backend), "%s", backend_name(ctx->backend));
	if (gpu)
		snprintf(r.device, sizeof(r.device), "cc %u.%u, %u SMs", run->dev.cc_major,
			 run->dev.cc_minor, run->dev.sm_count);
	else /* NVRTC's PTX counts a little differently (build.h): a board of its own */
		snprintf(r.device, sizeof(r.device), "%s%s", backend_emu_device_name(),
			 ctx->student->nvrtc ? ", NVRTC PTX" : "");
	snprintf(r.unit, sizeof(r.unit), "%s", gpu ? "ms" : "cost");
	struct fs_hash h;
	fs_hash_init(&h);
	fs_hash_file(&h, ctx->student_source);
	fs_hash_hex(&h, r.source);
	for (unsigned i = 0; i < c->recognisers_count && r.n_used < LEADERBOARD_MAX_USED; i++)
		if (used[i])
			r.used[r.n_used++] = c->recognisers[i].name; /* borrowed: not released */
	char path[PATH_MAX], *broken = NULL, v[64], bv[64];
	snprintf(path, sizeof(path), "%s/.pmpplab/leaderboard-%s.json", ws, ctx->spec->id);
	struct leaderboard b;
	int rc = leaderboard_record(path, ctx->spec->id, &r, &b, &broken);
	if (rc < 0) {
		fprintf(f, "leaderboard: could not write %s: %s\n", path, strerror(-rc));
		free(ws);
		return;
	}
	if (broken)
		fprintf(f, "leaderboard: %s did not parse; kept as %s, a new board started\n", path, broken);
	for (unsigned i = 0; i < c->recognisers_count; i++) {
		if (!used[i])
			continue;
		const struct leaderboard_run *w = leaderboard_without(&b, &r, c->recognisers[i].name);
		format_value(w ? w->value : 0, gpu, bv, sizeof(bv));
		if (w)
			fprintf(f, "  what %s bought: %.2fx against your best run without it (%s, %s)\n",
				c->recognisers[i].name, run->value > 0 ? w->value / run->value : 0, bv, w->when);
		else
			fprintf(f, "  what %s bought: no run without it on your leaderboard yet\n",
				c->recognisers[i].name);
	}
	const struct leaderboard_run *best = leaderboard_best(&b, &r);
	format_value(best->value, gpu, bv, sizeof(bv));
	format_value(run->value, gpu, v, sizeof(v));
	unsigned runs = 0;
	for (unsigned i = 0; i < b.n; i++)
		runs += strcmp(b.runs[i].backend, r.backend) == 0 && strcmp(b.runs[i].device, r.device) == 0;
	fprintf(f, "leaderboard (%s, %s): this run %s; your best %s (%s)%s; %u run%s recorded\n", path,
		r.device, v, bv, best->when, best->value >= run->value ? ", this one" : "", runs,
		runs == 1 ? "" : "s");
	leaderboard_release(&b);
	free(broken);
	free(ws);
}

/* ---- the check --------------------------------------------------------------------- */

/* Whether two runs launched the same kernels (as sets; counts aside). */
static bool same_kernels(const struct optim_launches *a, const struct optim_launches *b)
{
	if (a->n == 0 || a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++) {
		bool found = false;
		for (unsigned j = 0; j < b->n && !found; j++)
			found = strcmp(a->names[i], b->names[j]) == 0;
		if (!found)
			return false;
	}
	return true;
}

static char *describe(const struct perf_context *ctx, const struct spec_check *c,
		      const struct spec_dataset *d, const struct optim_run *run,
		      const struct spec_dataset *base, const struct optim_run *brun, bool base_ok,
		      unsigned *n_used, bool *as_base)
{
	bool gpu = ctx->backend == BACKEND_GPU;
	const char *ptx = ctx->student->barriers_ptx ? ctx->student->barriers_ptx : ctx->student->ptx;
	char *all = fs_read(ptx ? ptx : "", NULL);
	char *launched = optim_launched_ptx(all, &run->launches);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	bool used[64] = { false };
	*n_used = 0;
	if (!f || !launched) {
		free(all);
		free(launched);
		if (f)
			fclose(f);
		free(text);
		return NULL;
	}
	fprintf(f, "optimisations recognised in the kernels launched on dataset %s:\n", d->name);
	for (unsigned i = 0; i < c->recognisers_count && i < 64; i++) {
		char why[300];
		int got = optim_recognise(&c->recognisers[i], launched, &run->launches, why, sizeof(why));
		used[i] = got == 1;
		*n_used += got == 1;
		fprintf(f, "  [%s] %s (%s)\n", got == 1 ? "x" : got == 0 ? " " : "?",
			c->recognisers[i].name, why);
	}
	fprintf(f, "kernels launched per call:");
	for (unsigned i = 0; i < run->launches.n; i++) {
		char base_name[128];
		optim_base_name(run->launches.names[i], base_name, sizeof(base_name));
		fprintf(f, "%s %s x%u", i ? "," : "", base_name, run->launches.counts[i]);
	}
	fprintf(f, "%s\n", run->launches.n ? "" : " none");
	char v[64], bv[64];
	format_value(run->value, gpu, v, sizeof(v));
	fprintf(f, "this version: %s", v);
	if (gpu && run->entry_ms > 0)
		fprintf(f, " of kernels per call (the whole call, copies included: %.4g ms)", run->entry_ms);
	else if (!gpu)
		fprintf(f, " (modelled: warp instructions + %g x global-memory sectors)", OPTIM_SECTOR_COST);
	*as_base = base && base_ok && same_kernels(&run->launches, &brun->launches);
	if (base && base_ok) {
		format_value(brun->value, gpu, bv, sizeof(bv));
		fprintf(f, "; your baseline (dataset %s): %s, so %.2fx %s", base->name, bv,
			run->value > 0 ? brun->value / run->value : 0,
			run->value <= brun->value ? "faster" : "(slower than the baseline)");
	} else if (base) {
		fprintf(f, "; your baseline (dataset %s) not measured: %s", base->name, brun->why);
	}
	fputc('\n', f);
	/* a baseline that runs the measured kernels measures nothing: the version the
	 * optimisations are counted against is missing (lab 15: version 1 calls version 3) */
	if (*as_base)
		fprintf(f, "your baseline (dataset %s) launched the same kernels as this version (SAME AS THE "
			   "BASELINE): it must run the version the optimisations are measured against "
			   "(the lab's datasets say which), or what they bought cannot be measured\n",
			base->name);
	if (c->leaderboard)
		leaderboard_lines(f, ctx, c, run, base && base_ok ? brun->value : 0, used);
	if (c->min_used)
		fprintf(f, "%u of the optimisations above recognised; at least %u pass%s\n", *n_used,
			c->min_used, *n_used >= c->min_used ? "" : ": NOT ENOUGH");
	fclose(f);
	free(all);
	free(launched);
	return text;
}

int optim_grade(const struct perf_context *ctx, const struct spec_check *c, struct report *r,
		struct diag_list *diags)
{
	(void)diags;
	bool gpu = ctx->backend == BACKEND_GPU;
	const struct spec_dataset *d = spec_dataset_named(ctx->spec, !gpu && c->emu_dataset ? c->emu_dataset : c->dataset);
	const struct spec_dataset *base = spec_dataset_named(ctx->spec, !gpu && c->emu_baseline ? c->emu_baseline : c->baseline);
	if (!d)
		d = &ctx->spec->datasets[0];
	char wrong[128];
	int correct = perf_dataset_correct(r, d, wrong, sizeof(wrong));
	if (correct < 0) {
		report_add(r, "optimisations", 0, true, "NOT MEASURED in a quick run (dataset %s was skipped); grade fully to see them", d->name);
		return 0;
	}
	if (!correct) {
		report_add(r, "optimisations", c->points, false, "not looked at: the results on dataset %s are wrong (see its correctness test); optimisations count only in correct programs", wrong);
		return 0;
	}
	struct optim_run *run = calloc(2, sizeof(*run));
	if (!run)
		return -ENOMEM;
	if (run_dataset(ctx, d, &run[0]) < 0) {
		/* nothing seen, nothing judged: only an informational check passes, and says so */
		report_add(r, "optimisations", c->points, c->min_used == 0,
			   "NOT MEASURED: the run on dataset %s failed: %s", d->name, run[0].why);
	} else {
		bool base_ok = base && run_dataset(ctx, base, &run[1]) == 0;
		unsigned n_used = 0;
		bool as_base = false;
		char *text = describe(ctx, c, d, &run[0], base, &run[1], base_ok, &n_used, &as_base);
		report_add(r, "optimisations", c->points, n_used >= c->min_used && !as_base, "%s", text ? text : "");
		free(text);
	}
	optim_launches_release(&run[0].launches);
	optim_launches_release(&run[1].launches);
	free(run);
	return 0;
}
