/* inspect_panel: the occupancy / warps / memory panel (issue 7). Kept apart from panel.h
 * (the TUI's) so the two can change independently. */
#ifndef PMPPLAB_UI_INSPECT_PANEL_H
#define PMPPLAB_UI_INSPECT_PANEL_H

struct app;
struct panel;

/* The panel; TRACE_PATH is the file $PMPPLAB_TRACE names for the runs the TUI starts
 * (may be NULL: the live tabs then say tracing is off). Free with panel_destroy. */
struct panel *inspect_panel_new(struct app *app, const char *trace_path);
/* Shows tab TAB (0 occupancy, 1 warps, 2 memory). */
void inspect_panel_show(struct panel *p, int tab);

#endif
