/* utf8: decoding and measuring UTF-8. See utf8.h. */
#include "utf8.h"

#include <wchar.h>

size_t utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	if (n == 0) {
		*cp = 0;
		return 0;
	}
	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	size_t len;
	uint32_t c;
	if ((u[0] & 0xe0) == 0xc0) {
		len = 2;
		c = u[0] & 0x1f;
	} else if ((u[0] & 0xf0) == 0xe0) {
		len = 3;
		c = u[0] & 0x0f;
	} else if ((u[0] & 0xf8) == 0xf0) {
		len = 4;
		c = u[0] & 0x07;
	} else {
		goto invalid;
	}
	if (len > n)
		goto invalid;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			goto invalid;
		c = (c << 6) | (u[i] & 0x3f);
	}
	/* Overlong forms and surrogates are as invalid as bad bytes. */
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto invalid;
	*cp = c;
	return len;
invalid:
	*cp = 0xfffd;
	return 1;
}

size_t utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int utf8_cp_width(uint32_t cp)
{
	if (cp < 0x20 || cp == 0x7f)
		return 0;
	if (cp < 0x7f)
		return 1;
	/* wcwidth knows the tables when the locale is UTF-8; in an ASCII locale it answers
	 * -1 for everything, and the caller shows a one-cell fallback instead. */
	int w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;
}

int utf8_width(const char *s, size_t n)
{
	int w = 0;
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		i += utf8_decode(s + i, n - i, &cp);
		w += utf8_cp_width(cp);
	}
	return w;
}

size_t utf8_fit(const char *s, size_t n, int cols)
{
	int w = 0;
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		size_t len = utf8_decode(s + i, n - i, &cp);
		int cw = utf8_cp_width(cp);
		if (w + cw > cols)
			break;
		w += cw;
		i += len;
	}
	return i;
}

/* Common typography in readings and compiler messages, spelled in ASCII. */
static const struct {
	uint32_t cp;
	const char *ascii;
} fallbacks[] = {
	{0x00a0, " "},   {0x00b7, "."},  {0x00d7, "x"},  {0x2010, "-"},  {0x2011, "-"},
	{0x2013, "-"},   {0x2014, "--"}, {0x2018, "'"},  {0x2019, "'"},  {0x201c, "\""},
	{0x201d, "\""},  {0x2022, "*"},  {0x2026, "..."}, {0x2190, "<-"}, {0x2192, "->"},
	{0x21d2, "=>"},  {0x2212, "-"},  {0x2248, "~"},  {0x2260, "!="}, {0x2264, "<="},
	{0x2265, ">="},  {0x2500, "-"},  {0x2502, "|"},  {0x253c, "+"},  {0x2550, "="},
	{0x2713, "+"},   {0x2714, "+"},  {0x2717, "x"},  {0x2718, "x"},  {0x25cb, "o"},
	{0x25cf, "*"},   {0x25b8, ">"},  {0x2264, "<="}, {0x00b2, "^2"}, {0x03bc, "u"},
};

const char *utf8_ascii_fallback(uint32_t cp)
{
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
		if (fallbacks[i].cp == cp)
			return fallbacks[i].ascii;
	return "?";
}
