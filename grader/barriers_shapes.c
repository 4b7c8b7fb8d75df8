/* barriers_shapes: the shapes of shared arrays, read from the student's source, so a
 * race finding names Bs[2][0] where the emulator saw the flat element Bs[32] (issue 18).
 * Split from barriers.c: it lexes C (clex) and evaluates dimensions (expr), nothing
 * else of the check. */
#include "barriers_shapes.h"

#include <stdlib.h>
#include <string.h>

#include "clex.h"
#include "expr.h"
#include "fsutil.h"

/* Names in a dimension: a #define or a const/constexpr of the same source. */
struct shape_src {
	const struct clex *lx;
	unsigned depth;
};

static bool shape_eval(struct shape_src *s, size_t from, size_t to, int64_t *out);

static bool shape_lookup(void *userdata, const char *name, size_t len, int64_t *out)
{
	struct shape_src *s = userdata;
	const struct clex *lx = s->lx;
	if (s->depth > 8)
		return false;
	for (size_t i = 0; i + 1 < lx->n; i++) {
		const struct clex_token *t = &lx->tok[i];
		if (t->kind != CLEX_IDENT || t->len != len || memcmp(lx->src + t->off, name, len))
			continue;
		size_t end = i + 1;
		if ((t->flags & CLEX_DIRECTIVE) && i >= 2 && clex_is(lx, i - 1, "define") &&
		    lx->tok[i].directive == (long)i - 2) {
			/* #define NAME body: the body up to the end of the directive */
			while (end < lx->n && lx->tok[end].directive == (long)i - 2)
				end++;
			bool function_like = lx->src[t->off + t->len] == '(';
			if (end > i + 1 && !function_like &&
			    shape_eval(s, i + 1, end, out))
				return true;
		} else if (clex_is(lx, i + 1, "=") && i >= 2 &&
			   (clex_is(lx, i - 2, "const") || clex_is(lx, i - 2, "constexpr") ||
			    (i >= 3 && (clex_is(lx, i - 3, "const") || clex_is(lx, i - 3, "constexpr"))))) {
			/* const int NAME = expr; (also static const, constexpr unsigned...) */
			end = i + 2;
			while (end < lx->n && !clex_is(lx, end, ";") && !clex_is(lx, end, ","))
				end++;
			if (end < lx->n && shape_eval(s, i + 2, end, out))
				return true;
		}
	}
	return false;
}

/* Evaluates tokens [from, to) as an integer expression. */
static bool shape_eval(struct shape_src *s, size_t from, size_t to, int64_t *out)
{
	const struct clex *lx = s->lx;
	if (from >= to)
		return false;
	/* the text with integer suffixes dropped (16u, 32U) and casts/sizeof refused */
	char text[256];
	size_t n = 0;
	for (size_t i = from; i < to; i++) {
		const struct clex_token *t = &lx->tok[i];
		size_t len = t->len;
		if (t->kind == CLEX_NUMBER)
			while (len > 1 && strchr("uUlL", lx->src[t->off + len - 1]))
				len--;
		if (n + len + 2 >= sizeof text)
			return false;
		memcpy(text + n, lx->src + t->off, len);
		n += len;
		text[n++] = ' ';
	}
	text[n] = 0;
	s->depth++;
	int rc = expr_eval(text, shape_lookup, s, out, NULL, 0);
	s->depth--;
	return rc == 0 && *out > 0;
}

/* The dimensions of `__shared__ T var[a][b]...` in lx whose size is bytes (0: any, the
 * element then being elem bytes): fills dims, returns how many (0: none found). An
 * unknown name (a template parameter) is solved where every dimension is the same
 * text, as the n-th root of the element count. */
static unsigned shared_shape(const struct clex *lx, const char *var, unsigned long long bytes,
			     unsigned elem, unsigned long long dims[4])
{
	struct shape_src s = { lx, 0 };
	for (size_t i = 0; i < lx->n; i++) {
		if (!clex_is(lx, i, "__shared__"))
			continue;
		size_t j = i + 1;
		while (j < lx->n && !clex_is(lx, j, ";") && !clex_is(lx, j, "{") &&
		       !(lx->tok[j].kind == CLEX_IDENT && clex_is(lx, j, var) &&
			 clex_is(lx, j + 1, "[")))
			j++;
		if (j >= lx->n || !clex_is(lx, j, var))
			continue;
		unsigned nd = 0;
		bool known = true, same = true;
		size_t k = j + 1;
		while (nd < 4 && clex_is(lx, k, "[") && lx->tok[k].match > (long)k + 1) {
			size_t close = (size_t)lx->tok[k].match;
			int64_t v = 0;
			if (!shape_eval(&s, k + 1, close, &v))
				known = false;
			const struct clex_token *a = &lx->tok[j + 2], *b = &lx->tok[k + 1];
			if ((long)(close - k) != lx->tok[j + 1].match - (long)(j + 1) ||
			    memcmp(lx->src + a->off, lx->src + b->off,
				   lx->tok[close].off - b->off) != 0)
				same = false;
			dims[nd++] = (unsigned long long)v;
			k = close + 1;
		}
		if (nd < 2 || clex_is(lx, k, "["))
			continue;
		unsigned long long count = 1;
		if (!known) { /* all the same unknown: the n-th root of the element count */
			if (!same || !bytes || !elem || bytes % elem)
				continue;
			unsigned long long want = bytes / elem, r = 1, p = 1;
			for (; ; r++) {
				p = 1;
				for (unsigned d = 0; d < nd; d++)
					p *= r;
				if (p >= want)
					break;
			}
			if (p != want)
				continue;
			for (unsigned d = 0; d < nd; d++)
				dims[d] = r;
		}
		for (unsigned d = 0; d < nd; d++)
			count *= dims[d];
		if (bytes && (bytes % count || bytes / count > 16))
			continue; /* another array of that name, or not the declaration */
		return nd;
	}
	return 0;
}

void barriers_show_shapes(struct barriers_findings *fs, const char *source)
{
	char *text = NULL;
	struct clex lx = { 0 };
	for (unsigned i = 0; source && i < fs->n; i++) {
		struct barriers_finding *x = &fs->items[i];
		if (!x->var[0] || x->index < 0 || !x->size)
			continue;
		if (!text) {
			size_t len = 0;
			text = fs_read(source, &len);
			if (!text || clex_lex(&lx, text, len) < 0)
				break;
		}
		unsigned long long dims[4];
		unsigned nd = shared_shape(&lx, x->var, x->var_bytes, x->size, dims);
		if (!nd)
			continue;
		unsigned long long count = 1;
		for (unsigned d = 0; d < nd; d++)
			count *= dims[d];
		unsigned long long elem = x->var_bytes ? x->var_bytes / count : x->size;
		unsigned long long off = (unsigned long long)x->index * x->size;
		if (!elem || off % elem)
			continue;
		unsigned long long e = off / elem, idx[4];
		for (unsigned d = nd; d-- > 0;) {
			idx[d] = e % dims[d];
			e /= dims[d];
		}
		char flat[96], shaped[128];
		size_t n = (size_t)snprintf(shaped, sizeof shaped, "%s", x->var);
		for (unsigned d = 0; d < nd && n < sizeof shaped; d++)
			n += (size_t)snprintf(shaped + n, sizeof shaped - n, "[%llu]", idx[d]);
		snprintf(flat, sizeof flat, "%s[%lld]", x->var, x->index);
		char *at = strstr(x->message, flat);
		if (!at || e)
			continue;
		char rest[sizeof x->message];
		snprintf(rest, sizeof rest, "%s", at + strlen(flat));
		snprintf(at, sizeof x->message - (size_t)(at - x->message), "%s%s", shaped, rest);
	}
	clex_release(&lx);
	free(text);
}
