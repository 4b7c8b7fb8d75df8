/* glyph: the symbol table in two spellings. See glyph.h. */
#include "glyph.h"

#include <string.h>
#include <strings.h>

static const char *const glyphs_utf8[] = {
#define UI_GLYPH_UTF8(name, u, a) [GLYPH_##name] = u,
	UI_GLYPHS(UI_GLYPH_UTF8)
#undef UI_GLYPH_UTF8
};

static const char *const glyphs_ascii[] = {
#define UI_GLYPH_ASCII(name, u, a) [GLYPH_##name] = a,
	UI_GLYPHS(UI_GLYPH_ASCII)
#undef UI_GLYPH_ASCII
};

static bool use_ascii;

void glyph_set_ascii(bool ascii)
{
	use_ascii = ascii;
}

bool glyph_ascii(void)
{
	return use_ascii;
}

const char *glyph(enum glyph g)
{
	return use_ascii ? glyphs_ascii[g] : glyphs_utf8[g];
}

bool glyph_detect_ascii(const char *codeset, const char *term, const char *force)
{
	if (force && *force && strcmp(force, "0") != 0)
		return true;
	if (!codeset || (strcasecmp(codeset, "UTF-8") != 0 && strcasecmp(codeset, "utf8") != 0))
		return true;
	/* vt100/vt220 and friends have no Unicode glyphs whatever the locale says. */
	if (term && (strncmp(term, "vt1", 3) == 0 || strncmp(term, "vt2", 3) == 0 ||
		     strcmp(term, "dumb") == 0))
		return true;
	return false;
}
