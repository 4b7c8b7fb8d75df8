/* sline: styled lines. See sline.h. */
#include "sline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glyph.h"
#include "utf8.h"
#include "xmem.h"

static const char *const role_names[] = {
#define UI_ROLE_NAME(name) [ROLE_##name] = #name,
	UI_ROLES(UI_ROLE_NAME)
#undef UI_ROLE_NAME
};

const char *role_name(enum ui_role r)
{
	return r < ROLE_COUNT ? role_names[r] : "?";
}

void sline_list_init(struct sline_list *l)
{
	memset(l, 0, sizeof(*l));
}

void sline_list_release(struct sline_list *l)
{
	if (!l)
		return;
	for (unsigned i = 0; i < l->n; i++) {
		free(l->lines[i].text);
		free(l->lines[i].spans);
	}
	free(l->lines);
	sline_list_init(l);
}

struct sline *sline_list_add(struct sline_list *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->lines = xrealloc(l->lines, l->cap * sizeof(*l->lines));
	}
	struct sline *s = &l->lines[l->n++];
	memset(s, 0, sizeof(*s));
	s->cap = 16;
	s->text = xmalloc(s->cap);
	s->text[0] = '\0';
	return s;
}

struct sline *sline_list_addf(struct sline_list *l, enum ui_role role, const char *fmt, ...)
{
	va_list ap;
	char *text;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = xstrdup("");
	va_end(ap);
	struct sline *s = sline_list_add(l);
	sline_puts(s, role, text);
	free(text);
	return s;
}

void sline_list_take(struct sline_list *to, struct sline_list *from)
{
	for (unsigned i = 0; i < from->n; i++) {
		struct sline *s = sline_list_add(to);
		free(s->text);
		*s = from->lines[i];
	}
	free(from->lines);
	sline_list_init(from);
}

static void sline_raw(struct sline *l, enum ui_role role, const char *text, size_t n)
{
	if (n == 0)
		return;
	if (l->len + n + 1 > l->cap) {
		while (l->len + n + 1 > l->cap)
			l->cap *= 2;
		l->text = xrealloc(l->text, l->cap);
	}
	memcpy(l->text + l->len, text, n);
	struct sline_span *last = l->n_spans ? &l->spans[l->n_spans - 1] : NULL;
	if (last && last->role == role && last->start + last->len == l->len) {
		last->len += n;
	} else {
		if (l->n_spans == l->cap_spans) {
			l->cap_spans = l->cap_spans ? 2 * l->cap_spans : 4;
			l->spans = xrealloc(l->spans, l->cap_spans * sizeof(*l->spans));
		}
		l->spans[l->n_spans++] = (struct sline_span){l->len, n, role};
	}
	l->len += n;
	l->text[l->len] = '\0';
}

void sline_append(struct sline *l, enum ui_role role, const char *text, size_t n)
{
	if (!glyph_ascii()) {
		sline_raw(l, role, text, n);
		return;
	}
	/* ASCII mode: copy runs of ASCII as they are, spell the rest with fallbacks. */
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && (unsigned char)text[j] < 0x80)
			j++;
		sline_raw(l, role, text + i, j - i);
		if (j == n)
			break;
		uint32_t cp;
		size_t used = utf8_decode(text + j, n - j, &cp);
		const char *fb = utf8_ascii_fallback(cp);
		sline_raw(l, role, fb, strlen(fb));
		i = j + used;
	}
}

void sline_puts(struct sline *l, enum ui_role role, const char *text)
{
	sline_append(l, role, text, strlen(text));
}

void sline_printf(struct sline *l, enum ui_role role, const char *fmt, ...)
{
	va_list ap;
	char *text;
	va_start(ap, fmt);
	int rc = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return;
	sline_append(l, role, text, (size_t)rc);
	free(text);
}

int sline_width(const struct sline *l)
{
	return utf8_width(l->text, l->len);
}

enum ui_role sline_role_at(const struct sline *l, size_t off)
{
	for (unsigned i = 0; i < l->n_spans; i++)
		if (off >= l->spans[i].start && off < l->spans[i].start + l->spans[i].len)
			return l->spans[i].role;
	return ROLE_NORMAL;
}

bool sline_cut(struct sline *l, int width)
{
	if (sline_width(l) <= width)
		return false;
	const char *el = glyph(GLYPH_ELLIPSIS);
	int ew = utf8_width(el, strlen(el));
	size_t keep = utf8_fit(l->text, l->len, width > ew ? width - ew : 0);
	enum ui_role role = sline_role_at(l, keep);
	unsigned n = 0;
	while (n < l->n_spans && l->spans[n].start < keep) {
		struct sline_span *sp = &l->spans[n++];
		if (sp->start + sp->len > keep)
			sp->len = keep - sp->start;
	}
	l->n_spans = n;
	l->len = keep;
	l->text[keep] = '\0';
	if (width >= ew)
		sline_puts(l, role, el);
	return true;
}

void sline_list_wrap(struct sline_list *out, enum ui_role role, int indent, int width,
		     const char *text)
{
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		int lead = 0; /* a line's own indent stays, on its continuation lines too */
		while ((size_t)lead < n && p[lead] == ' ')
			lead++;
		int avail = width - indent - lead < 10 ? 10 : width - indent - lead;
		p += lead;
		n -= (size_t)lead;
		do {
			size_t fit = utf8_fit(p, n, avail);
			if (fit < n) {
				size_t sp = fit;
				while (sp > 0 && p[sp] != ' ')
					sp--;
				if (sp > 0)
					fit = sp;
			}
			struct sline *s = sline_list_add(out);
			if (indent + lead)
				sline_printf(s, ROLE_NORMAL, "%*s", indent + lead, "");
			sline_append(s, role, p, fit);
			p += fit;
			n -= fit;
			while (n && *p == ' ') {
				p++;
				n--;
			}
		} while (n);
		p = eol ? eol + 1 : p;
	}
}
