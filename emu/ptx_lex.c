/* ptx_lex — the PTX text as tokens, and what the parser asks of a token: a type name,
 * a number literal and its bits, an entry of the name maps. Separate: this level knows
 * nothing of PTX's grammar.
 */
#include "ptx_parser.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ptx_type_names[PT__COUNT] = {
	"", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
	"s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "u16x2", "s16x2", "tf32",
};
static const unsigned char ptx_type_sizes[PT__COUNT] = {
	0, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 8, 1, 4, 4, 4,
};

unsigned ptx_type_size(unsigned t)
{
	return t < PT__COUNT ? ptx_type_sizes[t] : 0;
}

int type_is_float(unsigned t)
{
	return t == PT_F32 || t == PT_F64 || t == PT_F16 || t == PT_BF16;
}

/* ---- lexer ---------------------------------------------------------------------- */

static int lex_wordch(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/* Splits text into tokens. Returns 0 or -ENOMEM. */
int lex(const char *s, size_t n, struct tok **out, size_t *nout)
{
	size_t cap = n / 3 + 16, nt = 0;
	struct tok *t = malloc(cap * sizeof(*t));
	unsigned line = 1;
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n;) {
		char c = s[i];
		if (c == '\n') {
			line++;
			i++;
			continue;
		}
		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
				if (s[i] == '\n')
					line++;
			i += 2;
			continue;
		}
		if (nt + 1 >= cap) {
			cap *= 2;
			struct tok *nt2 = realloc(t, cap * sizeof(*t));
			if (!nt2) {
				free(t);
				return -ENOMEM;
			}
			t = nt2;
		}
		struct tok *k = &t[nt++];
		k->p = s + i;
		k->line = line;
		if (c == '"') {
			size_t j = i + 1;
			while (j < n && s[j] != '"' && s[j] != '\n')
				j += (s[j] == '\\') ? 2 : 1;
			k->kind = 's';
			k->p = s + i + 1;
			k->len = (unsigned)(j - i - 1);
			i = j + 1;
		} else if (lex_wordch((unsigned char)c)) {
			size_t j = i;
			while (j < n && (lex_wordch((unsigned char)s[j]) ||
					 (s[j] == ':' && j + 1 < n && s[j + 1] == ':') ||
					 (s[j] == ':' && j > i && s[j - 1] == ':'))) {
				/* a directive glued to its type (".reg.b32", written so in the
				 * inline assembly of cuda_fp16.hpp) is two tokens */
				if (c == '.' && s[j] == '.' && j > i)
					break;
				j++;
			}
			k->kind = 'w';
			k->len = (unsigned)(j - i);
			i = j;
		} else {
			k->kind = c;
			k->len = 1;
			i++;
		}
	}
	*out = t;
	*nout = nt;
	return 0;
}

/* ---- a string map (open addressing) --------------------------------------------- */

static uint64_t map_hash(const char *k, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
	return h;
}

struct ment *map_get(const struct map *m, const char *k, size_t len)
{
	if (!m->cap)
		return NULL;
	for (size_t i = map_hash(k, len) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct ment *e = &m->e[i];
		if (!e->key)
			return NULL;
		if (strlen(e->key) == len && !memcmp(e->key, k, len))
			return e;
	}
}

/* Inserts or replaces. Returns the entry or NULL on ENOMEM. */
struct ment *map_put(struct map *m, const char *k, size_t len, int kind, uint64_t val,
		     unsigned type)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct ment *ne = calloc(ncap, sizeof(*ne));
		if (!ne)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->e[i].key)
				continue;
			size_t j = map_hash(m->e[i].key, strlen(m->e[i].key)) & (ncap - 1);
			while (ne[j].key)
				j = (j + 1) & (ncap - 1);
			ne[j] = m->e[i];
		}
		free(m->e);
		m->e = ne;
		m->cap = ncap;
	}
	struct ment *e = map_get(m, k, len);
	if (!e) {
		size_t i = map_hash(k, len) & (m->cap - 1);
		while (m->e[i].key)
			i = (i + 1) & (m->cap - 1);
		e = &m->e[i];
		if (!(e->key = strndup(k, len)))
			return NULL;
		m->n++;
	}
	e->kind = kind;
	e->val = val;
	e->type = (unsigned char)type;
	return e;
}

void map_free(struct map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->e[i].key);
	free(m->e);
	m->e = NULL;
	m->cap = m->n = 0;
}

/* ---- errors, tokens and literals ------------------------------------------------ */

int perr(struct parser *p, unsigned line, const char *fmt, ...)
{
	if (p->rc)
		return p->rc;
	p->rc = -EINVAL;
	if (p->err && p->errlen) {
		int k = snprintf(p->err, p->errlen, "%s:%u: ", p->path, line);
		va_list ap;
		va_start(ap, fmt);
		if (k >= 0 && (size_t)k < p->errlen)
			vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return p->rc;
}

int tok_is(const struct tok *t, const char *s)
{
	return t->kind == 'w' && strlen(s) == t->len && !memcmp(t->p, s, t->len);
}

struct tok *peek(struct parser *p)
{
	static struct tok eof = { "", 0, 0, 0 };
	return p->i < p->nt ? &p->t[p->i] : &eof;
}

int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*arr, nc * elem);
	if (!n)
		return -ENOMEM;
	memset((char *)n + *cap * elem, 0, (nc - *cap) * elem);
	*arr = n;
	*cap = nc;
	return 0;
}

unsigned parse_type_word(const char *s, size_t len)
{
	if (len && s[0] == '.') {
		s++;
		len--;
	}
	for (unsigned t = 1; t < PT__COUNT; t++)
		if (strlen(ptx_type_names[t]) == len && !memcmp(ptx_type_names[t], s, len))
			return t;
	return PT_NONE;
}

/* Parses an integer or float literal token (0f/0d hex floats, hex, decimal).
 * *is_float: 1 for 0f (f32 bits), 2 for 0d (f64 bits), 3 for a decimal float (double). */
int parse_number(const struct tok *t, uint64_t *val, int *is_float)
{
	char buf[80];
	if (t->kind != 'w' || t->len >= sizeof(buf) || !isdigit((unsigned char)t->p[0]))
		return -1;
	memcpy(buf, t->p, t->len);
	buf[t->len] = 0;
	*is_float = 0;
	char *end;
	if ((buf[1] == 'f' || buf[1] == 'F') && buf[0] == '0' && t->len == 10) {
		*val = strtoull(buf + 2, &end, 16);
		*is_float = 1;
	} else if ((buf[1] == 'd' || buf[1] == 'D') && buf[0] == '0' && t->len == 18) {
		*val = strtoull(buf + 2, &end, 16);
		*is_float = 2;
	} else if (strchr(buf, '.') || ((strchr(buf, 'e') || strchr(buf, 'E')) &&
					 !(buf[1] == 'x' || buf[1] == 'X'))) {
		double d = strtod(buf, &end);
		memcpy(val, &d, 8);
		*is_float = 3;
	} else {
		*val = strtoull(buf, &end, 0);
	}
	if (*end == 'U' || *end == 'u')
		end++;
	return *end ? -1 : 0;
}

/* Converts a literal to the bit pattern an operand of type ty holds. */
uint64_t literal_bits(uint64_t v, int is_float, int neg, unsigned ty)
{
	double d;
	if (is_float == 1) {
		uint32_t u = (uint32_t)v;
		float f;
		memcpy(&f, &u, 4);
		d = f;
	} else if (is_float >= 2) {
		memcpy(&d, &v, 8);
	} else if (type_is_float(ty)) {
		d = (double)(int64_t)v;
	} else {
		if (neg)
			v = (uint64_t)0 - v;
		unsigned sz = ptx_type_size(ty);
		if (ty == PT_PRED)
			return v != 0;
		return sz && sz < 8 ? v & ((1ull << (sz * 8)) - 1) : v;
	}
	if (neg)
		d = -d;
	if (ty == PT_F64) {
		memcpy(&v, &d, 8);
		return v;
	}
	if (ty == PT_F32 || !type_is_float(ty)) {
		if (!type_is_float(ty) && is_float == 0)
			return v;
		float f = (float)d;
		uint32_t u;
		memcpy(&u, &f, 4);
		return u;
	}
	return v;
}

/* ---- the words of a mnemonic ------------------------------------------------------- */

void mw_split(const struct tok *t, struct mwords *mw)
{
	mw->n = 0;
	const char *s = t->p, *e = t->p + t->len;
	while (s < e && mw->n < 24) {
		const char *d = memchr(s, '.', (size_t)(e - s));
		size_t l = d ? (size_t)(d - s) : (size_t)(e - s);
		mw->w[mw->n] = s;
		mw->wl[mw->n++] = l;
		s += l + 1;
	}
}

int mw_is(const struct mwords *mw, int i, const char *s)
{
	return strlen(s) == mw->wl[i] && !memcmp(mw->w[i], s, mw->wl[i]);
}

int mw_has(const struct mwords *mw, const char *s)
{
	for (int i = 1; i < mw->n; i++)
		if (mw_is(mw, i, s))
			return 1;
	return 0;
}
