/* Tests of the barrier and race checks (issue 6): the static uniformity analysis
 * (emu/uniformity.h) and the emulator's dynamic tracker (emu/race.h) on a library of
 * known-bad kernels (bad.cu, each caught at the line its MARK comment names) and
 * known-good ones (good.cu, no finding at all).
 * Usage: test_barriers BAD.ptx GOOD.ptx BAD.cu   (BARRIERS_DUMP=1 prints all findings) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exec.h"
#include "ptx.h"
#include "race.h"
#include "schedule.h"
#include "uniformity.h"

static const char *g_bad_path, *g_good_path, *g_bad_cu;
static struct ptx_module *g_bad, *g_good;
static struct uniformity_report *g_sbad, *g_sgood;
static struct emu_fault g_fault; /* of the last run() */

static struct ptx_module *load(const char *path)
{
	struct ptx_module *m;
	char err[512];
	if (ptx_module_load_file(path, &m, err, sizeof err))
		fail_msg("%s", err);
	return m;
}

static int setup(void **state)
{
	(void)state;
	g_bad = load(g_bad_path);
	g_good = load(g_good_path);
	assert_int_equal(uniformity_analyze(g_bad, &g_sbad), 0);
	assert_int_equal(uniformity_analyze(g_good, &g_sgood), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	uniformity_report_free(g_sbad);
	uniformity_report_free(g_sgood);
	ptx_module_free(g_bad);
	ptx_module_free(g_good);
	return 0;
}

/* The line of bad.cu carrying "MARK:tag" (exactly that tag). */
static unsigned mark(const char *tag)
{
	char want[128], line[512];
	snprintf(want, sizeof want, "MARK:%s", tag);
	FILE *f = fopen(g_bad_cu, "r");
	assert_non_null(f);
	for (unsigned n = 1; fgets(line, sizeof line, f); n++) {
		char *at = strstr(line, want);
		if (at && (at[strlen(want)] == '\n' || at[strlen(want)] == ' ' || !at[strlen(want)])) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no MARK:%s in %s", tag, g_bad_cu);
	return 0;
}

#define D3(x, y, z) ((struct emu_dim3){ (x), (y), (z) })

static devaddr_t dalloc(size_t n)
{
	devaddr_t a;
	assert_int_equal(devmem_alloc(n, DEVMEM_GLOBAL, "test buffer", &a), 0);
	memset(devmem_host(a, n), 0, n);
	return a;
}

static devaddr_t dfill_f(size_t n, unsigned seed)
{
	devaddr_t a = dalloc(n * 4);
	float *h = devmem_host(a, n * 4);
	for (size_t i = 0; i < n; i++)
		h[i] = (float)((i * 7 + seed) % 13) - 6.0f;
	return a;
}

/* Runs kernel `name` of m under a race tracker; returns it (free with race_free). */
static struct race_tracker *run(const struct ptx_module *m, const char *name,
				struct emu_dim3 g, struct emu_dim3 b, void **args,
				struct emu_launch *l, int *rc)
{
	const struct ptx_kernel *k = NULL;
	char want[128];
	snprintf(want, sizeof want, "%s", name);
	k = ptx_module_kernel(m, want);
	assert_non_null(k);
	*l = (struct emu_launch){ m, k, g, b, 0, args };
	struct race_tracker *t = race_new(l);
	assert_non_null(t);
	memset(&g_fault, 0, sizeof g_fault);
	*rc = race_run(t, &g_fault);
	if (getenv("BARRIERS_DUMP")) {
		fprintf(stderr, "%s: rc %d, %u findings\n", name, *rc, race_nfindings(t));
		for (unsigned i = 0; i < race_nfindings(t); i++) {
			char js[2048];
			race_finding_json(race_finding_at(t, i), js, sizeof js);
			fprintf(stderr, "  %s\n", js);
		}
	}
	return t;
}

/* The first finding of kind k (and intra-warp flag intra, -1 any) at line2 (hazards:
 * the later access) or line1 (barriers). */
static const struct race_finding *find(const struct race_tracker *t, int k, int intra,
				       unsigned line)
{
	for (unsigned i = 0; i < race_nfindings(t); i++) {
		const struct race_finding *f = race_finding_at(t, i);
		unsigned at = f->kind >= RACE_BAR_DIVERGENT ? f->line1 : f->line2;
		if ((k < 0 || (int)f->kind == k) && (intra < 0 || f->intra_warp == intra) &&
		    at == line)
			return f;
	}
	return NULL;
}

/* No finding of a hazard inside one warp: where a hazard between warps names the
 * missing __syncthreads(), "__syncwarp()" would be the wrong advice (issue 18). */
static void assert_no_intra_warp(const struct race_tracker *t)
{
	for (unsigned i = 0; i < race_nfindings(t); i++) {
		const struct race_finding *f = race_finding_at(t, i);
		if (f->kind <= RACE_WAW && f->intra_warp)
			fail_msg("a hazard inside one warp at line %u: %s", f->line2, f->message);
	}
}

/* Every hazard between warps has its barrier missing at gap (from line a to line b). */
static void assert_gaps(const struct race_tracker *t, enum race_gap gap, unsigned a,
			unsigned b)
{
	unsigned n = 0;
	for (unsigned i = 0; i < race_nfindings(t); i++) {
		const struct race_finding *f = race_finding_at(t, i);
		if (f->kind > RACE_WAW || f->intra_warp)
			continue;
		n++;
		if (f->gap != gap || f->gap_line1 != a || f->gap_line2 != b)
			fail_msg("%s: gap %s %u-%u, want %s %u-%u", f->message, race_gap_name(f->gap),
				 f->gap_line1, f->gap_line2, race_gap_name(gap), a, b);
	}
	assert_true(n > 0);
}

/* A hazard between lines a and b in either order (which access comes first depends
 * on the warp schedule: RAW one way, WAR the other). */
static const struct race_finding *find_pair(const struct race_tracker *t, int intra,
					    unsigned a, unsigned b)
{
	for (unsigned i = 0; i < race_nfindings(t); i++) {
		const struct race_finding *f = race_finding_at(t, i);
		if (f->kind > RACE_WAW || (intra >= 0 && f->intra_warp != intra))
			continue;
		if ((f->line1 == a && f->line2 == b) || (f->line1 == b && f->line2 == a))
			return f;
	}
	return NULL;
}

/* ---- static ------------------------------------------------------------------- */

static const struct uniformity_barrier *static_barrier(const struct uniformity_report *r,
						       const char *kernel, unsigned line)
{
	const struct uniformity_kernel *k = uniformity_find_kernel(r, kernel);
	assert_non_null(k);
	for (unsigned i = 0; i < k->nbarriers; i++)
		if (k->barriers[i].line == line)
			return &k->barriers[i];
	fail_msg("%s: no barrier at line %u", kernel, line);
	return NULL;
}

static void test_static_divergent(void **state)
{
	(void)state;
	static const struct { const char *kernel, *bar, *cond; } cases[] = {
		{ "mm_sync_in_if", "mm3_bar", "mm3_cond" },
		{ "mm_return_then_sync", "mm4_bar", "mm4_cond" },
		{ "two_barriers", "two_bar_a", "two_cond" },
		{ "two_barriers", "two_bar_b", "two_cond" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct uniformity_barrier *b =
			static_barrier(g_sbad, cases[i].kernel, mark(cases[i].bar));
		assert_int_equal(b->kind, UNI_BAR_SYNC);
		assert_true(b->divergent);
		assert_int_equal(b->cond_line, mark(cases[i].cond));
		assert_true(b->cond_sources & UNI_SRC_TID);
		assert_non_null(strstr(b->file, "bad.cu"));
		assert_string_equal(uniformity_source_name(b->cond_sources), "threadIdx");
	}
	const struct uniformity_kernel *k = uniformity_find_kernel(g_sbad, "mm_sync_in_if");
	assert_int_equal(k->nblock_barriers, 2);
	assert_int_equal(k->ndivergent, 2);
}

static void test_static_counts_bad(void **state)
{
	(void)state;
	/* the missing-barrier kernels have one barrier fewer than their good version and
	 * nothing divergent: the spec's min_barriers is what catches them statically */
	static const struct { const char *kernel; unsigned n; } cases[] = {
		{ "mm_no_first_sync", 1 }, { "mm_no_second_sync", 1 }, { "reduce_no_sync", 1 },
		{ "ks_inplace", 1 }, { "hist_plain", 2 }, { "warp_tail_no_syncwarp", 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct uniformity_kernel *k = uniformity_find_kernel(g_sbad, cases[i].kernel);
		assert_non_null(k);
		assert_int_equal(k->nblock_barriers, cases[i].n);
		assert_int_equal(k->ndivergent, 0);
	}
}

static void test_static_good(void **state)
{
	(void)state;
	static const struct { const char *kernel; unsigned n; } cases[] = {
		{ "mm_good", 2 }, { "reduce_syncwarp", 2 }, { "reduce_shuffle", 1 },
		{ "uniform_conditions", 4 }, { "hist_atomic", 2 }, { "ks_good", 2 },
		{ "loop_from_shared", 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct uniformity_kernel *k = uniformity_find_kernel(g_sgood, cases[i].kernel);
		assert_non_null(k);
		if (k->ndivergent)
			fail_msg("%s: %u divergent barriers", cases[i].kernel, k->ndivergent);
		assert_int_equal(k->nblock_barriers, cases[i].n);
	}
	/* __syncwarp() is listed, and never divergent */
	const struct uniformity_kernel *k = uniformity_find_kernel(g_sgood, "reduce_syncwarp");
	unsigned warp = 0;
	for (unsigned i = 0; i < k->nbarriers; i++)
		warp += k->barriers[i].kind == UNI_BAR_WARP;
	assert_true(warp >= 2);
}

static void test_static_file(void **state)
{
	(void)state;
	struct uniformity_report *r;
	char err[256];
	assert_int_equal(uniformity_analyze_file(g_bad_path, &r, err, sizeof err), 0);
	assert_non_null(uniformity_find_kernel(r, "mm_sync_in_if"));
	assert_null(uniformity_find_kernel(r, "no_such_kernel"));
	uniformity_report_free(r);
	assert_int_equal(uniformity_analyze_file("/nonexistent.ptx", &r, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent.ptx"));
}

/* ---- dynamic: known-bad --------------------------------------------------------- */

static void mm_case(const char *kernel, int n, unsigned gx, unsigned gy, int want_rc,
		    struct race_tracker **t, struct emu_launch *l, devaddr_t buf[3])
{
	static int nn;
	static devaddr_t a, b, c;
	static void *args[4];
	nn = n;
	a = buf[0] = dfill_f((size_t)n * n, 1);
	b = buf[1] = dfill_f((size_t)n * n, 2);
	c = buf[2] = dalloc((size_t)n * n * 4);
	args[0] = &a, args[1] = &b, args[2] = &c, args[3] = &nn;
	int rc;
	*t = run(g_bad, kernel, D3(gx, gy, 1), D3(16, 16, 1), args, l, &rc);
	assert_int_equal(rc, want_rc);
}

static void mm_free(devaddr_t buf[3])
{
	for (int i = 0; i < 3; i++)
		devmem_free(buf[i]);
}

static void test_mm_no_first_sync(void **state)
{
	(void)state;
	struct race_tracker *t;
	struct emu_launch l;
	devaddr_t buf[3];
	mm_case("mm_no_first_sync", 32, 2, 2, 0, &t, &l, buf);
	const struct race_finding *f = find_pair(t, 0, mark("mm1_read"), mark("mm1_write"));
	assert_non_null(f);
	/* a read of the tile against its write, whichever came first */
	assert_int_equal(f->line2 == mark("mm1_read") ? f->write1 : f->write2, 1);
	assert_true(!strcmp(f->var, "Mds") || !strcmp(f->var, "Nds"));
	assert_int_equal(f->size, 4);
	assert_non_null(strstr(f->file2, "bad.cu"));
	assert_string_equal(race_severity(f), "error");
	assert_non_null(strstr(f->message, "no __syncthreads() between"));
	/* the two threads differ and the element is in the tile */
	assert_false(f->thread1.x == f->thread2.x && f->thread1.y == f->thread2.y);
	assert_true(f->offset < 16 * 16 * 4);
	char js[2048];
	size_t n = race_finding_json(f, js, sizeof js);
	assert_true(n < sizeof js);
	assert_non_null(strstr(js, "\"event\":\"finding\""));
	assert_non_null(strstr(js, f->kind == RACE_RAW ? "\"kind\":\"raw\"" : "\"kind\":\"war\""));
	assert_non_null(strstr(js, "\"file\":\"bad.cu\""));
	assert_non_null(strstr(js, "\"var_bytes\":1024"));
	/* issue 18: whichever access came first, the barrier missing is the one between
	 * filling the tile and reading it, and it covers the hazards inside one warp too */
	assert_gaps(t, RACE_GAP_BETWEEN, mark("mm1_write"), mark("mm1_read"));
	assert_true(f->gap_from_write);
	assert_non_null(strstr(js, "\"missing_barrier\":\"between\""));
	assert_no_intra_warp(t);
	race_free(t);
	mm_free(buf);
}

static void test_mm_no_second_sync(void **state)
{
	(void)state;
	struct race_tracker *t;
	struct emu_launch l;
	devaddr_t buf[3];
	mm_case("mm_no_second_sync", 32, 2, 2, 0, &t, &l, buf);
	const struct race_finding *f = find_pair(t, 0, mark("mm2_read"), mark("mm2_write"));
	assert_non_null(f);
	assert_int_equal(f->write1 + f->write2, 1);
	/* issue 18: the barrier missing is the one after the reads, before the next pass
	 * overwrites the tile (not the first one, which is there) */
	assert_gaps(t, RACE_GAP_LOOP, mark("mm2_read"), mark("mm2_write"));
	assert_int_equal(f->bar_line, mark("mm2_bar"));
	assert_true(f->loop_first <= mark("mm2_write") && f->loop_last >= mark("mm2_read"));
	assert_non_null(strstr(f->message, "already in a later pass of the loop"));
	assert_non_null(strstr(f->message, "no __syncthreads() between"));
	char js[2048];
	race_finding_json(f, js, sizeof js);
	assert_non_null(strstr(js, "\"missing_barrier\":\"loop\""));
	assert_no_intra_warp(t);
	race_free(t);
	mm_free(buf);
}

static void test_mm_sync_in_if(void **state)
{
	(void)state;
	struct race_tracker *t;
	struct emu_launch l;
	devaddr_t buf[3];
	/* n = 40, grid 2x3: in the blocks of the last row, warps 4..7 (rows 40..47) skip
	 * the phase loop and exit; warps 0..3 wait at its barriers */
	mm_case("mm_sync_in_if", 40, 2, 3, 0, &t, &l, buf);
	const struct race_finding *f = find(t, RACE_BAR_EXITED, 0, mark("mm3_bar"));
	assert_non_null(f);
	assert_int_equal(f->nthreads, 256);
	assert_int_equal(f->threads1, 128);
	assert_int_equal(f->threads2, 128);
	assert_int_equal(f->count, 2);
	assert_int_equal(f->block.y, 2);
	assert_true(f->thread2.y >= 8);
	assert_string_equal(race_severity(f), "error");
	race_free(t);
	mm_free(buf);
	/* grid 3x3: columns 40..47 split warps; the interpreter stops at the barrier that
	 * only some lanes of a warp reach */
	mm_case("mm_sync_in_if", 40, 3, 3, -EDEADLK, &t, &l, buf);
	assert_int_equal(g_fault.kind, EMU_FAULT_BARRIER);
	assert_int_equal(g_fault.line, mark("mm3_bar"));
	race_free(t);
	mm_free(buf);
}

static void test_mm_return_then_sync(void **state)
{
	(void)state;
	struct race_tracker *t;
	struct emu_launch l;
	devaddr_t buf[3];
	mm_case("mm_return_then_sync", 40, 2, 3, 0, &t, &l, buf);
	const struct race_finding *f = find(t, RACE_BAR_EXITED, 0, mark("mm4_bar"));
	assert_non_null(f);
	assert_int_equal(f->threads1, 128);
	assert_int_equal(f->threads2, 128);
	assert_non_null(strstr(f->message, "already exited"));
	assert_true(f->line2 > 0);
	race_free(t);
	mm_free(buf);
	mm_case("mm_return_then_sync", 40, 3, 3, -EDEADLK, &t, &l, buf);
	assert_int_equal(g_fault.kind, EMU_FAULT_BARRIER);
	assert_int_equal(g_fault.line, mark("mm4_bar"));
	race_free(t);
	mm_free(buf);
}

/* A kernel stopped by a fault leaves its barrier's generation incomplete: the warps
 * that had not reached it did not exit, they never ran on. No barrier finding. */
static void test_fault_before_sync(void **state)
{
	(void)state;
	static int n = 128;
	devaddr_t in = dfill_f(128, 5), out = dalloc(128 * 4);
	void *args[] = { &in, &out, &n };
	struct emu_launch l;
	int rc;
	struct race_tracker *t = run(g_bad, "fault_before_sync", D3(1, 1, 1), D3(128, 1, 1),
				     args, &l, &rc);
	assert_int_not_equal(rc, 0);
	assert_int_equal(g_fault.line, mark("fault_read"));
	for (unsigned i = 0; i < race_nfindings(t); i++) {
		const struct race_finding *f = race_finding_at(t, i);
		if (f->kind >= RACE_BAR_DIVERGENT)
			fail_msg("barrier finding after a fault: %s", f->message);
	}
	race_free(t);
	devmem_free(in);
	devmem_free(out);
}

static void test_reduce_no_sync(void **state)
{
	(void)state;
	devaddr_t in = dfill_f(512, 3), out = dalloc(8);
	void *args[] = { &in, &out };
	struct emu_launch l;
	int rc;
	struct race_tracker *t = run(g_bad, "reduce_no_sync", D3(2, 1, 1), D3(256, 1, 1), args,
				     &l, &rc);
	assert_int_equal(rc, 0);
	const struct race_finding *f = find(t, -1, 0, mark("red_rw"));
	assert_non_null(f);
	assert_true(f->kind == RACE_RAW || f->kind == RACE_WAR);
	assert_int_equal(f->line1, mark("red_rw"));
	assert_string_equal(f->var, "s");
	/* issue 18: a step reads what the previous one has not finished: the barrier per
	 * step of the loop; the same statement inside one warp needs no __syncwarp() advice */
	assert_gaps(t, RACE_GAP_LOOP, mark("red_rw"), mark("red_rw"));
	assert_no_intra_warp(t);
	race_free(t);
	devmem_free(in);
	devmem_free(out);
}

static void test_ks_inplace(void **state)
{
	(void)state;
	int n = 500;
	devaddr_t x = dfill_f(512, 4), y = dalloc(512 * 4);
	void *args[] = { &x, &y, &n };
	struct emu_launch l;
	int rc;
	struct race_tracker *t = run(g_bad, "ks_inplace", D3(2, 1, 1), D3(256, 1, 1), args, &l,
				     &rc);
	assert_int_equal(rc, 0);
	const struct race_finding *f = find(t, -1, -1, mark("ks_rw"));
	assert_non_null(f);
	assert_string_equal(f->var, "XY");
	assert_true(f->kind == RACE_RAW || f->kind == RACE_WAR);
	/* across warps (stride >= 32) the hazard is a block-level one */
	assert_non_null(find(t, -1, 0, mark("ks_rw")));
	/* issue 18: in one step, between the read of the neighbour and the write */
	assert_gaps(t, RACE_GAP_BETWEEN, mark("ks_rw"), mark("ks_rw"));
	assert_false(find(t, -1, 0, mark("ks_rw"))->gap_from_write);
	race_free(t);
	devmem_free(x);
	devmem_free(y);
}

static devaddr_t bytes_input(int n)
{
	devaddr_t d = dalloc((size_t)n);
	unsigned char *h = devmem_host(d, (size_t)n);
	for (int i = 0; i < n; i++)
		h[i] = (unsigned char)(i * 37 % 251);
	return d;
}

static void test_hist_plain(void **state)
{
	(void)state;
	int n = 4096;
	devaddr_t d = bytes_input(n), h = dalloc(64 * 4);
	void *args[] = { &d, &n, &h };
	struct emu_launch l;
	int rc;
	struct race_tracker *t = run(g_bad, "hist_plain", D3(4, 1, 1), D3(128, 1, 1), args, &l,
				     &rc);
	assert_int_equal(rc, 0);
	const struct race_finding *f = find(t, -1, 0, mark("hist_inc"));
	assert_non_null(f);
	assert_string_equal(f->var, "bins");
	assert_int_equal(f->line1, mark("hist_inc"));
	/* issue 18: one statement that loses updates in any pass, not a barrier missing
	 * between passes of the loop (the threads are in different passes too) */
	assert_gaps(t, RACE_GAP_BETWEEN, mark("hist_inc"), mark("hist_inc"));
	assert_no_intra_warp(t);
	race_free(t);
	devmem_free(d);
	devmem_free(h);
}

static void test_hist_no_init(void **state)
{
	(void)state;
	int n = 1024;
	devaddr_t d = bytes_input(n), h = dalloc(64 * 4);
	void *args[] = { &d, &n, &h };
	struct emu_launch l;
	int rc;
	struct race_tracker *t = run(g_bad, "hist_no_init", D3(2, 1, 1), D3(128, 1, 1), args, &l,
				     &rc);
	assert_int_equal(rc, 0);
	const struct race_finding *f = find(t, RACE_UNINIT, 0, mark("uninit"));
	assert_non_null(f);
	assert_string_equal(f->var, "bins");
	assert_string_equal(race_severity(f), "warning");
	/* atomics on the same bins do not conflict with each other */
	for (unsigned i = 0; i < race_nfindings(t); i++)
		assert_true(race_finding_at(t, i)->kind == RACE_UNINIT);
	race_free(t);
	devmem_free(d);
	devmem_free(h);
}

static void test_two_barriers(void **state)
{
	(void)state;
	devaddr_t out = dalloc(128 * 4);
	void *args[] = { &out };
	struct emu_launch l;
	int rc;
	struct race_tracker *t = run(g_bad, "two_barriers", D3(1, 1, 1), D3(128, 1, 1), args, &l,
				     &rc);
	assert_int_equal(rc, 0);
	const struct race_finding *f = NULL;
	for (unsigned i = 0; i < race_nfindings(t); i++)
		if (race_finding_at(t, i)->kind == RACE_BAR_DIVERGENT)
			f = race_finding_at(t, i);
	assert_non_null(f);
	unsigned a = mark("two_bar_a"), b = mark("two_bar_b");
	assert_true((f->line1 == a && f->line2 == b) || (f->line1 == b && f->line2 == a));
	assert_int_equal(f->threads1, 64);
	assert_int_equal(f->threads2, 64);
	race_free(t);
	devmem_free(out);
}

static void test_warp_tail(void **state)
{
	(void)state;
	devaddr_t in = dfill_f(128, 5), out = dalloc(8);
	void *args[] = { &in, &out };
	struct emu_launch l;
	int rc;
	struct race_tracker *t = run(g_bad, "warp_tail_no_syncwarp", D3(2, 1, 1), D3(64, 1, 1),
				     args, &l, &rc);
	assert_int_equal(rc, 0);
	const struct race_finding *f = find(t, -1, 1, mark("warp_rw"));
	assert_non_null(f);
	assert_string_equal(race_severity(f), "warning");
	assert_non_null(strstr(f->message, "__syncwarp()"));
	/* all the hazards are inside warp 0 */
	assert_null(find(t, -1, 0, mark("warp_rw")));
	race_free(t);
	devmem_free(in);
	devmem_free(out);
}

/* ---- dynamic: known-good -------------------------------------------------------- */

/* rc by address: it is set by run(), an argument evaluated in unspecified order */
static void expect_clean(struct race_tracker *t, const char *name, const int *rc)
{
	assert_int_equal(*rc, 0);
	if (race_nfindings(t)) {
		char js[2048];
		race_finding_json(race_finding_at(t, 0), js, sizeof js);
		fail_msg("%s: %u findings, first: %s", name, race_nfindings(t), js);
	}
	race_free(t);
}

static void test_good_kernels(void **state)
{
	(void)state;
	struct emu_launch l;
	int rc, n = 40, flag = 1, cnt = 4096;
	devaddr_t a = dfill_f(40 * 40, 1), b = dfill_f(40 * 40, 2), c = dalloc(40 * 40 * 4);
	void *mm[] = { &a, &b, &c, &n };
	expect_clean(run(g_good, "mm_good", D3(3, 3, 1), D3(16, 16, 1), mm, &l, &rc), "mm", &rc);

	devaddr_t in = dfill_f(1024, 3), out = dalloc(1024 * 4);
	void *red[] = { &in, &out };
	expect_clean(run(g_good, "reduce_syncwarp", D3(4, 1, 1), D3(256, 1, 1), red, &l, &rc),
		     "reduce_syncwarp", &rc);
	expect_clean(run(g_good, "reduce_shuffle", D3(4, 1, 1), D3(256, 1, 1), red, &l, &rc),
		     "reduce_shuffle", &rc);
	void *uni[] = { &out, &flag };
	expect_clean(run(g_good, "uniform_conditions", D3(3, 1, 1), D3(128, 1, 1), uni, &l, &rc),
		     "uniform_conditions", &rc);
	expect_clean(run(g_good, "uniform_conditions", D3(2, 1, 1), D3(32, 1, 1), uni, &l, &rc),
		     "uniform_conditions(32)", &rc);

	devaddr_t d = bytes_input(cnt), h = dalloc(64 * 4);
	void *hist[] = { &d, &cnt, &h };
	expect_clean(run(g_good, "hist_atomic", D3(4, 1, 1), D3(128, 1, 1), hist, &l, &rc),
		     "hist_atomic", &rc);
	int sn = 1000;
	void *ks[] = { &in, &out, &sn };
	expect_clean(run(g_good, "ks_good", D3(4, 1, 1), D3(256, 1, 1), ks, &l, &rc), "ks_good",
		     &rc);
	devaddr_t counts = dalloc(4 * 4);
	int *hc = devmem_host(counts, 16);
	hc[0] = 0, hc[1] = 3, hc[2] = 1, hc[3] = 5;
	void *lp[] = { &counts, &out };
	expect_clean(run(g_good, "loop_from_shared", D3(4, 1, 1), D3(128, 1, 1), lp, &l, &rc),
		     "loop_from_shared", &rc);
	devaddr_t all[] = { a, b, c, in, out, d, h, counts };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		devmem_free(all[i]);
}

/* ---- schedules ----------------------------------------------------------------- */

static void test_schedule_parse(void **state)
{
	(void)state;
	struct emu_schedule s;
	assert_int_equal(emu_schedule_parse("forward", &s), 0);
	assert_int_equal(s.order, EMU_ORDER_FORWARD);
	assert_int_equal(s.slice, 0);
	assert_int_equal(emu_schedule_parse("random:42/7", &s), 0);
	assert_int_equal(s.order, EMU_ORDER_RANDOM);
	assert_int_equal(s.seed, 42);
	assert_int_equal(s.slice, 7);
	assert_int_equal(emu_schedule_parse("reverse/1", &s), 0);
	assert_int_equal(s.order, EMU_ORDER_REVERSE);
	assert_int_equal(s.slice, 1);
	static const char *const bad[] = { "", "backward", "random:", "random:x", "reverse/0",
					   "reverse/", "forward:1/2x", "randomly" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(emu_schedule_parse(bad[i], &s), -EINVAL);
	/* set wins over the environment; NULL goes back to it */
	setenv("PMPPLAB_EMU_SCHEDULE", "reverse", 1);
	emu_schedule_current(&s);
	assert_int_equal(s.order, EMU_ORDER_REVERSE);
	struct emu_schedule r = { EMU_ORDER_RANDOM, 9, 3 };
	emu_set_schedule(&r);
	emu_schedule_current(&s);
	assert_int_equal(s.order, EMU_ORDER_RANDOM);
	emu_set_schedule(NULL);
	setenv("PMPPLAB_EMU_SCHEDULE", "nonsense", 1);
	emu_schedule_current(&s);
	assert_int_equal(s.order, EMU_ORDER_FORWARD);
	unsetenv("PMPPLAB_EMU_SCHEDULE");
}

static void test_schedule_permutations(void **state)
{
	(void)state;
	static const struct emu_schedule ss[] = {
		{ EMU_ORDER_FORWARD, 0, 0 }, { EMU_ORDER_REVERSE, 0, 0 },
		{ EMU_ORDER_RANDOM, 1, 0 }, { EMU_ORDER_RANDOM, 12345, 0 },
	};
	unsigned char seen[1000];
	for (size_t k = 0; k < sizeof ss / sizeof ss[0]; k++) {
		for (unsigned n = 1; n <= 1000; n += (n < 40 ? 1 : 97)) {
			memset(seen, 0, n);
			for (unsigned i = 0; i < n; i++) {
				unsigned b = emu_schedule_block(&ss[k], i, n);
				assert_true(b < n);
				assert_false(seen[b]);
				seen[b] = 1;
			}
		}
		unsigned order[32];
		for (unsigned n = 1; n <= 32; n++) {
			emu_schedule_warps(&ss[k], 3, 5, order, n);
			memset(seen, 0, n);
			for (unsigned i = 0; i < n; i++) {
				assert_true(order[i] < n);
				assert_false(seen[order[i]]);
				seen[order[i]] = 1;
			}
		}
	}
	/* reverse starts with the last; random differs between rounds */
	unsigned a[32], b[32];
	emu_schedule_warps(&ss[1], 0, 0, a, 8);
	assert_int_equal(a[0], 7);
	assert_int_equal(emu_schedule_block(&ss[1], 0, 10), 9);
	emu_schedule_warps(&ss[2], 0, 0, a, 32);
	emu_schedule_warps(&ss[2], 0, 1, b, 32);
	assert_true(memcmp(a, b, sizeof a) != 0);
}

/* ---- schedules change the results of racy kernels, not of correct ones ---------- */

/* Sums of reduce kernel `name` (256 threads, 4 blocks) under schedule s; returns how
 * many block sums are wrong. */
static unsigned reduce_wrong(const struct ptx_module *m, const char *name,
			     const struct emu_schedule *s)
{
	devaddr_t in = dalloc(1024 * 4), out = dalloc(4 * 4);
	float *hi = devmem_host(in, 1024 * 4), *ho = devmem_host(out, 16);
	for (int i = 0; i < 1024; i++)
		hi[i] = (float)(i % 7);
	void *args[] = { &in, &out };
	struct emu_launch l = { m, ptx_module_kernel(m, name), D3(4, 1, 1), D3(256, 1, 1), 0, args };
	struct emu_fault f;
	emu_set_schedule(s);
	assert_int_equal(emu_run(&l, &f), 0);
	emu_set_schedule(NULL);
	unsigned wrong = 0;
	for (int b = 0; b < 4; b++) {
		float sum = 0;
		for (int i = 0; i < 256; i++)
			sum += hi[b * 256 + i];
		wrong += ho[b] != sum;
	}
	devmem_free(in);
	devmem_free(out);
	return wrong;
}

static void test_schedule_results(void **state)
{
	(void)state;
	static const struct emu_schedule ss[] = {
		{ EMU_ORDER_FORWARD, 0, 0 }, { EMU_ORDER_REVERSE, 0, 0 },
		{ EMU_ORDER_RANDOM, 7, 3 }, { EMU_ORDER_RANDOM, 8, 1 },
	};
	unsigned bad = 0;
	for (size_t k = 0; k < sizeof ss / sizeof ss[0]; k++) {
		assert_int_equal(reduce_wrong(g_good, "reduce_syncwarp", &ss[k]), 0);
		assert_int_equal(reduce_wrong(g_good, "reduce_shuffle", &ss[k]), 0);
		bad += reduce_wrong(g_bad, "reduce_no_sync", &ss[k]) != 0;
	}
	/* the missing barrier shows in some order (the correct kernels in none) */
	assert_true(bad >= 1);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s BAD.ptx GOOD.ptx BAD.cu\n", argv[0]);
		return 2;
	}
	g_bad_path = argv[1];
	g_good_path = argv[2];
	g_bad_cu = argv[3];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_divergent),
		cmocka_unit_test(test_static_counts_bad),
		cmocka_unit_test(test_static_good),
		cmocka_unit_test(test_static_file),
		cmocka_unit_test(test_mm_no_first_sync),
		cmocka_unit_test(test_mm_no_second_sync),
		cmocka_unit_test(test_mm_sync_in_if),
		cmocka_unit_test(test_mm_return_then_sync),
		cmocka_unit_test(test_fault_before_sync),
		cmocka_unit_test(test_reduce_no_sync),
		cmocka_unit_test(test_ks_inplace),
		cmocka_unit_test(test_hist_plain),
		cmocka_unit_test(test_hist_no_init),
		cmocka_unit_test(test_two_barriers),
		cmocka_unit_test(test_warp_tail),
		cmocka_unit_test(test_good_kernels),
		cmocka_unit_test(test_schedule_parse),
		cmocka_unit_test(test_schedule_permutations),
		cmocka_unit_test(test_schedule_results),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
