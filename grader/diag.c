/* diag: located messages. See diag.h. */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_list_init(struct diag_list *l)
{
	memset(l, 0, sizeof(*l));
}

void diag_list_release(struct diag_list *l)
{
	if (!l)
		return;
	for (unsigned i = 0; i < l->n; i++) {
		free(l->items[i].file);
		free(l->items[i].message);
	}
	free(l->items);
	diag_list_init(l);
}

void diag_add(struct diag_list *l, enum diag_severity sev, const char *file, unsigned line,
	      unsigned col, const char *fmt, ...)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 8;
		struct diag *items = realloc(l->items, cap * sizeof(*items));
		if (!items)
			return;
		l->items = items;
		l->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	int rc = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return;
	struct diag *d = &l->items[l->n++];
	d->file = file ? strdup(file) : NULL;
	d->line = line;
	d->col = col;
	d->severity = sev;
	d->message = msg;
}

unsigned diag_count(const struct diag_list *l, enum diag_severity sev)
{
	unsigned n = 0;
	for (unsigned i = 0; i < l->n; i++)
		n += l->items[i].severity == sev;
	return n;
}

const char *diag_severity_name(enum diag_severity s)
{
	switch (s) {
	case DIAG_ERROR: return "error";
	case DIAG_WARNING: return "warning";
	case DIAG_NOTE: return "note";
	}
	return "?";
}

void diag_print(FILE *f, const struct diag_list *l)
{
	for (unsigned i = 0; i < l->n; i++) {
		const struct diag *d = &l->items[i];
		if (d->file) {
			fprintf(f, "%s:", d->file);
			if (d->line)
				fprintf(f, "%u:", d->line);
			if (d->line && d->col)
				fprintf(f, "%u:", d->col);
			fputc(' ', f);
		}
		fprintf(f, "%s: %s\n", diag_severity_name(d->severity), d->message);
	}
}
