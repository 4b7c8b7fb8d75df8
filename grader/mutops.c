/* mutops: the framework (mutant lists, edits, token helpers) and the operators that
 * change one token or an operand; mutops_stmt.c holds those that work on statements. */
#include "mutops_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {
#define MUTOPS_NAME(e, s) s,
	MUTOPS_X(MUTOPS_NAME)
#undef MUTOPS_NAME
};

const char *mutops_name(enum mutops_op op)
{
	return op < MUTOP_COUNT ? op_names[op] : "?";
}

int mutops_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
	*mask = 0;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		unsigned i = 0;
		while (i < MUTOP_COUNT && !(strlen(op_names[i]) == n && strncmp(p, op_names[i], n) == 0))
			i++;
		if (i == MUTOP_COUNT) {
			snprintf(err, errlen, "%.*s", (int)n, p);
			return -EINVAL;
		}
		*mask |= 1u << i;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* ---- the list ------------------------------------------------------------------ */

static struct mutant *mutgen_new(struct mutgen *g, enum mutops_op op, unsigned line,
				 const char *fmt, va_list ap)
{
	struct mutant_list *l = g->out;
	if (g->rc)
		return NULL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct mutant *m = realloc(l->m, cap * sizeof(*m));
		if (!m) {
			g->rc = -ENOMEM;
			return NULL;
		}
		l->m = m;
		l->cap = cap;
	}
	struct mutant *m = &l->m[l->n];
	*m = (struct mutant){ .op = op, .line = line };
	if (vasprintf(&m->what, fmt, ap) < 0) {
		g->rc = -ENOMEM;
		return NULL;
	}
	l->n++;
	return m;
}

/* An edit keeps the newlines of the text it replaces (after its own), so a mutant has
 * the solution's lines and a diff shows only what changed. */
static void set_edit(struct mutgen *g, struct mutant *m, size_t off, size_t len, const char *text)
{
	struct mutant_edit *e = &m->edit[m->n_edits++];
	size_t lost = 0, tlen = strlen(text);
	for (size_t i = off; i < off + len; i++)
		lost += g->lx->src[i] == '\n';
	for (const char *p = text; *p; p++)
		lost -= lost && *p == '\n';
	e->off = off;
	e->len = len;
	e->text = malloc(tlen + lost + 1);
	if (!e->text) {
		g->rc = -ENOMEM;
		return;
	}
	memcpy(e->text, text, tlen);
	memset(e->text + tlen, '\n', lost);
	e->text[tlen + lost] = '\0';
}

void mutgen_replace(struct mutgen *g, enum mutops_op op, size_t a, size_t b, const char *text,
		    const char *fmt, ...)
{
	const struct clex_token *ta = &g->lx->tok[a], *tb = &g->lx->tok[b];
	va_list ap;
	va_start(ap, fmt);
	struct mutant *m = mutgen_new(g, op, ta->line, fmt, ap);
	va_end(ap);
	if (m)
		set_edit(g, m, ta->off, tb->off + tb->len - ta->off, text);
}

void mutgen_edits(struct mutgen *g, enum mutops_op op, unsigned line, size_t off1, size_t len1,
		  const char *t1, size_t off2, size_t len2, const char *t2, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct mutant *m = mutgen_new(g, op, line, fmt, ap);
	va_end(ap);
	if (!m)
		return;
	set_edit(g, m, off1, len1, t1);
	set_edit(g, m, off2, len2, t2);
}

void mutant_list_release(struct mutant_list *l)
{
	for (size_t i = 0; l && i < l->n; i++) {
		free(l->m[i].what);
		for (unsigned k = 0; k < l->m[i].n_edits; k++)
			free(l->m[i].edit[k].text);
	}
	if (l)
		free(l->m);
	if (l)
		memset(l, 0, sizeof(*l));
}

char *mutops_apply(const char *src, size_t len, const struct mutant *m, size_t *outlen)
{
	size_t n = len;
	for (unsigned k = 0; k < m->n_edits; k++)
		n += strlen(m->edit[k].text);
	char *out = malloc(n + 1), *p = out;
	if (!out)
		return NULL;
	size_t at = 0;
	for (unsigned k = 0; k < m->n_edits; k++) {
		const struct mutant_edit *e = &m->edit[k];
		memcpy(p, src + at, e->off - at);
		p += e->off - at;
		p = stpcpy(p, e->text);
		at = e->off + e->len;
	}
	memcpy(p, src + at, len - at);
	p += len - at;
	*p = '\0';
	if (outlen)
		*outlen = (size_t)(p - out);
	return out;
}

/* ---- token helpers ------------------------------------------------------------- */

static const char *const type_words[] = {
	"void", "char", "short", "int", "long", "float", "double", "unsigned", "signed", "bool",
	"size_t", "const", "volatile", "struct", "dim3", "cudaError_t", "auto", "__shared__",
	"__restrict__", "restrict", "static", "register", "extern", "__constant__", "__device__",
	"__global__", "__host__", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t",
	"uint32_t", "int64_t", "uint64_t", "half", "__half", "float2", "float4", "int2", "int4",
	"uchar3", "uchar4", "cudaStream_t", "cudaEvent_t", "constexpr", "unsigned char",
};

static bool is_any(const struct clex *lx, size_t i, const char *const *words, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (clex_is(lx, i, words[k]))
			return true;
	return false;
}

static bool is_type_word(const struct clex *lx, size_t i)
{
	return is_any(lx, i, type_words, sizeof(type_words) / sizeof(*type_words));
}

/* The first token of a #define's body, or the directive's end when it is no #define. */
static size_t define_body(const struct clex *lx, long d)
{
	size_t i = (size_t)d + 1;
	if (!clex_is(lx, i, "define"))
		return lx->n;
	i++; /* the name */
	if (clex_is(lx, i + 1, "(") && lx->tok[i + 1].off == lx->tok[i].off + lx->tok[i].len &&
	    lx->tok[i + 1].match > 0)
		return (size_t)lx->tok[i + 1].match + 1;
	return i + 1;
}

bool mutgen_mutable(const struct clex *lx, size_t i)
{
	const struct clex_token *t = &lx->tok[i];
	if (t->kind == CLEX_STRING || t->kind == CLEX_CHAR || t->kind == CLEX_HEADER)
		return false;
	return !(t->flags & CLEX_DIRECTIVE) || i >= define_body(lx, t->directive);
}

bool mutgen_in_code(const struct clex *lx, size_t i)
{
	return mutgen_mutable(lx, i) && (lx->tok[i].flags & (CLEX_BODY | CLEX_DIRECTIVE));
}

static const char *const stops[] = {
	"&&", "||", ";", ",", "?", ":", "<", "<=", ">", ">=", "==", "!=", "=", "+=", "-=",
	"*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>", "<<<",
};

static bool is_stop(const struct clex *lx, size_t i)
{
	return is_any(lx, i, stops, sizeof(stops) / sizeof(*stops));
}

static bool is_open(const struct clex *lx, size_t i)
{
	return clex_is(lx, i, "(") || clex_is(lx, i, "[") || clex_is(lx, i, "{");
}

static bool is_close(const struct clex *lx, size_t i)
{
	return clex_is(lx, i, ")") || clex_is(lx, i, "]") || clex_is(lx, i, "}");
}

size_t mutgen_operand_end(const struct clex *lx, size_t i)
{
	size_t j = i;
	while (j < lx->n && lx->tok[j].directive == lx->tok[i].directive) {
		if (is_open(lx, j) && lx->tok[j].match > (long)j) {
			j = (size_t)lx->tok[j].match + 1;
			continue;
		}
		if (is_close(lx, j) || is_stop(lx, j))
			break;
		j++;
	}
	return j;
}

size_t mutgen_operand_start(const struct clex *lx, size_t i)
{
	size_t j = i;
	while (j > 0 && lx->tok[j - 1].directive == lx->tok[i - 1].directive) {
		if (is_close(lx, j - 1) && lx->tok[j - 1].match >= 0 && lx->tok[j - 1].match < (long)j - 1) {
			j = (size_t)lx->tok[j - 1].match;
			continue;
		}
		if (is_open(lx, j - 1) || is_stop(lx, j - 1) || clex_is(lx, j - 1, "return"))
			break;
		j--;
	}
	return j;
}

const char *mutgen_span(const struct clex *lx, size_t a, size_t b, char *buf, size_t cap)
{
	size_t n = 0;
	for (size_t i = a; i <= b && i < lx->n && n + 1 < cap; i++) {
		if (i > a && n + 1 < cap && lx->tok[i].off > lx->tok[i - 1].off + lx->tok[i - 1].len)
			buf[n++] = ' ';
		for (size_t k = 0; k < lx->tok[i].len && n + 1 < cap; k++)
			buf[n++] = lx->src[lx->tok[i].off + k];
	}
	if (n + 1 >= cap && cap > 4)
		memcpy(buf + cap - 4, "...", 3), n = cap - 1;
	buf[n] = '\0';
	return buf;
}

long mutgen_block_open(const struct clex *lx, size_t i)
{
	for (long k = (long)i - 1; k >= 0; k--)
		if (clex_is(lx, (size_t)k, "{") && lx->tok[k].match > (long)i)
			return k;
	return -1;
}

size_t mutgen_stmt_end(const struct clex *lx, size_t i)
{
	if (i >= lx->n)
		return lx->n - 1;
	if (clex_is(lx, i, "{") && lx->tok[i].match > (long)i)
		return (size_t)lx->tok[i].match;
	bool ctl = clex_is(lx, i, "if") || clex_is(lx, i, "for") || clex_is(lx, i, "while") ||
		   clex_is(lx, i, "switch");
	if (ctl && clex_is(lx, i + 1, "(") && lx->tok[i + 1].match > 0) {
		size_t e = mutgen_stmt_end(lx, (size_t)lx->tok[i + 1].match + 1);
		if (clex_is(lx, i, "if") && clex_is(lx, e + 1, "else"))
			e = mutgen_stmt_end(lx, e + 2);
		return e;
	}
	if (clex_is(lx, i, "do"))
		i = mutgen_stmt_end(lx, i + 1) + 1;
	for (size_t j = i; j < lx->n; j++) {
		if (is_open(lx, j) && lx->tok[j].match > (long)j)
			j = (size_t)lx->tok[j].match;
		else if (clex_is(lx, j, ";"))
			return j;
		else if (is_close(lx, j))
			return j > i ? j - 1 : j;
	}
	return lx->n - 1;
}

/* Whether a low-precedence operator (below + and -) sits at the top of tokens [A, B). */
static bool needs_parens(const struct clex *lx, size_t a, size_t b)
{
	static const char *const low[] = { "<<", ">>", "&", "|", "^", "&&", "||", "?", "<", ">",
					   "<=", ">=", "==", "!=", "=" };
	for (size_t j = a; j < b; j++) {
		if (is_open(lx, j) && lx->tok[j].match > (long)j)
			j = (size_t)lx->tok[j].match;
		else if (is_any(lx, j, low, sizeof(low) / sizeof(*low)))
			return true;
	}
	return false;
}

/* Adds "+ 1" and "- 1" to the operand [A, B) (parenthesised when it must be); ONLY 0
 * or 1 makes just that one, -1 both. */
static void plus_minus_one(struct mutgen *g, enum mutops_op op, size_t a, size_t b, const char *ctx,
			   int only)
{
	const struct clex *lx = g->lx;
	char was[96];
	mutgen_span(lx, a, b - 1, was, sizeof(was));
	bool paren = needs_parens(lx, a, b);
	size_t end = lx->tok[b - 1].off + lx->tok[b - 1].len;
	for (int s = 0; s < 2; s++) {
		if (only >= 0 && s != only)
			continue;
		const char *d = s ? " - 1" : " + 1";
		char tail[8];
		snprintf(tail, sizeof(tail), "%s%s", paren ? ")" : "", d);
		mutgen_edits(g, op, lx->tok[a].line, lx->tok[a].off, 0, paren ? "(" : "", end, 0, tail,
			     "%s `%s` -> `%s%s%s%s`", ctx, was, paren ? "(" : "", was, paren ? ")" : "", d);
	}
}

/* Keywords that an expression's name may follow (return a[i]): any other name before a
 * name is a type, a typedef or a template's parameter (E tile[BM][BK]). */
static const char *const expr_words[] = {
	"return", "case", "sizeof", "else", "do", "goto", "throw", "new", "delete", "alignof",
};

/* Whether '[' at I opens a declaration's dimension (float tile[16][16]). */
static bool decl_bracket(const struct clex *lx, size_t i)
{
	size_t k = i;
	while (k > 0 && clex_is(lx, k - 1, "]") && lx->tok[k - 1].match >= 0)
		k = (size_t)lx->tok[k - 1].match;
	if (k < 2 || lx->tok[k - 1].kind != CLEX_IDENT)
		return false;
	size_t p = k - 2;
	if (is_type_word(lx, p) || clex_is(lx, p, "*"))
		return true;
	if (lx->tok[p].kind == CLEX_IDENT && !is_any(lx, p, expr_words, sizeof(expr_words) / sizeof(*expr_words)))
		return true;
	if (!clex_is(lx, p, ","))
		return false;
	size_t s = mutgen_operand_start(lx, p); /* back to the statement's start */
	while (s > 0 && !clex_is(lx, s - 1, ";") && !clex_is(lx, s - 1, "{") && !clex_is(lx, s - 1, "}"))
		s--;
	return is_type_word(lx, s);
}

/* Whether token I is inside a declaration's dimension. */
static bool in_declared_size(const struct clex *lx, size_t i)
{
	for (long k = (long)i - 1; k >= 0; k--)
		if (clex_is(lx, (size_t)k, "[") && lx->tok[k].match > (long)i)
			return decl_bracket(lx, (size_t)k);
		else if (clex_is(lx, (size_t)k, ";") || clex_is(lx, (size_t)k, "{") || clex_is(lx, (size_t)k, "}"))
			return false;
	return false;
}

/* Whether '<' or '>' at I is a comparison (not a template's bracket). */
static bool is_comparison(const struct clex *lx, size_t i)
{
	static const char *const casts[] = { "static_cast", "reinterpret_cast", "const_cast",
					     "dynamic_cast", "template" };
	if (!clex_is(lx, i, "<"))
		return true;
	return i == 0 || !is_any(lx, i - 1, casts, sizeof(casts) / sizeof(*casts));
}

/* ---- token operators ----------------------------------------------------------- */

static void gen_ror(struct mutgen *g, size_t i)
{
	static const char *const pairs[][2] = { { "<", "<=" }, { "<=", "<" }, { ">", ">=" },
						{ ">=", ">" }, { "==", "!=" }, { "!=", "==" } };
	for (size_t k = 0; k < 6; k++)
		if (clex_is(g->lx, i, pairs[k][0]) && is_comparison(g->lx, i))
			mutgen_replace(g, MUTOP_ROR, i, i, pairs[k][1], "`%s` -> `%s`", pairs[k][0], pairs[k][1]);
}

/* +1 or -1 on a comparison's bound: the direction ror's boundary change does not give
 * (i < n: ror makes i <= n, bound makes i < n - 1). */
static void gen_bound(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	bool lt = clex_is(lx, i, "<") || clex_is(lx, i, ">=");
	if ((!lt && !clex_is(lx, i, "<=") && !clex_is(lx, i, ">")) || !is_comparison(lx, i))
		return;
	size_t end = mutgen_operand_end(lx, i + 1);
	if (end > i + 1)
		plus_minus_one(g, MUTOP_BOUND, i + 1, end, "bound", lt ? 1 : 0);
}

static void gen_idx(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	const struct clex_token *t = &lx->tok[i];
	if (!clex_is(lx, i, "[") || t->match <= (long)i + 1 || i == 0 || decl_bracket(lx, i))
		return;
	const struct clex_token *p = &lx->tok[i - 1];
	if (p->kind != CLEX_IDENT && !clex_is(lx, i - 1, "]") && !clex_is(lx, i - 1, ")"))
		return;
	plus_minus_one(g, MUTOP_IDX, i + 1, (size_t)t->match, "index", -1);
}

/* An integer literal's value and suffix; false for floating-point numbers. */
static bool int_literal(const struct clex *lx, size_t i, unsigned long long *v, char suffix[4])
{
	char text[40];
	clex_text(lx, i, text, sizeof(text));
	bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
	if (strpbrk(text, ".") || (!hex && strpbrk(text, "eEfF")) || (hex && strpbrk(text, "pP")))
		return false;
	char *end;
	*v = strtoull(text, &end, 0);
	if (strlen(end) > 3 || strspn(end, "uUlL") != strlen(end))
		return false;
	strcpy(suffix, end);
	return true;
}

/* Whether the literal at I is a named constant's value: #define N 16, const int N = 16. */
static bool constant_value(const struct clex *lx, size_t i)
{
	const struct clex_token *t = &lx->tok[i];
	if (t->flags & CLEX_DIRECTIVE)
		return define_body(lx, t->directive) == i && (i + 1 >= lx->n || lx->tok[i + 1].directive != t->directive);
	if (i < 3 || !clex_is(lx, i - 1, "=") || !clex_is(lx, i + 1, ";"))
		return false;
	for (size_t k = i - 2; k > 0 && lx->tok[k].kind == CLEX_IDENT; k--)
		if (clex_is(lx, k, "const") || clex_is(lx, k, "constexpr"))
			return true;
	return false;
}

static void gen_const(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	unsigned long long v;
	char sfx[4];
	if (lx->tok[i].kind != CLEX_NUMBER || !int_literal(lx, i, &v, sfx) || constant_value(lx, i))
		return;
	/* a declared size made larger is only padding; an exit status is no behaviour the
	 * lab grades */
	bool decl = in_declared_size(lx, i);
	if (i >= 2 && clex_is(lx, i - 2, "exit") && clex_is(lx, i - 1, "("))
		return;
	if (i >= 3 && clex_is(lx, i - 3, "}") && clex_is(lx, i - 2, "while") && clex_is(lx, i + 1, ")"))
		return; /* do { ... } while (0): a macro's wrapping, not a loop */
	char was[40], now[48];
	clex_text(lx, i, was, sizeof(was));
	for (int s = decl ? 1 : 0; s < 2; s++) {
		if (s)
			snprintf(now, sizeof(now), v ? "%llu%s" : "-1", v - 1, sfx);
		else
			snprintf(now, sizeof(now), "%llu%s", v + 1, sfx);
		mutgen_replace(g, MUTOP_CONST, i, i, now, "`%s` -> `%s`", was, now);
	}
}

/* Named constants' names: #define N 16, const int N = 16. */
static bool named_constant(const struct clex *lx, size_t use)
{
	for (size_t i = 0; i < lx->n; i++) {
		if (lx->tok[i].kind != CLEX_NUMBER || !constant_value(lx, i))
			continue;
		size_t name = lx->tok[i].flags & CLEX_DIRECTIVE ? i - 1 : i - 2;
		if (name != use && lx->tok[name].len == lx->tok[use].len &&
		    memcmp(lx->src + lx->tok[name].off, lx->src + lx->tok[use].off, lx->tok[use].len) == 0)
			return true;
	}
	return false;
}

static void gen_stride(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	if (lx->tok[i].kind != CLEX_IDENT || !named_constant(lx, i))
		return;
	char name[64], now[80];
	clex_text(lx, i, name, sizeof(name));
	for (int s = in_declared_size(lx, i) ? 1 : 0; s < 2; s++) { /* larger: padding */
		snprintf(now, sizeof(now), "(%s %s 2)", name, s ? "/" : "*");
		mutgen_replace(g, MUTOP_STRIDE, i, i, now, "`%s` -> `%s`", name, now);
	}
}

/* Whether the operator at I is binary: an operand ends right before it. */
static bool binary_op(const struct clex *lx, size_t i)
{
	static const char *const kw[] = { "return", "case", "sizeof", "else", "do" };
	if (i == 0 || clex_is(lx, i + 1, ")") || clex_is(lx, i + 1, ",") || clex_is(lx, i + 1, "*"))
		return false;
	const struct clex_token *p = &lx->tok[i - 1];
	if (p->kind == CLEX_NUMBER || p->kind == CLEX_CHAR || clex_is(lx, i - 1, ")") || clex_is(lx, i - 1, "]"))
		return true;
	return p->kind == CLEX_IDENT && !is_type_word(lx, i - 1) && !is_any(lx, i - 1, kw, 5);
}

static void gen_aor(struct mutgen *g, size_t i)
{
	static const char *const swaps[][2] = {
		{ "+", "-" }, { "-", "+" }, { "*", "/" }, { "/", "*" }, { "%", "/" }, { "<<", ">>" },
		{ ">>", "<<" }, { "+=", "-=" }, { "-=", "+=" }, { "*=", "/=" }, { "/=", "*=" },
		{ "<<=", ">>=" }, { ">>=", "<<=" }, { "++", "--" }, { "--", "++" },
	};
	const struct clex *lx = g->lx;
	for (size_t k = 0; k < sizeof(swaps) / sizeof(*swaps); k++) {
		if (!clex_is(lx, i, swaps[k][0]))
			continue;
		if (k < 7 && !binary_op(lx, i))
			return;
		mutgen_replace(g, MUTOP_AOR, i, i, swaps[k][1], "`%s` -> `%s`", swaps[k][0], swaps[k][1]);
	}
}

/* threadIdx and blockIdx only: blockDim.y in a 1-D launch is 1, a mistake nobody makes
 * and every test catches. */
static const char *const builtins[] = { "threadIdx", "blockIdx" };

static void gen_thread(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	if (!is_any(lx, i, builtins, 2) || !clex_is(lx, i + 1, "."))
		return;
	const char *to = clex_is(lx, i + 2, "x") ? "y" : clex_is(lx, i + 2, "y") ? "x" :
			 clex_is(lx, i + 2, "z") ? "x" : NULL;
	char name[16], was[4];
	if (to)
		mutgen_replace(g, MUTOP_THREAD, i + 2, i + 2, to, "`%s.%s` -> `%s.%s`",
			       clex_text(lx, i, name, sizeof(name)), clex_text(lx, i + 2, was, sizeof(was)),
			       name, to);
}

static void gen_dim(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	const char *to = clex_is(lx, i, "blockDim") ? "gridDim" : clex_is(lx, i, "gridDim") ? "blockDim" : NULL;
	if (to)
		mutgen_replace(g, MUTOP_DIM, i, i, to, "`%s` -> `%s`", to[0] == 'g' ? "blockDim" : "gridDim", to);
}

/* Splits the arguments of the bracket at OPEN (up to CLOSE) at top-level commas:
 * starts[k] is argument k's first token. Returns the count (at most CAP). */
static unsigned split_args(const struct clex *lx, size_t open, size_t close, size_t *starts, unsigned cap)
{
	unsigned n = 0;
	if (close == open + 1)
		return 0;
	starts[n++] = open + 1;
	for (size_t j = open + 1; j < close && n < cap; j++) {
		if (is_open(lx, j) && lx->tok[j].match > (long)j)
			j = (size_t)lx->tok[j].match;
		else if (clex_is(lx, j, ","))
			starts[n++] = j + 1;
	}
	return n;
}

static void gen_launch(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	if (!clex_is(lx, i, "<<<"))
		return;
	size_t close = i + 1;
	while (close < lx->n && !clex_is(lx, close, ">>>") && !clex_is(lx, close, ";"))
		close++;
	size_t s[4];
	if (!clex_is(lx, close, ">>>") || split_args(lx, i, close, s, 4) < 2)
		return;
	size_t end0 = s[1] - 2, end1 = mutgen_operand_end(lx, s[1]) - 1;
	char a[96], b[96];
	mutgen_span(lx, s[0], end0, a, sizeof(a));
	mutgen_span(lx, s[1], end1, b, sizeof(b));
	const struct clex_token *t0 = &lx->tok[s[0]], *t1 = &lx->tok[s[1]];
	mutgen_edits(g, MUTOP_LAUNCH, t0->line, t0->off, lx->tok[end0].off + lx->tok[end0].len - t0->off, b,
		     t1->off, lx->tok[end1].off + lx->tok[end1].len - t1->off, a,
		     "`<<<%s, %s>>>` -> `<<<%s, %s>>>`", a, b, b, a);
}

static void gen_memcpy(struct mutgen *g, size_t i)
{
	static const char *const calls[] = { "cudaMemcpy", "cudaMemset", "cudaMemcpyToSymbol",
					     "cudaMemcpyFromSymbol", "cudaMemcpy2D", "cudaMemcpyAsync",
					     "cudaMemsetAsync" };
	const struct clex *lx = g->lx;
	char name[32];
	clex_text(lx, i, name, sizeof(name));
	if (is_any(lx, i, calls, 7) && clex_is(lx, i + 1, "(") && lx->tok[i + 1].match > 0)
		mutgen_replace(g, MUTOP_MEMCPY, i, (size_t)lx->tok[i + 1].match, "cudaSuccess",
			       "drop a %s call", name);
	else if (clex_is(lx, i, "cudaMemcpyHostToDevice"))
		mutgen_replace(g, MUTOP_MEMCPY, i, i, "cudaMemcpyDeviceToHost", "`%s` -> `cudaMemcpyDeviceToHost`", name);
	else if (clex_is(lx, i, "cudaMemcpyDeviceToHost"))
		mutgen_replace(g, MUTOP_MEMCPY, i, i, "cudaMemcpyHostToDevice", "`%s` -> `cudaMemcpyHostToDevice`", name);
}

static void gen_shfl(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	const struct clex_token *t = &lx->tok[i];
	if (t->kind != CLEX_IDENT || t->len < 12 || strncmp(lx->src + t->off, "__shfl_", 7) != 0 ||
	    !clex_is(lx, i + 1, "(") || lx->tok[i + 1].match < 0)
		return;
	char name[32];
	clex_text(lx, i, name, sizeof(name));
	const char *to = strcmp(name, "__shfl_down_sync") == 0 ? "__shfl_up_sync" :
			 strcmp(name, "__shfl_up_sync") == 0 ? "__shfl_down_sync" :
			 strcmp(name, "__shfl_xor_sync") == 0 ? "__shfl_down_sync" : NULL;
	if (to)
		mutgen_replace(g, MUTOP_SHFL, i, i, to, "`%s` -> `%s`", name, to);
	size_t s[5], close = (size_t)lx->tok[i + 1].match;
	unsigned n = split_args(lx, i + 1, close, s, 5);
	if (n < 3)
		return;
	size_t end = n > 3 ? s[3] - 1 : close;
	char off[64], now[80];
	mutgen_span(lx, s[2], end - 1, off, sizeof(off));
	snprintf(now, sizeof(now), "(%s) + 1", off);
	mutgen_replace(g, MUTOP_SHFL, s[2], end - 1, now, "shuffle offset `%s` -> `%s`", off, now);
}

int mutops_generate(const struct clex *lx, unsigned mask, struct mutant_list *out)
{
	typedef void (*token_op)(struct mutgen *, size_t);
	static const struct { enum mutops_op op; token_op fn; } ops[] = {
		{ MUTOP_ROR, gen_ror }, { MUTOP_BOUND, gen_bound }, { MUTOP_IDX, gen_idx },
		{ MUTOP_CONST, gen_const }, { MUTOP_STRIDE, gen_stride }, { MUTOP_AOR, gen_aor },
		{ MUTOP_THREAD, gen_thread }, { MUTOP_DIM, gen_dim }, { MUTOP_LAUNCH, gen_launch },
		{ MUTOP_MEMCPY, gen_memcpy }, { MUTOP_SHFL, gen_shfl },
	};
	memset(out, 0, sizeof(*out));
	struct mutgen g = { .lx = lx, .out = out };
	for (size_t k = 0; k < sizeof(ops) / sizeof(*ops); k++)
		for (size_t i = 0; (mask & (1u << ops[k].op)) && i < lx->n; i++)
			if (mutgen_in_code(lx, i))
				ops[k].fn(&g, i);
	mutops_gen_statements(&g, mask);
	if (g.rc)
		mutant_list_release(out);
	return g.rc;
}
