/* mutops: the operators that work on statements and conditions (sync, guard, cond, stmt,
 * atomic); see mutops.h. */
#include "mutops_internal.h"

#include <stdio.h>
#include <string.h>

static bool is_barrier_call(const struct clex *lx, size_t i)
{
	return (clex_is(lx, i, "__syncthreads") || clex_is(lx, i, "__syncwarp")) &&
	       clex_is(lx, i + 1, "(") && lx->tok[i + 1].match > 0 &&
	       clex_is(lx, (size_t)lx->tok[i + 1].match + 1, ";");
}

/* The statements of the block opened at OPEN: starts and ends (inclusive). */
static unsigned block_statements(const struct clex *lx, size_t open, size_t *st, size_t *en, unsigned cap)
{
	unsigned n = 0;
	size_t close = (size_t)lx->tok[open].match;
	for (size_t i = open + 1; i < close && n < cap;) {
		size_t e = mutgen_stmt_end(lx, i);
		if (e < i || e >= close)
			break;
		st[n] = i;
		en[n++] = e;
		i = e + 1;
	}
	return n;
}

/* A barrier statement deleted, or moved before the statement above it or after the one
 * below it in its block. */
static void gen_sync(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	if (!(lx->tok[i].flags & CLEX_DEVICE) || !is_barrier_call(lx, i))
		return;
	size_t semi = (size_t)lx->tok[i + 1].match + 1;
	char call[64], text[72];
	mutgen_span(lx, i, semi, call, sizeof(call));
	size_t off = lx->tok[i].off, len = lx->tok[semi].off + 1 - off;
	size_t before = g->out->n;
	mutgen_replace(g, MUTOP_SYNC, i, semi, "", "delete `%s`", call);
	if (g->out->n > before)
		g->out->m[g->out->n - 1].names = MUTOPS_NAMES_BARRIERS;
	long open = mutgen_block_open(lx, i);
	size_t st[256], en[256];
	unsigned n = open >= 0 ? block_statements(lx, (size_t)open, st, en, 256) : 0, k = 0;
	while (k < n && st[k] != i)
		k++;
	if (k == n)
		return;
	if (k > 0) {
		snprintf(text, sizeof(text), "%s ", call);
		before = g->out->n;
		mutgen_edits(g, MUTOP_SYNC, lx->tok[st[k - 1]].line, lx->tok[st[k - 1]].off, 0, text, off, len, "",
			     "move `%s` up, above the statement on line %u", call, lx->tok[st[k - 1]].line);
		if (g->out->n > before)
			g->out->m[g->out->n - 1].names = MUTOPS_NAMES_BARRIERS;
	}
	if (k + 1 < n) {
		const struct clex_token *e = &lx->tok[en[k + 1]];
		snprintf(text, sizeof(text), " %s", call);
		before = g->out->n;
		mutgen_edits(g, MUTOP_SYNC, lx->tok[i].line, off, len, "", e->off + e->len, 0, text,
			     "move `%s` down, below the statement on line %u", call, lx->tok[st[k + 1]].line);
		if (g->out->n > before)
			g->out->m[g->out->n - 1].names = MUTOPS_NAMES_BARRIERS;
	}
}

/* The condition of the ?: at Q: back to an assignment, a bracket, a comma or return. */
static size_t ternary_start(const struct clex *lx, size_t q)
{
	size_t j = q;
	while (j > 0) {
		const struct clex_token *t = &lx->tok[j - 1];
		if ((clex_is(lx, j - 1, ")") || clex_is(lx, j - 1, "]")) && t->match >= 0 && t->match < (long)j - 1) {
			j = (size_t)t->match;
			continue;
		}
		if (clex_is(lx, j - 1, "(") || clex_is(lx, j - 1, "[") || clex_is(lx, j - 1, "{") ||
		    clex_is(lx, j - 1, "}") || clex_is(lx, j - 1, ";") || clex_is(lx, j - 1, ",") ||
		    clex_is(lx, j - 1, "?") || clex_is(lx, j - 1, ":") || clex_is(lx, j - 1, "return") ||
		    (t->kind == CLEX_PUNCT && lx->src[t->off + t->len - 1] == '=' &&
		     !clex_is(lx, j - 1, "==") && !clex_is(lx, j - 1, "!=") && !clex_is(lx, j - 1, "<=") &&
		     !clex_is(lx, j - 1, ">=")))
			break;
		j--;
	}
	return j;
}

/* The guard conditions in a function body: if (A) and A ? :. [*a, *b] is the condition. */
static bool guard_at(const struct clex *lx, size_t i, size_t *a, size_t *b)
{
	if (!(lx->tok[i].flags & CLEX_BODY) || (lx->tok[i].flags & CLEX_DIRECTIVE))
		return false;
	if (clex_is(lx, i, "if") && clex_is(lx, i + 1, "(") && lx->tok[i + 1].match > (long)i + 2) {
		*a = i + 2;
		*b = (size_t)lx->tok[i + 1].match - 1;
		return true;
	}
	if (clex_is(lx, i, "?") && i > 0) {
		*a = ternary_start(lx, i);
		*b = i - 1;
		return *a <= *b;
	}
	return false;
}

static void gen_guard(struct mutgen *g, size_t i)
{
	size_t a, b;
	char cond[96];
	if (guard_at(g->lx, i, &a, &b))
		mutgen_replace(g, MUTOP_GUARD, a, b, "1", "guard `%s` -> `1`", mutgen_span(g->lx, a, b, cond, sizeof(cond)));
}

/* Each operand of a guard's top-level && dropped (with its &&). */
static void gen_cond(struct mutgen *g, size_t i)
{
	const struct clex *lx = g->lx;
	size_t a, b;
	if (!guard_at(lx, i, &a, &b))
		return;
	while (clex_is(lx, a, "(") && lx->tok[a].match == (long)b) /* ((x && y)) */
		a++, b--;
	size_t ands[16];
	unsigned n = 0;
	for (size_t j = a; j <= b && n < 16; j++) {
		if ((clex_is(lx, j, "(") || clex_is(lx, j, "[")) && lx->tok[j].match > (long)j)
			j = (size_t)lx->tok[j].match;
		else if (clex_is(lx, j, "||") || clex_is(lx, j, "?"))
			return; /* a mix: dropping one side of && changes more than one test */
		else if (clex_is(lx, j, "&&"))
			ands[n++] = j;
	}
	for (unsigned k = 0; n && k <= n; k++) {
		size_t s = k == 0 ? a : ands[k - 1] + 1, e = k == n ? b : ands[k] - 1;
		char part[96];
		mutgen_span(lx, s, e, part, sizeof(part));
		if (k < n) /* the operand and the && after it */
			mutgen_replace(g, MUTOP_COND, s, ands[k], "", "drop `%s` from a guard", part);
		else /* the last operand and the && before it */
			mutgen_replace(g, MUTOP_COND, ands[k - 1], e, "", "drop `%s` from a guard", part);
	}
}

/* Whether token I starts a statement (follows ; { } or a control's condition, or else). */
static bool stmt_start(const struct clex *lx, size_t i)
{
	if (i == 0)
		return false;
	if (clex_is(lx, i - 1, "{") || clex_is(lx, i - 1, "}") || clex_is(lx, i - 1, "else"))
		return true;
	if (clex_is(lx, i - 1, ";"))
		return mutgen_block_open(lx, i) == mutgen_block_open(lx, i - 1) &&
		       !(clex_is(lx, i, ")")); /* not inside for (;;) */
	if (clex_is(lx, i - 1, ")") && lx->tok[i - 1].match > 0) {
		size_t o = (size_t)lx->tok[i - 1].match;
		return o > 0 && (clex_is(lx, o - 1, "if") || clex_is(lx, o - 1, "for") || clex_is(lx, o - 1, "while"));
	}
	return false;
}

/* Whether the ';' at I is inside a for's parentheses. */
static bool in_for_header(const struct clex *lx, size_t i)
{
	for (long k = (long)i - 1; k >= 0; k--) {
		if (clex_is(lx, (size_t)k, "(") && lx->tok[k].match > (long)i)
			return k > 0 && clex_is(lx, (size_t)k - 1, "for");
		if (clex_is(lx, (size_t)k, "{") || clex_is(lx, (size_t)k, "}"))
			return false;
	}
	return false;
}

/* A kernel's expression statement (an assignment, an increment or a call) deleted. */
static void gen_stmt(struct mutgen *g, size_t i)
{
	static const char *const kw[] = { "if", "for", "while", "do", "switch", "return", "break",
					  "continue", "goto", "case", "default", "else", "__syncthreads",
					  "__syncwarp", "__shared__", "const", "unsigned", "int", "float",
					  "double", "bool", "char", "long", "auto", "extern" };
	const struct clex *lx = g->lx;
	const struct clex_token *t = &lx->tok[i];
	if (!(t->flags & CLEX_DEVICE) || t->kind != CLEX_IDENT || !stmt_start(lx, i) ||
	    (clex_is(lx, i - 1, ";") && in_for_header(lx, i - 1)))
		return;
	for (size_t k = 0; k < sizeof(kw) / sizeof(*kw); k++)
		if (clex_is(lx, i, kw[k]))
			return;
	if (lx->tok[i + 1].kind == CLEX_IDENT) /* a declaration: T x; */
		return;
	size_t e = mutgen_stmt_end(lx, i);
	if (!clex_is(lx, e, ";") || e == i)
		return;
	char text[96];
	mutgen_replace(g, MUTOP_STMT, i, e - 1, "", "delete `%s`", mutgen_span(lx, i, e, text, sizeof(text)));
}

/* Whether NAME (token I) is declared __shared__ somewhere. */
static bool shared_name(const struct clex *lx, size_t name)
{
	for (size_t i = 0; i < lx->n; i++) {
		if (!clex_is(lx, i, "__shared__"))
			continue;
		for (size_t k = i + 1; k < lx->n && !clex_is(lx, k, ";") && !clex_is(lx, k, "["); k++)
			if (lx->tok[k].len == lx->tok[name].len &&
			    memcmp(lx->src + lx->tok[k].off, lx->src + lx->tok[name].off, lx->tok[k].len) == 0)
				return true;
	}
	return false;
}

static void gen_atomic(struct mutgen *g, size_t i)
{
	static const char *const ops[][2] = {
		{ "atomicAdd", "+=" }, { "atomicSub", "-=" }, { "atomicOr", "|=" }, { "atomicAnd", "&=" },
		{ "atomicXor", "^=" }, { "atomicExch", "=" }, { "atomicMax", "max" }, { "atomicMin", "min" },
	};
	const struct clex *lx = g->lx;
	unsigned k = 0;
	while (k < 8 && !clex_is(lx, i, ops[k][0]))
		k++;
	if (k == 8 || !clex_is(lx, i + 1, "(") || lx->tok[i + 1].match < 0)
		return;
	size_t close = (size_t)lx->tok[i + 1].match, comma = i + 2;
	while (comma < close && !clex_is(lx, comma, ","))
		comma = clex_is(lx, comma, "(") || clex_is(lx, comma, "[") ? (size_t)lx->tok[comma].match + 1 : comma + 1;
	if (comma >= close || comma == i + 2)
		return;
	char target[112], value[96], text[256];
	bool addr = clex_is(lx, i + 2, "&");
	mutgen_span(lx, addr ? i + 3 : i + 2, comma - 1, value, sizeof(value));
	snprintf(target, sizeof(target), addr ? "%s" : "*(%s)", value);
	mutgen_span(lx, comma + 1, close - 1, value, sizeof(value));
	if (k >= 6)
		snprintf(text, sizeof(text), "(%s = %s(%s, %s))", target, ops[k][1], target, value);
	else
		snprintf(text, sizeof(text), "(%s %s %s)", target, ops[k][1], value);
	size_t before = g->out->n;
	mutgen_replace(g, MUTOP_ATOMIC, i, close, text, "`%s(...)` -> `%s`", ops[k][0], text);
	size_t base = addr ? i + 3 : i + 2;
	if (g->out->n > before && shared_name(lx, base))
		g->out->m[g->out->n - 1].names = MUTOPS_NAMES_BARRIERS;
}

void mutops_gen_statements(struct mutgen *g, unsigned mask)
{
	typedef void (*stmt_op)(struct mutgen *, size_t);
	static const struct { enum mutops_op op; stmt_op fn; } ops[] = {
		{ MUTOP_SYNC, gen_sync }, { MUTOP_GUARD, gen_guard }, { MUTOP_COND, gen_cond },
		{ MUTOP_STMT, gen_stmt }, { MUTOP_ATOMIC, gen_atomic },
	};
	for (size_t k = 0; k < sizeof(ops) / sizeof(*ops); k++)
		for (size_t i = 0; (mask & (1u << ops[k].op)) && i < g->lx->n; i++)
			if (mutgen_in_code(g->lx, i))
				ops[k].fn(g, i);
}
