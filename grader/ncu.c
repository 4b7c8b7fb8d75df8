/* ncu: builds the profiling command and reads ncu's CSV (see ncu.h). */
#include "ncu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The counters asked for. ncu answers a name it does not know with no column and no
 * error, so each figure is computed only from the columns that came back. Lanes and
 * shared instructions count only threads whose predicate is on: a branch compiled to
 * predicated instructions (if (t % (2 * stride) == 0)) leaves the warp's mask full, and
 * a warp with every thread predicated off moves no shared data. Where those counters
 * are missing, the plain ones stand in. */
#define METRICS                                                                     \
	"gpu__time_duration.sum,"                                                   \
	"sm__warps_active.avg.pct_of_peak_sustained_active,"                        \
	"smsp__inst_executed.sum,"                                                  \
	"smsp__thread_inst_executed_pred_on.sum,"                                   \
	"smsp__average_thread_inst_executed_per_inst_executed.ratio,"               \
	"smsp__thread_inst_executed_per_inst_executed.ratio,"                       \
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"                           \
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"                          \
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"                           \
	"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"                          \
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"                     \
	"smsp__inst_executed_op_shared_ld_pred_on_any.sum,"                         \
	"smsp__inst_executed_op_shared_ld.sum,"                                     \
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"                     \
	"smsp__inst_executed_op_shared_st_pred_on_any.sum,"                         \
	"smsp__inst_executed_op_shared_st.sum"

void ncu_command(const char **argv, const char *ncu, const char *log, const char *program,
		 const char *request, const char *result)
{
	unsigned n = 0;
	argv[n++] = ncu;
	argv[n++] = "--csv";
	argv[n++] = "--page";
	argv[n++] = "raw";
	/* ncu's messages and table to a file: the program's own output stays apart */
	argv[n++] = "--log-file";
	argv[n++] = log;
	argv[n++] = "--launch-count";
	argv[n++] = NCU_LAUNCH_COUNT;
	argv[n++] = "--metrics";
	argv[n++] = METRICS;
	argv[n++] = program;
	argv[n++] = request;
	argv[n++] = result;
	argv[n] = NULL;
}

/* ---- CSV ---- */

enum { MAX_FIELDS = 1024 };

/* Splits one line of quoted CSV in place: F[i] point into LINE. Returns the count. */
static unsigned csv_split(char *line, char **f)
{
	unsigned n = 0;
	char *p = line;
	while (*p && n < MAX_FIELDS) {
		char *w = p, *start = p;
		if (*p == '"') {
			start = w = ++p;
			while (*p && !(*p == '"' && p[1] != '"')) {
				if (*p == '"')
					p++; /* "" is one quote */
				*w++ = *p++;
			}
			if (*p == '"')
				p++;
		} else {
			while (*p && *p != ',')
				w = ++p;
		}
		f[n++] = start;
		if (*p == ',')
			p++;
		else
			p += strlen(p); /* end of line */
		*w = '\0';
	}
	return n;
}

/* "131,072" or "3.5": the thousands separators go; NAN for an empty or "n/a" field. */
static double csv_number(const char *s)
{
	char buf[64];
	size_t n = 0;
	for (; *s && n + 1 < sizeof(buf); s++)
		if (*s != ',')
			buf[n++] = *s;
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	return n && *end == '\0' ? v : NAN;
}

enum col {
	COL_NAME, COL_TIME, COL_WARPS, COL_INSTS, COL_LANES_ON, COL_LANES, COL_LANES_OLD,
	COL_LD_SECT, COL_LD_REQ, COL_ST_SECT, COL_ST_REQ,
	COL_SHD_LD, COL_SHD_LD_ON, COL_SHD_LD_INSTS, COL_SHD_ST, COL_SHD_ST_ON, COL_SHD_ST_INSTS, NCOLS
};

static const char *const col_names[NCOLS] = {
	"Kernel Name", "gpu__time_duration.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
	"smsp__inst_executed.sum", "smsp__thread_inst_executed_pred_on.sum",
	"smsp__average_thread_inst_executed_per_inst_executed.ratio",
	"smsp__thread_inst_executed_per_inst_executed.ratio",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
	"smsp__inst_executed_op_shared_ld_pred_on_any.sum", "smsp__inst_executed_op_shared_ld.sum",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
	"smsp__inst_executed_op_shared_st_pred_on_any.sum", "smsp__inst_executed_op_shared_st.sum",
};

static double field(char **f, unsigned nf, const int *col, enum col c)
{
	return col[c] >= 0 && (unsigned)col[c] < nf ? csv_number(f[col[c]]) : NAN;
}

/* Column A's value, or B's where A is missing. */
static double either(char **f, unsigned nf, const int *col, enum col a, enum col b)
{
	double v = field(f, nf, col, a);
	return isnan(v) ? field(f, nf, col, b) : v;
}

/* Adds V to *SUM; a missing value leaves a missing sum missing (negative). */
static void add(double *sum, double v)
{
	if (isnan(v))
		return;
	*sum = *sum < 0 ? v : *sum + v;
}

static struct ncu_kernel *kernel_of(struct ncu_profile *p, const char *full)
{
	char name[sizeof(p->kernels[0].name)];
	snprintf(name, sizeof(name), "%s", full);
	name[strcspn(name, "(")] = '\0'; /* the parameter list */
	for (unsigned i = 0; i < p->n; i++)
		if (strcmp(p->kernels[i].name, name) == 0)
			return &p->kernels[i];
	if (p->n == NCU_MAX_KERNELS)
		return NULL;
	struct ncu_kernel *k = &p->kernels[p->n++];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	double *sums[] = { &k->warps_pct_time, &k->insts, &k->lane_insts, &k->ld_sectors,
			   &k->ld_requests, &k->st_sectors, &k->st_requests, &k->shd_ld_passes,
			   &k->shd_ld_insts, &k->shd_st_passes, &k->shd_st_insts };
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
		*sums[i] = -1;
	return k;
}

static void add_row(struct ncu_profile *p, char **f, unsigned nf, const int *col)
{
	struct ncu_kernel *k = kernel_of(p, f[col[COL_NAME]]);
	if (!k)
		return;
	double t = field(f, nf, col, COL_TIME), insts = field(f, nf, col, COL_INSTS);
	/* Lanes with their predicate on, over the instructions; without both counts, the
	 * plain ratio (times the instructions, or a mean of the launches' ratios) */
	double on = field(f, nf, col, COL_LANES_ON);
	double lanes = either(f, nf, col, COL_LANES, COL_LANES_OLD);
	if (isnan(insts) || isnan(on))
		on = lanes * (isnan(insts) ? 1 : insts);
	if (isnan(insts))
		insts = 1;
	k->launches++;
	if (!isnan(t))
		k->time_ns += t;
	add(&k->warps_pct_time, field(f, nf, col, COL_WARPS) * (isnan(t) ? 1 : t));
	add(&k->insts, insts);
	add(&k->lane_insts, on);
	add(&k->ld_sectors, field(f, nf, col, COL_LD_SECT));
	add(&k->ld_requests, field(f, nf, col, COL_LD_REQ));
	add(&k->st_sectors, field(f, nf, col, COL_ST_SECT));
	add(&k->st_requests, field(f, nf, col, COL_ST_REQ));
	add(&k->shd_ld_passes, field(f, nf, col, COL_SHD_LD));
	add(&k->shd_ld_insts, either(f, nf, col, COL_SHD_LD_ON, COL_SHD_LD_INSTS));
	add(&k->shd_st_passes, field(f, nf, col, COL_SHD_ST));
	add(&k->shd_st_insts, either(f, nf, col, COL_SHD_ST_ON, COL_SHD_ST_INSTS));
}

/* Why there is no table: ncu's own words turned into what to do. */
static void explain(const char *text, char *why, size_t len)
{
	if (strstr(text, "ERR_NVGPUCTRPERM"))
		snprintf(why, len, "ncu is not permitted to read this GPU's performance counters "
			 "(ERR_NVGPUCTRPERM): an administrator can allow it for every user (the "
			 "NVIDIA driver option NVreg_RestrictProfilingToAdminUsers=0); "
			 "--backend emu gives the emulator's modelled figures meanwhile");
	else if (strstr(text, "No kernels were profiled"))
		snprintf(why, len, "the program launched no kernel, so ncu had nothing to measure");
	else {
		/* the last ==ERROR== line, or the last line */
		const char *e = NULL, *p = text;
		while ((p = strstr(p, "==ERROR==")))
			e = p++;
		if (!e)
			for (p = text; *p; p++)
				if (p[0] == '\n' && p[1])
					e = p + 1;
		snprintf(why, len, "ncu gave no figures%s%.*s", e ? ": " : "",
			 e ? (int)strcspn(e, "\n") : 0, e ? e : "");
	}
}

int ncu_parse(const char *text, struct ncu_profile *out, char *why, size_t whylen)
{
	memset(out, 0, sizeof(*out));
	char *copy = strdup(text ? text : "");
	char **f = malloc(MAX_FIELDS * sizeof(*f));
	int col[NCOLS], rc = -1;
	bool header = false;
	if (!copy || !f)
		goto out;
	char *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "\r")] = '\0';
		if (line[0] != '"')
			continue; /* ==PROF== messages */
		unsigned nf = csv_split(line, f);
		if (!header) {
			for (int c = 0; c < NCOLS; c++) {
				col[c] = -1;
				for (unsigned i = 0; i < nf; i++)
					if (strcmp(f[i], col_names[c]) == 0)
						col[c] = (int)i;
			}
			header = col[COL_NAME] >= 0;
		} else if ((unsigned)col[COL_NAME] < nf && f[0][0]) {
			add_row(out, f, nf, col); /* (the units row has no ID) */
		}
	}
	if (header)
		rc = 0;
	else
		explain(text ? text : "", why, whylen);
	if (header && out->n == 0)
		explain(text, why, whylen);
out:
	free(f);
	free(copy);
	return rc;
}

/* ---- figures ---- */

static double ratio(double a, double b)
{
	return a >= 0 && b > 0 ? a / b : NAN;
}

double ncu_occupancy_pct(const struct ncu_kernel *k)
{
	return ratio(k->warps_pct_time, k->time_ns > 0 ? k->time_ns : k->launches);
}

double ncu_lanes(const struct ncu_kernel *k) { return ratio(k->lane_insts, k->insts); }
double ncu_ld_sectors_per_request(const struct ncu_kernel *k) { return ratio(k->ld_sectors, k->ld_requests); }
double ncu_st_sectors_per_request(const struct ncu_kernel *k) { return ratio(k->st_sectors, k->st_requests); }
double ncu_shared_ld_passes(const struct ncu_kernel *k) { return ratio(k->shd_ld_passes, k->shd_ld_insts); }
double ncu_shared_st_passes(const struct ncu_kernel *k) { return ratio(k->shd_st_passes, k->shd_st_insts); }

/* The table's header; ncu_format's columns line up under it. */
static const char *ncu_header(void)
{
	return "kernel                    calls   time ms  occup.  lanes  ld sect/req  st sect/req  shd ld/st passes";
}

/* "%*.*f" or a dash where the figure is missing. */
static int put(char *buf, size_t len, int width, int prec, double v)
{
	return isnan(v) ? snprintf(buf, len, "%*s", width, "-")
			: snprintf(buf, len, "%*.*f", width, prec, v);
}

/* One kernel's figures as one line of text. */
static void ncu_format(const struct ncu_kernel *k, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "%-24.24s %6u %9.4f  ", k->name, k->launches,
				    k->time_ns / 1e6);
	double occ = ncu_occupancy_pct(k);
	const struct { int w, p; double v; const char *after; } cols[] = {
		{ 5, 0, occ, isnan(occ) ? "  " : "% " }, { 6, 1, ncu_lanes(k), "" },
		{ 13, 1, ncu_ld_sectors_per_request(k), "" }, { 13, 1, ncu_st_sectors_per_request(k), "" },
		{ 11, 1, ncu_shared_ld_passes(k), " /" }, { 5, 1, ncu_shared_st_passes(k), "" },
	};
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]) && at < len; i++) {
		at += (size_t)put(buf + at, len - at, cols[i].w, cols[i].p, cols[i].v);
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s", cols[i].after);
	}
}

char *ncu_table(const struct ncu_profile *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	fprintf(f, "measured by ncu on dataset %s\n%s\n", p->dataset[0] ? p->dataset : "?", ncu_header());
	for (unsigned i = 0; i < p->n; i++) {
		char line[200];
		ncu_format(&p->kernels[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	fputs("occup.: achieved occupancy (active warps / the SM's maximum); lanes: active threads "
	      "per warp instruction (32 = no divergence); sect/req: 32-byte sectors per global "
	      "request (4 = a warp reads 32 floats in a row, 32 = one sector per lane); passes: "
	      "shared-memory wavefronts per instruction (1 = no bank conflict, 32 = 32-way).", f);
	fclose(f);
	return text;
}
