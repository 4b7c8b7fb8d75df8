/* glyph: every non-letter symbol the UI draws, in a Unicode and an ASCII spelling. The
 * ASCII column is used in non-UTF-8 locales and on terminals such as vt100 that cannot
 * draw more, so pmpplab stays usable on anything. */
#ifndef PMPPLAB_UI_GLYPH_H
#define PMPPLAB_UI_GLYPH_H

#include <stdbool.h>

/*       name      Unicode   ASCII    what it marks */
#define UI_GLYPHS(X)                                                             \
	X(BULLET1,  "\u2022", "*")    /* top-level list item */                 \
	X(BULLET2,  "\u25e6", "-")    /* nested list item */                    \
	X(RULE,     "\u2500", "-")    /* horizontal rules, H2 underline */      \
	X(RULE2,    "\u2550", "=")    /* H1 underline */                        \
	X(VBAR,     "\u2502", "|")    /* table column separator, quote bar */   \
	X(CROSS,    "\u253c", "+")    /* table header separator crossing */     \
	X(PASS,     "\u2714", "+")    /* passed check */                        \
	X(FAIL,     "\u2718", "x")    /* failed check */                        \
	X(PENDING,  "\u25cb", ".")    /* check not run yet */                   \
	X(DONE,     "\u25cf", "o")    /* step finished, verdict still to come */ \
	X(RUNNING,  "\u25b8", ">")    /* check running now */                   \
	X(SKIPPED,  "-",      "-")    /* check not measured (quick run, emu) */ \
	X(ELLIPSIS, "\u2026", "~")    /* text cut to fit */                     \
	X(CUT,      "\u00bb", "$")    /* a code line goes on past the screen */ \
	X(ARROW,    "\u2192", "->")   /* "goes to" in status lines */           \
	X(SEP,      "\u00b7", "|")    /* separator in the title bar */          \
	X(CARET,    "^",      "^")    /* column under a compiler error */

enum glyph {
#define UI_GLYPH_ENUM(name, u, a) GLYPH_##name,
	UI_GLYPHS(UI_GLYPH_ENUM)
#undef UI_GLYPH_ENUM
	GLYPH_COUNT
};

/* Picks the spelling used from now on: ASCII when ascii is true. */
void glyph_set_ascii(bool ascii);
bool glyph_ascii(void);
/* The glyph's text in the current spelling. */
const char *glyph(enum glyph g);
/* Whether the terminal can show more than ASCII: the locale's codeset is UTF-8 and TERM
 * is not a hardware-era terminal (vt100, vt220, linux console without UTF-8). TERM may
 * be NULL. PMPPLAB_ASCII=1 forces ASCII. */
bool glyph_detect_ascii(const char *codeset, const char *term, const char *force);

#endif
