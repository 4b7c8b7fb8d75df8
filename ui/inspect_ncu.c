/* inspect_ncu: the GPU backend's memory view (see inspect_ncu.h). */
#include "inspect_ncu.h"

#include <math.h>
#include <stdio.h>

#include "ncu.h"

static enum ui_role lanes_role(double l)
{
	return isnan(l) ? ROLE_DIM : l >= 30 ? ROLE_PASS : l >= 20 ? ROLE_WARN : ROLE_FAIL;
}

/* A figure in WIDTH cells, or a dash. */
static void figure(struct sline *l, enum ui_role role, int width, int prec, double v,
		   const char *unit)
{
	if (isnan(v))
		sline_printf(l, ROLE_DIM, "%*s%s", width, "-", unit[0] ? " " : "");
	else
		sline_printf(l, role, "%*.*f%s", width, prec, v, unit);
}

static void kernel_line(const struct ncu_kernel *k, int name_w, struct sline_list *out)
{
	struct sline *l = sline_list_add(out);
	sline_printf(l, ROLE_STRONG, "%-*.*s", name_w, name_w, k->name);
	sline_printf(l, ROLE_NORMAL, "%5u %8.3f ", k->launches, k->time_ns / 1e6);
	figure(l, ROLE_NORMAL, 5, 0, ncu_occupancy_pct(k), "%");
	figure(l, lanes_role(ncu_lanes(k)), 6, 1, ncu_lanes(k), "");
	double ld = ncu_ld_sectors_per_request(k), st = ncu_st_sectors_per_request(k);
	figure(l, inspect_sectors_role(ld), 9, 1, ld, "");
	figure(l, inspect_sectors_role(st), 9, 1, st, "");
	double sl = ncu_shared_ld_passes(k), ss = ncu_shared_st_passes(k);
	figure(l, inspect_banks_role(sl), 7, 1, sl, "");
	figure(l, inspect_banks_role(ss), 6, 1, ss, "");
}

void inspect_ncu_render(const struct inspect *in, int width, int height, struct sline_list *out)
{
	const struct ncu_profile *p = in->ncu;
	if (!p || !p->n) {
		sline_list_wrap(out, ROLE_DIM, 0, width,
				"GPU backend: runs on the GPU are not traced line by line. Grade the lab "
				"(g or F6) and this tab shows what Nsight Compute (ncu) measured for each "
				"kernel; --backend emu shows the emulator's figures per source line.");
		if (in->ncu_note)
			sline_list_wrap(out, ROLE_WARN, 0, width, in->ncu_note);
		return;
	}
	char head[160];
	snprintf(head, sizeof(head), "Measured on this GPU by ncu, dataset %s, at the last grading (g or F6):",
		 p->dataset);
	sline_list_wrap(out, ROLE_NORMAL, 0, width, head);
	/* the kernel's name takes what the 58 cells of figures leave */
	int name_w = width - 59 < 12 ? 12 : width - 59 > 40 ? 40 : width - 59;
	struct sline *l = sline_list_add(out);
	sline_printf(l, ROLE_H3, "%-*s%s", name_w, "kernel",
		     "calls  time ms  occup lanes ld s/req st s/req shd ld    st");
	for (unsigned i = 0; i < p->n && (int)out->n < height - 4; i++)
		kernel_line(&p->kernels[i], name_w, out);
	sline_list_wrap(out, ROLE_DIM, 0, width,
			"occup: active warps / the SM's maximum. lanes: active threads per warp "
			"instruction (32 = no divergence). s/req: 32-byte sectors per global request "
			"(4 = 32 floats in a row, 32 = one per lane). shd: shared-memory passes per "
			"instruction (1 = no bank conflict, 32 = 32-way).");
}
