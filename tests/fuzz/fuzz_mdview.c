/* fuzz_mdview: Markdown (a lab's README) rendered to screen lines (ui/mdview.c, no
 * curses), at a narrow and a wide width, in Unicode and in ASCII glyphs. */
#include <stdlib.h>

#include "fuzz.h"
#include "glyph.h"
#include "mdview.h"
#include "sline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the first byte picks the width and the glyphs; the rest is the text */
	int width = size ? 20 + data[0] % 181 : 80;
	glyph_set_ascii(size && (data[0] & 0x80));
	const char *text = size ? (const char *)data + 1 : "";
	size_t len = size ? size - 1 : 0;
	struct sline_list out;
	sline_list_init(&out);
	mdview_render(text, len, width, &out);
	sline_list_release(&out);
	return 0;
}
