/* resources: parsing ptxas -v output, names, and (with the toolkit) ptxas on a fixture
 * with known shared memory and barriers for each target architecture. */
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

#include "occupancy.h"
#include "paths.h"
#include "resources.h"

static const char ptxas_out[] =
	"ptxas info    : 0 bytes gmem\n"
	"ptxas info    : Compiling entry function '_Z3addPf' for 'sm_80'\n"
	"ptxas info    : Function properties for _Z3addPf\n"
	"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
	"ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]\n"
	"ptxas info    : Compile time = 2.264 ms\n"
	"ptxas info    : Function properties for _Z6helperf\n"
	"    24 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
	"ptxas info    : Compiling entry function '_ZN2ns6tiledmEPKfS1_Pfi' for 'sm_80'\n"
	"ptxas info    : Function properties for _ZN2ns6tiledmEPKfS1_Pfi\n"
	"    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
	"ptxas info    : Used 255 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]\n"
	"ptxas info    : Compiling entry function 'plain' for 'sm_80'\n"
	"ptxas info    : Used 12 registers, 4096 bytes smem, 352 bytes cmem[0]\n";

static void test_parse(void **state)
{
	(void)state;
	struct resources r;
	resources_init(&r);
	assert_int_equal(resources_parse(ptxas_out, &r), 3);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.arch, "sm_80");
	assert_string_equal(r.k[0].pretty, "add");
	assert_int_equal(r.k[0].regs, 8);
	assert_int_equal(r.k[0].smem, 0);
	assert_int_equal(r.k[0].barriers, 0);
	assert_int_equal(r.k[0].cmem, 360);
	const struct kernel_resources *k = resources_find(&r, "ns::tiledm");
	assert_non_null(k);
	assert_string_equal(k->name, "_ZN2ns6tiledmEPKfS1_Pfi");
	assert_int_equal(k->regs, 255);
	assert_int_equal(k->smem, 2048);
	assert_int_equal(k->barriers, 1);
	assert_int_equal(k->stack, 16);
	assert_int_equal(k->spill_stores, 8);
	assert_int_equal(k->spill_loads, 12);
	k = resources_find(&r, "plain");
	assert_non_null(k);
	assert_int_equal(k->regs, 12);
	assert_int_equal(k->smem, 4096);
	resources_release(&r);
	resources_init(&r);
	assert_int_equal(resources_parse("", &r), 0);
	assert_int_equal(resources_parse("garbage\nUsed 3 registers\n", &r), 0);
	resources_release(&r);
}

static void test_pretty(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{"_Z6matmulPKfS0_Pfi", "matmul"},
		{"_ZN2ns3fooEv", "ns::foo"},
		{"vecadd", "vecadd"},
		{"_Z99short", "_Z99short"}, /* a length past the end: left as it is */
	};
	for (unsigned i = 0; i < 4; i++) {
		char *p = resources_pretty_name(cases[i][0]);
		assert_string_equal(p, cases[i][1]);
		free(p);
	}
}

/* ptxas for each device of the table on the fixture, fed to the calculator. */
static void test_ptxas(void **state)
{
	(void)state;
	char *nvcc = paths_nvcc();
	if (!nvcc)
		skip();
	free(nvcc);
	unsigned n;
	const struct occ_device *devs = occ_devices(&n);
	for (unsigned i = 0; i < n; i++) {
		struct resources r;
		struct diag_list errs;
		diag_list_init(&errs);
		int rc = resources_from_cu(SOURCE_ROOT "/tests/panels/fixtures/kernels.cu",
					   devs[i].arch, &r, &errs);
		if (rc)
			diag_print(stderr, &errs);
		assert_int_equal(rc, 0);
		assert_string_equal(r.arch, devs[i].arch);
		assert_int_equal(r.n, 3);
		const struct kernel_resources *mm = resources_find(&r, "tiled_mm");
		const struct kernel_resources *big = resources_find(&r, "big_smem");
		const struct kernel_resources *add = resources_find(&r, "plain_add");
		assert_non_null(mm);
		assert_non_null(big);
		assert_non_null(add);
		assert_int_equal(mm->smem, 2048);
		assert_int_equal(mm->barriers, 1);
		assert_int_equal(big->smem, 12288);
		assert_int_equal(add->smem, 0);
		assert_true(mm->regs >= 8 && mm->regs <= 64);
		assert_true(add->regs >= 4 && add->regs < mm->regs);
		struct occ_kernel k = {.regs = (int)big->regs, .smem_static = big->smem,
				       .barriers = (int)big->barriers};
		struct occ_result o;
		if (occ_compute(&devs[i], &k, 1024, &o) == 0)
			print_message("%s: tiled_mm %u regs; big_smem %u regs %u B: %d blocks of 1024, %s\n",
				      devs[i].arch, mm->regs, big->regs, big->smem, o.blocks_per_sm,
				      occ_limit_name(o.limits));
		resources_release(&r);
		diag_list_release(&errs);
	}
}

/* A file ptxas rejects says so. */
static void test_ptxas_error(void **state)
{
	(void)state;
	char *ptxas = paths_cuda_tool("ptxas");
	if (!ptxas)
		skip();
	free(ptxas);
	char path[] = "/tmp/pmpplab-test-ptx-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char bad[] = ".version 9.0\n.target sm_75\n.address_size 64\nthis is not ptx\n";
	assert_int_equal(write(fd, bad, sizeof(bad) - 1), (ssize_t)sizeof(bad) - 1);
	close(fd);
	struct resources r;
	struct diag_list errs;
	diag_list_init(&errs);
	assert_int_equal(resources_from_ptx(path, "sm_80", &r, &errs), -ENOEXEC);
	assert_true(errs.n >= 1);
	resources_release(&r);
	diag_list_release(&errs);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_ptxas),
		cmocka_unit_test(test_ptxas_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
