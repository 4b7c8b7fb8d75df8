/* app: the TUI's model of the session, shared by tui.c (which updates it) and the panels
 * (which read it and draw). Commands that change it (open a lab, run, edit, reset) are
 * app_* functions in tui.c, so panels never change the model behind the loop's back. */
#ifndef PMPPLAB_UI_APP_H
#define PMPPLAB_UI_APP_H

#include <stdbool.h>

#include "backend.h"
#include "job.h"
#include "keymap.h"
#include "labs.h"
#include "layout.h"
#include "panel.h"
#include "results.h"
#include "state.h"
#include "watch.h"

struct app {
	char *ws;                /* workspace folder (absolute) */
	char *labs_dir;
	enum backend_kind backend;
	struct lab_list labs;
	struct ui_state state;
	char *state_path;
	struct layout layout;
	bool mono, ascii;

	enum keymap_view view;
	enum keymap_view help_return; /* the view help goes back to */
	struct panel *list_panel, *lab_panel, *help_panel;
	struct panel *inspect_panel; /* issue 7: occupancy, warps, memory (VIEW_INSPECT) */
	unsigned selected;       /* index into labs */

	/* The open lab (lab view), or NULL. */
	const struct lab_spec *open;
	char *student_path;
	struct watch *watch;

	/* Grading. */
	struct job *job;
	const struct lab_spec *job_lab; /* the lab the running job grades */
	struct results_run run;
	struct report *partial;  /* the tests of the running job so far (issue 16) */
	bool rerun_pending, rerun_quick;
	/* The inputs' seed of every quick run of this session (issue 16): with the same
	 * inputs, each save's expected outputs and the solution's counted figures are the
	 * grader's kept ones, computed at the first save. g grades with a fresh seed. */
	uint64_t quick_seed;
	const struct lab_spec *rerun_lab; /* the lab the queued run grades */
	/* The latest result, for report_lab. */
	const struct lab_spec *report_lab;
	struct report *report;
	struct results_run timing; /* the phases of the run that made report */
	bool report_quick;
	double elapsed_ms;
	struct diag_list errors;

	/* A note the results pane keeps on top for lab notice_lab (the reset's backup), which
	 * the run that follows does not replace as it does the status line. */
	char notice[512];
	const struct lab_spec *notice_lab;
	char *trace_path;        /* the emulator's trace ($PMPPLAB_TRACE) */

	char status[512];
	enum ui_role status_role;
	bool confirm_reset;
	unsigned spin;           /* spinner frame while a job runs */
};

/* The selected lab in the list. */
const struct lab_spec *app_selected(const struct app *a);
/* Opens the lab view on lab index I. */
void app_open_lab(struct app *a, unsigned i);
/* Back to the list from the lab view. */
void app_close_lab(struct app *a);
/* A one-line status message. */
void app_status(struct app *a, enum ui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The state of a lab (never NULL). */
struct lab_state *app_lab_state(struct app *a, const struct lab_spec *spec);

#endif
