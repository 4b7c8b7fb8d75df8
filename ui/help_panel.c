/* help_panel: the help screen: assets/help.md followed by the key table, which is
 * generated from keymap.c so the help can never disagree with the keys, and the panels'
 * keys from their model (inspect.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "draw.h"
#include "inspect.h"
#include "mdview.h"
#include "panel.h"
#include "pmpplab_config.h"
#include "xmem.h"

struct help_panel {
	struct panel base;
	struct sline_list lines;
	int width; /* lines are rendered for this width; 0 = not yet */
	unsigned scroll;
};

/* assets/NAME: $PMPPLAB_ASSETS, else the source tree's (running from a build), else the
 * installed one. Caller frees. */
static char *help_asset_path(const char *name)
{
	const char *env = getenv("PMPPLAB_ASSETS");
	const char *dirs[] = {env && *env ? env : NULL, PMPPLAB_SOURCE_ROOT "/assets",
			      PMPPLAB_DATADIR "/assets"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i])
			continue;
		char *p = xasprintf("%s/%s", dirs[i], name);
		struct stat st;
		if (stat(p, &st) == 0)
			return p;
		free(p);
	}
	return NULL;
}

/* The help text as Markdown: the page, then a table of every key. */
static char *help_markdown(size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	char *path = help_asset_path("help.md");
	FILE *f = path ? fopen(path, "r") : NULL;
	if (f) {
		char chunk[4096];
		size_t got;
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, got, out);
		fclose(f);
	} else {
		fprintf(out, "# pmpplab\n\nThe help page (assets/help.md) was not found; set "
			     "PMPPLAB_ASSETS to the folder holding it.\n");
	}
	free(path);
	fprintf(out, "\n\n## Keys\n\n| Keys | What they do |\n|---|---|\n");
	unsigned nb;
	const struct keymap_binding *b = keymap_table(&nb);
	for (int act = ACT_NONE + 1; act < ACT_COUNT; act++) {
		const char *doc = keymap_action_doc((enum ui_action)act);
		if (!*doc)
			continue;
		char keys[128] = "";
		for (unsigned i = 0; i < nb; i++) {
			if (b[i].action != (enum ui_action)act)
				continue;
			const char *name = keymap_key_name(b[i].key);
			if (strstr(keys, name) && strlen(name) > 1)
				continue;
			if (*keys)
				strncat(keys, ", ", sizeof(keys) - strlen(keys) - 1);
			strncat(keys, name, sizeof(keys) - strlen(keys) - 1);
		}
		fprintf(out, "| `%s` | %s |\n", keys, doc);
	}
	/* The panels (p, F8) have keys of their own, from their model. */
	unsigned np;
	const char *const(*pk)[2] = inspect_key_help(&np);
	fprintf(out, "\n## Keys in the panels\n\n| Keys | What they do |\n|---|---|\n");
	for (unsigned i = 0; i < np; i++)
		fprintf(out, "| `%s` | %s |\n", pk[i][0], pk[i][1]);
	fclose(out);
	*len = n;
	return buf;
}

static void help_draw(struct panel *p)
{
	struct help_panel *hp = (struct help_panel *)p;
	const struct rect *r = &p->app->layout.body;
	struct rect in = {r->y, r->x + 2, r->h, r->w - 4};
	if (hp->width != in.w) {
		sline_list_release(&hp->lines);
		size_t len;
		char *md = help_markdown(&len);
		mdview_render(md, len, in.w, &hp->lines);
		free(md);
		hp->width = in.w;
	}
	unsigned max = hp->lines.n > (unsigned)in.h ? hp->lines.n - (unsigned)in.h : 0;
	if (hp->scroll > max)
		hp->scroll = max;
	draw_fill(r, ROLE_NORMAL);
	draw_slines(&in, &hp->lines, hp->scroll);
}

static unsigned help_key(struct panel *p, enum ui_action action, int key)
{
	(void)key;
	struct help_panel *hp = (struct help_panel *)p;
	unsigned page = (unsigned)(p->app->layout.body.h > 2 ? p->app->layout.body.h - 2 : 1);
	switch (action) {
	case ACT_UP:
		hp->scroll = hp->scroll ? hp->scroll - 1 : 0;
		break;
	case ACT_DOWN:
		hp->scroll++;
		break;
	case ACT_PGUP:
		hp->scroll = hp->scroll > page ? hp->scroll - page : 0;
		break;
	case ACT_PGDN:
		hp->scroll += page;
		break;
	case ACT_HOME:
		hp->scroll = 0;
		break;
	case ACT_END:
		hp->scroll = 1u << 30;
		break;
	default:
		return 0;
	}
	return ACTION_HANDLED | ACTION_REDRAW;
}

static void help_resize(struct panel *p, const struct layout *l)
{
	(void)l;
	((struct help_panel *)p)->width = 0;
}

static void help_destroy(struct panel *p)
{
	struct help_panel *hp = (struct help_panel *)p;
	sline_list_release(&hp->lines);
	free(hp);
}

static const struct panel_class help_class = {
	.name = "help",
	.draw = help_draw,
	.key = help_key,
	.resize = help_resize,
	.destroy = help_destroy,
};

struct panel *help_panel_new(struct app *app)
{
	struct help_panel *hp = xcalloc(1, sizeof(*hp));
	hp->base = (struct panel){.cls = &help_class, .app = app};
	sline_list_init(&hp->lines);
	return &hp->base;
}
