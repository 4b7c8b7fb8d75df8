/* mutate: equivalence proofs (mutate.h). A survivor is equivalent when, on every dataset
 * the emulator grades and under two seeds, its outputs are the solution's bit for bit
 * and so are the memory counters of pl_counters (requests, sectors, bytes, bank passes,
 * leaked bytes, the access fingerprint with its barrier phases). Both programs run with one
 * emulator thread, so the counters and the order of floating-point atomics repeat. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datagen.h"
#include "diag.h"
#include "harness/pl_io.h"
#include "mutate_internal.h"
#include "runner.h"

#define EQ_SEEDS 2

/* Runs PROGRAM (an emulator build with PTX) on REQUEST into RESULT. 0 when it exited 0. */
static int eq_run(const struct mutate_run *m, const struct build_result *b, const char *request,
		  const char *result, char *why, size_t len)
{
	char ptx[PATH_MAX + 32], events[PATH_MAX + 32];
	snprintf(ptx, sizeof(ptx), "PMPPLAB_EMU_PTX=%s", b->ptx);
	snprintf(events, sizeof(events), "PMPPLAB_EVENTS=%s.events", result);
	char *env[] = { ptx, events, "PMPPLAB_COUNTERS=2", "PMPPLAB_EMU_THREADS=1",
			"PMPPLAB_EMU_RACECHECK=0", "PMPPLAB_TRACE=", NULL };
	const char *argv[] = { b->program, request, result, NULL };
	unsigned timeout = 4 * 1000u * (m->spec->timeout ? m->spec->timeout : 10);
	struct runner_opts o = { .argv = (char *const *)argv, .env = env, .cwd = m->work,
				 .timeout_ms = timeout, .output_cap = 16 * 1024 };
	struct runner_result res;
	unlink(result);
	if (runner_run(&o, &res) < 0) {
		snprintf(why, len, "could not start %s", b->program);
		return -1;
	}
	int rc = res.status == RUNNER_EXITED && res.exit_code == 0 ? 0 : -1;
	if (rc < 0) {
		char how[128];
		runner_describe(&res, timeout, how, sizeof(how));
		snprintf(why, len, "its single-threaded run %s", how);
	}
	runner_result_release(&res);
	return rc;
}

/* Adds a run of dataset D under SEED, with value K (if any) moved by DELTA. */
static struct mutate_eq_run *add_variant(struct mutate_run *m, const struct spec_dataset *d,
					 uint64_t seed, int k, int delta)
{
	struct mutate_eq_run *e = &m->eq[m->n_eq];
	e->d = *d;
	e->d.vals = calloc(d->n_vals ? d->n_vals : 1, sizeof(*d->vals));
	if (!e->d.vals)
		return NULL;
	memcpy(e->d.vals, d->vals, d->n_vals * sizeof(*d->vals));
	e->seed = seed;
	if (k >= 0) {
		e->d.vals[k].value += delta;
		snprintf(e->what, sizeof(e->what), "%s with %s = %lld", d->name, d->vals[k].name,
			 (long long)e->d.vals[k].value);
	} else {
		snprintf(e->what, sizeof(e->what), "%s (seed %llu)", d->name, (unsigned long long)seed);
	}
	snprintf(e->request, sizeof(e->request), "%s/eq-%u.in", m->work, m->n_eq);
	snprintf(e->result, sizeof(e->result), "%s/eq-%u.solution", m->work, m->n_eq);
	m->n_eq++;
	return e;
}

/* Runs the solution on E; a variant it fails on is dropped (its values are outside
 * what the lab allows), a dataset it fails on is the lab's bug. */
static int solution_run(struct mutate_run *m, const struct build_result *sol, struct mutate_eq_run *e,
			bool variant, FILE *out)
{
	char err[256] = "";
	if (datagen_request_file(m->spec, &e->d, e->seed, e->request, err, sizeof(err)) == 0 &&
	    eq_run(m, sol, e->request, e->result, err, sizeof(err)) == 0)
		return 0;
	if (!variant)
		fprintf(out, "lab mutate: the solution's run on dataset %s failed: %s\n", e->what, err);
	unlink(e->request); /* the next variant takes this one's place and file names */
	unlink(e->result);
	free(e->d.vals);
	m->n_eq--;
	return variant ? 0 : -1;
}

int mutate_equiv_prepare(struct mutate_run *m, FILE *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < m->spec->datasets_count; i++)
		n += m->spec->datasets[i].perf ? 0 : EQ_SEEDS + 2 * m->spec->datasets[i].n_vals;
	m->eq = calloc(n + 1, sizeof(*m->eq));
	if (!m->eq)
		return -1;
	struct build_result sol;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = build_lab(m->spec, m->sol_path, BACKEND_EMU, BUILD_PTX_NVCC, &sol, &diags);
	diag_print(out, &diags);
	diag_list_release(&diags);
	for (unsigned i = 0; rc == 0 && i < m->spec->datasets_count; i++) {
		const struct spec_dataset *d = &m->spec->datasets[i];
		for (int k = -1; !d->perf && k < (int)d->n_vals && rc == 0; k++) {
			for (int v = 0; v < (k < 0 ? EQ_SEEDS : 2) && rc == 0; v++) {
				int delta = v ? -1 : 1;
				if (k >= 0 && d->vals[k].value + delta < 0)
					continue;
				uint64_t seed = m->seed + (k < 0 ? (uint64_t)v * 0x9e3779b97f4a7c15ull : 0);
				struct mutate_eq_run *e = add_variant(m, d, seed, k, delta);
				rc = e ? solution_run(m, &sol, e, k >= 0, out) : -1;
			}
		}
	}
	build_result_release(&sol);
	return rc < 0 ? -1 : 0;
}

void mutate_equiv_release(struct mutate_run *m)
{
	for (unsigned i = 0; m->eq && i < m->n_eq; i++)
		free(m->eq[i].d.vals);
	free(m->eq);
	m->eq = NULL;
	m->n_eq = 0;
}

/* The counters of memory behaviour: every emu_* metric but the instruction counts and
 * the barrier arrivals (an idle thread or block more or less, a loop written another
 * way, do not change what a program does with memory; a barrier that does, changes the
 * phases in the access fingerprint). */
static bool is_counter(const struct pl_item *it)
{
	static const char *const not_memory[] = { "emu_warp_insns", "emu_thread_insns", "emu_barriers" };
	if (it->kind != PL_METRIC || strncmp(it->name, "emu_", 4) != 0)
		return false;
	for (size_t i = 0; i < sizeof(not_memory) / sizeof(*not_memory); i++)
		if (strcmp(it->name, not_memory[i]) == 0)
			return false;
	return true;
}

/* The first difference between two results, in WHY: outputs first (a wrong output
 * says most), then the counters. True when there is none. */
static bool same_result(const struct pl_file *sol, const struct pl_file *mut, char *why, size_t len)
{
	for (int pass = 0; pass < 4; pass++) {
		const struct pl_file *x = pass % 2 ? mut : sol, *y = pass % 2 ? sol : mut;
		bool outputs = pass < 2;
		for (uint32_t i = 0; i < x->n; i++) {
			const struct pl_item *it = &x->items[i];
			if (outputs ? it->kind != PL_OUTPUT : !is_counter(it))
				continue;
			const struct pl_item *o = pl_find(y, it->kind, it->name);
			if (!o) {
				snprintf(why, len, "%s is missing from one run", it->name);
				return false;
			}
			if (!outputs && it->dval != o->dval) {
				snprintf(why, len, "memory behaviour differs: %s %.17g, the solution's %.17g",
					 it->name, pass % 2 ? it->dval : o->dval, pass % 2 ? o->dval : it->dval);
				return false;
			}
			if (outputs && (!pl_same_shape(it, o) ||
					memcmp(it->data, o->data, it->count * pl_dtype_size(it->dtype)) != 0)) {
				snprintf(why, len, "output %s differs", it->name);
				return false;
			}
		}
	}
	return true;
}

bool mutate_equivalent(const struct mutate_run *m, const char *path, char *why, size_t len)
{
	struct build_result b;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = build_lab(m->spec, path, BACKEND_EMU, BUILD_PTX_NVCC, &b, &diags);
	diag_list_release(&diags);
	bool same = rc == 0;
	if (!same)
		snprintf(why, len, "not proven equivalent: it did not build again");
	for (unsigned i = 0; same && i < m->n_eq; i++) {
		const struct mutate_eq_run *e = &m->eq[i];
		char result[PATH_MAX + 16], diff[256] = "", err[256];
		snprintf(result, sizeof(result), "%s.%d", e->result, (int)getpid());
		struct pl_file a = { 0 }, s = { 0 };
		if (eq_run(m, &b, e->request, result, diff, sizeof(diff)) < 0 ||
		    pl_read(&a, result, err, sizeof(err)) < 0 || pl_read(&s, e->result, err, sizeof(err)) < 0 ||
		    !same_result(&s, &a, diff, sizeof(diff))) {
			snprintf(why, len, "not equivalent: on dataset %s %s", e->what,
				 diff[0] ? diff : "a result could not be read");
			same = false;
		}
		pl_release(&a);
		pl_release(&s);
		unlink(result);
	}
	if (same)
		snprintf(why, len, "same outputs and memory behaviour as the solution on %u runs (each "
			 "dataset under %d seeds, and with each parameter one more and one less)",
			 m->n_eq, EQ_SEEDS);
	build_result_release(&b);
	return same;
}
