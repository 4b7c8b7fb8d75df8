/* perf_probe: times one lab program on one dataset on this GPU, the way a performance
 * check does (grader/perf.h), without the CPU reference: for bench/gpu_bench.sh, which
 * needs sizes (a 4096^3 matmul) whose CPU reference would take minutes.
 *
 * usage: perf_probe LAB_DIR SOURCE.cu [--dataset NAME] [--set PARAM=VALUE]...
 *                   [--all-params VALUE] [--bytes EXPR | --flops EXPR]
 *        perf_probe LAB_DIR --vendor [the same options]
 * --check N picks the lab's performance check N (from 0; default 0).
 * Defaults: the dataset and bytes/flops of the lab's first performance check (else its
 * last perf dataset, and time only). --vendor times that check's vendor program
 * (labs/README.md, "The vendor line") instead, with its own work where it has one. Prints one tab-separated line:
 *   values  kind  work  kernel_ms  rate  peak  fraction  reps  rel_err  source  transfer_ms
 * Exit 0, 1 when the program failed, 2 on a usage or configuration error. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "datagen.h"
#include "devinfo.h"
#include "fsutil.h"
#include "harness/pl_io.h"
#include "perf.h"
#include "runner.h"
#include "spec.h"

struct probe {
	const char *lab, *source, *dataset, *bytes, *flops;
	int vendor;
	unsigned check; /* --check N: the lab's performance check N (from 0) */
	const char *sets[16];
	unsigned n_sets;
	long long all_params;
	int have_all;
};

static int usage(void)
{
	fprintf(stderr, "usage: perf_probe LAB_DIR (SOURCE.cu | --vendor) [--check N] [--dataset NAME] [--set PARAM=VALUE]... [--all-params VALUE] [--bytes EXPR | --flops EXPR]\n");
	return 2;
}

static int parse(int argc, char **argv, struct probe *p)
{
	if (argc < 3)
		return -1;
	p->lab = argv[1];
	p->source = argv[2];
	p->vendor = strcmp(argv[2], "--vendor") == 0;
	for (int i = 3; i < argc; i += 2) { /* --name value pairs */
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return -1;
		if (strcmp(a, "--dataset") == 0)
			p->dataset = v;
		else if (strcmp(a, "--set") == 0 && p->n_sets < 16)
			p->sets[p->n_sets++] = v;
		else if (strcmp(a, "--all-params") == 0)
			p->all_params = atoll(v), p->have_all = 1;
		else if (strcmp(a, "--bytes") == 0)
			p->bytes = v;
		else if (strcmp(a, "--flops") == 0)
			p->flops = v;
		else if (strcmp(a, "--check") == 0)
			p->check = (unsigned)atoi(v);
		else
			return -1;
	}
	return 0;
}

/* The lab's performance check number WHICH (0: the first). */
static const struct spec_check *perf_check(const struct lab_spec *s, unsigned which)
{
	for (unsigned i = 0; i < s->checks_count; i++)
		if (s->checks[i].kind == SPEC_CHECK_PERFORMANCE && which-- == 0)
			return &s->checks[i];
	return NULL;
}

static struct spec_dataset *pick_dataset(struct lab_spec *s, const struct probe *p,
					 const struct spec_check *c)
{
	const char *name = p->dataset ? p->dataset : c ? c->dataset : NULL;
	struct spec_dataset *last_perf = NULL;
	for (unsigned i = 0; i < s->datasets_count; i++) {
		if (name && strcmp(s->datasets[i].name, name) == 0)
			return &s->datasets[i];
		if (s->datasets[i].perf)
			last_perf = &s->datasets[i];
	}
	return name ? NULL : last_perf ? last_perf : &s->datasets[s->datasets_count - 1];
}

/* Applies --all-params and --set to the dataset's values. */
static int override(struct spec_dataset *d, const struct probe *p)
{
	for (unsigned i = 0; p->have_all && i < d->n_vals; i++)
		d->vals[i].value = p->all_params;
	for (unsigned k = 0; k < p->n_sets; k++) {
		char name[64];
		long long v;
		if (sscanf(p->sets[k], "%63[^=]=%lld", name, &v) != 2)
			return -EINVAL;
		unsigned i = 0;
		while (i < d->n_vals && strcmp(d->vals[i].name, name) != 0)
			i++;
		if (i == d->n_vals)
			return -ENOENT;
		d->vals[i].value = v;
	}
	return 0;
}

static int run_timed(const char *program, const char *request, const char *result)
{
	const char *opts = getenv("PMPPLAB_PERF_TIMING");
	char timing[256];
	snprintf(timing, sizeof(timing), "PMPPLAB_TIMING=%s", opts && *opts ? opts : "cap_ms=2000,rel=0.01,min=5,max=500");
	char *env[] = { timing, NULL };
	const char *argv[] = { program, request, result, NULL };
	struct runner_opts o = { .argv = (char *const *)argv, .env = env, .timeout_ms = 600 * 1000,
				 .output_cap = 16 * 1024 };
	struct runner_result res;
	if (runner_run(&o, &res) < 0)
		return -1;
	int ok = res.status == RUNNER_EXITED && res.exit_code == 0;
	if (!ok)
		fprintf(stderr, "perf_probe: the program failed:\n%s%s\n", res.out ? res.out : "", res.err ? res.err : "");
	runner_result_release(&res);
	return ok ? 0 : -1;
}

/* One timed run with the GPU to itself (perf_gpu_lock: graders on this machine wait). */
static int timed_locked(const char *program, const char *request, const char *result)
{
	int lock = perf_gpu_lock();
	int rc = run_timed(program, request, result);
	perf_gpu_unlock(lock);
	return rc;
}

static void print_line(const struct spec_dataset *d, const char *kind, double work,
		       const struct pl_file *out)
{
	struct perf_measure m = { 0 };
	struct devinfo dev;
	perf_measure_add(&m, out);
	devinfo_from_result(out, &dev);
	double peak = strcmp(kind, "flops") == 0 ? devinfo_peak_flops(&dev)
		      : strcmp(kind, "bandwidth") == 0 ? devinfo_peak_bandwidth(&dev) : 0;
	double rate = work > 0 && m.kernel_ms > 0 ? work / (m.kernel_ms * 1e-3) : 0;
	for (unsigned i = 0; i < d->n_vals; i++)
		printf("%s%s=%lld", i ? "," : "", d->vals[i].name, (long long)d->vals[i].value);
	printf("\t%s\t%.0f\t%.5f\t%.4e\t%.4e\t%.4f\t%u\t%.4f\t%s\t%.3f\n", kind, work, m.kernel_ms,
	       rate, peak, peak > 0 ? rate / peak : 0, m.reps, m.rel_err,
	       m.source == 1 ? "cupti" : m.source == 2 ? "events" : "none", m.transfer_ms);
}

int main(int argc, char **argv)
{
	struct probe p = { 0 };
	if (parse(argc, argv, &p) < 0)
		return usage();
	struct diag_list diags;
	diag_list_init(&diags);
	struct lab_spec *s;
	if (spec_load(p.lab, &s, &diags) < 0) {
		diag_print(stderr, &diags);
		return 2;
	}
	const struct spec_check *c = perf_check(s, p.check);
	struct spec_dataset *d = pick_dataset(s, &p, c);
	if (!d || override(d, &p) < 0) {
		fprintf(stderr, "perf_probe: no such dataset or param\n");
		return 2;
	}
	const struct spec_vendor *v = c ? c->vendor : NULL;
	if (p.vendor && !v) {
		fprintf(stderr, "perf_probe: the lab's performance check names no vendor\n");
		return 2;
	}
	if (p.vendor && !p.flops && !p.bytes) {
		p.flops = v->flops;
		p.bytes = v->bytes;
	}
	const char *kind = p.flops ? "flops" : p.bytes ? "bandwidth" : "time";
	const char *expr = p.flops ? p.flops : p.bytes;
	if (!expr && c && c->metric != SPEC_PERF_TIME) {
		kind = c->metric == SPEC_PERF_FLOPS ? "flops" : "bandwidth";
		expr = c->metric == SPEC_PERF_FLOPS ? c->flops : c->bytes;
	}
	int64_t work = 0;
	if (expr && spec_dataset_eval(s, d, expr, &work) < 0) {
		fprintf(stderr, "perf_probe: cannot evaluate '%s'\n", expr);
		return 2;
	}
	struct build_result b;
	struct lab_spec view;
	char *vfile = p.vendor ? spec_path(s, v->file) : NULL;
	if (p.vendor && (!vfile || spec_vendor_view(s, v, &view) < 0))
		return 2;
	int rc = build_lab(p.vendor ? &view : s, p.vendor ? vfile : p.source, BACKEND_GPU, BUILD_PTX_NVCC, &b, &diags);
	if (p.vendor)
		spec_vendor_view_release(&view);
	free(vfile);
	if (rc < 0) {
		diag_print(stderr, &b.diags);
		diag_print(stderr, &diags);
		return rc == -ENOEXEC ? 1 : 2;
	}
	char tmp[] = "/tmp/perf-probe-XXXXXX", request[64], result[64];
	struct pl_file req = { 0 }, out;
	char err[256];
	if (!mkdtemp(tmp))
		return 2;
	snprintf(request, sizeof(request), "%s/in", tmp);
	snprintf(result, sizeof(result), "%s/out", tmp);
	rc = 1;
	if (datagen_request(s, d, 12345, &req) == 0 && pl_write(&req, request, err, sizeof(err)) == 0 &&
	    timed_locked(b.program, request, result) == 0 && pl_read(&out, result, err, sizeof(err)) == 0) {
		print_line(d, kind, (double)work, &out);
		pl_release(&out);
		rc = 0;
	}
	pl_release(&req);
	fs_remove_tree(tmp);
	build_result_release(&b);
	spec_free(s);
	diag_list_release(&diags);
	return rc;
}
