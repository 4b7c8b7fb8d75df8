/* app: the TUI's model of the session, shared by tui.c and app.c (which update it) and the
 * panels (which read it and draw). Commands that change it (open a lab, run, edit, reset) are
 * app_* functions in app.c, so panels never change the model behind the loop's back. */
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

/* The loop's commands (tui.c). */
/* Saves the labs' state; says so on the status line when it cannot. */
void app_save_state(struct app *a);
/* On the list, a save of any lab's file runs that lab (issue 18): the watch's files are
 * the labs, in order (watch_add keeps the indices of folders it cannot watch). */
void app_watch_list(struct app *a);
/* Runs the open lab, or opens the selected one from the list and runs it (r, g). */
void app_run(struct app *a, bool quick);
/* A save the watch saw: the open lab's file, or on the list lab INDEX's. */
void app_saved(struct app *a, int index);
/* A progress message from the job: update the checklist and the status line. */
void app_progress(struct app *a, const struct job_event *ev);
/* The job finished: keep its report, record the result, and start a queued run. */
void app_done(struct app *a, struct job_event *ev);
/* Opens the student's file in their editor, curses suspended, at the first error;
 * TTY_STDERR: the terminal's stderr (the loop's is tui.log). */
void app_edit(struct app *a, int tty_stderr);
/* Shows the open lab's next hint. */
void app_hint(struct app *a);
/* Resets the open (or selected) lab's file to its starter, keeping a backup. */
void app_reset(struct app *a);

#endif
