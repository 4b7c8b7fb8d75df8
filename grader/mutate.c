/* mutate: see mutate.h. The parent generates the mutants, grades the solution (which
 * must pass), runs it for the equivalence proofs, then forks one worker per mutant, at
 * most `jobs` at a time; a worker grades its mutant with grade_lab, proves or refutes
 * equivalence when it survived (mutate_equiv.c), and leaves a fixed-size record in the
 * work folder for the parent, which prints a line per mutant and the report. */
#include "mutate.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clex.h"
#include "datagen.h"
#include "fsutil.h"
#include "grade.h"
#include "mutate_internal.h"
#include "paths.h"
#include "spec.h"

static const char *const kill_names[MK_COUNT] = { "correctness", "memcheck", "barriers",
						  "performance", "other" };

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- what a report says -------------------------------------------------------- */

static enum mutate_kill kill_kind(const char *name)
{
	for (unsigned k = 0; k < MK_OTHER; k++)
		if (strncmp(name, kill_names[k], strlen(kill_names[k])) == 0)
			return (enum mutate_kill)k;
	return MK_OTHER;
}

/* An access out of bounds, as the emulator and compute-sanitizer report it. */
static bool says_out_of_bounds(const char *text)
{
	return text && (strstr(text, "past the end") || strstr(text, "before the start") ||
			strstr(text, "out-of-bounds") || strstr(text, "out of bounds") ||
			strstr(text, "Invalid __global__") || strstr(text, "Invalid __shared__"));
}

static void first_line(char *dst, size_t cap, const char *name, const char *text)
{
	const char *t = text ? text : "";
	while (*t == ' ' || *t == '\n')
		t++;
	snprintf(dst, cap, "%s: %.*s", name, (int)strcspn(t, "\n"), t);
}

/* Whether a failed test found the mistake itself, rather than failing because the
 * output was wrong ("no invalid access seen ..., but its output is wrong", "not
 * measured: the program's results ... are wrong") or because it could not run. */
static bool own_failure(const char *output)
{
	const char *t = output ? output : "";
	while (*t == ' ' || *t == '\n')
		t++;
	return strncasecmp(t, "not ", 4) != 0 && strncmp(t, "no invalid access seen", 22) != 0;
}

/* The compiler's error about the mutant's code, when a failed build has one: an error
 * at a line (of the mutant, or of a header a template of it instantiates), or ptxas's
 * (which compiles nothing else of the mutant's than the solution compiled). NULL when
 * the build failed for a reason outside the mutant: the compiler stopped after its
 * time or killed, the runtime missing at link time, a file the build could not find
 * (the solution compiled: only the mutant's line differs). */
static const struct diag *mutant_compile_error(const struct report *rep)
{
	for (unsigned i = 0; i < rep->build.n; i++) {
		const struct diag *d = &rep->build.items[i];
		if (d->severity != DIAG_ERROR)
			continue;
		if (strncmp(d->message, "ptxas: ", 7) == 0)
			return d;
		if (d->file && d->line && !strstr(d->message, "No such file or directory") &&
		    !strstr(d->message, "cannot open source file"))
			return d;
	}
	return NULL;
}

void mutate_classify(const struct report *rep, struct mutate_result *r)
{
	r->outcome = MO_SURVIVED;
	for (unsigned i = 0; i < rep->n_tests; i++) {
		const struct report_test *t = &rep->tests[i];
		if (t->status != TEST_FAILED)
			continue;
		if (strcmp(t->name, "build") == 0) {
			/* stillborn leaves the kill rate: only for the mutant's own doing */
			const struct diag *d = mutant_compile_error(rep);
			const char *first = NULL;
			for (unsigned k = 0; k < rep->build.n && !first; k++)
				if (rep->build.items[k].severity == DIAG_ERROR)
					first = rep->build.items[k].message;
			r->outcome = d ? MO_STILLBORN : MO_ERROR;
			if (d) {
				first_line(r->why, sizeof(r->why), t->name, t->output);
				return;
			}
			/* the whole message, on one line: "the build failed:" alone says nothing */
			int n = snprintf(r->why, sizeof(r->why), "build failed, not at a line of the "
					 "mutant (not counted as stillborn): %s", first ? first : "");
			for (int k = 0; k < n && k < (int)sizeof(r->why); k++)
				if (r->why[k] == '\n' || r->why[k] == '\t')
					r->why[k] = ' ';
			return;
		}
		r->outcome = MO_KILLED;
		r->oob |= says_out_of_bounds(t->output);
		r->timed_out |= t->output && strstr(t->output, "timed out") != NULL;
		enum mutate_kill k = kill_kind(t->name);
		if (k != MK_CORRECTNESS && !own_failure(t->output))
			continue;
		if (!r->killed_by)
			first_line(r->why, sizeof(r->why), t->name, t->output);
		r->killed_by |= 1u << k;
	}
}

/* ---- one worker ---------------------------------------------------------------- */

static void worker(struct mutate_run *m, size_t k)
{
	const struct mutant *mu = &m->muts.m[m->pick[k]];
	struct mutate_result r = { .outcome = MO_ERROR };
	double t0 = now_s();
	char path[PATH_MAX], res[PATH_MAX];
	mutate_paths(m, m->pick[k], path, res);
	size_t len;
	char *text = mutops_apply(m->src, m->len, mu, &len);
	struct grade_opts go = { .backend = BACKEND_EMU, .submission = path, .seed = m->seed, .quick = true };
	struct report *rep = NULL;
	struct diag_list diags;
	diag_list_init(&diags);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	int made = paths_mkdirs(path);
	*slash = '/';
	if (!text || made < 0 || fs_write_atomic(path, text, len) < 0)
		snprintf(r.why, sizeof(r.why), "cannot write %s", path);
	else if (grade_lab(m->spec, &go, &rep, &diags) < 0)
		snprintf(r.why, sizeof(r.why), "could not grade: %s",
			 diags.n ? diags.items[0].message : "unknown error");
	else
		mutate_classify(rep, &r);
	if (r.outcome == MO_SURVIVED && mutate_equivalent(m, path, r.why, sizeof(r.why)))
		r.outcome = MO_EQUIVALENT;
	r.seconds = now_s() - t0;
	fs_write_atomic(res, &r, sizeof(r));
	report_free(rep);
	diag_list_release(&diags);
	free(text);
}

/* Each mutant alone in a folder of its own: a submission's build copies the source files
 * of its folder (incl.h, at most 256 of them), and hundreds of mutants side by side left
 * the one being graded out of the copy: "No such file", counted as stillborn. */
void mutate_paths(const struct mutate_run *m, size_t id, char *src, char *res)
{
	snprintf(src, PATH_MAX, "%s/m%03zu/m%03zu.cu", m->work, id, id);
	snprintf(res, PATH_MAX, "%s/m%03zu.result", m->work, id);
}

static void read_result(struct mutate_run *m, size_t k, int status)
{
	char path[PATH_MAX], res[PATH_MAX];
	mutate_paths(m, m->pick[k], path, res);
	size_t len = 0;
	char *data = fs_read(res, &len);
	struct mutate_result *r = &m->res[k];
	if (data && len == sizeof(*r)) {
		memcpy(r, data, sizeof(*r));
		const char *why = m->judged[m->pick[k]];
		if (r->outcome == MO_SURVIVED && why) {
			r->outcome = MO_JUDGED;
			snprintf(r->why, sizeof(r->why), "judged equivalent: %s", why);
		}
	} else {
		r->outcome = MO_ERROR;
		snprintf(r->why, sizeof(r->why), "the worker ended without a result (%s %d)",
			 WIFSIGNALED(status) ? "signal" : "status",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	free(data);
}

static const char *outcome_word(enum mutate_outcome o)
{
	static const char *const w[] = { "stillborn", "killed", "SURVIVED", "equivalent", "judged", "ERROR" };
	return o <= MO_ERROR ? w[o] : "?";
}

static void print_line(const struct mutate_run *m, size_t k, size_t done, FILE *out)
{
	const struct mutant *mu = &m->muts.m[m->pick[k]];
	const struct mutate_result *r = &m->res[k];
	char by[96] = "";
	for (unsigned c = 0, n = 0; c < MK_COUNT; c++)
		if (r->killed_by >> c & 1)
			n += (unsigned)snprintf(by + n, sizeof(by) - n, "%s%s", n ? ", " : " by ", kill_names[c]);
	fprintf(out, "  [%*zu/%zu] m%03zu %-6s l.%-4u %-10s%s  %s\n", (int)(m->n > 99 ? 3 : 2), done, m->n,
		m->pick[k], mutops_name(mu->op), mu->line, outcome_word(r->outcome), by, mu->what);
	fflush(out);
}

/* Forks a worker per mutant, at most JOBS at a time. */
static void run_pool(struct mutate_run *m, unsigned jobs, FILE *out)
{
	pid_t *pid = calloc(jobs, sizeof(*pid));
	size_t *slot = calloc(jobs, sizeof(*slot));
	size_t next = 0, done = 0;
	unsigned running = 0;
	while (pid && slot && done < m->n) {
		while (running < jobs && next < m->n) {
			unsigned s = 0;
			while (pid[s])
				s++;
			fflush(out);
			fflush(stderr);
			pid_t p = fork();
			if (p == 0) {
				worker(m, next);
				_exit(0);
			}
			if (p < 0) {
				m->res[next].outcome = MO_ERROR;
				snprintf(m->res[next].why, sizeof(m->res[next].why), "fork: %s", strerror(errno));
				print_line(m, next++, ++done, out);
				continue;
			}
			pid[s] = p;
			slot[s] = next++;
			running++;
		}
		int status;
		pid_t p = waitpid(-1, &status, 0);
		if (p < 0)
			break;
		for (unsigned s = 0; s < jobs; s++) {
			if (pid[s] != p)
				continue;
			pid[s] = 0;
			running--;
			read_result(m, slot[s], status);
			print_line(m, slot[s], ++done, out);
		}
	}
	free(pid);
	free(slot);
}

/* ---- preparing ----------------------------------------------------------------- */

/* Leaves out mutants whose text is the solution's or an earlier mutant's. */
static size_t dedup(struct mutate_run *m, size_t *keep)
{
	struct fs_hash h;
	char (*seen)[33] = calloc(m->muts.n + 1, sizeof(*seen));
	size_t n = 0, ns = 0;
	if (!seen)
		return 0;
	fs_hash_init(&h);
	fs_hash_add(&h, m->src, m->len);
	fs_hash_hex(&h, seen[ns++]);
	for (size_t i = 0; i < m->muts.n; i++) {
		size_t len;
		char *text = mutops_apply(m->src, m->len, &m->muts.m[i], &len);
		if (!text)
			continue;
		fs_hash_init(&h);
		fs_hash_add(&h, text, len);
		free(text);
		char hex[33];
		fs_hash_hex(&h, hex);
		bool dup = false;
		for (size_t k = 0; k < ns && !dup; k++)
			dup = strcmp(seen[k], hex) == 0;
		if (dup)
			continue;
		memcpy(seen[ns++], hex, 33);
		keep[n++] = i;
	}
	free(seen);
	return n;
}

static int prepare(struct mutate_run *m, const char *dir, const struct mutate_opts *o, FILE *out)
{
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = spec_load(dir, &m->spec, &diags);
	diag_print(out, &diags);
	diag_list_release(&diags);
	if (rc < 0)
		return -1;
	m->sol_path = spec_path(m->spec, m->spec->solution);
	m->src = m->sol_path ? fs_read(m->sol_path, &m->len) : NULL;
	if (!m->src) {
		fprintf(out, "%s: cannot read the solution: %s\n", m->sol_path ? m->sol_path : dir, strerror(errno));
		return -1;
	}
	struct clex lx;
	if (clex_lex(&lx, m->src, m->len) < 0 || mutops_generate(&lx, o->ops ? o->ops : MUTOPS_ALL, &m->muts) < 0) {
		fprintf(out, "out of memory\n");
		clex_release(&lx);
		return -1;
	}
	clex_release(&lx);
	size_t *all = calloc(m->muts.n + 1, sizeof(*all));
	m->pick = calloc(m->muts.n + 1, sizeof(*m->pick));
	if (!all || !m->pick) {
		free(all);
		return -1;
	}
	size_t unique = dedup(m, all);
	m->duplicates = m->muts.n - unique;
	m->n = o->limit && o->limit < unique ? o->limit : unique;
	for (size_t k = 0; k < m->n; k++) /* an even spread: every operator keeps its share */
		m->pick[k] = all[k * unique / m->n];
	free(all);
	m->res = calloc(m->n + 1, sizeof(*m->res));
	return m->res ? mutate_judged_load(m, out) : -1;
}

/* Writes every picked mutant into DIR as mNNN.cu (made if missing), for instructors to
 * read or grade one by one. Returns 0 or -1 (printed). */
static int keep_mutants(const struct mutate_run *m, const char *dir, FILE *out)
{
	if (paths_mkdirs(dir) < 0) {
		fprintf(out, "%s: cannot make the folder: %s\n", dir, strerror(errno));
		return -1;
	}
	for (size_t k = 0; k < m->n; k++) {
		char path[PATH_MAX];
		size_t len;
		snprintf(path, sizeof(path), "%s/m%03zu.cu", dir, m->pick[k]);
		char *text = mutops_apply(m->src, m->len, &m->muts.m[m->pick[k]], &len);
		int rc = text ? fs_write_atomic(path, text, len) : -ENOMEM;
		free(text);
		if (rc < 0) {
			fprintf(out, "%s: cannot write: %s\n", path, strerror(-rc));
			return -1;
		}
	}
	fprintf(out, "  the mutants' sources are in %s\n", dir);
	return 0;
}

static void list_mutants(const struct mutate_run *m, FILE *out)
{
	for (size_t k = 0; k < m->n; k++) {
		const struct mutant *mu = &m->muts.m[m->pick[k]];
		fprintf(out, "  m%03zu %-6s l.%-4u %s\n", m->pick[k], mutops_name(mu->op), mu->line, mu->what);
	}
}

/* Grades the solution: it must pass. Sets the mutants' time limit from its time. */
static int check_solution(struct mutate_run *m, const struct mutate_opts *o, FILE *out)
{
	struct grade_opts go = { .backend = BACKEND_EMU, .submission = m->sol_path, .seed = m->seed, .quick = true };
	struct report *rep = NULL;
	struct diag_list diags;
	diag_list_init(&diags);
	double t0 = now_s();
	int rc = grade_lab(m->spec, &go, &rep, &diags);
	double t = now_s() - t0;
	diag_print(out, &diags);
	diag_list_release(&diags);
	if (rc < 0)
		return -1;
	bool ok = report_passed(rep);
	fprintf(out, "  solution: %s (%g/%g) in %.1f s\n", ok ? "passes" : "FAILS", report_score(rep),
		report_max_score(rep), t);
	if (!ok) {
		report_write_text(out, rep, false);
		fprintf(out, "lab mutate: the solution must pass before its mutants mean anything; fix the lab first (pmpplab lab check %s)\n",
			m->spec->dir);
	}
	report_free(rep);
	unsigned limit = m->spec->timeout ? m->spec->timeout : 10;
	/* a worker shares the machine with the others: room for that, but a mutant that
	 * loops forever must not cost the lab's full limit on every run */
	unsigned derived = (unsigned)ceil(t) + 3;
	m->spec->timeout = o->timeout ? o->timeout : derived < limit ? derived : limit;
	return ok ? 0 : -1;
}

int mutate_lab(const char *dir, const struct mutate_opts *o, FILE *out)
{
	struct mutate_run m = { .seed = o->seed ? o->seed : datagen_fresh_seed() };
	int ret = 2;
	if (prepare(&m, dir, o, out) < 0)
		goto out;
	fprintf(out, "lab mutate %s (backend emu, seed %llu)\n", m.spec->id, (unsigned long long)m.seed);
	fprintf(out, "  %zu mutants of %s%s", m.n, fs_base_name(m.sol_path),
		m.duplicates ? "" : "\n");
	if (m.duplicates)
		fprintf(out, " (%zu more repeated another's text and were left out)\n", m.duplicates);
	if (o->keep && keep_mutants(&m, o->keep, out) < 0)
		goto out;
	if (o->list) {
		list_mutants(&m, out);
		ret = 0;
		goto out;
	}
	snprintf(m.work, sizeof(m.work), "/tmp/pmpplab-mutate-XXXXXX");
	if (!mkdtemp(m.work)) {
		fprintf(out, "cannot make a work folder in /tmp: %s\n", strerror(errno));
		m.work[0] = '\0';
		goto out;
	}
	if (check_solution(&m, o, out) < 0 || mutate_equiv_prepare(&m, out) < 0)
		goto out;
	unsigned jobs = o->jobs ? o->jobs : 1;
	fprintf(out, "  grading on %u worker%s, %u s per run\n", jobs, jobs > 1 ? "s" : "", m.spec->timeout);
	double t0 = now_s();
	run_pool(&m, jobs, out);
	ret = mutate_report(&m, o, now_s() - t0, out);
out:
	if (m.work[0])
		fs_remove_tree(m.work);
	mutate_equiv_release(&m);
	mutate_judged_release(&m);
	mutant_list_release(&m.muts);
	free(m.pick);
	free(m.res);
	free(m.src);
	free(m.sol_path);
	spec_free(m.spec);
	return ret;
}
