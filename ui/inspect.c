/* inspect: the panels' model, and the warp and memory views (the occupancy view is
 * inspect_occ.c). See inspect.h. */
#include "inspect.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "inspect_occ.h"
#include "inspect_ncu.h"
#include "keymap.h"
#include "xmem.h"

static const char *const tab_names[INSPECT_TABS] = {"Occupancy", "Warps", "Memory"};

const char *inspect_tab_name(enum inspect_tab t)
{
	return t < INSPECT_TABS ? tab_names[t] : "";
}

void inspect_init(struct inspect *in, const char *trace_path, bool detect, bool emulated)
{
	memset(in, 0, sizeof(*in));
	if (emulated) { /* the GPU the emulator emulates first, the real cards after it */
		occ_device_emulated(&in->devices[in->ndevices]);
		in->model_sms = (unsigned)in->devices[in->ndevices++].sm_count;
	}
	unsigned n;
	const struct occ_device *t = occ_devices(&n);
	for (unsigned i = 0; i < n && in->ndevices < INSPECT_MAX_DEVICES; i++)
		in->devices[in->ndevices++] = t[i];
	if (detect && in->ndevices < INSPECT_MAX_DEVICES &&
	    occ_device_detect(&in->devices[in->ndevices]) == 0) {
		in->has_detected = true;
		in->device = in->ndevices++; /* the student's own GPU first */
	}
	for (unsigned i = 0; i < INSPECT_MAX_DEVICES; i++)
		resources_init(&in->res[i]);
	in->trace_path = trace_path ? xstrdup(trace_path) : NULL;
	in->tag_path = trace_path ? tracetag_path(trace_path) : NULL;
	in->match = TRACETAG_OTHER_LAB;
	in->snap = xcalloc(1, sizeof(*in->snap));
	in->snap_rc = -ENOENT;
	for (unsigned i = 0; i < EMU_TRACE_MAX_KERNELS; i++)
		in->whatif[i].smem = -1;
}

static void inspect_forget_source(struct inspect *in)
{
	for (unsigned i = 0; i < in->src_n; i++)
		free(in->src_lines[i]);
	free(in->src_lines);
	free(in->src_path);
	in->src_lines = NULL;
	in->src_path = NULL;
	in->src_hash = 0;
	in->src_n = 0;
}

void inspect_forget(struct inspect *in)
{
	for (unsigned i = 0; i < INSPECT_MAX_DEVICES; i++) {
		resources_release(&in->res[i]);
		in->loaded[i] = false;
		in->res_rc[i] = 0;
		in->res_error[i][0] = '\0';
	}
	in->kernel = 0;
	for (unsigned i = 0; i < EMU_TRACE_MAX_KERNELS; i++)
		in->whatif[i] = (struct inspect_whatif){0, 0, -1};
	inspect_forget_source(in);
}

void inspect_release(struct inspect *in)
{
	inspect_forget(in);
	free(in->note);
	free(in->trace_path);
	free(in->tag_path);
	free(in->student_path);
	free(in->snap);
	memset(in, 0, sizeof(*in));
}

void inspect_load(struct inspect *in, inspect_load_fn load, void *ctx)
{
	unsigned d = in->device;
	if (in->loaded[d] || !load)
		return;
	in->loaded[d] = true;
	in->res_rc[d] = load(ctx, in->devices[d].arch, &in->res[d], in->res_error[d],
			     sizeof(in->res_error[d]));
}

/* Reads the student's file, once per version, to show each line's text. Called only
 * when the trace is of the file as it is (trace_mine), so the lines are the ones run. */
static void inspect_load_source(struct inspect *in)
{
	const char *path = in->student_path;
	if (!path || (in->src_path && strcmp(in->src_path, path) == 0 &&
		      in->src_hash == in->want.hash))
		return;
	inspect_forget_source(in);
	in->src_path = xstrdup(path);
	in->src_hash = in->want.hash;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char buf[1024];
	unsigned cap = 0;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\r\n")] = '\0';
		for (char *c = buf; *c; c++)
			if (*c == '\t')
				*c = ' ';
		if (in->src_n == cap)
			in->src_lines = xrealloc(in->src_lines, (cap = cap ? cap * 2 : 128) * sizeof(char *));
		in->src_lines[in->src_n++] = xstrdup(buf);
	}
	fclose(f);
}

void inspect_expect(struct inspect *in, const struct tracetag *want, const char *student_path)
{
	if (want)
		in->want = *want;
	else
		memset(&in->want, 0, sizeof(in->want));
	if (!student_path || !in->student_path || strcmp(student_path, in->student_path) != 0) {
		free(in->student_path);
		in->student_path = student_path ? xstrdup(student_path) : NULL;
	}
	in->trace_mine = false; /* until the next refresh says otherwise */
}

/* Whether the snapshot is of the expected lab, source version and file. */
static bool inspect_is_mine(struct inspect *in)
{
	struct tracetag tag;
	in->match = TRACETAG_OTHER_LAB;
	if (!in->want.lab[0] || !in->tag_path || tracetag_read(in->tag_path, &tag) != 0)
		return false;
	in->match = tracetag_compare(&tag, &in->want);
	/* A performance check may run the lab's solution after the student's program: its
	 * trace is of solution.cu, not of the student's file. */
	return in->match == TRACETAG_MATCH && in->snap_rc == 0 &&
	       tracetag_is_file(&in->want, in->snap->file);
}

bool inspect_refresh(struct inspect *in)
{
	if (!in->trace_path)
		return false;
	uint64_t old_seq = in->snap->seq;
	int old_rc = in->snap_rc;
	bool old_mine = in->trace_mine;
	enum tracetag_match old_match = in->match;
	int rc = livetrace_read(in->trace_path, in->snap);
	if (rc != -EAGAIN) /* else keep the last good one */
		in->snap_rc = rc;
	in->trace_mine = inspect_is_mine(in);
	if (in->trace_mine && (in->snap->seq != old_seq || !in->run_known))
		in->run_known = livetrace_run_of(in->trace_path, in->snap->seq, in->run_dataset,
						 sizeof(in->run_dataset), in->run_what,
						 sizeof(in->run_what));
	if (in->trace_mine) {
		inspect_load_source(in);
		if (in->sm >= in->snap->nsms)
			in->sm = 0;
	}
	return in->snap_rc != old_rc || in->trace_mine != old_mine || in->match != old_match ||
	       (in->snap_rc == 0 && in->snap->seq != old_seq);
}

bool inspect_launch_of(const struct inspect *in, const char *name, unsigned *block,
		       unsigned long *dyn_smem)
{
	if (in->snap_rc != 0 || !in->trace_mine)
		return false;
	for (unsigned i = 0; i < in->snap->nkernels; i++) {
		const struct emu_trace_kernel_snap *k = &in->snap->kernels[i];
		if (strcmp(k->name, name) == 0) {
			*block = k->block[0] * k->block[1] * k->block[2];
			*dyn_smem = (unsigned long)k->dyn_smem;
			return true;
		}
	}
	return false;
}

/* ---- warps ---- */

static const char *short_name(const struct inspect *in, char *buf, size_t n)
{
	char *p = resources_pretty_name(in->snap->kernel);
	snprintf(buf, n, "%s", p ? p : in->snap->kernel);
	free(p);
	return buf;
}

/* Says why there is no trace to show, if there is none (false: show the snapshot). */
static bool no_trace(const struct inspect *in, int width, struct sline_list *out)
{
	if (in->note)
		sline_list_wrap(out, ROLE_WARN, 0, width, in->note);
	if (in->snap_rc == 0 && in->trace_mine)
		return false;
	if (in->gpu)
		return true; /* runs on a GPU record no trace: the note says where one comes from */
	if (!in->trace_path) {
		sline_list_addf(out, ROLE_WARN, "Tracing is off (no trace file).");
	} else if (in->run_going && in->match == TRACETAG_MATCH) {
		sline_list_wrap(out, ROLE_RUNNING, 0, width,
				"Building and running: this fills in while the kernels run on the emulator.");
	} else if (in->snap_rc != 0 && in->snap_rc != -ENOENT && in->match == TRACETAG_MATCH) {
		char *msg = xasprintf("The trace file %s is not one this pmpplab reads: press r (run) to record a new one.", in->trace_path);
		sline_list_wrap(out, ROLE_FAIL, 0, width, msg);
		free(msg);
	} else if (in->match == TRACETAG_OLD) {
		char *msg = xasprintf("No trace of this version of %s yet: press r (run) to record one.", in->want.file);
		sline_list_wrap(out, ROLE_DIM, 0, width, msg);
		free(msg);
	} else {
		sline_list_wrap(out, ROLE_DIM, 0, width,
				"No trace of this lab yet: press r (run) to record one.");
	}
	return true;
}

/* The launch: kernel, grid and block first (they matter most); the file, always the
 * student's (inspect_is_mine), only where there is room. */
static void trace_header(const struct inspect *in, int width, struct sline_list *out)
{
	const struct emu_trace_file *f = in->snap;
	char name[128];
	/* Which dataset (issue 18): each run of the program writes the trace afresh, and a
	 * grading runs it on several, and again for memcheck and the barriers check. */
	struct sline *l = sline_list_add(out);
	char plain[96];
	snprintf(plain, sizeof(plain), "dataset %s", in->run_dataset);
	if (!in->run_known) {
		sline_puts(l, ROLE_DIM, "the latest run of the program; which dataset: not known (r runs again)");
	} else {
		if (*in->run_dataset) {
			sline_puts(l, ROLE_DIM, "dataset ");
			sline_puts(l, ROLE_STRONG, in->run_dataset);
		}
		if (strcmp(in->run_what, plain) != 0)
			sline_printf(l, ROLE_DIM, "%srun by %s", *in->run_dataset ? ", " : "",
				     in->run_what);
	}
	l = sline_list_add(out);
	sline_puts(l, ROLE_DIM, "kernel ");
	sline_printf(l, ROLE_STRONG, "%s", short_name(in, name, sizeof(name)));
	if (width >= INSPECT_WIDE)
		sline_printf(l, ROLE_NORMAL, " (%s)", fs_base_name(f->file));
	sline_printf(l, ROLE_NORMAL, "  grid %ux%ux%u  block %ux%ux%u  launch #%u", f->grid[0],
		     f->grid[1], f->grid[2], f->block[0], f->block[1], f->block[2], f->launch);
	l = sline_list_add(out);
	if (f->running)
		sline_printf(l, ROLE_RUNNING, "running %.2f s", f->elapsed_ns / 1e9);
	else
		sline_printf(l, f->status ? ROLE_FAIL : ROLE_PASS, "%s in %.3f s",
			     f->status ? "faulted" : "finished", f->elapsed_ns / 1e9);
	double eff = f->warp_insns ? (double)f->lanes / 32.0 / (double)f->warp_insns : 1;
	sline_printf(l, ROLE_NORMAL, "   blocks %u/%u   warp insns %llu   SIMT efficiency %.0f%%",
		     f->blocks_done, f->nblocks, (unsigned long long)f->warp_insns, eff * 100);
}

static const char warp_letter[5] = {' ', 'r', 'I', 'B', '.'};
static const enum ui_role warp_role[5] = {ROLE_NORMAL, ROLE_NORMAL, ROLE_RUNNING, ROLE_WARN,
					   ROLE_DIM};

static void sm_line(const struct inspect *in, unsigned i, struct sline_list *out)
{
	const struct emu_trace_sm_snap *s = &in->snap->sm[i];
	struct sline *l = sline_list_add(out);
	const char *mark = i == in->sm ? ">" : " ";
	enum ui_role role = i == in->sm ? ROLE_SELECTED : ROLE_NORMAL;
	if (in->model_sms && s->busy) /* the SM the block is placed on, not the worker */
		sline_printf(l, role, "%sSM %-3u", mark, s->block % in->model_sms);
	else if (in->model_sms)
		sline_printf(l, role, "%sSM -  ", mark);
	else
		sline_printf(l, role, "%sSM %-2u", mark, i);
	if (!s->busy) {
		sline_printf(l, ROLE_DIM, " idle        %u blocks done", s->blocks_done);
		return;
	}
	sline_printf(l, ROLE_NORMAL, " block %-5u ", s->block);
	for (unsigned w = 0; w < s->nwarps && w < EMU_TRACE_MAX_WARPS; w++) {
		unsigned st = s->state[w] < 5 ? s->state[w] : 0;
		char c[2] = {warp_letter[st], 0};
		sline_puts(l, i == in->sm && w == in->warp ? ROLE_SELECTED : warp_role[st], c);
	}
	unsigned cnt[5];
	livetrace_warp_counts(s, cnt);
	unsigned live = s->nwarps - cnt[EMU_TW_DONE];
	if (cnt[EMU_TW_BARRIER]) {
		sline_printf(l, ROLE_NORMAL, "  barrier line %u [", s->bar_line);
		for (unsigned k = 0; k < 8; k++)
			sline_puts(l, k < cnt[EMU_TW_BARRIER] * 8 / (live ? live : 1) ? ROLE_WARN : ROLE_DIM,
				   k < cnt[EMU_TW_BARRIER] * 8 / (live ? live : 1) ? "=" : "-");
		sline_printf(l, ROLE_NORMAL, "] %u/%u arrived", cnt[EMU_TW_BARRIER], live);
	}
}

static void warp_mask_line(const struct inspect *in, int width, struct sline_list *out)
{
	const struct emu_trace_sm_snap *s = &in->snap->sm[in->sm];
	if (in->warp >= EMU_TRACE_MAX_WARPS)
		return;
	uint32_t m = s->mask[in->warp];
	bool wide = width >= INSPECT_WIDE;
	struct sline *l = sline_list_add(out);
	sline_printf(l, ROLE_NORMAL, "SM %u warp %u %s",
		     in->model_sms && s->busy ? s->block % in->model_sms : in->sm, in->warp,
		     wide ? "lanes " : "");
	for (unsigned k = 0; k < 32; k++)
		sline_puts(l, m >> k & 1 ? ROLE_PASS : ROLE_DIM, m >> k & 1 ? "|" : ".");
	sline_printf(l, ROLE_NORMAL, wide ? " %u/32 active, %llu instructions" : " %u/32 active, %llu insns",
		     (unsigned)__builtin_popcount(m), (unsigned long long)s->insns[in->warp]);
}

static const char *src_text(const struct inspect *in, unsigned line)
{
	return line >= 1 && line <= in->src_n ? in->src_lines[line - 1] : "";
}

static void simt_table(const struct inspect *in, int rows, struct sline_list *out)
{
	sline_list_addf(out, ROLE_H3, " line  SIMT  %-10s  warp insns  source", "efficiency");
	unsigned shown = 0, skip = in->scroll;
	for (unsigned i = 0; i < in->snap->nlines && (int)shown < rows; i++) {
		const struct emu_trace_line_snap *ln = &in->snap->lines[i];
		if (!ln->warp_insns)
			continue;
		if (skip) {
			skip--;
			continue;
		}
		double e = livetrace_simt(ln);
		struct sline *l = sline_list_add(out);
		if (ln->line)
			sline_printf(l, ROLE_NORMAL, "%5u ", ln->line);
		else
			sline_puts(l, ROLE_DIM, "other ");
		sline_printf(l, e < 0.999 ? ROLE_WARN : ROLE_PASS, "%4.0f%% ", e * 100);
		int bar = (int)(e * 10 + 0.5);
		for (int k = 0; k < 10; k++)
			sline_puts(l, k < bar ? ROLE_MARKER : ROLE_DIM, k < bar ? "#" : ".");
		sline_printf(l, ROLE_NORMAL, "  %10llu  ", (unsigned long long)ln->warp_insns);
		sline_puts(l, ROLE_CODE, src_text(in, ln->line)); /* cut to the width at the end */
		shown++;
	}
}

static void warps_render(struct inspect *in, int width, int height, struct sline_list *out)
{
	if (no_trace(in, width, out))
		return;
	trace_header(in, width, out);
	sline_list_addf(out, ROLE_DIM, "%s", width >= INSPECT_WIDE
			? "warps: I issuing  r ready  B at a barrier  . done    Up/Down SM  Left/Right warp"
			: "I issuing  r ready  B barrier  . done   Up/Down SM  Left/Right warp");
	unsigned nsm = in->snap->nsms;
	unsigned sm_rows = (unsigned)(height / 3);
	if (sm_rows < 2)
		sm_rows = 2;
	unsigned first = in->sm >= sm_rows ? in->sm - sm_rows + 1 : 0;
	if (in->model_sms) /* the emulator's workers stand for the modelled SMs */
		sline_list_addf(out, ROLE_DIM, "%u SMs modelled, %u at a time: block b on SM b mod %u",
				in->model_sms, nsm, in->model_sms);
	for (unsigned i = first; i < nsm && i < first + sm_rows; i++)
		sm_line(in, i, out);
	if (nsm > sm_rows)
		sline_list_addf(out, ROLE_DIM, "  (%u SMs; Up/Down scrolls)", nsm);
	warp_mask_line(in, width, out);
	simt_table(in, height - (int)out->n - 1, out);
}

/* ---- memory ---- */

enum ui_role inspect_sectors_role(double s)
{
	return isnan(s) ? ROLE_DIM : s <= 4.01 ? ROLE_PASS : s < 16 ? ROLE_WARN : ROLE_FAIL;
}

enum ui_role inspect_banks_role(double b)
{
	return isnan(b) ? ROLE_DIM : b <= 1.05 ? ROLE_PASS : b < 8 ? ROLE_WARN : ROLE_FAIL;
}

/* One row of the memory table. */
static void memory_line(const struct inspect *in, const struct emu_trace_line_snap *ln,
			int width, struct sline_list *out)
{
	struct sline *l = sline_list_add(out);
	sline_printf(l, ln->line ? ROLE_NORMAL : ROLE_DIM, ln->line ? "%5u " : "other ", ln->line);
	if (ln->gld_req)
		sline_printf(l, inspect_sectors_role(livetrace_ld_sectors(ln)), "%8llu %8.1f ",
			     (unsigned long long)ln->gld_req, livetrace_ld_sectors(ln));
	else
		sline_puts(l, ROLE_DIM, "       -        - ");
	if (ln->gst_req)
		sline_printf(l, inspect_sectors_role(livetrace_st_sectors(ln)), "%8llu %8.1f ",
			     (unsigned long long)ln->gst_req, livetrace_st_sectors(ln));
	else
		sline_puts(l, ROLE_DIM, "       -        - ");
	if (ln->shd_req)
		sline_printf(l, inspect_banks_role(livetrace_bank_degree(ln)), "%8llu %5.1f  ",
			     (unsigned long long)ln->shd_req, livetrace_bank_degree(ln));
	else
		sline_puts(l, ROLE_DIM, "       -     -  ");
	/* The figures take 62 cells: on a narrow screen the source's indent goes first. */
	const char *src = src_text(in, ln->line);
	while (width < INSPECT_WIDE && *src == ' ')
		src++;
	sline_puts(l, ROLE_CODE, src); /* cut to the width at the end */
}

static void memory_render(struct inspect *in, int width, int height, struct sline_list *out)
{
	if (no_trace(in, width, out))
		return;
	trace_header(in, width, out);
	sline_list_addf(out, ROLE_H3, " line   ld req sect/req   st req sect/req  shd req banks  source");
	struct sline_list legend;
	sline_list_init(&legend);
	bool wide = width >= INSPECT_WIDE;
	sline_list_wrap(&legend, ROLE_DIM, 0, width, wide
			? "sect/req: 32-byte sectors per warp request (4 = 32 floats in a row, 32 = one per lane)."
			: "sect/req: 32-byte sectors a warp request needs (4 best, 32 = one per lane).");
	sline_list_wrap(&legend, ROLE_DIM, 0, width, wide
			? "banks: passes per shared request (1 = conflict-free, 32 = a 32-way bank conflict)."
			: "banks: passes per shared request (1 = conflict-free, 32 = 32-way conflict).");
	unsigned shown = 0, skip = in->scroll, total = 0;
	int rows = height - (int)out->n - (int)legend.n - 1;
	for (unsigned i = 0; i < in->snap->nlines; i++) {
		const struct emu_trace_line_snap *ln = &in->snap->lines[i];
		if (!ln->gld_req && !ln->gst_req && !ln->shd_req)
			continue;
		total++;
		if (skip) {
			skip--;
			continue;
		}
		if ((int)shown < rows) {
			memory_line(in, ln, width, out);
			shown++;
		}
	}
	if (!shown && total)
		sline_list_addf(out, ROLE_DIM, "Scrolled past the last line: Home goes back to the top.");
	else if (!shown && in->snap->running)
		sline_list_addf(out, ROLE_DIM, "No global or shared memory accesses traced yet.");
	else if (!shown)
		sline_list_wrap(out, ROLE_DIM, 0, width,
				"This launch made no global or shared memory access: the kernel reads and writes nothing yet.");
	sline_list_take(out, &legend);
}

void inspect_render(struct inspect *in, int width, int height, struct sline_list *out)
{
	unsigned first = out->n;
	switch (in->tab) {
	case INSPECT_OCCUPANCY:
		inspect_occ_render(in, width, height, out);
		break;
	case INSPECT_WARPS:
		warps_render(in, width, height, out);
		break;
	default:
		if (in->gpu)
			inspect_ncu_render(in, width, height, out);
		else
			memory_render(in, width, height, out);
		break;
	}
	/* What still does not fit ends in an ellipsis rather than silently. */
	for (unsigned i = first; i < out->n; i++)
		sline_cut(&out->lines[i], width);
}

/* ---- keys ---- */

static bool trace_key(struct inspect *in, int key)
{
	unsigned nsm = in->snap_rc == 0 ? in->snap->nsms : 0;
	switch (key) {
	case KEYMAP_UP: case 'k':
		if (in->tab == INSPECT_WARPS && in->sm > 0)
			in->sm--;
		else if (in->tab == INSPECT_MEMORY && in->scroll)
			in->scroll--;
		return true;
	case KEYMAP_DOWN: case 'j':
		if (in->tab == INSPECT_WARPS && in->sm + 1 < nsm)
			in->sm++;
		else if (in->tab == INSPECT_MEMORY)
			in->scroll++;
		return true;
	case KEYMAP_LEFT:
		in->warp = in->warp ? in->warp - 1 : 0;
		return true;
	case KEYMAP_RIGHT:
		in->warp = in->warp + 1 < EMU_TRACE_MAX_WARPS ? in->warp + 1 : in->warp;
		return true;
	case KEYMAP_PGDN: case ' ':
		in->scroll += 10;
		return true;
	case KEYMAP_PGUP:
		in->scroll = in->scroll > 10 ? in->scroll - 10 : 0;
		return true;
	case KEYMAP_HOME:
		in->scroll = 0;
		return true;
	}
	return false;
}

/* Keep in step with inspect_key, trace_key below and inspect_occ_key. */
static const char *const key_help[][2] = {
	{"Tab, S-Tab", "the next / previous tab"},
	{"1 o, 2 w, 3 m", "the occupancy, warps or memory tab"},
	{"d", "occupancy: the next device"},
	{"Up, Down, j, k", "occupancy: pick a kernel; warps: pick an SM; memory: scroll"},
	{"b, B (-, +)", "occupancy: what if a block had 32 threads fewer / more"},
	{"r, R", "occupancy: what if a thread used 4 registers fewer / more"},
	{"s, S", "occupancy: what if a block used 1 KiB of shared memory less / more"},
	{"0", "occupancy: back to the kernel as built and launched"},
	{"Left, Right", "warps: pick a warp of the SM"},
	{"PgUp, PgDn, Space, Home", "warps and memory: scroll the per-line table"},
	{"r, F5 / g, F6", "warps and memory: run / grade the lab to record a trace"},
	{"q, Esc", "back to the lab"},
};

const char *const (*inspect_key_help(unsigned *n))[2]
{
	*n = sizeof(key_help) / sizeof(key_help[0]);
	return key_help;
}

bool inspect_key(struct inspect *in, int key)
{
	switch (key) {
	case KEYMAP_TAB:
		in->tab = (in->tab + 1) % INSPECT_TABS;
		return true;
	case KEYMAP_BTAB:
		in->tab = (in->tab + INSPECT_TABS - 1) % INSPECT_TABS;
		return true;
	case '1': case 'o':
		in->tab = INSPECT_OCCUPANCY;
		return true;
	case '2': case 'w':
		in->tab = INSPECT_WARPS;
		return true;
	case '3': case 'm':
		in->tab = INSPECT_MEMORY;
		return true;
	}
	return in->tab == INSPECT_OCCUPANCY ? inspect_occ_key(in, key) : trace_key(in, key);
}
