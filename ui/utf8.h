/* utf8: the little of UTF-8 the screen models need: decoding, display width, and an
 * ASCII fallback for terminals and locales that cannot show anything else. Models work
 * in UTF-8 bytes and measure in terminal cells; they never include curses. */
#ifndef PMPPLAB_UI_UTF8_H
#define PMPPLAB_UI_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes one code point at S (N bytes available). Returns the bytes used (1..4) and
 * sets *cp; an invalid or truncated sequence uses 1 byte and yields U+FFFD. */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Appends the UTF-8 encoding of CP to OUT (room for 4 bytes). Returns the bytes written. */
size_t utf8_encode(uint32_t cp, char *out);
/* Terminal cells taken by CP: 0 (combining, controls), 1 or 2 (East Asian wide). */
int utf8_cp_width(uint32_t cp);
/* Cells taken by the first N bytes of S. */
int utf8_width(const char *s, size_t n);
/* Byte length of the longest prefix of S (N bytes) that fits in COLS cells. */
size_t utf8_fit(const char *s, size_t n, int cols);
/* An ASCII spelling of a non-ASCII code point ("--" for an em dash, "->" for an arrow),
 * or "?" when there is none. */
const char *utf8_ascii_fallback(uint32_t cp);

#endif
