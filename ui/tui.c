/* tui: the loop that ties the models, the panels and the terminal together.
 *
 * One thread owns the screen. It sleeps in poll() on the keyboard, the grading job's
 * pipe and the watch's inotify descriptor, applies what arrives to the app model, and
 * redraws when something changed. SIGWINCH interrupts poll(); curses then reports
 * KEY_RESIZE through getch(), and the one resize handler recomputes the layout. */
#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "datagen.h"
#include "draw.h"
#include "glyph.h"
#include "grade.h"
#include "inspect_panel.h" /* issue 7 */
#include "keyread.h"
#include "theme.h"
#include "workspace.h"
#include "xmem.h"

/* ---- drawing ---- */

/* The panel of the current view: the one drawn, and the first to see keys. */
static struct panel *tui_focused(struct app *a)
{
	switch (a->view) {
	case VIEW_HELP: return a->help_panel;
	case VIEW_LAB: return a->lab_panel;
	default: return a->list_panel;
	}
}

static void tui_draw_title(struct app *a)
{
	const struct rect *r = &a->layout.title;
	draw_fill(r, ROLE_TITLE);
	/* the backend on the right first: the title gets what is left, cut if need be */
	char right[128];
	snprintf(right, sizeof(right), "%s%s", backend_label(backend_resolve(a->backend)),
		 a->watch ? " watching" : "");
	int rw = (int)strlen(right);
	draw_text(r->y, r->w - rw - 1, rw, ROLE_TITLE, right);
	int x = draw_text(r->y, 1, r->w - 2, ROLE_TITLE, "pmpplab") + 1;
	int room = r->w - rw - x - 3; /* a space on each side of the cut */
	if (a->view == VIEW_HELP) {
		draw_text(r->y, x + 1, room, ROLE_TITLE, "help");
	} else if (a->open) {
		char *t = xasprintf("%s %s: %s (chapter %u)", glyph(GLYPH_SEP), a->open->id,
				    a->open->title ? a->open->title : "", a->open->chapter);
		draw_text_cut(r->y, x + 1, room, ROLE_TITLE, t);
		free(t);
	} else {
		char *t = xasprintf("%s %s", glyph(GLYPH_SEP), a->ws);
		draw_text_cut(r->y, x + 1, room, ROLE_TITLE, t);
		free(t);
	}
}

static void tui_draw_status(struct app *a)
{
	static const char spinner[] = "|/-\\";
	const struct rect *r = &a->layout.status;
	draw_fill(r, ROLE_NORMAL);
	int x = 1;
	if (job_busy(a->job)) {
		char s[2] = { spinner[a->spin % 4], 0 };
		x += draw_text(r->y, x, 2, ROLE_RUNNING, s) + 1;
	}
	if (a->confirm_reset) {
		const struct lab_spec *spec = a->open ? a->open : app_selected(a);
		char *q = xasprintf("Reset %s to its starter? Your file is kept as a backup. y/N",
				    spec ? spec->id : "");
		draw_text_cut(r->y, x, r->w - x - 1, ROLE_WARN, q);
		free(q);
		return;
	}
	draw_text_cut(r->y, x, r->w - x - 1, a->status_role, a->status);
}

static void tui_draw_keybar(struct app *a)
{
	const struct rect *r = &a->layout.keybar;
	draw_fill(r, ROLE_KEYLABEL);
	unsigned n;
	const struct keymap_binding *b = keymap_table(&n);
	int x = 0;
	for (unsigned i = 0; i < n && x < r->w; i++) {
		if (!b[i].label || !(b[i].views & a->view))
			continue;
		x += draw_text(r->y, x, r->w - x, ROLE_KEY, keymap_key_name(b[i].key));
		/* In 6 cells, and at least one space before the next key ("F8Panels F10"). */
		int w = (int)strlen(b[i].label);
		char label[16];
		snprintf(label, sizeof(label), "%-*s", w < 6 ? 6 : w + 1, b[i].label);
		x += draw_text(r->y, x, r->w - x, ROLE_KEYLABEL, label);
	}
}

static void tui_draw(struct app *a)
{
	erase();
	const struct layout *l = &a->layout;
	if (l->too_small) {
		char msg[96];
		snprintf(msg, sizeof(msg), "Terminal too small: %dx%d; pmpplab needs %dx%d.",
			 l->cols, l->rows, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
		draw_text(l->rows / 2, 0, l->cols, ROLE_WARN, msg);
		refresh();
		return;
	}
	tui_draw_title(a);
	struct panel *p = tui_focused(a);
	if (a->view == VIEW_INSPECT) /* issue 7 */
		p = a->inspect_panel;
	p->cls->draw(p);
	tui_draw_status(a);
	tui_draw_keybar(a);
	refresh();
}

/* The one place a new terminal size is taken in. */
static void tui_resize(struct app *a)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	layout_compute(&a->layout, cols, rows, a->labs.n);
	a->list_panel->cls->resize(a->list_panel, &a->layout);
	a->lab_panel->cls->resize(a->lab_panel, &a->layout);
	a->help_panel->cls->resize(a->help_panel, &a->layout);
	a->inspect_panel->cls->resize(a->inspect_panel, &a->layout); /* issue 7 */
	clearok(curscr, TRUE);
}

/* ---- input ---- */

struct tui_ctx {
	struct app *app;
	int tty_stderr;
};

/* What no panel handled: commands, navigation between views, quitting. */
static unsigned tui_global(void *ctx, enum ui_action action, int key)
{
	(void)key;
	struct tui_ctx *t = ctx;
	struct app *a = t->app;
	switch (action) {
	case ACT_QUIT: return ACTION_HANDLED | ACTION_QUIT;
	case ACT_HELP:
		if (a->view != VIEW_HELP) {
			a->help_return = a->view;
			a->view = VIEW_HELP;
		} else {
			a->view = a->help_return;
		}
		break;
	case ACT_BACK:
		if (a->view == VIEW_HELP)
			a->view = a->help_return;
		else if (a->view == VIEW_LAB)
			app_close_lab(a);
		else if (a->view == VIEW_INSPECT) /* issue 7: back to the lab */
			a->view = VIEW_LAB;
		break;
	case ACT_EDIT:
		app_edit(a, t->tty_stderr);
		tui_resize(a); /* the terminal may have changed size while the editor ran */
		break;
	case ACT_RUN:
	case ACT_GRADE: app_run(a, action == ACT_RUN); break;
	case ACT_HINT: app_hint(a); break;
	case ACT_INSPECT: /* issue 7: the panels of the open (or selected) lab */
		if (!a->open && app_selected(a))
			app_open_lab(a, a->selected);
		if (a->open)
			a->view = VIEW_INSPECT;
		break;
	case ACT_RESET: a->confirm_reset = true; break;
	case ACT_REDRAW: clearok(curscr, TRUE); break;
	case ACT_RESIZE: tui_resize(a); break;
	default: return 0;
	}
	return ACTION_HANDLED | ACTION_REDRAW;
}

static unsigned tui_panel_key(void *ctx, enum ui_action action, int key)
{
	struct panel *p = ctx;
	return p->cls->key(p, action, key);
}

/* KEY is a KEYMAP_* code (keyread_next). */
static unsigned tui_key(struct tui_ctx *t, int key)
{
	struct app *a = t->app;
	if (a->confirm_reset && key != KEYMAP_RESIZE) {
		a->confirm_reset = false;
		if (key == 'y' || key == 'Y')
			app_reset(a);
		else
			app_status(a, ROLE_STATUS, "Reset cancelled.");
		return ACTION_REDRAW;
	}
	struct panel *p = tui_focused(a);
	if (a->view == VIEW_INSPECT) /* issue 7 */
		p = a->inspect_panel;
	if (a->layout.too_small)
		p = NULL; /* nothing is shown to act on; quit and resize still work */
	return keymap_dispatch(key, a->view, p ? tui_panel_key : NULL, p, tui_global, t);
}

/* ---- setup and the loop ---- */

/* SIGINT, SIGTERM and SIGHUP end pmpplab cleanly: the handler only writes a byte to a
 * pipe that the loop polls, and the loop restores the terminal and saves the state. */
static int tui_signal_pipe[2] = { -1, -1 };

static void tui_on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	if (write(tui_signal_pipe[1], &b, 1) < 0) {
		/* the pipe is full: a quit is already pending */
	}
	errno = saved;
}

static void tui_catch_signals(void)
{
	if (pipe2(tui_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return;
	struct sigaction sa = { .sa_handler = tui_on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int tui_load(struct app *a, const char *ws, const char *labs_dir)
{
	struct diag_list d;
	diag_list_init(&d);
	int rc = labs_load(labs_dir, &a->labs, &d);
	if (rc < 0 || a->labs.n == 0) {
		fprintf(stderr, "pmpplab: no labs loaded from %s%s%s\n", labs_dir,
			rc < 0 ? ": " : "", rc < 0 ? strerror(-rc) : "");
		diag_print(stderr, &d);
		diag_list_release(&d);
		return -1;
	}
	char *dot = xasprintf("%s/.pmpplab", ws);
	struct stat st;
	bool fresh = stat(dot, &st) != 0;
	/* Also on an existing workspace: labs added since it was made get their folders
	 * (workspace_init keeps every file that exists). */
	if (workspace_init(ws, &a->labs, &d) < 0) {
		if (fresh) {
			fprintf(stderr, "pmpplab: cannot make the workspace %s\n", ws);
			diag_print(stderr, &d);
			free(dot);
			diag_list_release(&d);
			return -1;
		}
		app_status(a, ROLE_WARN, "Some lab folders could not be made: %s",
			   d.n ? d.items[0].message : "see pmpplab init");
	}
	diag_list_release(&d);
	a->ws = realpath(ws, NULL);
	if (!a->ws)
		a->ws = xstrdup(ws);
	a->state_path = xasprintf("%s/state.json", dot);
	free(dot);
	state_init(&a->state);
	char *note = state_load_recover(&a->state, a->state_path);
	if (note)
		app_status(a, ROLE_WARN, "%s", note);
	free(note);
	for (unsigned i = 0; a->state.selected && i < a->labs.n; i++)
		if (strcmp(a->labs.labs[i]->id, a->state.selected) == 0)
			a->selected = i;
	app_watch_list(a); /* the list is the first view */
	return 0;
}

/* Sends stderr to WS/.pmpplab/tui.log while the screen is ours, so nothing a library or
 * child writes there can scribble over it. Returns a descriptor of the old stderr. */
static int tui_redirect_stderr(const struct app *a)
{
	int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3); /* children must not keep the terminal open */
	char *log = xasprintf("%s/.pmpplab/tui.log", a->ws);
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	free(log);
	if (fd >= 0) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	return saved;
}

static void tui_screen_init(struct app *a)
{
	initscr();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	keyread_init();
	curs_set(0);
	theme_init(a->mono);
}

static void tui_handle_job(struct app *a, bool *redraw)
{
	struct job_event ev;
	while (job_next(a->job, &ev) == 1) {
		if (ev.kind == JOB_PROGRESS) {
			app_progress(a, &ev);
			job_test_free(ev.test);
		} else
			app_done(a, &ev);
		*redraw = true;
	}
}

static int tui_loop(struct app *a, int tty_stderr)
{
	struct tui_ctx t = { a, tty_stderr };
	bool redraw = true;
	for (;;) {
		if (redraw)
			tui_draw(a);
		redraw = false;
		uint64_t now = watch_now_ms();
		int timeout = a->watch ? watch_timeout(a->watch, now) : -1;
		if (job_busy(a->job) && (timeout < 0 || timeout > 120))
			timeout = 120; /* the spinner */
		if (job_busy(a->job) && a->view == VIEW_INSPECT && timeout > 80)
			timeout = 80; /* issue 7: the live panels refresh >= 10 times a second */
		struct pollfd fds[4] = { { STDIN_FILENO, POLLIN, 0 },
					 { job_fd(a->job), POLLIN, 0 },
					 { a->watch ? watch_fd(a->watch) : -1, POLLIN, 0 },
					 { tui_signal_pipe[0], POLLIN, 0 } };
		int n = poll(fds, 4, timeout);
		if (n < 0 && errno != EINTR)
			return 2;
		if (fds[3].revents & POLLIN) {
			/* Killed, not quit: the shell's convention, 128 + the signal. */
			unsigned char sig = SIGTERM;
			if (read(tui_signal_pipe[0], &sig, 1) != 1)
				sig = SIGTERM;
			return 128 + sig;
		}
		if (fds[1].revents & POLLIN)
			tui_handle_job(a, &redraw);
		now = watch_now_ms();
		if (a->watch && (fds[2].revents & POLLIN))
			watch_read(a->watch, now);
		int saved = a->watch ? watch_take(a->watch, now) : -1;
		if (saved >= 0) {
			app_saved(a, saved);
			redraw = true;
		}
		if (job_busy(a->job)) {
			a->spin++;
			redraw = true;
		}
		/* Keys, and KEY_RESIZE after a SIGWINCH interrupted poll. */
		int key;
		while ((key = keyread_next()) != ERR) {
			if (key == KEYMAP_IGNORE)
				continue;
			unsigned flags = tui_key(&t, key);
			if (flags & ACTION_QUIT)
				return 0;
			if (flags & ACTION_REDRAW)
				redraw = true;
		}
	}
}

/* On the way out with a run going: stop it, so that the grader removes its temporary
 * folder (a lab's build and data: 100 MB and more) instead of leaving it in /tmp. */
static void tui_stop_job(struct app *a)
{
	if (!job_busy(a->job))
		return;
	app_status(a, ROLE_RUNNING, "Stopping the run of %s...", a->job_lab ? a->job_lab->id : "");
	tui_draw(a);
	if (job_cancel(a->job, 10000) < 0)
		fprintf(stderr, "pmpplab: the run of %s did not stop within 10 s; its files in "
				"/tmp/pmpplab-run-* may be left behind\n",
			a->job_lab ? a->job_lab->id : "a lab");
}

int tui_run(const char *ws, const char *labs_dir, enum backend_kind backend)
{
	struct app a = { .backend = backend, .view = VIEW_LIST, .quick_seed = datagen_fresh_seed() };
	diag_list_init(&a.errors);
	setlocale(LC_ALL, "");
	a.ascii = glyph_detect_ascii(nl_langinfo(CODESET), getenv("TERM"), getenv("PMPPLAB_ASCII"));
	glyph_set_ascii(a.ascii);
	a.mono = theme_no_color_env(getenv("NO_COLOR"));
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "pmpplab: the interactive mode needs a terminal; for scripts use "
				"pmpplab --grade (see pmpplab --help)\n");
		return 2;
	}
	if (tui_load(&a, ws, labs_dir) < 0)
		return 2;
	a.job = job_new(grade_lab);
	if (!a.job) {
		fprintf(stderr, "pmpplab: cannot start: %s\n", strerror(errno));
		return 2;
	}
	a.list_panel = list_panel_new(&a);
	a.lab_panel = lab_panel_new(&a);
	a.help_panel = help_panel_new(&a);
	/* issue 7: the emulator publishes its live trace here for the panels; the student
	 * programs the grader runs inherit the variable. */
	a.trace_path = xasprintf("%s/.pmpplab/trace.bin", a.ws);
	setenv("PMPPLAB_TRACE", a.trace_path, 1);
	a.inspect_panel = inspect_panel_new(&a, a.trace_path);
	int tty_stderr = tui_redirect_stderr(&a);
	tui_catch_signals(); /* before initscr, so curses keeps its hands off them */
	tui_screen_init(&a);
	tui_resize(&a);
	int rc = tui_loop(&a, tty_stderr);
	tui_stop_job(&a);
	endwin();
	dup2(tty_stderr, STDERR_FILENO);
	close(tty_stderr);
	app_save_state(&a);
	panel_destroy(a.list_panel);
	panel_destroy(a.lab_panel);
	panel_destroy(a.help_panel);
	panel_destroy(a.inspect_panel); /* issue 7 */
	job_free(a.job);
	watch_free(a.watch);
	report_free(a.report);
	report_free(a.partial);
	diag_list_release(&a.errors);
	state_release(&a.state);
	labs_release(&a.labs);
	free(a.student_path);
	free(a.state_path);
	free(a.trace_path);
	free(a.ws);
	return rc;
}
