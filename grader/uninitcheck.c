/* uninitcheck: registers read before they are given a value, said about the student's
 * source (see uninitcheck.h). */
#include "uninitcheck.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "uninit.h"

/* A source file's lines: the text, and where each line starts. */
struct src {
	char *text;
	char **lines; /* lines[i]: line i + 1, NUL-terminated (the text cut at '\n') */
	unsigned n;
};

static int src_load(const char *path, struct src *s)
{
	memset(s, 0, sizeof(*s));
	size_t len = 0;
	s->text = fs_read(path, &len);
	if (!s->text)
		return -ENOENT;
	unsigned n = 1;
	for (size_t i = 0; i < len; i++)
		n += s->text[i] == '\n';
	s->lines = calloc(n, sizeof(char *));
	if (!s->lines) {
		free(s->text);
		s->text = NULL;
		return -ENOMEM;
	}
	for (char *p = s->text; p; s->n++) {
		s->lines[s->n] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	return 0;
}

static void src_free(struct src *s)
{
	free(s->text);
	free(s->lines);
}

static const char *src_line(const struct src *s, unsigned line)
{
	return s->text && line >= 1 && line <= s->n ? s->lines[line - 1] : NULL;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The scalar types a declaration may start with; the suggested zero of each. */
static const char *zero_of(const char *type, size_t len)
{
	static const struct { const char *t, *zero; } types[] = {
		{ "float", "0.0f" }, { "double", "0.0" }, { "int", "0" }, { "unsigned", "0" },
		{ "long", "0" }, { "short", "0" }, { "char", "0" }, { "bool", "false" },
		{ "size_t", "0" }, { "int32_t", "0" }, { "uint32_t", "0" }, { "int64_t", "0" },
		{ "uint64_t", "0" }, { "half", "__float2half(0.0f)" },
		{ "__half", "__float2half(0.0f)" }, { "float2", "make_float2(0.0f, 0.0f)" },
		{ "float4", "make_float4(0.0f, 0.0f, 0.0f, 0.0f)" },
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i].t) == len && !memcmp(types[i].t, type, len))
			return types[i].zero;
	return NULL;
}

/* Does the type word at b start a statement (line start, ';' or '{' before it, after
 * qualifiers and other type words)? Not a parameter list's "float *C,". */
static bool starts_statement(const char *l, const char *b)
{
	for (;;) {
		while (b > l && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b == l || b[-1] == ';' || b[-1] == '{')
			return true;
		const char *e = b;
		while (b > l && ident_char(b[-1]))
			b--;
		size_t n = (size_t)(e - b);
		if (!n || !(zero_of(b, n) || (n == 5 && !memcmp(b, "const", 5)) ||
			    (n == 8 && !memcmp(b, "register", 8))))
			return false;
	}
}

/* A declaration of NAME without an initialiser on line L: "TYPE NAME;", "TYPE a, NAME;",
 * "TYPE NAME[N];" or "fragment<...> NAME...;". Fills *type (the scalar type word, or
 * "" for a template such as wmma::fragment) and *array. */
static bool declares(const char *l, const char *name, char *type, size_t tlen, bool *array)
{
	size_t n = strlen(name);
	for (const char *p = strstr(l, name); p; p = strstr(p + 1, name)) {
		if ((p > l && ident_char(p[-1])) || ident_char(p[n]))
			continue;
		const char *q = p + n;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != ';' && *q != ',' && *q != '[')
			continue;
		*array = *q == '[';
		if (*array) { /* NAME[...]...; with nothing but brackets before the ';' */
			while (*q == '[' || *q == ' ') {
				const char *e = strchr(q, ']');
				if (*q == ' ') {
					q++;
					continue;
				}
				if (!e)
					break;
				q = e + 1;
			}
			if (*q != ';' && *q != ',')
				continue;
		}
		/* what stands before the name: a type word, a template's '>' or a list's ',' */
		const char *b = p;
		while (b > l && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '*'))
			*array |= *--b == '*'; /* a pointer: no scalar zero to suggest */
		if (b > l && b[-1] == '>') {
			snprintf(type, tlen, "%s", "");
			return !strchr(l, '=') || strchr(l, '=') > p;
		}
		if (b > l && b[-1] == ',') /* a list: the type is the line's first word */
			b = l + strspn(l, " \t");
		else {
			const char *e = b;
			while (b > l && ident_char(b[-1]))
				b--;
			if (b == e)
				continue;
		}
		const char *e = b;
		while (ident_char(*e))
			e++;
		if (!zero_of(b, (size_t)(e - b)) || !starts_statement(l, b))
			continue;
		/* an '=' before the name belongs to another declarator of the list */
		snprintf(type, tlen, "%.*s", (int)(e - b), b);
		return true;
	}
	return false;
}

/* The last argument of an mma_sync( call on line l (the accumulator C), or false. */
static bool mma_acc_arg(const char *l, char *out, size_t len)
{
	const char *p = strstr(l, "mma_sync");
	if (!p || !(p = strchr(p, '(')))
		return false;
	int depth = 0;
	const char *last = p + 1;
	for (const char *q = p + 1; *q; q++) {
		if (*q == '(' || *q == '[')
			depth++;
		else if ((*q == ')' || *q == ']') && depth-- == 0)
			break;
		else if (*q == ',' && depth == 0)
			last = q + 1;
	}
	while (*last == ' ' || *last == '\t' || *last == '&')
		last++;
	size_t n = 0;
	while (ident_char(last[n]))
		n++;
	if (!n || n >= len)
		return false;
	snprintf(out, len, "%.*s", (int)n, last);
	return true;
}

/* The variable line `line` reads that is declared without a value before it: its name,
 * its declaration's line, type and whether it is an array. The first name on the line
 * (the accumulator of an mma_sync call when acc) that has such a declaration. */
static bool find_var(const struct src *s, unsigned line, bool acc, char *var, size_t vlen,
		     unsigned *decl, char *type, size_t tlen, bool *array)
{
	const char *l = src_line(s, line);
	if (!l)
		return false;
	char want[64] = "";
	if (acc && !mma_acc_arg(l, want, sizeof want))
		want[0] = '\0';
	for (const char *p = l; *p; p++) {
		if (!ident_char(*p) || (p > l && ident_char(p[-1])) || isdigit((unsigned char)*p))
			continue;
		size_t n = 0;
		while (ident_char(p[n]))
			n++;
		char name[64];
		if (n >= sizeof name)
			continue;
		snprintf(name, sizeof name, "%.*s", (int)n, p);
		if (*want && strcmp(name, want))
			continue;
		for (unsigned k = line; k >= 1; k--) {
			const char *d = src_line(s, k);
			if (d && declares(d, name, type, tlen, array)) {
				snprintf(var, vlen, "%s", name);
				*decl = k;
				return true;
			}
		}
	}
	return false;
}

/* The finding's sentence for read r at src's line. */
static void describe(struct uninitcheck_finding *f, const struct uninit_read *r,
		     const struct src *s)
{
	char type[32] = "", where[128] = "", decl_at[64] = "";
	bool array = false;
	unsigned decl = 0;
	bool acc = r->mma_acc != 0;
	bool found = find_var(s, r->line, acc, f->var, sizeof f->var, &decl, type, sizeof type,
			      &array);
	if (r->kind == UNINIT_NEVER)
		snprintf(where, sizeof where, "nothing in the kernel ever gives it one");
	else if (r->loop_line && r->loop_line != r->line)
		snprintf(where, sizeof where, "on the first pass of the loop at line %u nothing has been written to it",
			 r->loop_line);
	else
		snprintf(where, sizeof where, "on the first pass of its loop nothing has been written to it");
	if (found && decl)
		snprintf(decl_at, sizeof decl_at, " (declared at line %u without a value)", decl);
	const char *zero = found && *type ? zero_of(type, strlen(type)) : NULL;
	if (acc) {
		char name[72];
		snprintf(name, sizeof name, "%s", found ? f->var : "acc");
		snprintf(f->message, sizeof f->message,
			 "the accumulator fragment %s%s%s%s is used by mma_sync before it is given a value: %s, so the products are added to garbage; fill it before the loop: wmma::fill_fragment(%s%s, 0.0f);",
			 found ? "`" : "", found ? f->var : "", found ? "`" : "", decl_at, where,
			 name, found && array ? "[i][j]" : "");
	} else if (found && zero && !array) {
		snprintf(f->message, sizeof f->message,
			 "`%s`%s is read before it is given one: %s, so the result starts from garbage; initialise it before the loop: %s %s = %s;",
			 f->var, decl_at, where, type, f->var, zero);
	} else if (found) {
		snprintf(f->message, sizeof f->message,
			 "`%s`%s is read before it is given one: %s, so the result starts from garbage; set every element to its starting value (0 for a sum) before the loop",
			 f->var, decl_at, where);
	} else {
		snprintf(f->message, sizeof f->message,
			 "a variable is read here before it is given a value: %s, so the result starts from garbage; initialise every variable this line reads (an accumulator to 0) before the loop",
			 where);
	}
}

static void trim_into(char *out, size_t len, const char *l)
{
	l += strspn(l, " \t");
	snprintf(out, len, "%s", l);
	size_t n = strlen(out);
	while (n && (out[n - 1] == ' ' || out[n - 1] == '\t' || out[n - 1] == '\r'))
		out[--n] = '\0';
}

int uninitcheck_scan(const char *ptx_path, const char *source, struct uninitcheck_findings *out)
{
	memset(out, 0, sizeof(*out));
	struct uninit_report *r;
	char err[256];
	int rc = uninit_analyze_file(ptx_path, &r, err, sizeof err);
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", source);
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[1] = '\0';
	else
		snprintf(dir, sizeof dir, "./");
	out->items = calloc(UNINITCHECK_MAX, sizeof(*out->items));
	if (!out->items) {
		uninit_report_free(r);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < r->n && out->n < UNINITCHECK_MAX; i++) {
		const struct uninit_read *x = &r->reads[i];
		if (!x->file || !x->line)
			continue;
		const char *base = fs_base_name(x->file);
		bool seen = false;
		for (unsigned k = 0; k < out->n && !seen; k++)
			seen = out->items[k].line == x->line && !strcmp(out->items[k].file, base);
		if (seen)
			continue;
		/* only the submission's own files (not the toolkit's headers, whose lines
		 * the decoder has lifted to the call already): the text comes from there */
		char path[PATH_MAX + 128];
		snprintf(path, sizeof path, "%s%s", dir, base);
		struct src s;
		if (src_load(path, &s))
			continue;
		struct uninitcheck_finding *f = &out->items[out->n++];
		snprintf(f->file, sizeof f->file, "%s", base);
		f->line = x->line;
		const char *l = src_line(&s, x->line);
		if (l)
			trim_into(f->text, sizeof f->text, l);
		describe(f, x, &s);
		src_free(&s);
	}
	uninit_report_free(r);
	return 0;
}

void uninitcheck_release(struct uninitcheck_findings *fs)
{
	free(fs->items);
	fs->items = NULL;
	fs->n = 0;
}

void uninitcheck_format(FILE *f, const struct uninitcheck_findings *fs, unsigned max)
{
	for (unsigned i = 0; i < fs->n && i < max; i++) {
		const struct uninitcheck_finding *x = &fs->items[i];
		fprintf(f, "%s:%u: warning: %s\n", x->file, x->line, x->message);
		if (x->text[0])
			fprintf(f, "  %5u | %s\n", x->line, x->text);
	}
	if (fs->n > max)
		fprintf(f, "(and %u more lines like these)\n", fs->n - max);
}

char *uninitcheck_text(const struct uninitcheck_findings *fs, unsigned max)
{
	if (!fs->n)
		return NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	uninitcheck_format(f, fs, max);
	fclose(f);
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	return text;
}
