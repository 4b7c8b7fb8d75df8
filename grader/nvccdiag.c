/* nvccdiag: line-by-line recognisers; see nvccdiag.h. */
#include "nvccdiag.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum diag_severity severity_of(const char *word, size_t len)
{
	if (len >= 7 && strncmp(word, "warning", 7) == 0)
		return DIAG_WARNING;
	if ((len >= 4 && strncmp(word, "note", 4) == 0) || (len >= 6 && strncmp(word, "remark", 6) == 0))
		return DIAG_NOTE;
	return DIAG_ERROR;
}

/* EDG: "path(LINE): error: text" or "path(LINE): warning #177-D: text". */
static bool parse_edg(const char *line, char *file, size_t flen, unsigned *lno,
		      enum diag_severity *sev, const char **msg)
{
	const char *paren = strstr(line, "): ");
	if (!paren)
		return false;
	const char *open = paren;
	while (open > line && *open != '(')
		open--;
	if (open == line || !isdigit((unsigned char)open[1]))
		return false;
	char *end;
	unsigned long n = strtoul(open + 1, &end, 10);
	if (end != paren)
		return false;
	const char *kind = paren + 3;
	size_t klen = strcspn(kind, ":");
	if (!kind[klen] || !(strncmp(kind, "error", 5) == 0 || strncmp(kind, "warning", 7) == 0 ||
			     strncmp(kind, "remark", 6) == 0 || strncmp(kind, "catastrophic", 12) == 0))
		return false;
	snprintf(file, flen, "%.*s", (int)(open - line), line);
	*lno = (unsigned)n;
	*sev = severity_of(kind, klen);
	*msg = kind + klen + 1;
	while (**msg == ' ')
		(*msg)++;
	return true;
}

/* gcc/clang: "path:LINE:COL: error: text" (COL optional). */
static bool parse_gcc(const char *line, char *file, size_t flen, unsigned *lno, unsigned *col,
		      enum diag_severity *sev, const char **msg)
{
	const char *p = line;
	while ((p = strchr(p, ':'))) {
		if (isdigit((unsigned char)p[1]))
			break;
		p++;
	}
	if (!p)
		return false;
	char *end;
	unsigned long n = strtoul(p + 1, &end, 10);
	unsigned long c = 0;
	if (*end == ':' && isdigit((unsigned char)end[1]))
		c = strtoul(end + 1, &end, 10);
	if (strncmp(end, ": ", 2) != 0)
		return false;
	const char *kind = end + 2;
	size_t klen = strcspn(kind, ":");
	if (!kind[klen] || !(strncmp(kind, "error", 5) == 0 || strncmp(kind, "warning", 7) == 0 ||
			     strncmp(kind, "note", 4) == 0 || strncmp(kind, "fatal error", 11) == 0))
		return false;
	snprintf(file, flen, "%.*s", (int)(p - line), line);
	*lno = (unsigned)n;
	*col = (unsigned)c;
	*sev = severity_of(kind, klen);
	*msg = kind + klen + 1;
	while (**msg == ' ')
		(*msg)++;
	return true;
}

/* Line LNO (1-based) of FILE, without its newline, or NULL. */
static char *source_line(const char *file, unsigned lno)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len = -1;
	for (unsigned i = 0; i < lno && (len = getline(&line, &cap, f)) >= 0; i++)
		;
	fclose(f);
	if (len < 0) {
		free(line);
		return NULL;
	}
	line[strcspn(line, "\r\n")] = '\0';
	return line;
}

/* EDG prints the source line indented by two spaces, then a caret under the column. The
 * line it prints is preprocessed (__global__ shows as __attribute__((global))), so the
 * caret's column is found again in the real line: by the text from the caret to the end
 * of the line, which macros before the caret do not change. */
static unsigned caret_column(const char *src_line, const char *caret_line, const char *file,
			     unsigned lno)
{
	size_t src_len = strcspn(src_line, "\n");
	size_t caret_len = strcspn(caret_line, "\n");
	const char *caret = memchr(caret_line, '^', caret_len);
	if (!caret || src_len < 2 || strncmp(src_line, "  ", 2) != 0)
		return 0;
	for (const char *q = caret_line; q < caret; q++)
		if (*q != ' ')
			return 0;
	size_t c = (size_t)(caret - caret_line) - 2;
	if (c >= src_len - 2)
		return 0;
	char *real = source_line(file, lno);
	if (!real)
		return (unsigned)c + 1;
	char tail[1024];
	snprintf(tail, sizeof(tail), "%.*s", (int)(src_len - 2 - c), src_line + 2 + c);
	size_t tl = strlen(tail);
	while (tl && tail[tl - 1] == ' ')
		tail[--tl] = '\0';
	unsigned col = (unsigned)c + 1;
	size_t rl = strlen(real);
	while (rl && real[rl - 1] == ' ')
		rl--;
	if (tl && rl >= tl && strncmp(real + rl - tl, tail, tl) == 0)
		col = (unsigned)(rl - tl) + 1;
	free(real);
	return col;
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');
	return nl ? nl + 1 : p + strlen(p);
}

/* Whether out already holds an error whose message starts with the n bytes of msg: the
 * linker names a missing symbol once per object file that uses it. */
static bool said_before(const struct diag_list *out, const char *msg, size_t n)
{
	for (unsigned i = 0; i < out->n; i++)
		if (strncmp(out->items[i].message, msg, n) == 0)
			return true;
	return false;
}

static void add_undefined(const char *ref, size_t n, struct diag_list *out, unsigned *errors)
{
	char head[320];
	size_t h = (size_t)snprintf(head, sizeof(head), "link error: '%.*s' ", (int)n, ref);
	if (said_before(out, head, h < sizeof(head) ? h : sizeof(head) - 1))
		return;
	/* A CUDA API the emulator's runtime lacks (textures, graphs...) is not the student's
	 * typo: say what to do instead. */
	bool cuda = strncmp(ref, "cuda", 4) == 0 || strncmp(ref, "__cuda", 6) == 0 ||
		    (strncmp(ref, "cu", 2) == 0 && ref[2] >= 'A' && ref[2] <= 'Z');
	if (cuda)
		diag_add(out, DIAG_ERROR, NULL, 0, 0,
			 "%sis a CUDA function that this build does not link. On the emulator, pmpplab implements the runtime calls the labs use, not this one: run with --backend gpu on a machine with a GPU, or do without it. On a GPU it belongs to a CUDA library the labs do not link (the driver API's cu* calls, cuBLAS...): do without it",
			 head);
	else
		diag_add(out, DIAG_ERROR, NULL, 0, 0,
			 "%sis used but never defined; define it (check its name and parameter types match the declaration)",
			 head);
	(*errors)++;
}

static void add_other(const char *line, size_t len, struct diag_list *out, unsigned *errors)
{
	const char *ref = strstr(line, "undefined reference to `");
	if (ref && ref < line + len) {
		ref += strlen("undefined reference to `");
		add_undefined(ref, strcspn(ref, "'\n"), out, errors);
	} else if (strncmp(line, "ptxas error", 11) == 0 || strncmp(line, "ptxas fatal", 11) == 0) {
		const char *m = strchr(line, ':');
		diag_add(out, DIAG_ERROR, NULL, 0, 0, "ptxas: %.*s", (int)(len - (m ? (size_t)(m + 2 - line) : 0)),
			 m ? m + 2 : line);
		(*errors)++;
	} else if (strncmp(line, "nvcc fatal", 10) == 0) {
		diag_add(out, DIAG_ERROR, NULL, 0, 0, "%.*s", (int)len, line);
		(*errors)++;
	}
}

unsigned nvccdiag_parse(const char *text, struct diag_list *out)
{
	unsigned errors = 0;
	for (const char *p = text; *p; p = next_line(p)) {
		size_t len = strcspn(p, "\n");
		char line[2048], file[1024];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		unsigned lno = 0, col = 0;
		enum diag_severity sev;
		const char *msg;
		if (parse_edg(line, file, sizeof(file), &lno, &sev, &msg)) {
			const char *src = next_line(p);
			const char *caret = *src ? next_line(src) : src;
			if (*caret)
				col = caret_column(src, caret, file, lno);
			diag_add(out, sev, file, lno, col, "%s", msg);
		} else if (parse_gcc(line, file, sizeof(file), &lno, &col, &sev, &msg)) {
			diag_add(out, sev, file, lno, col, "%s", msg);
		} else {
			add_other(line, len, out, &errors);
			continue;
		}
		errors += sev == DIAG_ERROR;
	}
	return errors;
}

/* The last character of LINE's code (before a // comment, spaces left out), or 0 when
 * the line has none (blank, a comment, a preprocessor line). Sets *END to its column. */
static char code_end(const char *line, unsigned *end)
{
	const char *t = line + strspn(line, " \t");
	if (*t == '#' || *t == '\0' || (t[0] == '/' && (t[1] == '/' || t[1] == '*')) || t[0] == '*')
		return 0;
	size_t n = strlen(line);
	for (const char *q = t; *q; q++) { /* a // outside a string ends the code */
		if (*q == '"' || *q == '\'') {
			char quote = *q;
			while (q[1] && q[1] != quote)
				q += q[1] == '\\' && q[2] ? 2 : 1;
			if (!q[1])
				break;
			q++;
		} else if (q[0] == '/' && q[1] == '/') {
			n = (size_t)(q - line);
			break;
		}
	}
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	*end = (unsigned)n;
	return n ? line[n - 1] : 0;
}

/* The note for error D, when it is a missing token at the start of its line. */
static void explain_missing(const struct diag *d, struct diag_list *out)
{
	const char *m = d->message;
	if (d->severity != DIAG_ERROR || !d->file || d->line < 2 || !d->col ||
	    strncmp(m, "expected a \"", 12) != 0 || strlen(m) != 14 || m[13] != '"')
		return;
	char token = m[12];
	char *here = source_line(d->file, d->line);
	if (!here)
		return;
	bool first = d->col <= strspn(here, " \t") + 1; /* at the line's first token */
	free(here);
	if (!first)
		return;
	/* The code line before it: blank and comment lines are skipped (a few of them). */
	for (unsigned lno = d->line - 1; lno >= 1 && lno + 8 >= d->line; lno--) {
		char *prev = source_line(d->file, lno);
		if (!prev)
			return;
		unsigned end = 0;
		char last = code_end(prev, &end);
		free(prev);
		if (!last)
			continue;
		/* A line that ends in the token is not it, nor one that opens a block. */
		if (last == token || (token == ';' && last == '{'))
			return;
		diag_add(out, DIAG_NOTE, d->file, lno, end + 1,
			 "the mistake may be at the end of line %u: a missing \"%c\" is reported at "
			 "the code after it, line %u", lno, token, d->line);
		return;
	}
}

void nvccdiag_explain(struct diag_list *l)
{
	struct diag_list out;
	diag_list_init(&out);
	for (unsigned i = 0; i < l->n; i++) {
		const struct diag *d = &l->items[i];
		diag_add(&out, d->severity, d->file, d->line, d->col, "%s", d->message);
		explain_missing(d, &out);
	}
	diag_list_release(l);
	*l = out;
}
