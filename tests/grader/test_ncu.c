/* ncu: the profiling command and the reading of ncu's CSV, from tables captured on an
 * H100 running probe kernels with known figures (a coalesced copy run twice, a stride of
 * 32 floats, a 32-way bank conflict, a branch that idles every other lane):
 * probe-h100.csv with the grader's own command (ncu_command), probe-h100-plain.csv with
 * an earlier metric list that lacks the predicate-on counters (the fallbacks); and from
 * ncu's failure messages. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fsutil.h"
#include "ncu.h"

static const struct ncu_kernel *find(const struct ncu_profile *p, const char *name)
{
	for (unsigned i = 0; i < p->n; i++)
		if (strcmp(p->kernels[i].name, name) == 0)
			return &p->kernels[i];
	fail_msg("kernel %s not in the profile", name);
	return NULL;
}

/* Parses one fixture and checks what both share; returns the profile's kernels. */
static void check_probe(const char *fixture, struct ncu_profile *p)
{
	char *text = fs_read(fixture, NULL);
	assert_non_null(text);
	char why[256] = "";
	assert_int_equal(ncu_parse(text, p, why, sizeof(why)), 0);
	free(text);
	assert_int_equal(p->n, 4); /* k_coalesced ran twice: one entry */
	const struct ncu_kernel *c = find(p, "k_coalesced");
	assert_int_equal(c->launches, 2);
	assert_true(fabs(ncu_ld_sectors_per_request(c) - 4.0) < 1e-9);
	assert_true(fabs(ncu_st_sectors_per_request(c) - 4.0) < 1e-9);
	assert_true(fabs(ncu_occupancy_pct(c) - 72) < 2);
	assert_true(isnan(ncu_shared_ld_passes(c))); /* no shared access */
	/* a stride of 32 floats: every lane its own sector */
	assert_true(fabs(ncu_ld_sectors_per_request(find(p, "k_stride32")) - 32.0) < 1e-9);
	/* s[t * 32 + k]: all 32 lanes in one bank */
	const struct ncu_kernel *b = find(p, "k_bank32");
	assert_true(fabs(ncu_shared_ld_passes(b) - 32.0) < 1e-9);
	assert_true(fabs(ncu_shared_st_passes(b) - 32.0) < 1e-9);
	char *table = ncu_table(p);
	assert_non_null(strstr(table, "k_stride32"));
	assert_non_null(strstr(table, "32.0 / 32.0")); /* k_bank32's passes */
	free(table);
}

static void test_h100_table(void **state)
{
	(void)state;
	struct ncu_profile p;
	check_probe(SOURCE_ROOT "/tests/fixtures/ncu/probe-h100.csv", &p);
	/* lanes whose predicate is on: the bounds guard costs the copy a little; the branch
	 * on i % 2 idles more than half (the sinf's own branches add to it) */
	double lanes = ncu_lanes(find(&p, "k_coalesced"));
	assert_true(lanes > 29 && lanes < 31);
	lanes = ncu_lanes(find(&p, "k_divergent"));
	assert_true(lanes > 10 && lanes < 16);
}

static void test_h100_plain_counters(void **state)
{
	(void)state;
	struct ncu_profile p;
	check_probe(SOURCE_ROOT "/tests/fixtures/ncu/probe-h100-plain.csv", &p);
	/* no instruction count: a mean of the launches' ratios, predicated lanes counted */
	assert_true(fabs(ncu_lanes(find(&p, "k_coalesced")) - 32.0) < 1e-9);
	assert_true(fabs(ncu_lanes(find(&p, "k_divergent")) - 16.49) < 1e-9);
}

static void test_failures(void **state)
{
	(void)state;
	struct ncu_profile p;
	char why[400];
	assert_int_equal(ncu_parse("==PROF== Connected to process 9 (/tmp/x/prog)\n"
				   "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
				   "NVIDIA GPU Performance Counters on the target device 0.\n", &p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not permitted"));
	assert_non_null(strstr(why, "NVreg_RestrictProfilingToAdminUsers=0"));
	assert_int_equal(ncu_parse("==WARNING== No kernels were profiled.\n", &p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "launched no kernel"));
	assert_int_equal(ncu_parse("==ERROR== The application returned an error code (1).\n", &p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "The application returned an error code (1)"));
	assert_int_equal(ncu_parse("", &p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no figures"));
}

/* Quoted fields with commas and doubled quotes; numbers with thousands separators; a
 * counter ncu did not give (no column) stays missing. */
static void test_csv(void **state)
{
	(void)state;
	const char *text =
		"\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\",\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\"\n"
		"\"\",\"\",\"ns\",\"sector\",\"\"\n"
		"\"0\",\"void tile<16, \"\"a\"\">(float *, int)\",\"2,000\",\"1,048,576\",\"131,072\"\n";
	struct ncu_profile p;
	char why[100];
	assert_int_equal(ncu_parse(text, &p, why, sizeof(why)), 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.kernels[0].name, "void tile<16, \"a\">");
	assert_true(fabs(p.kernels[0].time_ns - 2000) < 1e-9);
	assert_true(fabs(ncu_ld_sectors_per_request(&p.kernels[0]) - 8.0) < 1e-9);
	assert_true(isnan(ncu_occupancy_pct(&p.kernels[0])));
	assert_true(isnan(ncu_lanes(&p.kernels[0])));
}

static void test_command(void **state)
{
	(void)state;
	const char *argv[16];
	ncu_command(argv, "/cuda/bin/ncu", "/tmp/r/log.csv", "/tmp/r/prog", "in", "out");
	unsigned n = 0;
	while (argv[n])
		n++;
	assert_string_equal(argv[0], "/cuda/bin/ncu");
	assert_string_equal(argv[n - 3], "/tmp/r/prog");
	assert_string_equal(argv[n - 1], "out");
	bool csv = false, log = false;
	for (unsigned i = 0; i < n; i++) {
		csv |= strcmp(argv[i], "--csv") == 0;
		log |= strcmp(argv[i], "/tmp/r/log.csv") == 0 && strcmp(argv[i - 1], "--log-file") == 0;
	}
	assert_true(csv && log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h100_table),
		cmocka_unit_test(test_h100_plain_counters),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_command),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
