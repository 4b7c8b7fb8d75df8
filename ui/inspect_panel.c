/* inspect_panel: the occupancy, warp and memory panels (issue 7) as one panel with three
 * tabs over the body of the screen. It reads the open lab from the app, keeps its own
 * model (inspect.h), re-reads the emulator's trace on every draw (the loop redraws at
 * least 10 times a second while a run goes on), and asks ptxas for the kernels'
 * resources when the device changes or the student's file was saved since. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "draw.h"
#include "inspect.h"
#include "inspect_panel.h"
#include "panel.h"
#include "xmem.h"

struct inspect_panel {
	struct panel base;
	struct inspect model;
	const struct lab_spec *lab;   /* the lab the resources are of */
	struct timespec mtime;        /* the student's file when they were taken */
	struct sline_list lines;
};

/* inspect_load_fn: ptxas on the lab's emulator build (cached like grading's). */
static int inspect_panel_resources(void *ctx, const char *arch, struct resources *out,
				   char *err, size_t errlen)
{
	struct app *a = ctx;
	struct diag_list d;
	diag_list_init(&d);
	int rc = resources_from_lab(a->open, a->student_path, arch, out, &d);
	if (rc < 0)
		snprintf(err, errlen, "%s", rc == -ENOEXEC ? "the lab's file does not compile (F5 shows why)"
					    : d.n ? d.items[0].message : strerror(-rc));
	diag_list_release(&d);
	return rc;
}

/* When another lab is open or the file changed on disk: forgets the resources, and
 * tells the model which lab and source version a trace must be of to be shown. */
static void inspect_panel_check_source(struct inspect_panel *ip)
{
	struct app *a = ip->base.app;
	struct stat st;
	struct timespec m = {0, 0};
	if (a->student_path && stat(a->student_path, &st) == 0)
		m = st.st_mtim;
	if (ip->lab != a->open || m.tv_sec != ip->mtime.tv_sec || m.tv_nsec != ip->mtime.tv_nsec) {
		inspect_forget(&ip->model);
		ip->lab = a->open;
		ip->mtime = m;
		struct tracetag now;
		if (a->open && tracetag_of_file(&now, a->open->id, a->student_path) == 0)
			inspect_expect(&ip->model, &now, a->student_path);
		else
			inspect_expect(&ip->model, NULL, NULL);
	}
	ip->model.run_going = a->open && a->job_lab == a->open && job_busy(a->job);
}

/* The GPU backend's memory tab: ncu's figures from the last grading of the open lab, or
 * the report's line saying why it has none. */
static void inspect_panel_profile(struct inspect_panel *ip)
{
	struct app *a = ip->base.app;
	const struct report *r = a->open && a->report_lab == a->open ? a->report : NULL;
	ip->model.ncu = r ? r->profile : NULL;
	ip->model.ncu_note = NULL;
	for (unsigned i = 0; r && i < r->n_tests; i++)
		if (strcmp(r->tests[i].name, NCU_REPORT_TEST) == 0)
			ip->model.ncu_note = r->tests[i].output;
}

static void inspect_draw_tabs(struct inspect_panel *ip, const struct rect *r)
{
	draw_fill(r, ROLE_NORMAL);
	int x = 1;
	for (int t = 0; t < INSPECT_TABS && x < r->w; t++) {
		char name[32];
		snprintf(name, sizeof(name), " %d %s ", t + 1, inspect_tab_name((enum inspect_tab)t));
		x += draw_text(r->y, x, r->w - x, ip->model.tab == (enum inspect_tab)t ? ROLE_TAB_ACTIVE : ROLE_TAB,
			       name) + 1;
	}
	draw_text(r->y, x + 1, r->w - x - 1, ROLE_DIM, "Tab/1-3 switch  F5 run  q back");
}

static void inspect_panel_draw(struct panel *p)
{
	struct inspect_panel *ip = (struct inspect_panel *)p;
	struct app *a = p->app;
	const struct rect *body = &a->layout.body;
	struct rect tabs = {body->y, body->x, 1, body->w};
	struct rect rest = {body->y + 1, body->x + 1, body->h - 1, body->w - 2};
	inspect_panel_check_source(ip);
	inspect_panel_profile(ip);
	inspect_refresh(&ip->model);
	if (ip->model.tab == INSPECT_OCCUPANCY && a->open)
		inspect_load(&ip->model, inspect_panel_resources, a);
	inspect_draw_tabs(ip, &tabs);
	sline_list_release(&ip->lines);
	if (!a->open)
		sline_list_addf(&ip->lines, ROLE_DIM, "Open a lab first.");
	else
		inspect_render(&ip->model, rest.w, rest.h, &ip->lines);
	struct rect full = {body->y + 1, body->x, body->h - 1, body->w};
	draw_fill(&full, ROLE_NORMAL);
	draw_slines(&rest, &ip->lines, 0);
}

static unsigned inspect_panel_key(struct panel *p, enum ui_action action, int key)
{
	(void)action;
	struct inspect_panel *ip = (struct inspect_panel *)p;
	return inspect_key(&ip->model, key) ? ACTION_HANDLED | ACTION_REDRAW : 0;
}

static void inspect_panel_resize(struct panel *p, const struct layout *l)
{
	(void)p;
	(void)l; /* everything is laid out at draw time from the body rect */
}

static void inspect_panel_destroy(struct panel *p)
{
	struct inspect_panel *ip = (struct inspect_panel *)p;
	if (!ip)
		return;
	inspect_release(&ip->model);
	sline_list_release(&ip->lines);
	free(ip);
}

static const struct panel_class inspect_class = {
	.name = "inspect",
	.draw = inspect_panel_draw,
	.key = inspect_panel_key,
	.resize = inspect_panel_resize,
	.destroy = inspect_panel_destroy,
};

struct panel *inspect_panel_new(struct app *app, const char *trace_path)
{
	struct inspect_panel *ip = xcalloc(1, sizeof(*ip));
	ip->base = (struct panel){.cls = &inspect_class, .app = app};
	inspect_init(&ip->model, trace_path, backend_gpu_present(),
		     backend_resolve(app->backend) == BACKEND_EMU);
	if (backend_resolve(app->backend) == BACKEND_GPU) {
		/* Runs on the GPU are not traced: the memory tab shows ncu's figures instead. */
		ip->model.gpu = true;
		ip->model.note = xasprintf("GPU backend: warps are traced only on the emulator "
					   "(pmpplab --backend emu); the memory tab shows what ncu "
					   "measured on this GPU.");
	}
	sline_list_init(&ip->lines);
	return &ip->base;
}

void inspect_panel_show(struct panel *p, int tab)
{
	struct inspect_panel *ip = (struct inspect_panel *)p;
	if (tab >= 0 && tab < INSPECT_TABS)
		ip->model.tab = (enum inspect_tab)tab;
}
