/* mdview: Markdown (a lab's README, the help page) turned into styled screen lines for
 * a given width, with md4c. Headings are underlined, emphasis and code get roles, lists
 * get bullets or numbers with hanging indents, code blocks keep their lines (a line too
 * wide is cut, its last cell a marker), tables are laid out in aligned columns (a cell too
 * long for its column wraps inside it). A pure model: no curses; re-render on resize. */
#ifndef PMPPLAB_UI_MDVIEW_H
#define PMPPLAB_UI_MDVIEW_H

#include <stddef.h>

#include "sline.h"

/* Renders LEN bytes of Markdown for a screen WIDTH cells wide (at least 20 is used),
 * appending lines to OUT. Returns 0, or -EINVAL when md4c rejects the input (OUT then
 * holds what was rendered before the error). Glyphs follow glyph_ascii(). */
int mdview_render(const char *text, size_t len, int width, struct sline_list *out);

#endif
