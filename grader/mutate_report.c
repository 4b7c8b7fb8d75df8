/* mutate: the report (mutate.h): the summary, a table per operator, which checks killed
 * what, the mutants that a check names but only another test caught, and every survivor
 * with a unified diff against the solution. */
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "mutate_internal.h"

struct tally {
	size_t gen, stillborn, equivalent, judged, killed, survived, errors;
};

static void count(struct tally *t, const struct mutate_result *r)
{
	t->gen++;
	t->stillborn += r->outcome == MO_STILLBORN;
	t->equivalent += r->outcome == MO_EQUIVALENT;
	t->judged += r->outcome == MO_JUDGED;
	t->killed += r->outcome == MO_KILLED;
	t->survived += r->outcome == MO_SURVIVED;
	t->errors += r->outcome == MO_ERROR;
}

/* killed / (generated - stillborn - equivalent), in percent, the judged counted as
 * equivalent; -1 when nothing counts. */
static double rate(const struct tally *t)
{
	size_t den = t->gen - t->stillborn - t->equivalent - t->judged;
	return den ? 100.0 * (double)t->killed / (double)den : -1;
}

static void row(FILE *out, const char *name, const struct tally *t)
{
	double r = rate(t);
	char eq[32];
	snprintf(eq, sizeof(eq), t->judged ? "%zu+%zu" : "%zu", t->equivalent, t->judged);
	fprintf(out, "  %-12s %9zu %9zu %10s %7zu %8zu", name, t->gen, t->stillborn, eq, t->killed,
		t->survived);
	if (r < 0)
		fprintf(out, "        -\n");
	else
		fprintf(out, "   %5.1f%%\n", r);
}

/* Splits TEXT into lines (pointers into it; the newlines become NULs). */
static size_t split_lines(char *text, char ***lines)
{
	size_t n = 1;
	for (char *p = text; *p; p++)
		n += *p == '\n';
	*lines = calloc(n + 1, sizeof(**lines));
	if (!*lines)
		return 0;
	size_t k = 0;
	for (char *p = text; p;) {
		(*lines)[k++] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	if (k && !*(*lines)[k - 1])
		k--; /* the empty piece after the last newline */
	return k;
}

/* A unified diff of B against A, with 3 lines of context. Mutants keep the solution's
 * lines, so lines pair up and each hunk holds the changed lines near each other; when
 * the counts differ, one hunk spans everything between the common head and tail. */
static void unified_diff(FILE *out, const char *name_a, char *a, const char *name_b, char *b)
{
	char **la, **lb;
	size_t na = split_lines(a, &la), nb = split_lines(b, &lb);
	fprintf(out, "    --- %s\n    +++ %s\n", name_a, name_b);
	if (na != nb) {
		size_t pre = 0, suf = 0;
		while (pre < na && pre < nb && strcmp(la[pre], lb[pre]) == 0)
			pre++;
		while (suf < na - pre && suf < nb - pre && strcmp(la[na - 1 - suf], lb[nb - 1 - suf]) == 0)
			suf++;
		size_t s = pre > 3 ? pre - 3 : 0, ctx = suf < 3 ? suf : 3;
		fprintf(out, "    @@ -%zu,%zu +%zu,%zu @@\n", s + 1, na - suf + ctx - s, s + 1, nb - suf + ctx - s);
		for (size_t k = s; k < pre; k++)
			fprintf(out, "     %s\n", la[k]);
		for (size_t k = pre; k < na - suf; k++)
			fprintf(out, "    -%s\n", la[k]);
		for (size_t k = pre; k < nb - suf; k++)
			fprintf(out, "    +%s\n", lb[k]);
		for (size_t k = na - suf; k < na - suf + ctx; k++)
			fprintf(out, "     %s\n", la[k]);
	}
	for (size_t i = 0; na == nb && i < na; i++) {
		if (strcmp(la[i], lb[i]) == 0)
			continue;
		size_t last = i; /* the hunk's last changed line: the next is at most 6 away */
		for (size_t k = i + 1; k < na && k <= last + 6; k++)
			if (strcmp(la[k], lb[k]) != 0)
				last = k;
		size_t s = i > 3 ? i - 3 : 0, e = last + 4 < na ? last + 4 : na;
		fprintf(out, "    @@ -%zu,%zu +%zu,%zu @@\n", s + 1, e - s, s + 1, e - s);
		for (size_t k = s; k < e; k++)
			if (strcmp(la[k], lb[k]) == 0)
				fprintf(out, "     %s\n", la[k]);
			else
				fprintf(out, "    -%s\n    +%s\n", la[k], lb[k]);
		i = e - 1;
	}
	free(la);
	free(lb);
}

static void show_diff(const struct mutate_run *m, size_t id, FILE *out)
{
	char *a = malloc(m->len + 1), name[32];
	size_t len;
	char *b = mutops_apply(m->src, m->len, &m->muts.m[id], &len);
	if (a && b) {
		memcpy(a, m->src, m->len + 1);
		snprintf(name, sizeof(name), "m%03zu.cu", id);
		unified_diff(out, fs_base_name(m->sol_path), a, name, b);
	}
	free(a);
	free(b);
}

static void by_operator(const struct mutate_run *m, FILE *out)
{
	fprintf(out, "\n  %-12s %9s %9s %10s %7s %8s %9s\n", "operator", "generated", "stillborn",
		"equivalent", "killed", "survived", "kill rate");
	for (unsigned op = 0; op < MUTOP_COUNT; op++) {
		struct tally t = { 0 };
		for (size_t k = 0; k < m->n; k++)
			if (m->muts.m[m->pick[k]].op == op)
				count(&t, &m->res[k]);
		if (t.gen)
			row(out, mutops_name(op), &t);
	}
}

/* Which tests killed what; then the mutants whose mistake a check names but that only
 * other tests caught. */
static void by_check(const struct mutate_run *m, FILE *out)
{
	static const char *const names[MK_COUNT] = { "correctness", "memcheck", "barriers", "performance", "other" };
	size_t by[MK_COUNT] = { 0 }, only_wrong = 0;
	for (size_t k = 0; k < m->n; k++) {
		const struct mutate_result *r = &m->res[k];
		if (r->outcome != MO_KILLED)
			continue;
		for (unsigned c = 0; c < MK_COUNT; c++)
			by[c] += r->killed_by >> c & 1;
		only_wrong += r->killed_by == 1u << MK_CORRECTNESS;
	}
	fprintf(out, "\n  killed by:");
	for (unsigned c = 0; c < MK_COUNT; c++)
		if (by[c])
			fprintf(out, " %s %zu,", names[c], by[c]);
	fprintf(out, " only a wrong output (or a failed run) %zu\n", only_wrong);
	size_t named = 0, named_ok = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < m->n; k++) {
			const struct mutant *mu = &m->muts.m[m->pick[k]];
			const struct mutate_result *r = &m->res[k];
			enum mutate_kill want = mu->names == MUTOPS_NAMES_BARRIERS ? MK_BARRIERS :
						r->oob ? MK_MEMCHECK : MK_COUNT;
			if (want == MK_COUNT || r->outcome != MO_KILLED)
				continue;
			bool ok = r->killed_by >> want & 1;
			if (pass == 0) {
				named++;
				named_ok += ok;
			} else if (!ok) {
				fprintf(out, "    m%03zu %-6s l.%-4u %s: not caught by %s (%s)\n", m->pick[k],
					mutops_name(mu->op), mu->line, mu->what, names[want], r->why);
			}
		}
		if (pass == 0)
			fprintf(out, "  named check: %zu of %zu killed mutants whose mistake a check names (a barrier moved or deleted: barriers; an access out of bounds: memcheck) were caught by it%s\n",
				named_ok, named, named_ok < named ? "; the others:" : "");
	}
}

static void list_outcome(const struct mutate_run *m, enum mutate_outcome o, bool diff, FILE *out)
{
	for (size_t k = 0; k < m->n; k++) {
		const struct mutant *mu = &m->muts.m[m->pick[k]];
		if (m->res[k].outcome != o)
			continue;
		fprintf(out, "  m%03zu %-6s l.%-4u %s\n    %s\n", m->pick[k], mutops_name(mu->op), mu->line,
			mu->what, m->res[k].why);
		if (diff)
			show_diff(m, m->pick[k], out);
	}
}

int mutate_report(const struct mutate_run *m, const struct mutate_opts *o, double seconds, FILE *out)
{
	struct tally t = { 0 };
	for (size_t k = 0; k < m->n; k++)
		count(&t, &m->res[k]);
	by_operator(m, out);
	row(out, "all", &t);
	by_check(m, out);
	if (t.survived) {
		fprintf(out, "\nsurvivors (no test failed; not proven equivalent):\n");
		list_outcome(m, MO_SURVIVED, true, out);
	}
	if (t.equivalent) {
		fprintf(out, "\nequivalent (proven: %s):\n", "same outputs bit for bit and same memory behaviour");
		list_outcome(m, MO_EQUIVALENT, true, out);
	}
	if (t.judged) {
		fprintf(out, "\nequivalent as judged by the lab's author (%s; counted as equivalent):\n", m->judged_path);
		list_outcome(m, MO_JUDGED, true, out);
	}
	for (size_t k = 0; k < m->n; k++) /* a judgement the tests refute */
		if (m->judged[m->pick[k]] && m->res[k].outcome == MO_KILLED)
			fprintf(out, "\n%s: m%03zu is judged equivalent, but a test killed it (%s): remove the judgement\n",
				m->judged_path, m->pick[k], m->res[k].why);
	if (t.errors) {
		fprintf(out, "\nERROR, not graded (the kill rate counts them as survivors):\n");
		list_outcome(m, MO_ERROR, false, out);
	}
	double r = rate(&t);
	fprintf(out, "\nmutate: %s generated %zu stillborn %zu equivalent %zu judged %zu killed %zu survived %zu errors %zu kill-rate %.1f%% (%.0f s)\n",
		m->spec->id, t.gen, t.stillborn, t.equivalent, t.judged, t.killed, t.survived, t.errors,
		r < 0 ? 100.0 : r, seconds);
	if (t.errors)
		fprintf(out, "lab mutate: %zu mutant%s could not be graded (ERROR above, not the mutant's doing): the kill rate is a lower bound; run again once the cause is gone\n",
			t.errors, t.errors == 1 ? "" : "s");
	if (r >= 0 && r < o->min_rate)
		fprintf(out, "lab mutate: the kill rate is below %.0f%%: the survivors above are mistakes the lab's datasets and checks miss\n",
			o->min_rate);
	return r >= 0 && r < o->min_rate ? 1 : 0;
}
