/* expr: a recursive-descent evaluator; see expr.h. */
#include "expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *text, *p;
	expr_lookup_fn lookup;
	void *userdata;
	char *err;
	size_t errlen;
	bool failed;
	unsigned depth; /* of nested parentheses and signs */
};

/* Nesting beyond this is refused rather than recursed into (no spec needs it). */
#define EXPR_MAX_DEPTH 100

static void fail(struct parser *ps, const char *what)
{
	if (!ps->failed)
		snprintf(ps->err, ps->errlen, "%s at column %d", what, (int)(ps->p - ps->text) + 1);
	ps->failed = true;
}

static void skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int64_t parse_sum(struct parser *ps);
static int64_t parse_unary(struct parser *ps);

static int64_t parse_name(struct parser *ps)
{
	const char *start = ps->p;
	while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
		ps->p++;
	int64_t v = 0;
	if (!ps->lookup || !ps->lookup(ps->userdata, start, (size_t)(ps->p - start), &v)) {
		if (!ps->failed)
			snprintf(ps->err, ps->errlen, "unknown name '%.*s'", (int)(ps->p - start),
				 start);
		ps->failed = true;
	}
	return v;
}

/* A result outside 64 bits is an error, not a wrapped size. */
static int64_t overflow(struct parser *ps)
{
	fail(ps, "value out of range (beyond 64-bit integers)");
	return 0;
}

static int64_t parse_nested(struct parser *ps, char c)
{
	ps->p++;
	int64_t v;
	if (c == '-') {
		v = parse_unary(ps);
		return v == INT64_MIN ? overflow(ps) : -v;
	}
	v = parse_sum(ps);
	skip_space(ps);
	if (*ps->p != ')')
		fail(ps, "expected ')'");
	else
		ps->p++;
	return v;
}

static int64_t parse_unary(struct parser *ps)
{
	skip_space(ps);
	char c = *ps->p;
	if (c == '-' || c == '(') {
		if (ps->depth >= EXPR_MAX_DEPTH) {
			fail(ps, "nested too deeply");
			return 0;
		}
		ps->depth++;
		int64_t v = parse_nested(ps, c);
		ps->depth--;
		return v;
	}
	if (isdigit((unsigned char)c)) {
		char *end;
		errno = 0;
		long long v = strtoll(ps->p, &end, 0);
		if (errno)
			fail(ps, "number too large");
		ps->p = end;
		return v;
	}
	if (isalpha((unsigned char)c) || c == '_')
		return parse_name(ps);
	fail(ps, c ? "unexpected character" : "unexpected end");
	return 0;
}

static int64_t parse_term(struct parser *ps)
{
	int64_t v = parse_unary(ps);
	for (;;) {
		skip_space(ps);
		char op = *ps->p;
		if (op != '*' && op != '/' && op != '%')
			return v;
		ps->p++;
		int64_t r = parse_unary(ps);
		if (ps->failed)
			return 0;
		if (op == '*') {
			if (__builtin_mul_overflow(v, r, &v))
				return overflow(ps);
		} else if (r == 0) {
			fail(ps, "division by zero");
			return 0;
		} else if (r == -1) { /* INT64_MIN / -1 overflows, and C leaves % -1 undefined there */
			if (op == '/' && v == INT64_MIN)
				return overflow(ps);
			v = op == '/' ? -v : 0;
		} else {
			v = op == '/' ? v / r : v % r;
		}
	}
}

static int64_t parse_sum(struct parser *ps)
{
	int64_t v = parse_term(ps);
	for (;;) {
		skip_space(ps);
		char op = *ps->p;
		if (op != '+' && op != '-')
			return v;
		ps->p++;
		int64_t r = parse_term(ps);
		if (ps->failed)
			return 0;
		if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v))
			return overflow(ps);
	}
}

int expr_eval(const char *text, expr_lookup_fn lookup, void *userdata, int64_t *out,
	      char *err, size_t errlen)
{
	struct parser ps = { text, text, lookup, userdata, err, errlen, false, 0 };
	int64_t v = parse_sum(&ps);
	skip_space(&ps);
	if (*ps.p && !ps.failed)
		fail(&ps, "unexpected text");
	if (ps.failed)
		return -EINVAL;
	*out = v;
	return 0;
}

int expr_assignment(const char *text, expr_lookup_fn lookup, void *userdata, char **name,
		    int64_t *out, char *err, size_t errlen)
{
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	const char *start = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	const char *end = p;
	while (isspace((unsigned char)*p))
		p++;
	if (end == start || *p != '=' || isdigit((unsigned char)*start)) {
		snprintf(err, errlen, "expected 'name = value', e.g. 'n = 1000'");
		return -EINVAL;
	}
	int rc = expr_eval(p + 1, lookup, userdata, out, err, errlen);
	if (rc < 0)
		return rc;
	*name = strndup(start, (size_t)(end - start));
	return *name ? 0 : -ENOMEM;
}
