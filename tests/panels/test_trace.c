/* The live trace behind the warp and memory panels: the sector and bank models alone,
 * then real kernels on the emulator (tests/panels/fixtures/patterns.cu): a stride of 32
 * floats shows 32 sectors per request, a 32-way bank conflict shows 32, a branch taken
 * by a quarter of the lanes shows 25% SIMT efficiency, and barrier arrivals are
 * counted. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "build.h"
#include "livetrace.h"
#include "paths.h"
#include "runner.h"

#define FULL 0xffffffffu

static void fill(uint64_t a[32], uint64_t base, uint64_t stride)
{
	for (unsigned l = 0; l < 32; l++)
		a[l] = base + l * stride;
}

static void test_sectors(void **state)
{
	(void)state;
	uint64_t a[32];
	fill(a, 0x1000, 4);
	assert_int_equal(emu_trace_sectors(a, FULL, 4), 4);    /* 128 bytes in a row */
	fill(a, 0x1004, 4);
	assert_int_equal(emu_trace_sectors(a, FULL, 4), 5);    /* misaligned by a float */
	fill(a, 0x1000, 128);
	assert_int_equal(emu_trace_sectors(a, FULL, 4), 32);   /* stride of 32 floats */
	fill(a, 0x1000, 0);
	assert_int_equal(emu_trace_sectors(a, FULL, 4), 1);    /* all lanes, one address */
	fill(a, 0x1000, 8);
	assert_int_equal(emu_trace_sectors(a, FULL, 8), 8);    /* doubles */
	fill(a, 0x1000, 128);
	assert_int_equal(emu_trace_sectors(a, 0x0000000fu, 4), 4); /* 4 active lanes */
	fill(a, 0x101c, 0);
	assert_int_equal(emu_trace_sectors(a, 1, 8), 2);       /* straddles two sectors */
}

static void test_banks(void **state)
{
	(void)state;
	uint64_t a[32];
	fill(a, 0, 4);
	assert_int_equal(emu_trace_bank_passes(a, FULL, 4), 1);   /* one word a bank */
	fill(a, 0, 128);
	assert_int_equal(emu_trace_bank_passes(a, FULL, 4), 32);  /* all in bank 0 */
	fill(a, 0, 8);
	assert_int_equal(emu_trace_bank_passes(a, FULL, 4), 2);   /* stride 2: 2-way */
	fill(a, 0, 132);
	assert_int_equal(emu_trace_bank_passes(a, FULL, 4), 1);   /* padded: 33 words */
	fill(a, 64, 0);
	assert_int_equal(emu_trace_bank_passes(a, FULL, 4), 1);   /* broadcast */
	fill(a, 0, 128);
	assert_int_equal(emu_trace_bank_passes(a, 0x00ff00ffu, 4), 16);
}

/* ---- on the emulator ---- */

static struct build_result prog;
static int built = -1;

static int setup(void **state)
{
	(void)state;
	struct diag_list errs;
	diag_list_init(&errs);
	char *nvcc = paths_nvcc();
	if (nvcc)
		built = build_standalone(SOURCE_ROOT "/tests/panels/fixtures/patterns.cu", BACKEND_EMU,
					 BUILD_PTX_NVCC, &prog, &errs);
	if (nvcc && built)
		diag_print(stderr, &errs);
	free(nvcc);
	diag_list_release(&errs);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	build_result_release(&prog);
	return 0;
}

/* Runs patterns KERNEL with a trace file and reads its final snapshot into *f. */
static void run_traced(const char *kernel, struct emu_trace_file *f)
{
	if (built == -1)
		skip(); /* no nvcc */
	assert_int_equal(built, 0);
	char trace[] = "/tmp/pmpplab-trace-XXXXXX";
	int fd = mkstemp(trace);
	assert_true(fd >= 0);
	close(fd);
	unlink(trace); /* the program makes it */
	char ptx_env[4200], trace_env[64];
	snprintf(ptx_env, sizeof(ptx_env), "PMPPLAB_EMU_PTX=%s", prog.ptx);
	snprintf(trace_env, sizeof(trace_env), "PMPPLAB_TRACE=%s", trace);
	char *env[] = {ptx_env, trace_env, NULL};
	const char *argv[] = {prog.program, kernel, NULL};
	struct runner_opts o = {.argv = (char *const *)argv, .env = env, .timeout_ms = 60000};
	struct runner_result res;
	assert_int_equal(runner_run(&o, &res), 0);
	if (res.status != RUNNER_EXITED || res.exit_code != 0)
		fprintf(stderr, "%s%s", res.out ? res.out : "", res.err ? res.err : "");
	assert_int_equal(res.exit_code, 0);
	runner_result_release(&res);
	assert_int_equal(livetrace_read(trace, f), 0);
	unlink(trace);
	assert_int_equal(f->running, 0);
	assert_int_equal(f->status, 0);
	assert_int_equal(f->blocks_done, f->nblocks);
	assert_non_null(strstr(f->file, "patterns.cu"));
}

static const struct emu_trace_line_snap *line(const struct emu_trace_file *f, unsigned n)
{
	for (unsigned i = 0; i < f->nlines; i++)
		if (f->lines[i].line == n)
			return &f->lines[i];
	fail_msg("line %u was not traced", n);
	return NULL;
}

static void test_strided(void **state)
{
	(void)state;
	static struct emu_trace_file f;
	run_traced("strided", &f);
	assert_non_null(strstr(f.kernel, "strided"));
	assert_int_equal(f.nblocks, 32);
	assert_int_equal(f.block[0], 128);
	const struct emu_trace_line_snap *l = line(&f, 9);
	assert_int_equal(l->gld_req, 32 * 4);                    /* a request per warp */
	assert_true(livetrace_ld_sectors(l) == 32.0);            /* the stride of 32 floats */
	assert_true(livetrace_st_sectors(l) == 4.0);             /* out[i]: coalesced */
	assert_true(livetrace_simt(l) == 1.0);
	assert_int_equal(f.nkernels, 1);
	assert_int_equal(f.kernels[0].block[0], 128);
}

static void test_bank_conflict(void **state)
{
	(void)state;
	static struct emu_trace_file f;
	run_traced("banks", &f);
	assert_true(livetrace_bank_degree(line(&f, 19)) == 32.0); /* s[t * 32] */
	assert_true(livetrace_bank_degree(line(&f, 17)) == 1.0);  /* s[k * 32 + t] */
	assert_int_equal(line(&f, 17)->shd_req, 4 * 32);
	assert_int_equal(line(&f, 18)->bar_arrivals, 4);          /* 4 blocks of 1 warp */
}

static void test_divergence(void **state)
{
	(void)state;
	static struct emu_trace_file f;
	run_traced("diverge", &f);
	const struct emu_trace_line_snap *l = line(&f, 28);
	assert_true(livetrace_simt(l) == 0.25);                    /* t % 4 == 0 */
	assert_true(livetrace_simt(line(&f, 30)) == 1.0);          /* reconverged */
	for (unsigned s = 0; s < f.nsms; s++) {
		unsigned c[5];
		livetrace_warp_counts(&f.sm[s], c);
		assert_int_equal(f.sm[s].busy, 0);
		assert_int_equal(c[EMU_TW_ISSUING] + c[EMU_TW_BARRIER], 0); /* all finished */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sectors),
		cmocka_unit_test(test_banks),
		cmocka_unit_test(test_strided),
		cmocka_unit_test(test_bank_conflict),
		cmocka_unit_test(test_divergence),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
