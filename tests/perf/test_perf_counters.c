/* The emulator's modelled counters (pl_counters, driven here through its hook functions
 * with the access patterns of real kernels), their agreement with emu's hook interface,
 * and the verdicts a performance check draws from them (perf_model_*). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec.h"         /* emu: struct emu_hooks */
#include "ptx_internal.h" /* emu: enum ptx_space, the spaces on_access reports */
#include "cudart_provenance.h" /* emu: enum emu_prov_count */
#include "harness/pl_counters.h"
#include "harness/pl_provenance.h"
#include "perf.h"

/* pl_counters mirrors emu's hook struct and space numbers: they must agree. */
_Static_assert(sizeof(struct pl_emu_hooks) == sizeof(struct emu_hooks), "hooks size");
_Static_assert(offsetof(struct pl_emu_hooks, on_insn) == offsetof(struct emu_hooks, on_insn), "on_insn");
_Static_assert(offsetof(struct pl_emu_hooks, on_access) == offsetof(struct emu_hooks, on_access), "on_access");
_Static_assert(offsetof(struct pl_emu_hooks, on_barrier) == offsetof(struct emu_hooks, on_barrier), "on_barrier");
_Static_assert(offsetof(struct pl_emu_hooks, strict_exits) == offsetof(struct emu_hooks, strict_exits), "strict_exits");
_Static_assert(offsetof(struct pl_emu_hooks, on_icall) == offsetof(struct emu_hooks, on_icall), "on_icall");
_Static_assert(offsetof(struct pl_emu_hooks, on_mbarrier) == offsetof(struct emu_hooks, on_mbarrier), "on_mbarrier");
_Static_assert(PL_SP_GENERIC == (int)SP_GENERIC && PL_SP_GLOBAL == (int)SP_GLOBAL &&
	       PL_SP_SHARED == (int)SP_SHARED && PL_SP_LOCAL == (int)SP_LOCAL &&
	       PL_SP_CONST == (int)SP_CONST, "spaces");
/* pl_provenance mirrors the indices of emu_provenance_query's counts (issue 14). */
_Static_assert(PL_PROV_KERNEL == (int)EMU_PROV_KERNEL && PL_PROV_STAGED == (int)EMU_PROV_STAGED &&
	       PL_PROV_CHANGED == (int)EMU_PROV_CHANGED &&
	       PL_PROV_UNWRITTEN == (int)EMU_PROV_UNWRITTEN && PL_PROV_HOST == (int)EMU_PROV_HOST &&
	       PL_PROV_FIRST_BAD == (int)EMU_PROV_FIRST_BAD &&
	       PL_PROV_OVERFLOW == (int)EMU_PROV_OVERFLOW && PL_PROV_FILLED == (int)EMU_PROV_FILLED &&
	       PL_PROV_COUNT == (int)EMU_PROV_COUNT, "provenance counts");

/* One warp instruction: lane l accesses base + l * stride (size bytes) in SPACE. */
static void warp_access(int space, uint64_t base, uint64_t stride, unsigned size, int write,
			uint32_t active)
{
	pl_counters_insn(NULL, 0, 0, active, 0, 0);
	for (unsigned l = 0; l < 32; l++)
		if (active >> l & 1)
			pl_counters_access(NULL, 0, 0, l, space, base + l * stride, size, write, 0);
}

static struct pl_counters take(void)
{
	struct pl_counters c;
	pl_counters_collect(&c, 1);
	return c;
}

static void test_global(void **state)
{
	(void)state;
	take();
	warp_access(PL_SP_GLOBAL, 0x10000, 4, 4, 0, 0xffffffffu);  /* A[i]: 4 sectors */
	warp_access(PL_SP_GLOBAL, 0x20000, 128, 4, 0, 0xffffffffu); /* stride 32 floats: 32 */
	warp_access(PL_SP_GLOBAL, 0x30000, 0, 4, 0, 0xffffffffu);   /* all lanes one word: 1 */
	warp_access(PL_SP_GENERIC, 0x40000, 8, 8, 1, 0x0000ffffu);  /* 16 lanes of doubles: 4 */
	struct pl_counters c = take();
	assert_int_equal(c.gld_req, 3);
	assert_int_equal(c.gld_sectors, 4 + 32 + 1);
	assert_int_equal(c.gld_bytes, 3 * 128);
	assert_int_equal(c.gst_req, 1);
	assert_int_equal(c.gst_sectors, 4);
	assert_int_equal(c.gst_bytes, 128);
	assert_int_equal(c.warp_insns, 4);
	assert_int_equal(c.thread_insns, 3 * 32 + 16);
	assert_int_equal(c.shd_req, 0);
}

static void test_shared(void **state)
{
	(void)state;
	take();
	warp_access(PL_SP_SHARED, 0, 4, 4, 0, 0xffffffffu);       /* row: conflict-free */
	warp_access(PL_SP_SHARED, 0, 128, 4, 0, 0xffffffffu);     /* column of [32][32]: 32-way */
	warp_access(PL_SP_SHARED, 0, 132, 4, 0, 0xffffffffu);     /* column of [32][33]: none */
	warp_access(PL_SP_SHARED, 64, 0, 4, 0, 0xffffffffu);      /* broadcast: one pass */
	warp_access(PL_SP_GENERIC, PL_SHARED_WIN + 0, 256, 4, 1, 0x3);  /* 2 lanes, same bank */
	warp_access(PL_SP_GENERIC, PL_LOCAL_WIN + 0, 4, 4, 1, 0xffffffffu); /* local: ignored */
	struct pl_counters c = take();
	assert_int_equal(c.shd_req, 5);
	assert_int_equal(c.shd_wavefronts, 1 + 32 + 1 + 1 + 2);
	assert_int_equal(c.shd_ideal, 5);
	assert_int_equal(c.gld_req + c.gst_req, 0);
}

static void test_model_verdicts(void **state)
{
	(void)state;
	/* vecadd over 70001 elements, as the solution and a chunked (8 per thread) version
	 * count on the emulator */
	struct perf_model sol = { .warp_insns = 30000, .thread_insns = 30000 * 30.4,
				  .gld_req = 4376, .gst_req = 2188, .gld_sectors = 17502,
				  .gst_sectors = 8751, .gld_bytes = 560008, .gst_bytes = 280004 };
	struct perf_model chunk = sol;
	chunk.gld_sectors *= 8;
	chunk.gst_sectors *= 8;
	struct spec_check c = { .kind = SPEC_CHECK_PERFORMANCE, .min_coalescing = 0.8,
				.max_traffic_ratio = 1.5 };
	struct perf_model_verdict v;
	perf_model_evaluate(&c, &sol, &sol, 70001, &v);
	assert_true(v.judged && v.passed);
	assert_true(fabs(v.coalescing - 1) < 0.01);
	assert_true(fabs(v.bytes_per_element - 12) < 0.01);
	assert_true(fabs(v.sectors_per_request - 4) < 0.01);
	perf_model_evaluate(&c, &chunk, &sol, 70001, &v);
	assert_false(v.passed);
	assert_false(v.coalescing_ok);
	assert_false(v.traffic_ok);
	assert_true(fabs(v.traffic_ratio - 8) < 1e-9);
	char *text = perf_model_describe(&c, &v, &chunk, "not-a-multiple");
	assert_non_null(strstr(text, "12% of the fetched bytes were used (TOO LOW: at least 80% passes)"));
	assert_non_null(strstr(text, "8.00x the solution's sectors (TOO MANY: at most 1.5x passes)"));
	assert_non_null(strstr(text, "consecutive addresses"));
	free(text);
	/* no emulator thresholds: shown, not graded, and said so */
	struct spec_check plain = { .kind = SPEC_CHECK_PERFORMANCE, .max_ratio = 2 };
	perf_model_evaluate(&plain, &chunk, &sol, 70001, &v);
	assert_false(v.judged);
	assert_true(v.passed);
	text = perf_model_describe(&plain, &v, &chunk, "not-a-multiple");
	assert_non_null(strstr(text, "NOT MEASURED on the emulator"));
	assert_null(strstr(text, "TOO"));
	free(text);
	/* bank conflicts and idle lanes */
	struct perf_model red = sol;
	red.shd_req = 100;
	red.shd_wavefronts = 400;
	red.shd_ideal = 100;
	red.thread_insns = red.warp_insns * 8;
	struct spec_check k = { .kind = SPEC_CHECK_PERFORMANCE, .max_bank_conflicts = 2,
				.min_lane_efficiency = 0.5 };
	perf_model_evaluate(&k, &red, &sol, 70001, &v);
	assert_false(v.bank_ok);
	assert_false(v.lane_ok);
	assert_true(v.bank_conflicts == 4 && v.lane_efficiency == 0.25);
	/* instructions: twice the solution's warp instructions against at most 1.6x */
	struct perf_model busy = sol;
	busy.warp_insns *= 2;
	busy.thread_insns *= 2;
	struct spec_check ins = { .kind = SPEC_CHECK_PERFORMANCE, .max_insn_ratio = 1.6 };
	perf_model_evaluate(&ins, &busy, &sol, 70001, &v);
	assert_true(v.judged);
	assert_false(v.insn_ok);
	assert_false(v.passed);
	text = perf_model_describe(&ins, &v, &busy, "square");
	assert_non_null(strstr(text, "60000 warp instructions, 2.00x the solution's (TOO MANY: at most 1.6x passes)"));
	free(text);
	perf_model_evaluate(&ins, &sol, &sol, 70001, &v);
	assert_true(v.insn_ok && v.passed);
	/* stores: the same output written twice against at most 1.5x; a design with 3x the
	 * instructions but one store per output passes */
	struct perf_model twice = sol, other = sol;
	twice.gst_bytes = 2 * sol.gst_bytes;
	other.warp_insns *= 3;
	struct spec_check st = { .kind = SPEC_CHECK_PERFORMANCE, .max_store_ratio = 1.5 };
	assert_true(sol.gst_bytes > 0);
	perf_model_evaluate(&st, &twice, &sol, 70001, &v);
	assert_true(v.judged);
	assert_false(v.store_ok || v.passed);
	text = perf_model_describe(&st, &v, &twice, "square");
	assert_non_null(strstr(text, "2.00x the solution's (TOO MANY: at most 1.5x passes)"));
	assert_non_null(strstr(text, "each output element needs one store"));
	free(text);
	perf_model_evaluate(&st, &other, &sol, 70001, &v);
	assert_true(v.store_ok && v.passed);
}

/* Issue 14: no check passes on nothing. */
static void test_model_empty(void **state)
{
	(void)state;
	struct perf_model sol = { .warp_insns = 30000, .thread_insns = 30000 * 30.4,
				  .gld_req = 4376, .gst_req = 2188, .gld_sectors = 17502,
				  .gst_sectors = 8751, .gld_bytes = 560008, .gst_bytes = 280004 };
	struct perf_model none = { 0 };
	struct perf_model_verdict v;
	/* a host-only program: no kernel ran, whatever the thresholds */
	struct spec_check c = { .kind = SPEC_CHECK_PERFORMANCE, .min_coalescing = 0.8,
				.max_traffic_ratio = 1.5 };
	perf_model_evaluate(&c, &none, &sol, 70001, &v);
	assert_false(v.ran);
	assert_false(v.passed);
	char *text = perf_model_describe(&c, &v, &none, "not-a-multiple");
	assert_non_null(strstr(text, "NOT MEASURED on the emulator: no kernel ran"));
	assert_null(strstr(text, "ok"));
	free(text);
	struct spec_check plain = { .kind = SPEC_CHECK_PERFORMANCE, .max_ratio = 2 };
	perf_model_evaluate(&plain, &none, &sol, 70001, &v);
	assert_false(v.passed || v.ran); /* grade_counted passes unjudged checks only if it ran */
	/* kernels without a global request: traffic and coalescing cannot be judged */
	struct perf_model idle = { .warp_insns = 10, .thread_insns = 320 };
	perf_model_evaluate(&c, &idle, &sol, 70001, &v);
	assert_true(v.ran);
	assert_false(v.traffic_measured || v.traffic_ok || v.coalescing_ok || v.passed);
	text = perf_model_describe(&c, &v, &idle, "not-a-multiple");
	assert_non_null(strstr(text, "NOT MEASURED: the kernels made no global memory request, so their traffic and coalescing cannot be judged (FAILS)"));
	free(text);
	/* no shared memory: bank conflicts are not measured, and not held against it */
	struct spec_check k = { .kind = SPEC_CHECK_PERFORMANCE, .max_bank_conflicts = 2 };
	perf_model_evaluate(&k, &sol, &sol, 70001, &v);
	assert_true(v.passed);
	text = perf_model_describe(&k, &v, &sol, "square");
	assert_non_null(strstr(text, "shared memory: NOT MEASURED: no shared-memory request"));
	free(text);
}

/* Issue 14: a figure never reads as the wrong side of its threshold. */
static void test_model_digits(void **state)
{
	(void)state;
	char buf[48];
	perf_figure(buf, sizeof(buf), 2.004, 2, 2);
	assert_string_equal(buf, "2.004");
	perf_figure(buf, sizeof(buf), 1.996, 2, 2);
	assert_string_equal(buf, "1.996");
	perf_figure(buf, sizeof(buf), 2.0, 2, 2);
	assert_string_equal(buf, "2.00");
	perf_figure(buf, sizeof(buf), 79.96, 0, 80);
	assert_string_equal(buf, "79.96");
	perf_figure(buf, sizeof(buf), 1.37, 2, 0);
	assert_string_equal(buf, "1.37");
	struct perf_model sol = { .warp_insns = 1000, .thread_insns = 32000, .gld_req = 100,
				  .gld_sectors = 1000, .gld_bytes = 32000 };
	struct perf_model stu = sol;
	stu.gld_sectors = 2004;
	stu.gld_bytes = 64128;
	struct spec_check c = { .kind = SPEC_CHECK_PERFORMANCE, .max_traffic_ratio = 2 };
	struct perf_model_verdict v;
	perf_model_evaluate(&c, &stu, &sol, 256, &v);
	assert_false(v.traffic_ok);
	char *text = perf_model_describe(&c, &v, &stu, "not-a-multiple");
	assert_non_null(strstr(text, "2.004x the solution's sectors (TOO MANY: at most 2x passes)"));
	free(text);
}

/* Issue 14: a check may judge the loads only (a histogram's per-block merge is atomics)
 * and the global atomics per element (privatisation). */
static void test_model_loads_atomics(void **state)
{
	(void)state;
	/* a privatised histogram of 100003 bytes: the solution 49 blocks merging 256 bins,
	 * one with 4x the blocks; the naive one does one global atomic per byte */
	struct perf_model sol = { .warp_insns = 20000, .thread_insns = 20000 * 30,
				  .gld_req = 3126, .gld_sectors = 3126, .gld_bytes = 100003,
				  .gst_req = 392, .gst_sectors = 1568, .gst_bytes = 50176,
				  .gat_req = 392, .gat_lanes = 12544 };
	struct perf_model small = sol, naive = sol;
	small.gst_req = 1568;
	small.gst_sectors = 6272;
	small.gat_lanes = 43000;
	naive.gst_req = naive.gat_req = 3126;
	naive.gst_sectors = 62500;
	naive.gat_lanes = 100003;
	struct spec_check all = { .kind = SPEC_CHECK_PERFORMANCE, .max_traffic_ratio = 2 };
	struct perf_model_verdict v;
	perf_model_evaluate(&all, &small, &sol, 100003, &v);
	assert_false(v.traffic_ok); /* the merge dominates all the traffic */
	struct spec_check loads = { .kind = SPEC_CHECK_PERFORMANCE, .max_traffic_ratio = 2,
				    .min_coalescing = 0.8, .traffic = SPEC_TRAFFIC_LOADS,
				    .max_atomics_per_element = 0.75, .elements = "n" };
	perf_model_evaluate(&loads, &small, &sol, 100003, &v);
	assert_true(v.passed);
	assert_true(fabs(v.traffic_ratio - 1) < 1e-9);
	perf_model_evaluate(&loads, &naive, &sol, 100003, &v);
	assert_false(v.atomics_ok);
	assert_false(v.passed);
	char *text = perf_model_describe(&loads, &v, &naive, "not-a-multiple");
	assert_non_null(strstr(text, "global loads: 1.00 sectors"));
	assert_non_null(strstr(text, "100003 lane operations, 1.00 per element (TOO MANY: at most 0.75 passes)"));
	assert_non_null(strstr(text, "privatise"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_model_verdicts),
		cmocka_unit_test(test_model_empty),
		cmocka_unit_test(test_model_digits),
		cmocka_unit_test(test_model_loads_atomics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
