/* inspect_occ: the occupancy view of the panels. See inspect_occ.h. */
#include "inspect_occ.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "xmem.h"

/* The kernel as the calculator sees it, with the what-ifs applied. */
struct occ_row {
	const struct kernel_resources *kr;
	struct occ_kernel k;
	int block;
	bool launched, changed;
	struct occ_result r;
	int rc;
};

static void occ_row(const struct inspect *in, unsigned i, struct occ_row *row)
{
	const struct resources *res = &in->res[in->device];
	const struct inspect_whatif *w = &in->whatif[i < EMU_TRACE_MAX_KERNELS ? i : 0];
	memset(row, 0, sizeof(*row));
	row->kr = &res->k[i];
	unsigned block = INSPECT_DEFAULT_BLOCK;
	unsigned long dyn = 0;
	row->launched = inspect_launch_of(in, row->kr->name, &block, &dyn);
	row->k.regs = (int)row->kr->regs;
	row->k.smem_static = row->kr->smem;
	row->k.smem_dynamic = dyn;
	row->k.barriers = (int)row->kr->barriers;
	row->block = (int)block;
	if (w->block > 0)
		row->block = w->block;
	if (w->regs > 0)
		row->k.regs = w->regs;
	if (w->smem >= 0) {
		row->k.smem_static = (size_t)w->smem;
		row->k.smem_dynamic = 0;
	}
	row->changed = w->block > 0 || w->regs > 0 || w->smem >= 0;
	row->rc = occ_compute(&in->devices[in->device], &row->k, row->block, &row->r);
}

static void occ_device_line(const struct inspect *in, int width, struct sline_list *out)
{
	const struct occ_device *d = &in->devices[in->device];
	bool mine = in->has_detected && in->device == in->ndevices - 1;
	struct sline *l = sline_list_add(out);
	sline_puts(l, ROLE_DIM, "Device ");
	sline_printf(l, ROLE_STRONG, "%s", d->name);
	if (width >= INSPECT_WIDE) {
		sline_printf(l, ROLE_NORMAL, " (%s%s, %d SMs, %d warps/SM, %zu KiB shared/SM)",
			     d->arch, mine ? ", this machine" : "", d->sm_count,
			     d->max_threads_per_sm / d->warp_size, d->smem_per_sm / 1024);
		sline_puts(l, ROLE_DIM, "  d: next device");
		return;
	}
	/* The most warps an SM holds is in the table's occupancy column already. */
	sline_printf(l, ROLE_NORMAL, " (%s%s, %d SMs, %zu KiB smem/SM)", d->arch,
		     mine ? ", here" : "", d->sm_count, d->smem_per_sm / 1024);
	sline_puts(l, ROLE_DIM, "  d: next");
}

static enum ui_role occ_role(double occ)
{
	return occ >= 0.5 ? ROLE_PASS : occ > 0 ? ROLE_WARN : ROLE_FAIL;
}

/* The kernel name column: as wide as the longest name, within what the screen leaves
 * beside the figures (37 cells) and the limits (at least 14). */
static int occ_name_width(const struct resources *res, int width)
{
	int longest = 6;
	for (unsigned i = 0; i < res->n; i++) {
		int n = (int)strlen(res->k[i].pretty);
		longest = n > longest ? n : longest;
	}
	int room = width - 37 - 14;
	if (room < 8)
		room = 8;
	return longest < room ? longest : room;
}

/* NAME in exactly W cells: padded, or cut with an ellipsis. */
static void put_cell(struct sline *l, enum ui_role role, const char *name, int w)
{
	struct sline tmp = {0};
	tmp.cap = 16;
	tmp.text = xmalloc(tmp.cap);
	tmp.text[0] = '\0';
	sline_puts(&tmp, role, name);
	sline_cut(&tmp, w);
	int used = sline_width(&tmp);
	for (unsigned i = 0; i < tmp.n_spans; i++)
		sline_append(l, tmp.spans[i].role, tmp.text + tmp.spans[i].start, tmp.spans[i].len);
	if (used < w)
		sline_printf(l, role, "%*s", w - used, "");
	free(tmp.text);
	free(tmp.spans);
}

static void occ_table(const struct inspect *in, int width, struct sline_list *out)
{
	const struct resources *res = &in->res[in->device];
	int namew = occ_name_width(res, width);
	sline_list_addf(out, ROLE_H3, "  %-*s %5s %7s %6s %10s  %s", namew, "kernel", "regs",
			"smem", "block", "occupancy", "limited by");
	for (unsigned i = 0; i < res->n; i++) {
		struct occ_row row;
		occ_row(in, i, &row);
		struct sline *l = sline_list_add(out);
		enum ui_role base = i == in->kernel ? ROLE_SELECTED : ROLE_NORMAL;
		sline_puts(l, base, i == in->kernel ? "> " : "  ");
		put_cell(l, base, row.kr->pretty, namew);
		sline_printf(l, base, " %5d %7zu %5d%s", row.k.regs,
			     row.k.smem_static + row.k.smem_dynamic, row.block,
			     row.launched || row.changed ? " " : "?");
		if (row.rc < 0) {
			sline_printf(l, ROLE_FAIL, " %s", row.rc == -ENOSYS ? "no calculator" : "error");
			continue;
		}
		sline_printf(l, i == in->kernel ? base : occ_role(row.r.occupancy), " %4.0f%% %2d/%-2d",
			     row.r.occupancy * 100, row.r.warps_per_sm, row.r.max_warps_per_sm);
		char lim[96];
		sline_printf(l, base, "  %s%s", row.r.blocks_per_sm == 0 ? "cannot launch: " : "",
			     row.r.occupancy >= 1 ? "- (full)" : occ_limit_list(row.r.limits, lim, sizeof(lim)));
	}
}

/* The x axis's numbers under the curve, the student's block size after them when it
 * fits there, else (narrow screens) on a line of its own under its mark. */
static void occ_curve_labels(const struct occ_row *row, int width, int cw, int mark,
			     struct sline_list *out)
{
	char labels[256];
	int n = 6 + OCC_CURVE_POINTS * cw + 6;
	if (n > (int)sizeof(labels) - 1)
		n = (int)sizeof(labels) - 1;
	memset(labels, ' ', (size_t)n);
	labels[n] = '\0';
	const int at[] = {32, 256, 512, 768, 1024};
	for (int k = 0; k < 5; k++) {
		int x = 6 + (at[k] / 32 - 1) * cw;
		char num[8];
		int len = snprintf(num, sizeof(num), "%d", at[k]);
		if (x + len < n)
			memcpy(labels + x, num, (size_t)len);
	}
	while (n > 0 && labels[n - 1] == ' ')
		labels[--n] = '\0';
	char you[32];
	int yl = snprintf(you, sizeof(you), "^ %d threads", row->block);
	struct sline *lab = sline_list_add(out);
	sline_puts(lab, ROLE_DIM, labels);
	if (n + 2 + yl <= width) {
		sline_printf(lab, ROLE_RUNNING, "  %s", you);
		return;
	}
	int x = 6 + mark * cw;
	if (x + yl > width)
		x = width - yl > 0 ? width - yl : 0;
	struct sline *l = sline_list_add(out);
	sline_printf(l, ROLE_NORMAL, "%*s", x, "");
	sline_puts(l, ROLE_RUNNING, you);
}

/* Rows the curve's labels take under it. */
static int occ_label_rows(int width, int cw)
{
	return 6 + (OCC_CURVE_POINTS - 1) * cw + 4 + 2 + 14 <= width ? 1 : 2;
}

/* The curve: one column group per block size 32..1024, the selected block marked. */
static void occ_curve_lines(const struct inspect *in, const struct occ_row *row, int width,
			    int rows, struct sline_list *out)
{
	struct occ_result c[OCC_CURVE_POINTS];
	if (occ_curve(&in->devices[in->device], &row->k, c) < 0)
		return;
	int cw = (width - 8) / OCC_CURVE_POINTS;
	cw = cw < 1 ? 1 : cw > 4 ? 4 : cw;
	int mark = (row->block + 31) / 32 - 1;
	if (rows < 3)
		rows = 3;
	for (int y = rows; y >= 1; y--) {
		struct sline *l = sline_list_add(out);
		double level = (double)y / rows;
		if (y == rows)
			sline_puts(l, ROLE_DIM, "100% |");
		else if (y == (rows + 1) / 2)
			sline_puts(l, ROLE_DIM, " 50% |");
		else
			sline_puts(l, ROLE_DIM, "     |");
		for (int i = 0; i < OCC_CURVE_POINTS; i++) {
			/* a cell is filled when the occupancy reaches its middle */
			bool on = c[i].occupancy + 1e-9 >= level - 0.5 / rows;
			char cell[8];
			memset(cell, on ? '#' : ' ', (size_t)cw);
			if (cw > 1)
				cell[cw - 1] = ' ';
			cell[cw] = '\0';
			sline_puts(l, i == mark ? ROLE_RUNNING : on ? ROLE_MARKER : ROLE_NORMAL, cell);
		}
	}
	struct sline *axis = sline_list_add(out);
	sline_puts(axis, ROLE_DIM, "  0% +");
	for (int i = 0; i < OCC_CURVE_POINTS * cw; i++)
		sline_puts(axis, ROLE_DIM, i / cw == mark ? "^" : "-");
	occ_curve_labels(row, width, cw, mark, out);
}

/* The what-if keys; short enough for 80 columns even when something changed. */
static void occ_whatif_line(const struct occ_row *row, struct sline_list *out)
{
	static const char *const keys[][2] = {
		{"b/B", " block -/+32  "}, {"r/R", " regs -/+4  "},
		{"s/S", " smem -/+1K  "},  {"0", " as built"},
	};
	struct sline *l = sline_list_add(out);
	sline_puts(l, ROLE_DIM, row->changed ? "What if (changed): " : "What if: ");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		sline_puts(l, ROLE_KEY, keys[i][0]);
		sline_puts(l, ROLE_NORMAL, keys[i][1]);
	}
}

void inspect_occ_render(struct inspect *in, int width, int height, struct sline_list *out)
{
	occ_device_line(in, width, out);
	unsigned d = in->device;
	if (in->res_rc[d] < 0) {
		char *msg = xasprintf("No resource usage for %s: %s", in->devices[d].arch,
				      in->res_error[d][0] ? in->res_error[d] : strerror(-in->res_rc[d]));
		sline_list_wrap(out, ROLE_FAIL, 0, width, msg);
		free(msg);
		return;
	}
	if (!in->loaded[d]) {
		sline_list_addf(out, ROLE_DIM, "Asking ptxas for %s...", in->devices[d].arch);
		return;
	}
	if (in->res[d].n == 0) {
		sline_list_addf(out, ROLE_WARN, "The file has no kernels (__global__ functions).");
		return;
	}
	if (in->kernel >= in->res[d].n)
		in->kernel = 0;
	occ_table(in, width, out);
	struct occ_row row;
	occ_row(in, in->kernel, &row);
	if (row.rc < 0) {
		sline_list_wrap(out, ROLE_FAIL, 0, width, row.rc == -ENOSYS
				? "pmpplab was built without cuda_occupancy.h: no calculator."
				: "The calculator rejected these values.");
		return;
	}
	char regs[16], smem[16];
	snprintf(regs, sizeof(regs), row.r.limit_regs == INT_MAX ? "any" : "%d", row.r.limit_regs);
	snprintf(smem, sizeof(smem), row.r.limit_smem == INT_MAX ? "any" : "%d", row.r.limit_smem);
	sline_list_addf(out, ROLE_NORMAL, "Blocks/SM allowed by registers %s, shared memory %s, warps %d, block slots %d",
			regs, smem, row.r.limit_warps, row.r.limit_blocks);
	occ_whatif_line(&row, out);
	if (!row.launched)
		sline_list_addf(out, ROLE_DIM, "? = not launched yet: block %d assumed; run the lab (F5) for yours.",
				row.block);
	/* The advice, wrapped, goes under the curve: the curve gets the rows left. */
	struct sline_list advice;
	sline_list_init(&advice);
	const char *text = row.r.occupancy >= 1 ? "" : occ_limit_advice(row.r.limits);
	if (*text)
		sline_list_wrap(&advice, ROLE_HINT, 0, width, text);
	int cw = (width - 8) / OCC_CURVE_POINTS;
	cw = cw < 1 ? 1 : cw > 4 ? 4 : cw;
	int used = (int)out->n + 1 + occ_label_rows(width, cw) + (int)advice.n;
	int rows = height - used;
	occ_curve_lines(in, &row, width, rows > 12 ? 12 : rows, out); /* taller says no more */
	sline_list_take(out, &advice);
}

/* ---- keys ---- */

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

bool inspect_occ_key(struct inspect *in, int key)
{
	const struct resources *res = &in->res[in->device];
	if (key == 'd') {
		in->device = (in->device + 1) % in->ndevices;
		return true;
	}
	if (res->n == 0 || in->kernel >= res->n)
		return false;
	struct occ_row row;
	occ_row(in, in->kernel, &row);
	struct inspect_whatif *w = &in->whatif[in->kernel < EMU_TRACE_MAX_KERNELS ? in->kernel : 0];
	switch (key) {
	case KEYMAP_UP: case 'k':
		in->kernel = in->kernel ? in->kernel - 1 : 0;
		return true;
	case KEYMAP_DOWN: case 'j':
		in->kernel = in->kernel + 1 < res->n ? in->kernel + 1 : in->kernel;
		return true;
	case 'b': case '-':
		w->block = clampi((row.block + 31) / 32 * 32 - 32, 32, 1024);
		return true;
	case 'B': case '+':
		w->block = clampi(row.block / 32 * 32 + 32, 32, 1024);
		return true;
	case 'r':
		w->regs = clampi(row.k.regs - 4, 1, 255);
		return true;
	case 'R':
		w->regs = clampi(row.k.regs + 4, 1, 255);
		return true;
	case 's':
		w->smem = (long)clampi((int)(row.k.smem_static + row.k.smem_dynamic) - 1024, 0, 227 * 1024);
		return true;
	case 'S':
		w->smem = (long)clampi((int)(row.k.smem_static + row.k.smem_dynamic) + 1024, 0, 227 * 1024);
		return true;
	case '0':
		*w = (struct inspect_whatif){0, 0, -1};
		return true;
	}
	return false;
}

