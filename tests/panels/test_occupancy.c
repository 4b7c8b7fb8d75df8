/* occupancy: NVIDIA's calculator through our shim, on configurations whose results are
 * worked out by hand from the CUDA occupancy rules (and equal
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor on the devices: bench/panels_gpu_check.sh
 * compares the two on a real GPU). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "occupancy.h"

static const struct occ_device *dev(const char *name)
{
	const struct occ_device *d = occ_device_find(name);
	assert_non_null(d);
	return d;
}

static void check(const char *device, int regs, size_t smem, size_t dyn, int block,
		  int blocks, double occupancy, unsigned limit)
{
	struct occ_kernel k = {.regs = regs, .smem_static = smem, .smem_dynamic = dyn, .barriers = 1};
	struct occ_result r;
	int rc = occ_compute(dev(device), &k, block, &r);
	if (rc == -ENOSYS)
		skip();
	assert_int_equal(rc, 0);
	print_message("%s regs %d smem %zu+%zu block %d: %d blocks, %.4f, %s\n", device, regs,
		      smem, dyn, block, r.blocks_per_sm, r.occupancy, occ_limit_name(r.limits));
	assert_int_equal(r.blocks_per_sm, blocks);
	assert_true(r.occupancy > occupancy - 1e-9 && r.occupancy < occupancy + 1e-9);
	assert_true(r.limits & limit);
}

static void test_table(void **state)
{
	(void)state;
	unsigned n;
	const struct occ_device *t = occ_devices(&n);
	assert_true(n >= 4);
	const char *archs[] = {"sm_75", "sm_80", "sm_89", "sm_90"};
	for (unsigned i = 0; i < 4; i++)
		assert_non_null(occ_device_find(archs[i]));
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(t[i].warp_size, 32);
		assert_true(t[i].smem_per_block_optin >= t[i].smem_per_block);
		assert_true(t[i].sm_count > 0);
	}
	assert_string_equal(dev("4090")->arch, "sm_89");
	assert_null(occ_device_find("voodoo2"));
}

/* Full occupancy: 8 warps of 32 registers, 8 blocks fill 64 warps. */
static void test_full(void **state)
{
	(void)state;
	check("h100", 32, 0, 0, 256, 8, 1.0, OCC_LIM_WARPS);
	check("t4", 8, 0, 0, 1024, 1, 1.0, OCC_LIM_WARPS);
}

/* 64 registers a thread: 2048 a warp, 32 warps fill 64 Ki registers: half of H100. */
static void test_registers(void **state)
{
	(void)state;
	check("h100", 64, 0, 0, 256, 4, 0.5, OCC_LIM_REGISTERS);
	/* 72 registers: 2304 a warp, 7 warps per quarter (16 Ki registers) = 28 warps */
	check("h100", 72, 0, 0, 128, 7, 28.0 / 64, OCC_LIM_REGISTERS);
	/* 255 registers, 1024 threads: more than the register file: cannot launch */
	check("a100", 255, 0, 0, 1024, 0, 0, OCC_LIM_REGISTERS);
}

/* 48 KiB of shared memory a block (+1 KiB reserved) on A100's 164 KiB: 3 blocks. */
static void test_shared(void **state)
{
	(void)state;
	check("a100", 32, 48 * 1024, 0, 256, 3, 24.0 / 64, OCC_LIM_SHARED);
	/* the same through dynamic shared memory */
	check("a100", 32, 0, 48 * 1024, 256, 3, 24.0 / 64, OCC_LIM_SHARED);
	/* T4: 64 KiB per SM, 16 KiB blocks: 4 blocks of 4 warps */
	check("t4", 16, 16 * 1024, 0, 128, 4, 16.0 / 32, OCC_LIM_SHARED);
	/* over the 48 KiB a block may have without opting in: cannot launch */
	check("h100", 32, 40 * 1024, 16 * 1024, 256, 0, 0, OCC_LIM_SHARED);
}

/* Tiny blocks: the block limit (32 on A100, 16 on T4, 24 on the 4090) binds first. */
static void test_blocks(void **state)
{
	(void)state;
	check("a100", 16, 0, 0, 32, 32, 0.5, OCC_LIM_BLOCKS);
	check("t4", 16, 0, 0, 32, 16, 0.5, OCC_LIM_BLOCKS);
	check("4090", 16, 0, 0, 32, 24, 0.5, OCC_LIM_BLOCKS);
}

/* The 4090 holds 1536 threads: one 1024-thread block leaves 512 unused. */
static void test_warps(void **state)
{
	(void)state;
	check("4090", 32, 0, 0, 1024, 1, 32.0 / 48, OCC_LIM_WARPS);
	check("4090", 32, 0, 0, 768, 2, 1.0, OCC_LIM_WARPS);
	check("h100", 32, 0, 0, 1025, 0, 0, OCC_LIM_WARPS);
}

static void test_curve(void **state)
{
	(void)state;
	struct occ_kernel k = {.regs = 64, .barriers = 1};
	struct occ_result c[OCC_CURVE_POINTS];
	int rc = occ_curve(dev("h100"), &k, c);
	if (rc == -ENOSYS)
		skip();
	assert_int_equal(rc, 0);
	/* 64 registers cap every block size at 32 warps once blocks stop binding */
	assert_int_equal(c[0].blocks_per_sm, 32);    /* 32 threads: 32 blocks x 1 warp */
	assert_true(c[0].occupancy == 0.5);
	assert_int_equal(c[7].warps_per_sm, 32);     /* 256 */
	assert_int_equal(c[31].blocks_per_sm, 1);    /* 1024 */
	assert_true(c[31].occupancy == 0.5);
	for (int i = 0; i < OCC_CURVE_POINTS; i++)
		assert_true(c[i].occupancy <= 0.5);
	/* 96 registers: 3072 a warp, 5 warps a quarter = 20 warps: 640 threads is 1 block
	 * (20 warps), 672 does not fit twice and... fits once (21 warps > 20: 0 blocks) */
	k.regs = 96;
	assert_int_equal(occ_curve(dev("h100"), &k, c), 0);
	assert_int_equal(c[19].blocks_per_sm, 1);
	assert_int_equal(c[20].blocks_per_sm, 0);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(occ_limit_name(OCC_LIM_REGISTERS | OCC_LIM_WARPS), "registers");
	assert_string_equal(occ_limit_name(OCC_LIM_SHARED), "shared memory");
	assert_string_equal(occ_limit_name(OCC_LIM_BLOCKS), "blocks per SM");
	assert_string_equal(occ_limit_name(0), "none");
	char buf[64];
	assert_string_equal(occ_limit_list(OCC_LIM_WARPS | OCC_LIM_REGISTERS, buf, sizeof(buf)),
			    "registers + warps per SM");
	assert_string_equal(occ_limit_list(0, buf, sizeof(buf)), "none");
	assert_true(strlen(occ_limit_advice(OCC_LIM_REGISTERS)) > 10);
	struct occ_kernel k = {0};
	struct occ_result r;
	assert_int_equal(occ_compute(dev("t4"), &k, 0, &r), -EINVAL);
	assert_int_equal(occ_compute(NULL, &k, 32, &r), -EINVAL);
}

/* Without a driver this says -ENODEV; with one, the fields the calculator needs. */
static void test_detect(void **state)
{
	(void)state;
	struct occ_device d;
	int rc = occ_device_detect(&d);
	if (rc == -ENODEV)
		skip();
	assert_int_equal(rc, 0);
	assert_int_equal(d.warp_size, 32);
	assert_true(d.max_threads_per_sm >= 1024 && d.regs_per_sm >= 32768 && d.sm_count > 0);
	assert_true(strncmp(d.arch, "sm_", 3) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),    cmocka_unit_test(test_full),
		cmocka_unit_test(test_registers), cmocka_unit_test(test_shared),
		cmocka_unit_test(test_blocks),   cmocka_unit_test(test_warps),
		cmocka_unit_test(test_curve),    cmocka_unit_test(test_names),
		cmocka_unit_test(test_detect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
