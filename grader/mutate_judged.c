/* mutate: the lab author's judgements of equivalence (mutate_internal.h). Some mutants
 * change what a program does without changing what it computes, for every input: a
 * phase that only adds zeros, a block that loads and discards. No measurement proves
 * it, so the author says so, with a reason, and the report lists them apart. A
 * judgement names the mutant by its operator and its line as the mutant has it, not by
 * a number or a line number, so it survives edits elsewhere in the solution. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "mutate_internal.h"

/* Trims spaces at both ends of [*s, *s + *n). */
static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t'))
		(*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

static bool same(const char *a, size_t na, const char *b, size_t nb)
{
	trim(&a, &na);
	trim(&b, &nb);
	return na == nb && memcmp(a, b, na) == 0;
}

/* Line LINE (1-based) of TEXT, without its newline. */
static const char *line_of(const char *text, unsigned line, size_t *len)
{
	const char *p = text;
	for (unsigned l = 1; l < line && p; l++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	*len = p ? strcspn(p, "\n") : 0;
	return p ? p : "";
}

/* Marks the mutants that the entry (its fields F) names. Returns how many; *other is a
 * second source line they lie on (0: all on one line). */
static unsigned apply_entry(struct mutate_run *m, const char *f[3], const size_t n[3], char *why,
			    unsigned *first, unsigned *other)
{
	unsigned hits = 0;
	*first = *other = 0;
	for (size_t i = 0; i < m->muts.n; i++) {
		const struct mutant *mu = &m->muts.m[i];
		const char *op = mutops_name(mu->op);
		if (!same(f[0], n[0], op, strlen(op)))
			continue;
		char *text = mutops_apply(m->src, m->len, mu, NULL);
		size_t len;
		const char *line = text ? line_of(text, mu->line, &len) : "";
		if (text && same(f[1], n[1], line, len)) {
			m->judged[i] = why;
			hits++;
			if (!*first)
				*first = mu->line;
			else if (mu->line != *first && !*other)
				*other = mu->line;
		}
		free(text);
	}
	return hits;
}

int mutate_judged_load(struct mutate_run *m, FILE *out)
{
	char *dir = strdup(m->sol_path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (!slash || asprintf(&m->judged_path, "%.*s/equivalent-mutants.txt", (int)(slash - dir), dir) < 0)
		m->judged_path = NULL;
	free(dir);
	m->judged = calloc(m->muts.n + 1, sizeof(*m->judged));
	if (!m->judged_path || !m->judged)
		return -1;
	m->judged_text = fs_read(m->judged_path, NULL);
	if (!m->judged_text)
		return errno == ENOENT ? 0 : (fprintf(out, "%s: cannot read: %s\n", m->judged_path, strerror(errno)), -1);
	unsigned lineno = 0;
	for (char *p = m->judged_text; *p;) {
		char *end = p + strcspn(p, "\n"), *next = *end ? end + 1 : end;
		*end = '\0';
		lineno++;
		const char *f[3];
		size_t n[3];
		unsigned k = 0;
		for (const char *q = p; k < 3 && *p && *p != '#';) {
			const char *bar = k < 2 ? strstr(q, " | ") : NULL;
			f[k] = q;
			n[k] = bar ? (size_t)(bar - q) : strlen(q);
			k++;
			q = bar ? bar + 3 : q + strlen(q);
			if (!bar)
				break;
		}
		if (*p && *p != '#' && k != 3) {
			fprintf(out, "%s:%u: a judgement is 'OPERATOR | the mutant's line | why', three fields separated by ' | '\n",
				m->judged_path, lineno);
			return -1;
		}
		unsigned first, other;
		if (k == 3 && !apply_entry(m, f, n, (char *)f[2], &first, &other)) {
			fprintf(out, "%s:%u: matches no mutant of the solution (was the line or the change edited?)\n",
				m->judged_path, lineno);
			m->judged_stale = true;
		} else if (k == 3 && other) {
			/* `if (1) {` is what every guard mutant's line becomes: such a judgement
			 * would judge mistakes too */
			fprintf(out, "%s:%u: matches mutants of lines %u and %u of the solution: a judgement must name one line's mutants\n",
				m->judged_path, lineno, first, other);
			m->judged_stale = true;
		}
		p = next;
	}
	return 0;
}

void mutate_judged_release(struct mutate_run *m)
{
	free(m->judged);
	free(m->judged_text);
	free(m->judged_path);
	m->judged = NULL;
	m->judged_text = m->judged_path = NULL;
}
