/* barriers: see barriers.h. */
#include "barriers.h"
#include "barriers_internal.h"

#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "uniformity.h"

/* The PMPP ideas, one per kind of finding. They name a chapter's kernel only as an
 * example ("e.g."): the same finding comes from every lab. */
static const char idea_raw[] =
	"Writes to shared memory are visible to other threads only after a __syncthreads() "
	"that both pass: put one between the code that fills shared memory and the code that "
	"reads it (e.g. the first barrier of a tiled phase, PMPP ch. 5).";
static const char idea_war[] =
	"A thread must not overwrite shared data that other threads may still read: a "
	"__syncthreads() after the last read and before the next write prevents it (e.g. the "
	"second barrier of a tiled phase, PMPP ch. 5).";
static const char idea_loop[] =
	"A loop that refills shared memory needs a __syncthreads() after the last read of a "
	"pass too: without it a fast thread starts the next pass and overwrites what slower "
	"threads still read, or a step reads what the previous step has not finished; put it "
	"at the end of the loop body, outside any if (e.g. the second barrier of a tiled "
	"phase, PMPP ch. 5, or the one per step of a reduction, ch. 10).";
static const char idea_waw[] =
	"Two threads wrote the same shared element with no barrier between, so which value "
	"remains depends on timing: order the writes with __syncthreads(), or let atomicAdd do "
	"updates (PMPP ch. 9).";
static const char idea_same_line[] =
	"One statement reads and writes shared elements that other threads update in the same "
	"step: a plain ++ or += by several threads loses updates (use atomicAdd, PMPP ch. 9), "
	"and a step that reads a neighbour's element needs a temporary or a second buffer and "
	"a __syncthreads() between the read and the write (Kogge-Stone scan, PMPP ch. 11).";
static const char idea_warp[] =
	"The lanes of a warp do not run in lockstep (independent thread scheduling since "
	"Volta): warp-synchronous code needs __syncwarp() between dependent steps, or shuffles "
	"(PMPP ch. 10).";
static const char idea_uninit[] =
	"Shared memory starts undefined in every block: each element must be written, and a "
	"__syncthreads() passed, before any thread reads it (e.g. zero a privatised histogram, "
	"PMPP ch. 9, or load the whole input tile with its halo, ch. 7).";
static const char idea_diverge[] =
	"__syncthreads() must be reached by every thread of the block or by none: keep it out "
	"of conditions on threadIdx and out of code after an early return, and guard the loads "
	"and stores instead (PMPP ch. 4 and 5).";
static const char idea_few[] =
	"Each phase of a tiled or strided algorithm needs its barriers: one after the tile is "
	"loaded, one before it is overwritten, one per reduction or scan step (PMPP ch. 5, 10, "
	"11).";

void barriers_findings_release(struct barriers_findings *fs)
{
	free(fs->items);
	free(fs->bars);
	fs->items = NULL;
	fs->bars = NULL;
	fs->n = fs->cap = fs->nbars = 0;
}

static void add_bar(struct barriers_findings *fs, const struct uniformity_barrier *b)
{
	if (!b->file || !b->line || (b->kind != UNI_BAR_SYNC && b->kind != UNI_BAR_RED))
		return;
	const char *file = fs_base_name(b->file);
	for (unsigned i = 0; i < fs->nbars; i++)
		if (fs->bars[i].line == b->line && !strcmp(fs->bars[i].file, file))
			return;
	struct barriers_line *n = realloc(fs->bars, (fs->nbars + 1) * sizeof(*n));
	if (!n)
		return;
	fs->bars = n;
	snprintf(n[fs->nbars].file, sizeof n->file, "%s", file);
	n[fs->nbars++].line = b->line;
}

unsigned barriers_add(struct barriers_findings *fs, const struct barriers_finding *f)
{
	for (unsigned i = 0; i < fs->n; i++) {
		const struct barriers_finding *g = &fs->items[i];
		if (!strcmp(g->kind, f->kind) && g->line == f->line && g->other_line == f->other_line &&
		    g->intra_warp == f->intra_warp && !strcmp(g->file, f->file))
			return 0;
	}
	if (fs->n == fs->cap) {
		unsigned cap = fs->cap ? fs->cap * 2 : 8;
		struct barriers_finding *n = realloc(fs->items, cap * sizeof(*n));
		if (!n)
			return 0;
		fs->items = n;
		fs->cap = cap;
	}
	fs->items[fs->n++] = *f;
	return 1;
}

void barriers_set_msg(struct barriers_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof f->message, fmt, ap);
	va_end(ap);
}

/* The plain name of a kernel from its mangled PTX name (_Z6matmulPfS_ -> matmul). */
static void plain_name(const char *mangled, char *out, size_t len)
{
	if (strncmp(mangled, "_Z", 2) == 0) {
		char *end;
		unsigned long n = strtoul(mangled + 2, &end, 10);
		if (end != mangled + 2 && n && strlen(end) >= n) {
			snprintf(out, len, "%.*s", (int)n, end);
			return;
		}
	}
	snprintf(out, len, "%s", mangled);
}

/* ---- static ---------------------------------------------------------------------- */

static void static_divergent(const struct uniformity_kernel *k, const struct uniformity_barrier *b,
			     struct barriers_findings *out)
{
	struct barriers_finding f = { .severity = BARRIERS_ERROR, .idea = idea_diverge };
	char name[128];
	plain_name(k->name, name, sizeof name);
	snprintf(f.kind, sizeof f.kind, "divergent-barrier");
	snprintf(f.source, sizeof f.source, "static");
	snprintf(f.file, sizeof f.file, "%s", fs_base_name(b->file));
	f.line = b->line;
	snprintf(f.other_file, sizeof f.other_file, "%s", fs_base_name(b->cond_file));
	f.other_line = b->cond_line;
	const char *src = uniformity_source_name(b->cond_sources);
	if (b->cond_pc == b->pc)
		barriers_set_msg(&f, "the %s in kernel %s only runs for the threads whose predicate, which "
			"depends on %s, is true", b->kind == UNI_BAR_RED ? "__syncthreads_count/and/or"
			: "__syncthreads()", name, src);
	else
		barriers_set_msg(&f, "the __syncthreads() in kernel %s is under the condition at line %u, "
			"which depends on %s: threads for which it goes the other way%s never reach "
			"this barrier", name, b->cond_line, src,
			b->cond_exits ? " (and leave the kernel)" : "");
	barriers_add(out, &f);
}

int barriers_static(const char *ptx_path, const char *kernel, unsigned min_barriers,
		    bool forbid_divergent, struct barriers_findings *out, char *err,
		    size_t errlen)
{
	struct uniformity_report *r;
	int rc = uniformity_analyze_file(ptx_path, &r, err, errlen);
	if (rc)
		return rc;
	const struct uniformity_kernel *most = NULL;
	for (unsigned i = 0; i < r->nkernels; i++) {
		const struct uniformity_kernel *k = &r->kernels[i];
		if (k->is_entry && (!most || k->nblock_barriers > most->nblock_barriers))
			most = k;
		for (unsigned j = 0; j < k->nbarriers; j++) {
			add_bar(out, &k->barriers[j]);
			if (forbid_divergent && k->barriers[j].divergent)
				static_divergent(k, &k->barriers[j], out);
		}
	}
	const struct uniformity_kernel *k = kernel ? uniformity_find_kernel(r, kernel) : most;
	if (min_barriers && (!k || k->nblock_barriers < min_barriers)) {
		struct barriers_finding f = { .severity = BARRIERS_ERROR, .idea = idea_few };
		snprintf(f.kind, sizeof f.kind, "too-few-barriers");
		snprintf(f.source, sizeof f.source, "static");
		char name[128] = "";
		if (k)
			plain_name(k->name, name, sizeof name);
		for (unsigned j = 0; k && j < k->nbarriers && !f.line; j++) {
			snprintf(f.file, sizeof f.file, "%s", fs_base_name(k->barriers[j].file));
			f.line = k->barriers[j].line;
		}
		if (!k && kernel)
			barriers_set_msg(&f, "the submission has no kernel named %s, which must contain at least "
				"%u __syncthreads()", kernel, min_barriers);
		else if (!k || !k->nblock_barriers)
			barriers_set_msg(&f, "%s%s has no __syncthreads() at all; this lab's algorithm needs at "
				"least %u", k ? "kernel " : "the submission", name, min_barriers);
		else
			barriers_set_msg(&f, "kernel %s has %u __syncthreads() but this lab's algorithm needs at "
				"least %u", name, k->nblock_barriers, min_barriers);
		barriers_add(out, &f);
	}
	uniformity_report_free(r);
	return 0;
}

int barriers_describe(const char *ptx_path, FILE *f)
{
	struct uniformity_report *r;
	int rc = uniformity_analyze_file(ptx_path, &r, NULL, 0);
	if (rc)
		return rc;
	for (unsigned i = 0; i < r->nkernels; i++) {
		const struct uniformity_kernel *k = &r->kernels[i];
		if (!k->is_entry)
			continue;
		char name[128];
		plain_name(k->name, name, sizeof name);
		if (!k->nbarriers) { /* listed too: a kernel missing all its barriers shows */
			fprintf(f, "kernel %s: no __syncthreads() or __syncwarp()\n", name);
			continue;
		}
		fprintf(f, "kernel %s:", name);
		static const char *const what[] = { "__syncthreads()", "__syncthreads_count/and/or()",
						    "bar.arrive", "__syncwarp()" };
		const char *sep = " ";
		for (unsigned kind = 0; kind < 4; kind++) {
			unsigned seen[64], n = 0;
			char lines[400] = "";
			size_t len = 0;
			for (unsigned j = 0; j < k->nbarriers && n < 64; j++) {
				const struct uniformity_barrier *b = &k->barriers[j];
				unsigned q = 0;
				while (q < n && seen[q] != b->line)
					q++;
				if (b->kind != kind || q < n)
					continue; /* unrolled copies share a line */
				seen[n++] = b->line;
				if (len < sizeof lines)
					len += (size_t)snprintf(lines + len, sizeof lines - len, "%s%u",
								n > 1 ? ", " : "", b->line);
			}
			if (n) {
				fprintf(f, "%s%s at line%s %s", sep, what[kind], n > 1 ? "s" : "", lines);
				sep = "; ";
			}
		}
		fprintf(f, "%s\n", k->ndivergent ? "" : " (none under a thread-dependent condition)");
	}
	uniformity_report_free(r);
	return 0;
}

/* ---- emulator events ------------------------------------------------------------- */

static bool is_hazard(const char *kind)
{
	return !strcmp(kind, "raw") || !strcmp(kind, "war") || !strcmp(kind, "waw");
}

/* gap: where the emulator found the barrier missing ("between", "loop", ""); from_write:
 * a "between" gap runs from the write to the read (whichever came first in time). */
static const char *idea_for(const char *kind, bool intra, bool same_line, const char *gap,
			    bool from_write)
{
	if (intra)
		return idea_warp;
	/* a write read later on the same line: the steps of an unrolled loop */
	if (is_hazard(kind) && (!strcmp(gap, "loop") || (same_line && from_write &&
							  !strcmp(gap, "between") && strcmp(kind, "waw"))))
		return idea_loop;
	if (same_line && is_hazard(kind))
		return idea_same_line;
	if (!strcmp(gap, "between") && strcmp(kind, "waw"))
		return from_write ? idea_raw : idea_war;
	if (!strcmp(kind, "raw"))
		return idea_raw;
	if (!strcmp(kind, "war"))
		return idea_war;
	if (!strcmp(kind, "waw"))
		return idea_waw;
	if (!strcmp(kind, "uninit"))
		return idea_uninit;
	return idea_diverge;
}

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

unsigned barriers_scan_events(const char *path, struct barriers_findings *out)
{
	char *text = fs_read(path, NULL);
	if (!text)
		return 0;
	unsigned added = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *ev = json_loads(line, 0, NULL);
		const char *type = jstr(ev, "event"), *kind = jstr(ev, "kind");
		bool finding = !strcmp(type, "finding") && !strcmp(jstr(ev, "check"), "race");
		bool fault = !strcmp(type, "fault") && !strcmp(kind, "barrier");
		if (finding || fault) {
			struct barriers_finding f = { .severity = BARRIERS_ERROR, .index = -1 };
			bool intra = json_is_true(json_object_get(ev, "intra_warp"));
			snprintf(f.kind, sizeof f.kind, "%s", fault ? "barrier-fault" : kind);
			snprintf(f.source, sizeof f.source, "emulator");
			f.intra_warp = intra;
			if (!strcmp(jstr(ev, "severity"), "warning"))
				f.severity = BARRIERS_WARNING;
			snprintf(f.file, sizeof f.file, "%s", fs_base_name(jstr(ev, "file")));
			f.line = (unsigned)json_integer_value(json_object_get(ev, "line"));
			snprintf(f.other_file, sizeof f.other_file, "%s",
				 fs_base_name(jstr(ev, "other_file")));
			f.other_line = (unsigned)json_integer_value(json_object_get(ev, "other_line"));
			barriers_set_msg(&f, "%s", jstr(ev, "message"));
			snprintf(f.gap, sizeof f.gap, "%s", jstr(ev, "missing_barrier"));
			json_t *gl = json_object_get(ev, "gap_lines");
			f.gap_line = (unsigned)json_integer_value(json_array_get(gl, 0));
			f.gap_from_write = !strcmp(jstr(ev, "gap_from"), "write");
			snprintf(f.var, sizeof f.var, "%s", jstr(ev, "var"));
			json_t *ix = json_object_get(ev, "index");
			if (json_is_integer(ix))
				f.index = (long long)json_integer_value(ix);
			f.size = (unsigned)json_integer_value(json_object_get(ev, "size"));
			f.var_bytes = (unsigned long long)json_integer_value(json_object_get(ev, "var_bytes"));
			f.idea = fault ? idea_diverge
				       : idea_for(kind, intra, f.line && f.line == f.other_line &&
						  !strcmp(f.file, f.other_file), f.gap, f.gap_from_write);
			added += barriers_add(out, &f);
		}
		json_decref(ev);
	}
	free(text);
	return added;
}

/* ---- compute-sanitizer ----------------------------------------------------------- */

/* Finds "in FILE:LINE" in [p, end): fills file (base name) and *line. */
static bool sanitizer_pos(const char *p, const char *end, char *file, size_t flen,
			  unsigned *line)
{
	for (const char *in = p; (in = strstr(in, " in ")) && in < end; in += 4) {
		const char *f = in + 4, *colon = f;
		while (colon < end && *colon != ':' && *colon != ' ' && *colon != '\n')
			colon++;
		if (colon >= end || *colon != ':' || colon[1] < '0' || colon[1] > '9')
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%.*s", (int)(colon - f), f);
		snprintf(file, flen, "%s", fs_base_name(path));
		*line = (unsigned)strtoul(colon + 1, NULL, 10);
		return true;
	}
	return false;
}

static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');
	return e ? e : p + strlen(p);
}

/* racecheck: "Error: Race reported between Write access at K+0x.. in f.cu:21\n ... and
 * Read access at K+0x.. in f.cu:25 [992 hazards]" (older: "Potential RAW hazard detected
 * at __shared__ ..." followed by the two accesses). */
static unsigned scan_racecheck(const char *out, struct barriers_findings *fs)
{
	unsigned added = 0;
	for (const char *p = out;; ) {
		const char *a = strstr(p, "Race reported between"), *h = strstr(p, "hazard detected");
		p = a && (!h || a < h) ? a : h;
		if (!p)
			break;
		const char *lstart = p;
		while (lstart > out && lstart[-1] != '\n')
			lstart--;
		const char *e1 = line_end(p), *l2 = *e1 ? e1 + 1 : e1, *e2 = line_end(l2);
		struct barriers_finding f = { .severity = BARRIERS_ERROR, .index = -1 };
		snprintf(f.source, sizeof f.source, "racecheck");
		if (strstr(lstart, "Warning") && strstr(lstart, "Warning") < p)
			f.severity = BARRIERS_WARNING;
		char a1[8] = "", a2[8] = "";
		if (!strncmp(p, "Race", 4)) {
			sscanf(p, "Race reported between %7s", a1);
			const char *and = strstr(l2, "and ");
			if (and && and < e2)
				sscanf(and, "and %7s", a2);
			sanitizer_pos(p, e1, f.other_file, sizeof f.other_file, &f.other_line);
			sanitizer_pos(l2, e2, f.file, sizeof f.file, &f.line);
		} else {
			const char *k = p - 4; /* "RAW hazard detected" */
			if (k >= out)
				snprintf(a1, sizeof a1, "%.3s", k);
			const char *e3 = *e2 ? line_end(e2 + 1) : e2;
			sanitizer_pos(l2, e2, f.other_file, sizeof f.other_file, &f.other_line);
			sanitizer_pos(*e2 ? e2 + 1 : e2, e3, f.file, sizeof f.file, &f.line);
		}
		bool w1 = a1[0] == 'W', w2 = a2[0] == 'W';
		const char *kind = strlen(a1) == 3 && a1[1] == 'A' ? a1 /* RAW/WAR/WAW */
				   : w1 && w2 ? "WAW" : w1 ? "RAW" : "WAR";
		for (unsigned i = 0; i < 3 && kind[i]; i++)
			f.kind[i] = (char)(kind[i] | 0x20);
		f.idea = idea_for(f.kind, false, f.line && f.line == f.other_line, "", false);
		barriers_set_msg(&f, "racecheck found a shared-memory %s hazard between line %u and line %u "
			"with no __syncthreads() between them", kind, f.other_line, f.line);
		added += barriers_add(fs, &f);
		p = e1;
	}
	return added;
}

/* synccheck: "Barrier error detected. Divergent thread(s) in warp" then "at K+0x.. in
 * f.cu:60" and "by thread (8,0,0) in block (2,0,0)". */
static unsigned scan_synccheck(const char *out, struct barriers_findings *fs)
{
	unsigned added = 0;
	for (const char *p = out; (p = strstr(p, "Barrier error detected"));) {
		const char *e1 = line_end(p);
		struct barriers_finding f = { .severity = BARRIERS_ERROR, .idea = idea_diverge };
		snprintf(f.kind, sizeof f.kind, "synccheck");
		snprintf(f.source, sizeof f.source, "synccheck");
		char what[200], who[120] = "";
		const char *d = p + strlen("Barrier error detected");
		while (*d == '.' || *d == ' ')
			d++;
		snprintf(what, sizeof what, "%.*s", (int)(e1 - d), d);
		const char *q = *e1 ? e1 + 1 : e1;
		for (int n = 0; n < 4 && *q; n++) {
			const char *e = line_end(q);
			if (!f.line)
				sanitizer_pos(q, e, f.file, sizeof f.file, &f.line);
			const char *by = strstr(q, "by thread");
			if (by && by < e)
				snprintf(who, sizeof who, " (%.*s)", (int)(e - by), by);
			q = *e ? e + 1 : e;
		}
		barriers_set_msg(&f, "synccheck: barrier error, %s%s", what, who);
		added += barriers_add(fs, &f);
		p = e1;
	}
	return added;
}

unsigned barriers_scan_sanitizer(const char *output, const char *tool,
				 struct barriers_findings *out)
{
	if (!output)
		return 0;
	return !strcmp(tool, "synccheck") ? scan_synccheck(output, out) : scan_racecheck(output, out);
}

/* The emulator's hazard between the same two lines as racecheck's hazard x, whose
 * finding of where the barrier is missing x shares, so both give the same advice;
 * else x itself. */
static const struct barriers_finding *with_gap(const struct barriers_findings *fs,
					       const struct barriers_finding *x)
{
	if (x->gap[0] || !is_hazard(x->kind) || strcmp(x->source, "racecheck"))
		return x;
	for (unsigned j = 0; j < fs->n; j++) {
		const struct barriers_finding *e = &fs->items[j];
		if (e->gap[0] && !e->intra_warp && is_hazard(e->kind) && !strcmp(e->file, x->file) &&
		    ((e->line == x->line && e->other_line == x->other_line) ||
		     (e->line == x->other_line && e->other_line == x->line)))
			return e;
	}
	return x;
}

void barriers_racecheck_gaps(struct barriers_findings *fs)
{
	for (unsigned i = 0; i < fs->n; i++) {
		struct barriers_finding *x = &fs->items[i];
		if (strcmp(x->source, "racecheck") || !is_hazard(x->kind) || x->gap[0] ||
		    x->line == x->other_line || with_gap(fs, x) != x)
			continue;
		unsigned lo = x->line < x->other_line ? x->line : x->other_line;
		unsigned hi = x->line ^ x->other_line ^ lo;
		bool across = false;
		for (unsigned j = 0; j < fs->nbars && !across; j++)
			across = fs->bars[j].line > lo && fs->bars[j].line < hi &&
				 !strcmp(fs->bars[j].file, x->file) && !strcmp(x->file, x->other_file);
		snprintf(x->gap, sizeof x->gap, "%s", across ? "loop" : "between");
		x->gap_from_write = !strcmp(x->kind, "raw");
		x->idea = idea_for(x->kind, false, false, x->gap, x->gap_from_write);
	}
}

/* What to fix first (lower first): see barriers_format. x: with its gap (with_gap). */
static unsigned rank(const struct barriers_finding *x)
{
	if (x->severity != BARRIERS_ERROR)
		return !strcmp(x->kind, "uninit") ? 7 : 6;
	if (!strcmp(x->kind, "too-few-barriers"))
		return 4;
	if (!strcmp(x->kind, "schedule-dependent"))
		return 5;
	if (!is_hazard(x->kind))
		return 0; /* a barrier not every thread reaches: it can hang or skip a barrier */
	if (x->gap[0] && (x->idea == idea_raw || x->idea == idea_war))
		return 1; /* in one pass: the earlier barrier of a phase */
	return x->idea == idea_loop ? 2 : 3;
}

void barriers_format(FILE *f, const struct barriers_findings *fs, unsigned max)
{
	unsigned *order = malloc((fs->n ? fs->n : 1) * sizeof(unsigned)), n = 0;
	if (!order)
		return;
	/* a stable order: the same rank keeps its order, but for racecheck's copies of
	 * the emulator's findings (with_gap), which follow them */
	for (unsigned r = 0; r < 8; r++)
		for (unsigned copy = 0; copy < 2; copy++)
			for (unsigned i = 0; i < fs->n; i++) {
				const struct barriers_finding *g = with_gap(fs, &fs->items[i]);
				if (rank(g) == r && (g != &fs->items[i]) == copy)
					order[n++] = i;
			}
	const char *said[8]; /* the ideas already explained */
	unsigned nsaid = 0;
	for (unsigned k = 0; k < n && k < max; k++) {
		const struct barriers_finding *x = &fs->items[order[k]];
		if (x->file[0])
			fprintf(f, "%s:%u: ", x->file, x->line);
		fprintf(f, "%s: %s%s\n", x->severity == BARRIERS_ERROR ? "error" : "warning",
			x->intra_warp ? "(inside one warp) " : "", x->message);
		const char *idea = with_gap(fs, x)->idea;
		unsigned j = 0;
		while (j < nsaid && said[j] != idea)
			j++;
		if (idea && j == nsaid) {
			fprintf(f, "  why: %s\n", idea);
			if (nsaid < sizeof said / sizeof said[0])
				said[nsaid++] = idea;
		}
	}
	free(order);
	if (fs->n > max)
		fprintf(f, "... and %u more\n", fs->n - max);
}
