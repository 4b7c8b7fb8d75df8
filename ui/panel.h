/* panel: the one small vtable every panel fills with designated initialisers (htop's
 * PanelClass). Panels read the app model and draw; key handling returns ACTION_* flags;
 * resize is called from the one place that handles KEY_RESIZE. */
#ifndef PMPPLAB_UI_PANEL_H
#define PMPPLAB_UI_PANEL_H

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

static inline void panel_destroy(struct panel *p)
{
	if (p)
		p->cls->destroy(p);
}

#endif
