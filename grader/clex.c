/* clex: see clex.h. */
#include "clex.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest first within each length, so the first prefix that matches is the longest. */
static const char *const puncts[] = {
	"<<<", ">>>", "<<=", ">>=", "...", "->*",
	"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "->", "+=", "-=", "*=",
	"/=", "%=", "&=", "|=", "^=", "::", "##",
};

struct lexer {
	struct clex *lx;
	size_t cap;
	size_t pos;
	unsigned line;
	bool line_start;  /* only whitespace since the last newline */
	long directive;   /* the open directive's '#' token, or -1 */
};

static int push(struct lexer *s, enum clex_kind kind, size_t off, size_t len)
{
	struct clex *lx = s->lx;
	if (lx->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct clex_token *t = realloc(lx->tok, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		lx->tok = t;
		s->cap = cap;
	}
	struct clex_token *t = &lx->tok[lx->n];
	*t = (struct clex_token){ .kind = kind, .off = off, .len = len, .line = s->line,
				  .match = -1, .directive = s->directive };
	if (s->directive >= 0)
		t->flags |= CLEX_DIRECTIVE;
	else if (kind == CLEX_PUNCT && len == 1 && lx->src[off] == '#' && s->line_start)
		t->flags |= CLEX_DIRECTIVE, t->directive = (long)lx->n, s->directive = (long)lx->n;
	lx->n++;
	s->line_start = false;
	return 0;
}

/* Skips whitespace, comments and backslash-newlines; ends a directive at a newline. */
static void skip_space(struct lexer *s)
{
	const char *p = s->lx->src;
	size_t n = s->lx->len;
	while (s->pos < n) {
		char c = p[s->pos];
		if (c == '\n') {
			s->line++;
			s->pos++;
			s->line_start = true;
			s->directive = -1;
		} else if (c == '\\' && s->pos + 1 < n && p[s->pos + 1] == '\n') {
			s->line++;
			s->pos += 2;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			s->pos++;
		} else if (c == '/' && s->pos + 1 < n && p[s->pos + 1] == '/') {
			while (s->pos < n && p[s->pos] != '\n')
				s->pos++;
		} else if (c == '/' && s->pos + 1 < n && p[s->pos + 1] == '*') {
			s->pos += 2;
			while (s->pos < n && !(p[s->pos] == '*' && s->pos + 1 < n && p[s->pos + 1] == '/'))
				s->line += p[s->pos++] == '\n';
			s->pos = s->pos + 2 <= n ? s->pos + 2 : n;
		} else {
			return;
		}
	}
}

/* The end of a quoted literal starting at POS (its opening quote Q). */
static size_t quoted_end(const char *p, size_t pos, size_t n, char q)
{
	for (pos++; pos < n && p[pos] != q && p[pos] != '\n'; pos++)
		pos += p[pos] == '\\' && pos + 1 < n;
	return pos < n && p[pos] == q ? pos + 1 : pos;
}

static size_t number_end(const char *p, size_t pos, size_t n)
{
	for (pos++; pos < n; pos++) {
		char c = p[pos];
		if ((c == '+' || c == '-') && strchr("eEpP", p[pos - 1]))
			continue;
		if (!isalnum((unsigned char)c) && c != '_' && c != '.' && c != '\'')
			break;
	}
	return pos;
}

/* Whether the token before the current one is the "include" of a directive. */
static bool after_include(const struct lexer *s)
{
	const struct clex *lx = s->lx;
	if (s->directive < 0 || lx->n != (size_t)s->directive + 2)
		return false;
	const struct clex_token *t = &lx->tok[lx->n - 1];
	return t->len == 7 && memcmp(lx->src + t->off, "include", 7) == 0;
}

static int lex_one(struct lexer *s)
{
	const char *p = s->lx->src;
	size_t n = s->lx->len, pos = s->pos;
	char c = p[pos];
	size_t end = pos + 1;
	enum clex_kind kind = CLEX_PUNCT;
	if (isalpha((unsigned char)c) || c == '_') {
		while (end < n && (isalnum((unsigned char)p[end]) || p[end] == '_'))
			end++;
		kind = CLEX_IDENT;
		/* a prefixed literal: L"..", u8"..", U'..' */
		if (end < n && (p[end] == '"' || p[end] == '\'') && end - pos <= 2 &&
		    strchr("LuU8", p[end - 1])) {
			kind = p[end] == '"' ? CLEX_STRING : CLEX_CHAR;
			end = quoted_end(p, end, n, p[end]);
		}
	} else if (isdigit((unsigned char)c) || (c == '.' && pos + 1 < n && isdigit((unsigned char)p[pos + 1]))) {
		end = number_end(p, pos, n);
		kind = CLEX_NUMBER;
	} else if (c == '"' || c == '\'') {
		end = quoted_end(p, pos, n, c);
		kind = c == '"' ? CLEX_STRING : CLEX_CHAR;
	} else if (c == '<' && after_include(s)) {
		while (end < n && p[end] != '>' && p[end] != '\n')
			end++;
		end += end < n && p[end] == '>';
		kind = CLEX_HEADER;
	} else if (strchr("{}[]();,?~:+-*/%<>=!&|^.#", c)) {
		for (size_t i = 0; i < sizeof(puncts) / sizeof(*puncts); i++) {
			size_t l = strlen(puncts[i]);
			if (pos + l <= n && memcmp(p + pos, puncts[i], l) == 0) {
				end = pos + l;
				break;
			}
		}
	} else {
		kind = CLEX_OTHER;
	}
	int rc = push(s, kind, pos, end - pos);
	for (size_t i = pos; i < end; i++) /* a literal continued by backslash-newlines */
		s->line += p[i] == '\n';
	s->pos = end;
	return rc;
}

/* Pairs brackets with a stack; a closer that does not match the top is left unpaired. */
static int match_brackets(struct clex *lx)
{
	size_t *stack = malloc((lx->n + 1) * sizeof(*stack)), depth = 0;
	if (!stack)
		return -ENOMEM;
	for (size_t i = 0; i < lx->n; i++) {
		struct clex_token *t = &lx->tok[i];
		if (t->kind != CLEX_PUNCT || t->len != 1 || (t->flags & CLEX_DIRECTIVE))
			continue;
		char c = lx->src[t->off];
		if (c == '(' || c == '[' || c == '{') {
			stack[depth++] = i;
		} else if ((c == ')' || c == ']' || c == '}') && depth) {
			char open = lx->src[lx->tok[stack[depth - 1]].off];
			if ((open == '(' && c == ')') || (open == '[' && c == ']') || (open == '{' && c == '}')) {
				depth--;
				t->match = (long)stack[depth];
				lx->tok[stack[depth]].match = (long)i;
			}
		}
	}
	/* brackets inside a directive pair within it (a macro body) */
	for (size_t i = 0; i < lx->n; i++) {
		struct clex_token *t = &lx->tok[i];
		if (t->kind != CLEX_PUNCT || t->len != 1 || !(t->flags & CLEX_DIRECTIVE) || t->match >= 0)
			continue;
		char c = lx->src[t->off];
		const char *close = c == '(' ? ")" : c == '[' ? "]" : c == '{' ? "}" : NULL;
		if (!close)
			continue;
		int d = 0;
		for (size_t k = i; k < lx->n && lx->tok[k].directive == t->directive; k++) {
			const struct clex_token *u = &lx->tok[k];
			if (u->kind == CLEX_PUNCT && u->len == 1 && lx->src[u->off] == c)
				d++;
			else if (u->kind == CLEX_PUNCT && u->len == 1 && lx->src[u->off] == *close && --d == 0) {
				t->match = (long)k;
				lx->tok[k].match = (long)i;
				break;
			}
		}
	}
	free(stack);
	return 0;
}

/* Marks function bodies: a '{' outside every other bracket, right after a ')' (or after
 * a qualifier such as const that follows it); device bodies when a __global__ or
 * __device__ came before it at file scope since the last ';' or '}'. */
static void mark_bodies(struct clex *lx)
{
	bool device = false;
	for (size_t i = 0; i < lx->n; i++) {
		struct clex_token *t = &lx->tok[i];
		if (t->flags & CLEX_DIRECTIVE)
			continue;
		if (clex_is(lx, i, "__global__") || clex_is(lx, i, "__device__"))
			device = true;
		else if (clex_is(lx, i, ";") || clex_is(lx, i, "}"))
			device = false;
		else if (clex_is(lx, i, "(") && t->match > 0)
			i = (size_t)t->match;
		else if (clex_is(lx, i, "{") && t->match > 0) {
			size_t k = i;
			while (k > 0 && lx->tok[k - 1].kind == CLEX_IDENT && !clex_is(lx, k - 1, "__global__"))
				k--; /* const, noexcept, ... */
			bool body = k > 0 && clex_is(lx, k - 1, ")");
			for (size_t j = i; body && j <= (size_t)t->match; j++)
				lx->tok[j].flags |= CLEX_BODY | (device ? CLEX_DEVICE : 0);
			i = (size_t)t->match;
			device = false;
		}
	}
}

int clex_lex(struct clex *lx, const char *src, size_t len)
{
	memset(lx, 0, sizeof(*lx));
	lx->src = src;
	lx->len = len;
	struct lexer s = { .lx = lx, .line = 1, .line_start = true, .directive = -1 };
	for (;;) {
		skip_space(&s);
		if (s.pos >= len)
			break;
		if (lex_one(&s) < 0)
			goto nomem;
	}
	if (match_brackets(lx) < 0)
		goto nomem;
	mark_bodies(lx);
	return 0;
nomem:
	clex_release(lx);
	return -ENOMEM;
}

void clex_release(struct clex *lx)
{
	if (!lx)
		return;
	free(lx->tok);
	memset(lx, 0, sizeof(*lx));
}

bool clex_is(const struct clex *lx, size_t i, const char *text)
{
	if (i >= lx->n)
		return false;
	size_t l = strlen(text);
	return lx->tok[i].len == l && memcmp(lx->src + lx->tok[i].off, text, l) == 0;
}

const char *clex_text(const struct clex *lx, size_t i, char *buf, size_t cap)
{
	if (i >= lx->n || cap == 0) {
		if (cap)
			buf[0] = '\0';
		return buf;
	}
	snprintf(buf, cap, "%.*s", (int)lx->tok[i].len, lx->src + lx->tok[i].off);
	return buf;
}
