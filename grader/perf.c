/* perf: see perf.h. */
#include "perf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datagen.h"
#include "fsutil.h"
#include "harness/pl_timing.h"
#include "paths.h"
#include "runner.h"

/* Timing asked of each run: 1.5 s of repetitions at most, or a median known to 1%.
 * $PMPPLAB_PERF_TIMING replaces it (tests and the stability script). */
#define PERF_TIMING_DEFAULT "cap_ms=1500,rel=0.01,min=5,max=500,warmup=1"

static double metric(const struct pl_file *f, const char *name, double fallback)
{
	const struct pl_item *m = pl_find(f, PL_METRIC, name);
	return m ? m->dval : fallback;
}

int perf_measure_add(struct perf_measure *m, const struct pl_file *result)
{
	int source = (int)metric(result, "timing_source", PL_TIMING_NONE);
	double ms = metric(result, "kernel_ms", 0);
	if (source == PL_TIMING_CUPTI) { /* counted even when no kernel ran (no time) */
		int k = (int)metric(result, "kernels_per_call", 0);
		m->kernels = m->kernels_counted && m->kernels > k ? m->kernels : k;
		m->kernels_counted = true;
	}
	m->no_kernel |= metric(result, "timing_no_kernel", 0) == 1;
	if (source == PL_TIMING_NONE || !(ms > 0) || m->n == PERF_MAX_RUNS)
		return -ENOENT;
	m->run_ms[m->n++] = ms;
	double sum = 0;
	for (unsigned i = 0; i < m->n; i++)
		sum += m->run_ms[i];
	m->kernel_ms = sum / m->n;
	m->rel_err = fmax(m->rel_err, metric(result, "kernel_rel_err", 0));
	double lo = metric(result, "kernel_ms_min", ms), hi = metric(result, "kernel_ms_max", ms);
	m->min_ms = m->n == 1 ? lo : fmin(m->min_ms, lo);
	m->max_ms = fmax(m->max_ms, hi);
	m->transfer_ms = metric(result, "transfer_ms", 0);
	m->reps += (unsigned)metric(result, "timing_reps", 0);
	m->leaked_bytes = fmax(m->leaked_bytes, metric(result, "timing_leaked_bytes_per_call", 0));
	/* events (2) are worse than CUPTI (1): the time then includes the copies */
	m->source = source > m->source ? source : m->source;
	return 0;
}

void perf_evaluate(const struct spec_check *c, double work, const struct perf_measure *stu,
		   const struct perf_measure *sol, const struct devinfo *dev,
		   struct perf_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->ratio = sol->kernel_ms > 0 ? stu->kernel_ms / sol->kernel_ms : INFINITY;
	v->ratio_ok = c->max_ratio <= 0 || v->ratio <= c->max_ratio;
	if (c->metric != SPEC_PERF_TIME && stu->kernel_ms > 0) {
		v->rate = work / (stu->kernel_ms * 1e-3);
		v->peak = c->metric == SPEC_PERF_FLOPS ? devinfo_peak_flops(dev)
						       : devinfo_peak_bandwidth(dev);
		v->fraction = v->peak > 0 ? v->rate / v->peak : 0;
	}
	v->peak_judged = c->min_peak > 0 && v->peak > 0 && stu->source == PL_TIMING_CUPTI;
	v->peak_ok = !v->peak_judged || v->fraction >= c->min_peak;
	v->no_kernel = stu->no_kernel; /* issue 14: a time of host code alone is no kernel's */
	v->passed = v->ratio_ok && v->peak_ok && !v->no_kernel;
}

void perf_format_rate(double rate, bool flops, char *buf, size_t len)
{
	const char *unit = flops ? "FLOP/s" : "B/s";
	static const char *prefix[] = { "", "k", "M", "G", "T", "P" };
	unsigned p = 0;
	while (rate >= 1000 && p < 5) {
		rate /= 1000;
		p++;
	}
	snprintf(buf, len, rate >= 100 ? "%.0f %s%s" : rate >= 10 ? "%.1f %s%s" : "%.2f %s%s",
		 rate, prefix[p], unit);
}

static const char *source_text(int source)
{
	return source == PL_TIMING_CUPTI
		       ? "kernel times from CUPTI activity records"
		       : "CUPTI unavailable: times from CUDA events around the whole entry point, host<->device copies included";
}

/* The headline: "2.9 TB/s, 86% of peak, 0.98x the reference". */
/* The rate only where the time is the kernels' alone: with CUDA events it includes the
 * copies, and "8 GB/s, 0% of peak" would mislead. */
static void headline(FILE *f, const struct spec_check *c, const struct perf_measure *stu,
		     const struct perf_verdict *v)
{
	if (c->metric != SPEC_PERF_TIME && stu->source == PL_TIMING_CUPTI) {
		char rate[32];
		perf_format_rate(v->rate, c->metric == SPEC_PERF_FLOPS, rate, sizeof(rate));
		fprintf(f, "%s, ", rate);
		if (v->peak > 0) {
			char pct[48];
			perf_figure(pct, sizeof(pct), 100 * v->fraction, 0,
				    v->peak_judged ? 100 * c->min_peak : 0);
			fprintf(f, "%s%% of %speak, ", pct,
				c->metric == SPEC_PERF_FLOPS ? "FP32 " : "");
		}
	}
	fprintf(f, "%.2fx the reference's speed\n", v->ratio > 0 ? 1 / v->ratio : 0);
}

char *perf_describe(const struct spec_check *c, const struct perf_measure *stu,
		    const struct perf_measure *sol, const struct devinfo *dev,
		    const struct perf_verdict *v)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	if (v->no_kernel) {
		fprintf(f, "NOT MEASURED: CUPTI saw no kernel in the timed calls of your entry point, so there is no kernel time to judge: a lab's speed is its kernels' speed.\n");
		fclose(f);
		return text;
	}
	headline(f, c, stu, v);
	char ratio[48];
	perf_figure(ratio, sizeof(ratio), v->ratio, 2, c->max_ratio);
	fprintf(f, "kernel time %.4g ms (mean of %u run medians, %u timed calls from %.4g to %.4g ms, median known to %.1f%%); the lab's solution %.4g ms: %sx its time",
		stu->kernel_ms, stu->n, stu->reps, stu->min_ms, stu->max_ms, 100 * stu->rel_err,
		sol->kernel_ms, ratio);
	if (c->max_ratio > 0)
		fprintf(f, " (%s: at most %gx passes)", v->ratio_ok ? "ok" : "TOO SLOW", c->max_ratio);
	fputc('\n', f);
	if (c->metric != SPEC_PERF_TIME && v->peak > 0) {
		char peak[32];
		perf_format_rate(v->peak, c->metric == SPEC_PERF_FLOPS, peak, sizeof(peak));
		fprintf(f, "%s: %s (%s)",
			c->metric == SPEC_PERF_FLOPS ? "FP32 peak of this GPU's CUDA cores" : "peak of this GPU",
			peak, c->metric == SPEC_PERF_FLOPS ? "SMs x FP32 lanes x 2 x clock"
							   : "2 x memory clock x bus width");
		/* tensor cores (lab 14's wmma) are not in that peak: a kernel on them passes it */
		if (c->metric == SPEC_PERF_FLOPS && v->fraction > 1)
			fprintf(f, "; the tensor cores are not counted in it, so kernels on them go past 100%%");
		if (v->peak_judged)
			fprintf(f, "; %s: at least %g%% of peak passes", v->peak_ok ? "ok" : "TOO SLOW",
				100 * c->min_peak);
		else if (c->min_peak > 0)
			fprintf(f, "; the fraction of peak is not judged (the time includes copies)");
		fputc('\n', f);
	}
	fprintf(f, "%s; L2 cache flushed before every call", source_text(stu->source));
	if (stu->source == PL_TIMING_CUPTI && stu->transfer_ms > 0)
		fprintf(f, "; host<->device copies %.3g ms per call, timed apart and not counted",
			stu->transfer_ms);
	fprintf(f, ".\n");
	if (dev->sm_count)
		fprintf(f, "device: compute capability %u.%u, %u SMs at %u MHz, memory %u MHz x %u bit\n",
			dev->cc_major, dev->cc_minor, dev->sm_count, dev->clock_khz / 1000,
			dev->mem_clock_khz / 1000, dev->bus_width_bits);
	if (stu->leaked_bytes >= 1 << 20)
		fprintf(f, "Each call of your entry point left %.0f MB of device memory allocated: cudaFree every buffer you cudaMalloc.\n",
			stu->leaked_bytes / (1 << 20));
	if (!v->passed)
		fprintf(f, "%s", c->metric == SPEC_PERF_FLOPS
					 ? "Look at how often each input is loaded from global memory: tiling through shared memory reuses it.\n"
					 : "Look at how the threads of a warp access memory: consecutive threads should touch consecutive addresses, and every thread should have work.\n");
	fclose(f);
	return text;
}

char *perf_vendor_describe(const struct spec_check *c, double work, const struct perf_measure *stu,
			   const struct perf_measure *ven, double vendor_work, bool vendor_flops)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	bool flops = c->metric == SPEC_PERF_FLOPS;
	bool same_unit = c->metric != SPEC_PERF_TIME && flops == vendor_flops;
	char vr[32] = "", sr[32];
	double vrate = ven->kernel_ms > 0 ? vendor_work / (ven->kernel_ms * 1e-3) : 0;
	if (vrate > 0)
		perf_format_rate(vrate, vendor_flops, vr, sizeof(vr));
	fprintf(f, "vs the vendor library on this GPU (no points): %s %.4g ms%s%s", c->vendor->name,
		ven->kernel_ms, vr[0] ? ", " : "", vr);
	if (same_unit && vrate > 0 && work > 0 && stu->kernel_ms > 0) {
		double srate = work / (stu->kernel_ms * 1e-3);
		perf_format_rate(srate, flops, sr, sizeof(sr));
		fprintf(f, "; your kernels %.4g ms, %s: %.0f%% of its %s", stu->kernel_ms, sr,
			100 * srate / vrate, flops ? "FLOP rate" : "bandwidth");
	} else {
		fprintf(f, "; your kernels %.4g ms: %.2fx its time", stu->kernel_ms,
			ven->kernel_ms > 0 ? stu->kernel_ms / ven->kernel_ms : 0);
	}
	if (ven->source != PL_TIMING_CUPTI)
		fprintf(f, " (its time from CUDA events, copies included)");
	fputc('\n', f);
	fclose(f);
	return text;
}

/* ---- modelled counters (emulator) ----------------------------------------------- */

int perf_model_from_result(const struct pl_file *f, struct perf_model *m)
{
	memset(m, 0, sizeof(*m));
	if (metric(f, "emu_counted", 0) != 1)
		return -ENOENT;
	m->warp_insns = metric(f, "emu_warp_insns", 0);
	m->thread_insns = metric(f, "emu_thread_insns", 0);
	m->gld_req = metric(f, "emu_gld_req", 0);
	m->gst_req = metric(f, "emu_gst_req", 0);
	m->gld_sectors = metric(f, "emu_gld_sectors", 0);
	m->gst_sectors = metric(f, "emu_gst_sectors", 0);
	m->gld_bytes = metric(f, "emu_gld_bytes", 0);
	m->gst_bytes = metric(f, "emu_gst_bytes", 0);
	m->shd_req = metric(f, "emu_shd_req", 0);
	m->shd_wavefronts = metric(f, "emu_shd_wavefronts", 0);
	m->shd_ideal = metric(f, "emu_shd_ideal", 0);
	m->gat_req = metric(f, "emu_gat_req", 0);
	m->gat_lanes = metric(f, "emu_gat_lanes", 0);
	return 0;
}

void perf_model_evaluate(const struct spec_check *c, const struct perf_model *stu,
			 const struct perf_model *sol, double elements,
			 struct perf_model_verdict *v)
{
	memset(v, 0, sizeof(*v));
	bool all = c->traffic != SPEC_TRAFFIC_LOADS; /* issue 14: the traffic the lab teaches */
	double sectors = stu->gld_sectors + (all ? stu->gst_sectors : 0);
	double ref = sol->gld_sectors + (all ? sol->gst_sectors : 0);
	double req = stu->gld_req + (all ? stu->gst_req : 0);
	double bytes = stu->gld_bytes + (all ? stu->gst_bytes : 0);
	/* Issue 14: a figure with nothing under it is not measured, and a threshold on it
	 * fails, never "ok": no kernel, no global request */
	v->ran = stu->warp_insns > 0;
	v->traffic_measured = sectors > 0;
	v->bank_measured = stu->shd_ideal > 0;
	v->traffic_ratio = ref > 0 ? sectors / ref : sectors > 0 ? INFINITY : 0;
	v->coalescing = sectors > 0 ? bytes / (32 * sectors) : 0;
	v->sectors_per_request = req > 0 ? sectors / req : 0;
	v->bytes_per_element = elements > 0 ? 32 * sectors / elements : 0;
	v->atomics_per_element = elements > 0 ? stu->gat_lanes / elements : 0;
	v->bank_conflicts = v->bank_measured ? stu->shd_wavefronts / stu->shd_ideal : 1;
	v->lane_efficiency = v->ran ? stu->thread_insns / (32 * stu->warp_insns) : 0;
	v->insn_ratio = sol->warp_insns > 0 ? stu->warp_insns / sol->warp_insns : 1;
	/* Stores, unlike instructions or loads, do not depend on how a correct kernel is
	 * organised (block shape, coarsening, grid-stride loops): each output is written
	 * once. Twice the solution's stores is the same work done twice. */
	v->store_ratio = sol->gst_bytes > 0 ? stu->gst_bytes / sol->gst_bytes : stu->gst_bytes > 0 ? INFINITY : 1;
	v->store_ok = c->max_store_ratio <= 0 || v->store_ratio <= c->max_store_ratio;
	v->traffic_ok = c->max_traffic_ratio <= 0 ||
			(v->traffic_measured && v->traffic_ratio <= c->max_traffic_ratio);
	v->coalescing_ok = c->min_coalescing <= 0 ||
			   (v->traffic_measured && v->coalescing >= c->min_coalescing);
	v->bank_ok = c->max_bank_conflicts <= 0 || v->bank_conflicts <= c->max_bank_conflicts;
	v->lane_ok = c->min_lane_efficiency <= 0 || v->lane_efficiency >= c->min_lane_efficiency;
	v->insn_ok = c->max_insn_ratio <= 0 || v->insn_ratio <= c->max_insn_ratio;
	v->atomics_ok = c->max_atomics_per_element <= 0 ||
			v->atomics_per_element <= c->max_atomics_per_element;
	v->judged = c->max_traffic_ratio > 0 || c->min_coalescing > 0 || c->max_bank_conflicts > 0 ||
		    c->min_lane_efficiency > 0 || c->max_insn_ratio > 0 ||
		    c->max_atomics_per_element > 0 || c->max_store_ratio > 0;
	v->passed = v->ran && v->traffic_ok && v->coalescing_ok && v->bank_ok && v->lane_ok &&
		    v->insn_ok && v->atomics_ok && v->store_ok;
}

void perf_figure(char *buf, size_t len, double value, unsigned digits, double limit)
{
	for (unsigned d = digits;; d++) {
		snprintf(buf, len, "%.*f", (int)d, value);
		double shown = strtod(buf, NULL);
		if (d >= digits + 6 || !(limit > 0) || !isfinite(value) ||
		    ((shown > limit) == (value > limit) && (shown < limit) == (value < limit)))
			return;
	}
}

/* A judged figure: VALUE (times SCALE: 100 for a percentage) with enough digits that it
 * never reads as the wrong side of LIMIT, then UNIT and WHAT, then " (ok: at least 80%
 * passes)"; no verdict when LIMIT is 0 (not judged). */
static void judged(FILE *f, double value, double scale, unsigned digits, const char *unit,
		   const char *what, double limit, bool ok, const char *bad, const char *bound)
{
	char v[48];
	perf_figure(v, sizeof(v), scale * value, digits, scale * limit);
	fprintf(f, "%s%s%s", v, unit, what);
	if (limit > 0)
		fprintf(f, " (%s: %s %g%s passes)", ok ? "ok" : bad, bound, scale * limit, unit);
}

char *perf_model_describe(const struct spec_check *c, const struct perf_model_verdict *v,
			  const struct perf_model *stu, const char *dataset)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	if (!v->ran) {
		fprintf(f, "NOT MEASURED on the emulator: no kernel ran on dataset %s (0 warp instructions), so there is nothing to judge: a lab's speed is its kernels' speed.\n", dataset);
		fclose(f);
		return text;
	}
	if (v->judged)
		fprintf(f, "modelled on the emulator (counts, not time: the same on every run), dataset %s:\n", dataset);
	else
		fprintf(f, "NOT MEASURED on the emulator: speed is graded on a GPU (--backend gpu), against the lab's solution and the GPU's peak. The emulator's counts for dataset %s, shown but not graded:\n", dataset);
	const char *what = c->traffic == SPEC_TRAFFIC_LOADS ? "global loads" : "global memory";
	if (!v->traffic_measured) {
		fprintf(f, "  %s: NOT MEASURED: the kernels made no %s request%s\n", what, what,
			c->max_traffic_ratio > 0 || c->min_coalescing > 0
				? ", so their traffic and coalescing cannot be judged (FAILS)" : "");
	} else {
		fprintf(f, "  %s: %.2f sectors of 32 bytes per warp request, %.1f bytes of sectors per element (counted per request, before any cache); ",
			what, v->sectors_per_request, v->bytes_per_element);
		judged(f, v->coalescing, 100, 0, "%", " of the fetched bytes were used", c->min_coalescing,
		       v->coalescing_ok, "TOO LOW", "at least");
		fprintf(f, "; ");
		judged(f, v->traffic_ratio, 1, 2, "x", " the solution's sectors", c->max_traffic_ratio,
		       v->traffic_ok, "TOO MANY", "at most");
		fputc('\n', f);
	}
	if (c->max_atomics_per_element > 0 || stu->gat_lanes > 0) {
		fprintf(f, "  global atomics: %.0f lane operations, ", stu->gat_lanes);
		judged(f, v->atomics_per_element, 1, 2, "", " per element", c->max_atomics_per_element,
		       v->atomics_ok, "TOO MANY", "at most");
		fputc('\n', f);
	}
	if (c->max_store_ratio > 0) {
		fprintf(f, "  stores: %.0f bytes written to global memory, ", stu->gst_bytes);
		judged(f, v->store_ratio, 1, 2, "x", " the solution's", c->max_store_ratio,
		       v->store_ok, "TOO MANY", "at most");
		fputc('\n', f);
	}
	if (v->bank_measured) {
		fprintf(f, "  shared memory: %.0f requests needing ", stu->shd_req);
		judged(f, v->bank_conflicts, 1, 2, "x", " the passes they would without bank conflicts",
		       c->max_bank_conflicts, v->bank_ok, "TOO MANY", "at most");
		fputc('\n', f);
	} else if (c->max_bank_conflicts > 0) {
		fprintf(f, "  shared memory: NOT MEASURED: no shared-memory request, so no bank conflicts to judge\n");
	}
	fprintf(f, "  lanes: ");
	judged(f, v->lane_efficiency, 100, 0, "%", " of each warp instruction's 32 lanes did work",
	       c->min_lane_efficiency, v->lane_ok, "TOO LOW", "at least");
	fprintf(f, "\n  instructions: %.0f warp instructions, ", stu->warp_insns);
	judged(f, v->insn_ratio, 1, 2, "x", " the solution's", c->max_insn_ratio, v->insn_ok,
	       "TOO MANY", "at most");
	fputc('\n', f);
	if (!v->passed) {
		if (!v->coalescing_ok || !v->traffic_ok)
			fprintf(f, "Consecutive threads of a warp should touch consecutive addresses, so one 32-byte sector serves 8 floats; and data reused by a block belongs in shared memory.\n");
		if (!v->atomics_ok)
			fprintf(f, "Every global atomic is a trip to one contended address: privatise (count into shared memory) and merge each block's counts once, with several elements per thread.\n");
		if (!v->store_ok)
			fprintf(f, "The kernels write global memory more often than the solution: each output element needs one store. Check that the grid and the block cover the output once (a dimension of 2 where 1 was meant computes everything twice) and that no thread repeats another's work.\n");
		if (!v->bank_ok)
			fprintf(f, "Threads of a warp that hit different words of one shared-memory bank are served one after another: pad the array so that the words a warp reads at once fall in 32 different banks, or change the access order. [TILE][TILE + 1] does it for a warp walking one column of a 32-wide tile; a warp that spans two columns of a 16-wide tile still finds two of its words in one bank however the rows are padded: use 32-wide tiles (or swizzle the column index).\n");
		if (!v->lane_ok)
			fprintf(f, "Many lanes sit idle: branches that split warps (e.g. threadIdx.x %% (2 * stride) == 0) waste them; keep the active threads contiguous.\n");
		if (!v->insn_ok)
			fprintf(f, "The kernels execute many more instructions for the same result: count the loads (shared memory included) each multiply-add needs, and what registers could keep instead.\n");
	}
	if (c->vendor)
		fprintf(f, "On a GPU this check also times %s on the same data (no points).\n", c->vendor->name);
	fclose(f);
	return text;
}

/* ---- running the programs --------------------------------------------------------- */

/* The dataset called NAME; the first when none is named so (or NAME is NULL). */
static const struct spec_dataset *find_dataset(const struct lab_spec *s, const char *name)
{
	const struct spec_dataset *d = spec_dataset_named(s, name);
	return d ? d : &s->datasets[0];
}

static char *test_name(const struct spec_dataset *d)
{
	char *name = NULL;
	if (asprintf(&name, "performance: %s", d->name) < 0)
		return NULL;
	return name;
}

int perf_dataset_correct(const struct report *r, const struct spec_dataset *d, char *wrong,
			 size_t len)
{
	static const char tag[] = "correctness: ";
	char prefix[160];
	snprintf(prefix, sizeof(prefix), "%s%s (", tag, d->name);
	snprintf(wrong, len, "%s", d->name);
	for (unsigned i = 0; i < r->n_tests; i++)
		if (strncmp(r->tests[i].name, prefix, strlen(prefix)) == 0)
			return r->tests[i].status == TEST_PASSED;
	for (unsigned i = 0; i < r->n_tests; i++) {
		const char *name = r->tests[i].name;
		if (strncmp(name, tag, sizeof(tag) - 1) == 0 && r->tests[i].status != TEST_PASSED) {
			name += sizeof(tag) - 1;
			snprintf(wrong, len, "%.*s", (int)strcspn(name, " "), name);
			return 0;
		}
	}
	return -1;
}

int perf_run(const struct perf_context *ctx, const struct build_result *b, const char *mode,
	     const char *extra, const char *request, struct pl_file *out, char *why, size_t whylen)
{
	char result[PATH_MAX], ptx[PATH_MAX + 32];
	snprintf(result, sizeof(result), "%s/perf.result", ctx->tmp);
	snprintf(ptx, sizeof(ptx), "PMPPLAB_EMU_PTX=%s", b->ptx ? b->ptx : "");
	/* The race checker installs its own hooks over ours: keep it off in measured runs.
	 * The solution's runs leave the live trace (the TUI's panels) to the student's. */
	char *env[6] = { (char *)mode, ptx, "PMPPLAB_EMU_RACECHECK=0" };
	unsigned n = 3;
	if (b != ctx->student)
		env[n++] = "PMPPLAB_TRACE=";
	if (extra)
		env[n++] = (char *)extra;
	const char *argv[] = { b->program, request, result, NULL };
	unsigned timeout = 3 * ctx->timeout_ms + 30 * 1000;
	const char *events = extra && !strncmp(extra, "PMPPLAB_EVENTS=", 15) ? extra + 15 : NULL;
	struct subrun_call call = {
		.b = b, .argv = argv, .env = env, .reads = { request }, .writes = { result, events },
		.timeout_ms = timeout, .output_cap = 16 * 1024, .what = "the performance run",
		.lab_code = b != ctx->student,
	};
	struct runner_result res;
	int rc = subrun_run(ctx->runs, &call, &res);
	if (rc < 0) {
		snprintf(why, whylen, rc == -ECANCELED ? "not run: %s" : "could not start %s",
			 rc == -ECANCELED ? subrun_stopped(ctx->runs, request) : b->program);
		return -1;
	}
	if (res.status != RUNNER_EXITED || res.exit_code != 0) {
		char how[256];
		runner_describe(&res, timeout, how, sizeof(how));
		const char *err = res.err ? res.err : "";
		size_t n = strlen(err);
		snprintf(why, whylen, "the measured run %s\n%s", how, n > 1500 ? err + n - 1500 : err);
		rc = -1;
	} else if (pl_read(out, result, why, whylen) < 0) {
		rc = -1;
	}
	runner_result_release(&res);
	return rc;
}

int perf_request(const struct perf_context *ctx, const struct spec_dataset *d, char *request,
		 size_t len, char *why, size_t whylen)
{
	snprintf(request, len, "%s/%s.in", ctx->tmp, d->name);
	return datagen_request_file(ctx->spec, d, ctx->seed, request, why, whylen);
}

int perf_gpu_lock(void)
{
	char *cache = paths_cache_dir(), path[PATH_MAX];
	if (cache)
		paths_mkdirs(cache);
	snprintf(path, sizeof(path), "%s/gpu-timing.lock", cache ? cache : "/tmp");
	free(cache);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
			;
	return fd;
}

void perf_gpu_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* drops the lock */
}

void perf_timing_env(char *buf, size_t len)
{
	const char *opts = getenv("PMPPLAB_PERF_TIMING");
	snprintf(buf, len, "PMPPLAB_TIMING=%s", opts && *opts ? opts : PERF_TIMING_DEFAULT);
}

/* GPU: alternates solution and student timed runs; fills the measures and the device. */
static int measure_both(const struct perf_context *ctx, const struct build_result *sol,
			const char *request, struct perf_measure *stu, struct perf_measure *ref,
			struct devinfo *dev, char *why, size_t whylen, bool *student_failed)
{
	char mode[256];
	perf_timing_env(mode, sizeof(mode));
	int lock = perf_gpu_lock();
	for (unsigned i = 0; i < 2 * 2; i++) {
		bool is_student = i % 2 == 1;
		struct pl_file out;
		if (perf_run(ctx, is_student ? ctx->student : sol, mode, NULL, request, &out, why, whylen) < 0) {
			*student_failed = is_student;
			perf_gpu_unlock(lock);
			return -1;
		}
		if (!dev->sm_count)
			devinfo_from_result(&out, dev);
		int rc = perf_measure_add(is_student ? stu : ref, &out);
		pl_release(&out);
		if (rc < 0) {
			snprintf(why, whylen, is_student ? "not measured: the timed run of your program wrote no timing (it must return from the entry point, not exit, and be built for a GPU)"
							 : "the program reported no timing (was it built for a GPU?)");
			*student_failed = is_student;
			perf_gpu_unlock(lock);
			return -1;
		}
	}
	perf_gpu_unlock(lock);
	return 0;
}

bool perf_kept_path(const struct build_result *sol, const char *mode, const char *request,
		    char *path, size_t len)
{
	char *cache = paths_cache_dir(), *emulib = paths_emu_libdir();
	if (!cache) {
		free(emulib);
		return false;
	}
	struct fs_hash h;
	char hex[33], lib[PATH_MAX];
	fs_hash_init(&h);
	fs_hash_str(&h, "pmpplab-counted-1");
	fs_hash_str(&h, sol->program ? sol->program : "");
	fs_hash_str(&h, sol->ptx ? sol->ptx : "");
	fs_hash_str(&h, mode);
	const char *device = getenv("PMPPLAB_EMU_DEVICE");
	fs_hash_str(&h, device ? device : "");
	snprintf(lib, sizeof(lib), "%s/libpmpplab_cudart.so", emulib ? emulib : "");
	struct stat st;
	if (stat(lib, &st) == 0) {
		int64_t id[] = { (int64_t)st.st_dev, (int64_t)st.st_ino, (int64_t)st.st_size,
				 (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec };
		fs_hash_add(&h, id, sizeof(id));
	}
	fs_hash_content(&h, request); /* its folder is the grading's own */
	fs_hash_hex(&h, hex);
	snprintf(path, len, "%s/counted/%s", cache, hex);
	free(cache);
	free(emulib);
	return true;
}

/* perf_run of the lab's solution SOL, or the result an earlier grading's run left on the
 * same inputs (perf_kept_path; only where the seed was given: a fresh seed's inputs never
 * come again). */
static int run_solution(const struct perf_context *ctx, const struct build_result *sol,
			const char *mode, const char *request, struct pl_file *out, char *why,
			size_t whylen)
{
	char kept[PATH_MAX];
	bool keep = ctx->seed_given && perf_kept_path(sol, mode, request, kept, sizeof(kept));
	if (keep && pl_read(out, kept, why, whylen) == 0)
		return 0;
	if (keep) /* damaged (or absent): replaced by this run's */
		unlink(kept);
	if (perf_run(ctx, sol, mode, NULL, request, out, why, whylen) < 0)
		return -1;
	char result[PATH_MAX], dir[PATH_MAX];
	snprintf(result, sizeof(result), "%s/perf.result", ctx->tmp);
	snprintf(dir, sizeof(dir), "%s", kept);
	if (keep && strrchr(dir, '/')) {
		*strrchr(dir, '/') = '\0';
		if (paths_mkdirs(dir) == 0)
			fs_copy_new(result, kept); /* EEXIST: a parallel grader kept the same */
	}
	return 0;
}

/* Emulator: one counted run each (the solution's perhaps kept: run_solution; the
 * student's perhaps its dataset's run, KEPT: its result, or NULL). */
static int count_both(const struct perf_context *ctx, const struct build_result *student,
		      const struct build_result *sol, const char *request, const char *kept,
		      struct perf_model *stu, struct perf_model *ref, char *why, size_t whylen,
		      bool *student_failed)
{
	for (unsigned i = 0; i < 2; i++) {
		bool is_student = i == 0;
		struct pl_file out;
		if (is_student && kept && pl_read(&out, kept, why, whylen) == 0) {
			int rc = perf_model_from_result(&out, stu);
			pl_release(&out);
			if (rc == 0)
				continue; /* else (no counters in it): counted again below */
		}
		const char *mode = "PMPPLAB_COUNTERS=1";
		if ((is_student ? perf_run(ctx, student, mode, NULL, request, &out, why, whylen)
				: run_solution(ctx, sol, mode, request, &out, why, whylen)) < 0) {
			*student_failed = is_student;
			return -1;
		}
		int rc = perf_model_from_result(&out, is_student ? stu : ref);
		pl_release(&out);
		if (rc < 0) {
			/* the harness always writes them on the emulator: a student's result
			 * without them was not written by it */
			snprintf(why, whylen, "the emulator reported no counters");
			*student_failed = is_student;
			return -1;
		}
	}
	return 0;
}

/* Builds the lab's solution for the backend; a failure is the lab's bug. Its PTX is made
 * by the student's program's compiler (build.h): the emulator's counted figures of the
 * two are compared, and NVRTC's PTX counts a little differently from nvcc's. */
static int build_solution(const struct perf_context *ctx, struct build_result *sol,
			  struct diag_list *diags)
{
	char *solution = spec_path(ctx->spec, ctx->spec->solution);
	enum build_ptx ptx = ctx->student->nvrtc ? BUILD_PTX_NVRTC : BUILD_PTX_NVCC;
	int rc = solution ? build_lab(ctx->spec, solution, ctx->backend, ptx, sol, diags) : -ENOMEM;
	free(solution);
	return rc;
}

/* The vendor line of check C (GPU): its program built from the lab's view of it, timed
 * once on REQUEST. Never fails the check: what went wrong is the line. Malloc'd. */
static char *vendor_line(const struct perf_context *ctx, const struct spec_check *c,
			 const struct spec_dataset *d, const char *request,
			 const struct perf_measure *stu, double work)
{
	struct lab_spec view;
	struct build_result b = { 0 };
	struct diag_list errs;
	diag_list_init(&errs);
	char why[2048] = "", *text = NULL, *file = spec_path(ctx->spec, c->vendor->file);
	struct perf_measure ven = { 0 };
	int rc = spec_vendor_view(ctx->spec, c->vendor, &view);
	if (rc == 0 && file)
		rc = build_lab(&view, file, BACKEND_GPU, BUILD_PTX_NVCC, &b, &errs);
	if (rc < 0 || !file) {
		const struct diag *e = b.diags.n ? &b.diags.items[0] : errs.n ? &errs.items[0] : NULL;
		snprintf(why, sizeof(why), "it did not build%s%s", e ? ": " : "", e ? e->message : "");
	} else {
		char mode[256];
		perf_timing_env(mode, sizeof(mode));
		struct pl_file out;
		int lock = perf_gpu_lock();
		int rc = perf_run(ctx, &b, mode, NULL, request, &out, why, sizeof(why));
		perf_gpu_unlock(lock);
		if (rc == 0) {
			if (perf_measure_add(&ven, &out) < 0)
				snprintf(why, sizeof(why), "its run reported no timing");
			pl_release(&out);
		}
	}
	/* its own work where it does other work (a copy), else the check's */
	int64_t vwork = (int64_t)work;
	const char *expr = c->vendor->bytes ? c->vendor->bytes : c->vendor->flops;
	bool vflops = c->vendor->flops || (!expr && c->metric == SPEC_PERF_FLOPS);
	if (expr && spec_dataset_eval(ctx->spec, d, expr, &vwork) < 0)
		vwork = 0;
	if (ven.n)
		text = perf_vendor_describe(c, work, stu, &ven, (double)vwork, vflops);
	else if (asprintf(&text, "vs the vendor library on this GPU (no points): %s not measured: %s\n",
			  c->vendor->name, why) < 0)
		text = NULL;
	build_result_release(&b);
	diag_list_release(&errs);
	spec_vendor_view_release(&view);
	free(file);
	return text;
}

static int grade_timed(const struct perf_context *ctx, const struct spec_check *c,
		       const struct spec_dataset *d, const char *name, struct report *r,
		       struct diag_list *diags)
{
	struct build_result sol = { 0 };
	char request[PATH_MAX], why[2048] = "";
	struct perf_measure stu = { 0 }, ref = { 0 };
	struct devinfo dev = { 0 };
	bool student_failed = false;
	int64_t work = 0;
	if (c->metric != SPEC_PERF_TIME)
		spec_dataset_eval(ctx->spec, d, c->metric == SPEC_PERF_FLOPS ? c->flops : c->bytes, &work);
	int rc = build_solution(ctx, &sol, diags);
	if (rc == -ENOEXEC) {
		report_add(r, name, c->points, false, "the lab's solution does not compile, so there is nothing to compare with (a bug in the lab, not your code)");
		rc = 0;
	} else if (rc == 0 && perf_request(ctx, d, request, sizeof(request), why, sizeof(why)) < 0) {
		report_add(r, name, c->points, false, "could not prepare the inputs of dataset %s: %s", d->name, why);
	} else if (rc == 0 && measure_both(ctx, &sol, request, &stu, &ref, &dev, why, sizeof(why), &student_failed) < 0) {
		report_add(r, name, c->points, false, "%s%s", student_failed ? "" : "the lab's solution: ", why);
	} else if (rc == 0) {
		struct perf_verdict v;
		perf_evaluate(c, (double)work, &stu, &ref, &dev, &v);
		char *text = perf_describe(c, &stu, &ref, &dev, &v);
		char *vendor = c->vendor ? vendor_line(ctx, c, d, request, &stu, (double)work) : NULL;
		report_add(r, name, c->points, v.passed, "%s%s", text ? text : "", vendor ? vendor : "");
		free(text);
		free(vendor);
		r->kernel_ms = stu.kernel_ms; /* the class report's fastest/slowest kernels */
		r->solution_ms = ref.kernel_ms;
	}
	if (stu.kernels_counted && r->launches < 0) /* a GPU build: the emulator counted nothing */
		r->launches = stu.kernels;
	build_result_release(&sol);
	return rc;
}

static int grade_counted(const struct perf_context *ctx, const struct spec_check *c,
			 const struct spec_dataset *d, const char *name, struct report *r,
			 struct diag_list *diags)
{
	struct build_result sol = { 0 };
	char request[PATH_MAX], why[2048] = "";
	struct perf_model stu, ref;
	bool student_failed = false;
	uint64_t elements = 0;
	int64_t work = 0;
	spec_buffer_count(ctx->spec, &ctx->spec->outputs[0], d, &elements);
	if (c->elements && spec_dataset_eval(ctx->spec, d, c->elements, &work) == 0)
		elements = (uint64_t)work; /* issue 14: the check's own elements */
	int rc = build_solution(ctx, &sol, diags);
	/* the student's PTX by NVRTC, the solution's by nvcc (NVRTC would not take it):
	 * the student's counted by nvcc's PTX too, so that both count alike */
	struct build_result own = { 0 };
	const struct build_result *student = ctx->student;
	if (rc == 0 && student->nvrtc && !sol.nvrtc &&
	    build_lab(ctx->spec, ctx->student_source, ctx->backend, BUILD_PTX_NVCC, &own, diags) == 0)
		student = &own;
	if (rc == -ENOEXEC) {
		report_add(r, name, c->points, false, "the lab's solution does not compile, so there is nothing to compare with (a bug in the lab, not your code)");
		rc = 0;
	} else if (rc == 0 && perf_request(ctx, d, request, sizeof(request), why, sizeof(why)) < 0) {
		report_add(r, name, c->points, false, "could not prepare the inputs of dataset %s: %s", d->name, why);
	} else if (rc == 0 && count_both(ctx, student, &sol, request,
					 student == ctx->student && ctx->counted == d ? ctx->counted_result : NULL,
					 &stu, &ref, why, sizeof(why), &student_failed) < 0) {
		/* The lab's solution failed: a correct program does not lose points for the
		 * lab's bug. The student's own counted run failed or wrote no counters: nothing
		 * shows its speed, so no points (issue 14: no pass without a measurement). */
		report_add(r, name, c->points, !student_failed,
			   student_failed ? "not measured: the counted run of your program failed (%s): "
					    "fix that first (a program must run the same with the counters on)"
					  : "NOT MEASURED on the emulator: the counted run of the lab's solution failed (%s)",
			   why);
	} else if (rc == 0) {
		struct perf_model_verdict v;
		perf_model_evaluate(c, &stu, &ref, (double)elements, &v);
		char *text = perf_model_describe(c, &v, &stu, d->name);
		report_add(r, name, c->points, v.passed || (!v.judged && v.ran), "%s", text ? text : "");
		free(text);
	}
	build_result_release(&own);
	build_result_release(&sol);
	return rc;
}

int perf_grade(const struct perf_context *ctx, const struct spec_check *c, struct report *r,
	       struct diag_list *diags)
{
	const struct spec_dataset *d = find_dataset(ctx->spec, c->dataset);
	bool gpu = ctx->backend == BACKEND_GPU;
	if (!gpu && c->emu_dataset)
		d = find_dataset(ctx->spec, c->emu_dataset);
	char *name = test_name(find_dataset(ctx->spec, c->dataset));
	if (!name)
		return -ENOMEM;
	int rc = 0;
	char wrong[128];
	int correct = perf_dataset_correct(r, d, wrong, sizeof(wrong));
	char request[PATH_MAX];
	snprintf(request, sizeof(request), "%s/%s.in", ctx->tmp, d->name);
	if (subrun_stopped(ctx->runs, request))
		report_add(r, name, c->points, false, "not run: %s, and running it again would only repeat that (see the first failure above)",
			   subrun_stopped(ctx->runs, request));
	else if (correct < 0)
		report_add(r, name, 0, true, "NOT MEASURED in a quick run (dataset %s was skipped); grade fully to measure speed", d->name);
	else if (!correct)
		report_add(r, name, c->points, false, "not measured: the program failed the correctness test of dataset %s; speed counts only for correct results computed by kernels", wrong);
	else if (gpu)
		rc = grade_timed(ctx, c, d, name, r, diags);
	else
		rc = grade_counted(ctx, c, d, name, r, diags);
	free(name);
	return rc;
}
