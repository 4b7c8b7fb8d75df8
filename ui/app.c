/* app: the commands that change the TUI's model (app.h): open and close a lab, run and
 * grade it, take the job's progress and result, edit, hint, reset. The loop (tui.c) and
 * the panels call them; only they change the model, so the panels never change it
 * behind the loop's back. */
#include "app.h"

#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "editor.h"
#include "fsutil.h"
#include "grade.h"
#include "livetrace.h"
#include "tracetag.h"
#include "workspace.h"

const struct lab_spec *app_selected(const struct app *a)
{
	return a->selected < a->labs.n ? a->labs.labs[a->selected] : NULL;
}

void app_status(struct app *a, enum ui_role role, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->status, sizeof(a->status), fmt, ap);
	va_end(ap);
	a->status_role = role;
}

struct lab_state *app_lab_state(struct app *a, const struct lab_spec *spec)
{
	return state_lab(&a->state, spec->id);
}

void app_save_state(struct app *a)
{
	int rc = state_save(&a->state, a->state_path);
	if (rc < 0)
		app_status(a, ROLE_FAIL, "Could not save %s: %s. Progress is kept in memory.",
			   a->state_path, strerror(-rc));
}

/* On the list, a save of any lab's file runs that lab (issue 18): the watch's files are
 * the labs, in order (watch_add keeps the indices of folders it cannot watch). */
void app_watch_list(struct app *a)
{
	watch_free(a->watch);
	a->watch = watch_new();
	for (unsigned i = 0; a->watch && i < a->labs.n; i++) {
		char *file = workspace_student_file(a->ws, a->labs.labs[i]);
		watch_add(a->watch, file ? file : "");
		free(file);
	}
}

void app_open_lab(struct app *a, unsigned i)
{
	const struct lab_spec *spec = a->labs.labs[i];
	a->selected = i;
	a->open = spec;
	free(a->student_path);
	a->student_path = workspace_student_file(a->ws, spec);
	watch_free(a->watch);
	a->watch = a->student_path ? watch_new() : NULL;
	if (a->watch && watch_add(a->watch, a->student_path) < 0) {
		int err = errno;
		watch_free(a->watch);
		a->watch = NULL;
		errno = err;
	}
	a->view = VIEW_LAB;
	if (a->notice_lab != spec)
		a->notice_lab = NULL;
	lab_panel_open(a->lab_panel);
	state_set_selected(&a->state, spec->id);
	app_save_state(a);
	if (a->watch)
		app_status(a, ROLE_STATUS, "Watching %s: every save runs the lab again.",
			   a->student_path);
	else
		app_status(a, ROLE_WARN, "Cannot watch %s (%s); press r after saving.",
			   a->student_path ? a->student_path : spec->id, strerror(errno));
}

void app_close_lab(struct app *a)
{
	app_watch_list(a);
	a->open = NULL;
	a->view = VIEW_LIST;
	a->notice_lab = NULL;
	app_status(a, ROLE_STATUS, "%s", "");
}

/* Before a run: the old trace goes, and a tag says which lab and which version of its
 * file the new one will be of (tracetag.h), so the panels never show another lab's. */
static void app_tag_trace(struct app *a, const struct lab_spec *spec, const char *file)
{
	if (!a->trace_path)
		return;
	char *tag_path = tracetag_path(a->trace_path);
	char *runs = livetrace_runs_path(a->trace_path);
	struct tracetag tag;
	unlink(a->trace_path);
	if (runs)
		unlink(runs); /* which run wrote the trace: the grader notes it again (issue 18) */
	free(runs);
	if (tracetag_of_file(&tag, spec->id, file) < 0 ||
	    tracetag_write(tag_path, &tag) < 0)
		unlink(tag_path); /* no tag: the panels show no trace rather than a wrong one */
	free(tag_path);
}

/* Starts grading lab SPEC (its file in the workspace), whatever the view. */
static void app_grade(struct app *a, const struct lab_spec *spec, bool quick)
{
	if (job_busy(a->job)) {
		/* Issue 16: what runs is about the file as it was; the new run replaces it. */
		a->rerun_pending = true;
		a->rerun_quick = quick;
		a->rerun_lab = spec;
		job_stop(a->job);
		app_status(a, ROLE_STATUS, "Stopping the run that is going; the new one starts next.");
		return;
	}
	char *file = workspace_student_file(a->ws, spec);
	struct grade_opts opts = {
		.backend = a->backend,
		.submission = file,
		.quick = quick,
		.seed = quick ? a->quick_seed : 0,
		/* on a GPU, grading also measures the kernels with ncu for the memory panel */
		.profile = !quick && backend_resolve(a->backend) == BACKEND_GPU,
		/* a save's quick run: the PTX by NVRTC, ten times faster than nvcc, the same
		 * verdicts; g grades as --grade does, with nvcc (build.h) */
		.ptx = quick ? BUILD_PTX_NVRTC : BUILD_PTX_NVCC,
	};
	app_tag_trace(a, spec, file);
	int rc = job_start(a->job, spec, &opts);
	if (rc < 0) {
		app_status(a, ROLE_FAIL, "Could not start grading: %s", strerror(-rc));
		free(file);
		return;
	}
	a->job_lab = spec;
	report_free(a->partial);
	a->partial = report_new(spec->id, file, "", 0);
	free(file);
	results_run_start(&a->run, quick);
	lab_panel_show_results(a->lab_panel);
	app_status(a, ROLE_RUNNING, "%s %s%s", quick ? "Quick run of" : "Grading", spec->id,
		   a->open == spec ? "" : " (its file was saved)");
}

/* Runs the open lab, or opens the selected one from the list and runs it (r, g). */
void app_run(struct app *a, bool quick)
{
	if (!a->open && app_selected(a))
		app_open_lab(a, a->selected);
	if (a->open)
		app_grade(a, a->open, quick);
}

/* A save the watch saw: the open lab's file, or on the list lab INDEX's. */
void app_saved(struct app *a, int index)
{
	if (a->open)
		app_grade(a, a->open, true);
	else if ((unsigned)index < a->labs.n)
		app_grade(a, a->labs.labs[index], true);
}

/* A progress message from the job: update the checklist and the status line. */
void app_progress(struct app *a, const struct job_event *ev)
{
	const struct grade_progress *p = &ev->progress;
	results_run_progress(&a->run, p, ev->at_ms);
	if (p->stage == GRADE_STAGE_DONE)
		a->run.running = true; /* until the result itself arrives */
	switch (p->stage) {
	case GRADE_STAGE_BUILD:
		app_status(a, ROLE_RUNNING, "Building %s with nvcc", p->what ? p->what : "");
		break;
	case GRADE_STAGE_REFERENCE:
		app_status(a, ROLE_RUNNING, "Computing the expected outputs");
		break;
	case GRADE_STAGE_DATASET:
		app_status(a, ROLE_RUNNING, "Running dataset %u of %u: %s", p->index + 1, p->count,
			   p->what ? p->what : "");
		break;
	case GRADE_STAGE_CHECK:
		app_status(a, ROLE_RUNNING, "Checking: %s", p->what ? p->what : "");
		break;
	case GRADE_STAGE_RESULT: /* issue 16: shown in the results pane as it comes */
		if (ev->test && a->partial) {
			const struct report_test *t = ev->test;
			struct report_test *c = report_add(a->partial, t->name, t->max_score,
							   t->status == TEST_PASSED, "%s",
							   t->output ? t->output : "");
			if (c)
				c->score = t->score;
		}
		break;
	case GRADE_STAGE_DONE: break;
	}
}

/* The job finished: keep its report, record the result, and start a queued run. */
void app_done(struct app *a, struct job_event *ev)
{
	const struct lab_spec *spec = a->job_lab;
	struct grade_progress done = { .stage = GRADE_STAGE_DONE };
	results_run_progress(&a->run, &done, ev->at_ms);
	report_free(a->partial);
	a->partial = NULL;
	if (ev->rc == -ECANCELED) { /* stopped for a newer run (job_stop): nothing to keep */
		report_free(ev->report);
		diag_list_release(&ev->diags);
		if (a->rerun_pending) {
			a->rerun_pending = false;
			app_grade(a, a->rerun_lab, a->rerun_quick);
		}
		return;
	}
	a->timing = a->run;
	char t[160];
	results_run_timing(&a->run, t, sizeof(t));
	/* stderr is tui.log while the screen is up: a record for bench/ui_feedback.sh. */
	fprintf(stderr, "pmpplab: %s %s: %.0f ms: %s", spec->id,
		ev->quick ? "quick run" : "grade", ev->elapsed_ms, t);
	if (a->run.first_result_ms > 0)
		fprintf(stderr, ", first result %.2f s", a->run.first_result_ms / 1000);
	if (ev->report && ev->report->build_host_reused)
		fprintf(stderr, " (%s PTX %.2f s, program reused)", ev->report->build_nvrtc ? "NVRTC" : "nvcc",
			ev->report->build_ms_ptx / 1000);
	else if (ev->report && ev->report->build_ms_host > 0)
		fprintf(stderr, " (nvcc program %.2f s, PTX %.2f s)", ev->report->build_ms_host / 1000,
			ev->report->build_ms_ptx / 1000);
	if (ev->report)
		fprintf(stderr, ", seed %llu", (unsigned long long)ev->report->seed);
	fputc('\n', stderr);
	report_free(a->report);
	diag_list_release(&a->errors);
	a->report = ev->report;
	a->errors = ev->diags;
	a->report_quick = ev->quick;
	a->elapsed_ms = ev->elapsed_ms;
	a->report_lab = spec;
	if (ev->rc < 0 || !ev->report) {
		app_status(a, ROLE_FAIL, "%s could not be graded: see the results pane.", spec->id);
	} else {
		bool passed = report_passed(ev->report);
		state_record(app_lab_state(a, spec), report_score(ev->report),
			     report_max_score(ev->report), passed, ev->quick);
		app_save_state(a);
		app_status(a, passed ? ROLE_PASS : ROLE_FAIL, "%s %s: %g/%g in %.2f s%s%s", spec->id,
			   passed ? "passed" : "failed", report_score(ev->report),
			   report_max_score(ev->report), ev->elapsed_ms / 1000,
			   passed && ev->quick ? "; g grades in full" : "",
			   ev->report->sandboxed ? "" : " (not sandboxed)");
	}
	if (a->rerun_pending) {
		a->rerun_pending = false;
		app_grade(a, a->rerun_lab, a->rerun_quick);
	}
}

/* Opens the student's file in their editor, curses suspended, at the first error. */
void app_edit(struct app *a, int tty_stderr)
{
	const struct lab_spec *spec = a->open ? a->open : app_selected(a);
	if (!spec)
		return;
	char *file = workspace_student_file(a->ws, spec);
	unsigned line = a->report_lab == spec ? results_first_error_line(a->report, file) : 0;
	char **argv = editor_argv(getenv("VISUAL"), getenv("EDITOR"), editor_on_path, file, line);
	if (!argv) {
		app_status(a, ROLE_FAIL, "No editor found: set $EDITOR (or install nano).");
		free(file);
		return;
	}
	def_prog_mode();
	endwin();
	int log_fd = dup(STDERR_FILENO);
	dup2(tty_stderr, STDERR_FILENO);
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "pmpplab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status = 0;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	dup2(log_fd, STDERR_FILENO);
	close(log_fd);
	reset_prog_mode();
	clearok(curscr, TRUE);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 127)
		app_status(a, ROLE_FAIL, "The editor (%s) did not run: set $EDITOR.", argv[0]);
	else
		app_status(a, ROLE_STATUS, "Back from %s.", argv[0]);
	editor_argv_free(argv);
	free(file);
}

void app_hint(struct app *a)
{
	if (!a->open)
		return;
	struct lab_state *st = app_lab_state(a, a->open);
	if (st->hints >= a->open->hints_count) {
		app_status(a, ROLE_STATUS, "%s",
			   a->open->hints_count ? "Every hint is shown."
						: "This lab has no hints.");
		return;
	}
	st->hints++;
	app_save_state(a);
	lab_panel_show_hint(a->lab_panel, st->hints);
	app_status(a, ROLE_HINT, "Hint %u of %u shown in the results pane.", st->hints,
		   a->open->hints_count);
}

void app_reset(struct app *a)
{
	const struct lab_spec *spec = a->open ? a->open : app_selected(a);
	if (!spec)
		return;
	struct diag_list d;
	diag_list_init(&d);
	char *backup = NULL;
	int rc = workspace_reset_lab(a->ws, spec, &backup, &d);
	if (rc < 0) {
		app_status(a, ROLE_FAIL, "Reset failed: %s", d.n ? d.items[0].message : strerror(-rc));
	} else {
		const char *name = backup ? fs_base_name(backup) : NULL;
		if (name)
			snprintf(a->notice, sizeof(a->notice),
				 "Reset to the starter. Your file is kept as %s/%s.", spec->id, name);
		else
			snprintf(a->notice, sizeof(a->notice), "Reset to the starter.");
		/* The status line gives way to the run the reset triggers; the results pane
		 * keeps the note until the lab is closed. */
		a->notice_lab = spec;
		app_status(a, ROLE_STATUS, "%s: %s", spec->id, a->notice);
	}
	free(backup);
	diag_list_release(&d);
}
