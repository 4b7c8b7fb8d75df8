/* sline: styled screen lines, the output of every model that produces text (the
 * Markdown reading, the results checklist, the help page) and the only input of the
 * panels that draw them. A line is UTF-8 text plus spans that give byte ranges a role.
 * In ASCII mode (glyph_ascii()) text is transliterated on the way in, so widths
 * measured here are the widths drawn. */
#ifndef PMPPLAB_UI_SLINE_H
#define PMPPLAB_UI_SLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "roles.h"

struct sline_span {
	size_t start, len; /* bytes of text */
	enum ui_role role;
};

struct sline {
	char *text; /* NUL-terminated */
	size_t len, cap;
	struct sline_span *spans;
	unsigned n_spans, cap_spans;
};

struct sline_list {
	struct sline *lines;
	unsigned n, cap;
};

void sline_list_init(struct sline_list *l);
void sline_list_release(struct sline_list *l);
/* Appends an empty line and returns it (valid until the next add). */
struct sline *sline_list_add(struct sline_list *l);
/* Appends a line holding TEXT in ROLE. */
struct sline *sline_list_addf(struct sline_list *l, enum ui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Moves every line of FROM to the end of TO, leaving FROM empty. */
void sline_list_take(struct sline_list *to, struct sline_list *from);

/* Appends N bytes of TEXT in ROLE, merging with the last span when the role is the same. */
void sline_append(struct sline *l, enum ui_role role, const char *text, size_t n);
void sline_puts(struct sline *l, enum ui_role role, const char *text);
void sline_printf(struct sline *l, enum ui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Cuts L to at most WIDTH cells. Text that did not fit ends in an ellipsis glyph (in the
 * role of the text it replaces), so a reader sees that something is missing. Returns
 * true when L was cut. */
bool sline_cut(struct sline *l, int width);
/* Appends TEXT (lines separated by '\n') word-wrapped to WIDTH cells in ROLE, each
 * screen line after INDENT spaces; a line of TEXT that starts with spaces keeps them,
 * on its continuation lines too; a word longer than a line is split. */
void sline_list_wrap(struct sline_list *out, enum ui_role role, int indent, int width,
		     const char *text);
/* Display width in terminal cells. */
int sline_width(const struct sline *l);
/* The role of the byte at offset OFF (ROLE_NORMAL outside every span). */
enum ui_role sline_role_at(const struct sline *l, size_t off);

#endif
