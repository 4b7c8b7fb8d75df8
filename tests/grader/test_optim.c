/* Optimisation checks (optim.h) and the leaderboard (leaderboard.h): kernel names from
 * both backends' records, the PTX of launched kernels only, each recogniser condition,
 * and a board that keeps the best run and says what an optimisation bought. */
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

#include "fsutil.h"
#include "leaderboard.h"
#include "optim.h"

/* Two kernels, only the first launched: a register-tiled one and a dead one. */
static const char *ptx =
	".visible .entry _Z4tileILi16EEvPKfPf(\n"
	"\t.param .u64 p0\n)\n{\n"
	"\tld.global.nc.f32 \t%f1, [%rd1];\n"
	"\tld.shared.v4.f32 \t{%f2, %f3, %f4, %f5}, [%r1];\n"
	"\tfma.rn.f32 \t%f10, %f1, %f2, %f10;\n"
	"\tfma.rn.f32 \t%f11, %f1, %f3, %f11;\n"
	"\tfma.rn.f32 \t%f12, %f1, %f4, %f12;\n"
	"\tfma.rn.f32 \t%f13, %f1, %f5, %f13;\n"
	"\tld.global.nc.f32 \t%f1, [%rd2];\n"
	"\tfma.rn.f32 \t%f10, %f1, %f2, %f10;\n"
	"\tret;\n}\n"
	".visible .entry _Z4deadPf(\n\t.param .u64 p0\n)\n{\n"
	"\tld.const.f32 \t%f1, [maskC];\n"
	"\twmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 {%f1}, {%r1}, {%r2}, {%f1};\n"
	"\tret;\n}\n";

static void test_names(void **state)
{
	(void)state;
	char out[64];
	optim_base_name("_Z6convFwPKfPfi", out, sizeof(out));
	assert_string_equal(out, "convFw");
	optim_base_name("_Z4tileILi16EEvPf", out, sizeof(out));
	assert_string_equal(out, "tile");
	optim_base_name("tile<16>", out, sizeof(out));
	assert_string_equal(out, "tile");
	optim_base_name("convFw(float const*)", out, sizeof(out));
	assert_string_equal(out, "convFw");
	optim_base_name("plainC", out, sizeof(out));
	assert_string_equal(out, "plainC");
	optim_base_name("_Z99short", out, sizeof(out)); /* a length past the end: kept whole */
	assert_string_equal(out, "_Z99short");
}

static void test_launches(void **state)
{
	(void)state;
	struct optim_launches l;
	const char *events =
		"{\"event\":\"launch\",\"kernel\":\"tile<16>\",\"grid\":[1,1,1],\"block\":[32,1,1],\"shmem\":0,\"status\":\"ok\",\"ms\":0.1}\n"
		"{\"event\":\"fault\",\"kernel\":\"tile<16>\"}\n"
		"{\"event\":\"launch\",\"kernel\":\"tile<16>\",\"grid\":[1,1,1],\"block\":[32,1,1],\"shmem\":0,\"status\":\"ok\",\"ms\":0.1}\n"
		"{\"event\":\"launch\",\"kernel\":\"late\",\"status\":\"cudaErrorInvalidValue\"}\n"
		"not json\n";
	assert_int_equal(optim_launches_from_events(events, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.counts[0], 2);
	assert_int_equal(l.streams, -1);
	char *text = optim_launched_ptx(ptx, &l);
	assert_non_null(strstr(text, "_Z4tileILi16EEvPKfPf"));
	assert_null(strstr(text, "_Z4deadPf"));
	assert_null(strstr(text, "ld.const"));
	assert_int_equal(optim_fma_per_load(text), 4);
	free(text);
	optim_launches_release(&l);

	struct pl_file r = { 0 };
	pl_add(&r, PL_METRIC, PL_F64, "launched _Z4deadPf", 1, NULL)->dval = 3;
	pl_add(&r, PL_METRIC, PL_F64, "streams_per_call", 1, NULL)->dval = 4;
	pl_add(&r, PL_METRIC, PL_F64, "kernel_ms", 1, NULL)->dval = 1;
	assert_int_equal(optim_launches_from_result(&r, &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.names[0], "_Z4deadPf");
	assert_int_equal(l.counts[0], 3);
	assert_int_equal(l.streams, 4);
	text = optim_launched_ptx(ptx, &l);
	assert_non_null(strstr(text, "wmma.mma.sync"));
	assert_null(strstr(text, "fma.rn.f32"));
	free(text);
	optim_launches_release(&l);
	pl_release(&r);
}

/* Two instantiations of one template kernel, one launched: the emulator's "entry" (and
 * CUPTI's mangled name) picks its body alone; a source name alone cannot tell them apart. */
static void test_template_instances(void **state)
{
	(void)state;
	const char *two =
		".visible .entry _Z2mmILb1EEvPf(\n\t.param .u64 p0\n)\n{\n"
		"\twmma.load.a.sync.aligned.row.m16n16k16.shared.f16 \t{%r1}, [%rd1], 24;\n"
		"\tret;\n}\n"
		".visible .entry _Z2mmILb0EEvPf(\n\t.param .u64 p0\n)\n{\n"
		"\twmma.load.a.sync.aligned.row.m16n16k8.tf32 \t{%r1}, [%rd1], 40;\n"
		"\tret;\n}\n";
	struct optim_launches l;
	const char *events =
		"{\"event\":\"launch\",\"kernel\":\"mm<false>\",\"entry\":\"_Z2mmILb0EEvPf\",\"status\":\"ok\"}\n";
	assert_int_equal(optim_launches_from_events(events, &l), 0);
	assert_int_equal(l.n, 1);
	char *text = optim_launched_ptx(two, &l);
	assert_non_null(strstr(text, ".tf32"));
	assert_null(strstr(text, ".f16"));
	free(text);
	char base[64];
	optim_base_name(l.names[0], base, sizeof(base));
	assert_string_equal(base, "mm"); /* what the check's output shows */
	optim_launches_release(&l);

	/* an events file without "entry" (an older emulator): both, by base name */
	assert_int_equal(optim_launches_from_events("{\"event\":\"launch\",\"kernel\":\"mm<false>\",\"status\":\"ok\"}\n", &l), 0);
	text = optim_launched_ptx(two, &l);
	assert_non_null(strstr(text, ".tf32"));
	assert_non_null(strstr(text, ".f16"));
	free(text);
	optim_launches_release(&l);
}

static void test_recognise(void **state)
{
	(void)state;
	struct optim_launches l = { .n = 1, .counts = { 1 }, .streams = -1 };
	l.names[0] = "tile<16>";
	char *text = optim_launched_ptx(ptx, &l);
	char why[300];
	struct spec_recogniser nc = { .name = "read-only", .ptx = "\\bld\\.global\\.nc\\." };
	assert_int_equal(optim_recognise(&nc, text, &l, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "in tile"));
	struct spec_recogniser cst = { .name = "constant", .ptx = "\\bld\\.const\\." };
	assert_int_equal(optim_recognise(&cst, text, &l, why, sizeof(why)), 0); /* dead code */
	struct spec_recogniser reg = { .name = "registers", .min_fma_per_load = 4 };
	assert_int_equal(optim_recognise(&reg, text, &l, why, sizeof(why)), 1);
	reg.min_fma_per_load = 5;
	assert_int_equal(optim_recognise(&reg, text, &l, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "at most 4 multiply-adds"));
	struct spec_recogniser one = { .name = "fused", .max_kernels = 1, .ptx = "ld\\.shared" };
	assert_int_equal(optim_recognise(&one, text, &l, why, sizeof(why)), 1);
	l.n = 2;
	l.names[1] = "other";
	assert_int_equal(optim_recognise(&one, text, &l, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "2 kernels launched, more than 1"));
	struct spec_recogniser streams = { .name = "streams", .min_streams = 2 };
	assert_int_equal(optim_recognise(&streams, text, &l, why, sizeof(why)), -1);
	l.streams = 1;
	assert_int_equal(optim_recognise(&streams, text, &l, why, sizeof(why)), 0);
	l.streams = 3;
	assert_int_equal(optim_recognise(&streams, text, &l, why, sizeof(why)), 1);
	free(text);
}

static struct leaderboard_run run(const char *src, double value, const char *a, const char *b)
{
	struct leaderboard_run r = { .value = value };
	snprintf(r.backend, sizeof(r.backend), "gpu");
	snprintf(r.device, sizeof(r.device), "cc 9.0, 132 SMs");
	snprintf(r.unit, sizeof(r.unit), "ms");
	snprintf(r.source, sizeof(r.source), "%s", src);
	if (a)
		r.used[r.n_used++] = (char *)a;
	if (b)
		r.used[r.n_used++] = (char *)b;
	return r;
}

static void test_leaderboard(void **state)
{
	(void)state;
	char dir[] = "/tmp/pmpplab-board-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/board.json", dir);
	struct leaderboard b;
	struct leaderboard_run r1 = run("aaa", 2.0, "const", NULL);
	struct leaderboard_run r2 = run("bbb", 1.0, "const", "tiles");
	struct leaderboard_run r3 = run("ccc", 3.0, NULL, NULL);
	assert_int_equal(leaderboard_record(path, "15-x", &r1, &b, NULL), 0);
	leaderboard_release(&b);
	assert_int_equal(leaderboard_record(path, "15-x", &r3, &b, NULL), 0);
	leaderboard_release(&b);
	assert_int_equal(leaderboard_record(path, "15-x", &r2, &b, NULL), 0);
	assert_int_equal(b.n, 3);
	assert_true(leaderboard_best(&b, &r2)->value == 1.0);
	/* tiles: against the best run without it that used nothing r2 does not */
	assert_true(leaderboard_without(&b, &r2, "tiles")->value == 2.0);
	assert_true(leaderboard_without(&b, &r2, "const")->value == 3.0);
	assert_true(leaderboard_without(&b, &r1, "const")->value == 3.0);
	struct leaderboard_run only_tiles = run("eee", 0.9, "tiles", NULL);
	assert_true(leaderboard_without(&b, &only_tiles, "tiles")->value == 3.0);
	/* another device never compares */
	struct leaderboard_run other = run("ddd", 0.5, NULL, NULL);
	snprintf(other.device, sizeof(other.device), "cc 8.0, 108 SMs");
	assert_true(leaderboard_best(&b, &other) == NULL);
	leaderboard_release(&b);
	/* the same source again replaces its entry */
	r1.value = 1.5;
	assert_int_equal(leaderboard_record(path, "15-x", &r1, &b, NULL), 0);
	assert_int_equal(b.n, 3);
	assert_true(b.runs[2].value == 1.5);
	leaderboard_release(&b);
	/* a broken file is kept aside, never lost */
	assert_int_equal(fs_write_atomic(path, "{ not json", 10), 0);
	char *broken = NULL;
	assert_int_equal(leaderboard_record(path, "15-x", &r3, &b, &broken), 0);
	assert_non_null(broken);
	char *kept = fs_read(broken, NULL);
	assert_string_equal(kept, "{ not json");
	assert_int_equal(b.n, 1);
	free(kept);
	free(broken);
	leaderboard_release(&b);
	fs_remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_launches),
		cmocka_unit_test(test_template_instances),
		cmocka_unit_test(test_recognise),
		cmocka_unit_test(test_leaderboard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
