/* panel: the one small vtable every panel fills with designated initialisers (htop's
 * PanelClass). Panels read the app model and draw; key handling returns ACTION_* flags;
 * resize is called from the one place that handles KEY_RESIZE. */
#ifndef PMPPLAB_UI_PANEL_H
#define PMPPLAB_UI_PANEL_H

#include <stddef.h>

#include "keymap.h"
#include "layout.h"

struct app;
struct panel;

struct panel_class {
	const char *name;
	void (*draw)(struct panel *p);
	unsigned (*key)(struct panel *p, enum ui_action action, int key);
	void (*resize)(struct panel *p, const struct layout *l);
	void (*destroy)(struct panel *p);
};

struct panel {
	const struct panel_class *cls;
	struct app *app;
};

/* The panels; each returns a panel to be freed with panel_destroy. */
struct panel *list_panel_new(struct app *app);
struct panel *lab_panel_new(struct app *app);
struct panel *help_panel_new(struct app *app);
/* The lab panel: forget the reading (another lab was opened) and show the results tab. */
void lab_panel_open(struct panel *p);
void lab_panel_show_results(struct panel *p);
/* The lab panel: show the results tab scrolled so that hint HINT (1-based) is in view. */
void lab_panel_show_hint(struct panel *p, unsigned hint);

/* A lab's README.md: the workspace copy (the student may annotate it), else the lab's.
 * Returns its text (caller frees; not NUL-terminated) with *len set, or NULL. */
char *lab_readme(const struct app *a, const struct lab_spec *spec, size_t *len);

static inline void panel_destroy(struct panel *p)
{
	if (p)
		p->cls->destroy(p);
}

#endif
