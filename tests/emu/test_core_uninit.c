/* Tests of emu/uninit: registers read before they are written, on small PTX written
 * here (one kernel per case: each operand kind, loops, guarded writes, nested scopes,
 * calls), and, given PTX files as arguments, that each of them has no finding (nvcc's
 * own output for correct kernels: tests/emu/core at -O3 and -O0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ptx.h"
#include "ptx_internal.h"
#include "uninit.h"

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"
#define TAIL ".file 1 \"k.cu\"\n"

/* Analyses one module's text; *r gets the report. */
static void analyse(const char *text, struct uninit_report **r)
{
	struct ptx_module *m = NULL;
	char err[256] = "";
	int rc = ptx_module_load(text, strlen(text), "u.ptx", &m, err, sizeof err);
	if (rc)
		fail_msg("load: %s", err);
	assert_int_equal(uninit_analyze(m, r), 0);
	ptx_module_free(m);
}

/* The number of findings of text (printed when not want, to see why). */
static unsigned count(const char *text, unsigned want)
{
	struct uninit_report *r;
	analyse(text, &r);
	unsigned n = r->n;
	for (unsigned i = 0; n != want && i < r->n; i++)
		print_message("finding: %s pc %u line %u %s slot %u\n", r->reads[i].func,
			      r->reads[i].pc, r->reads[i].line, r->reads[i].op, r->reads[i].slot);
	uninit_report_free(r);
	return n;
}

/* float sum; for (...) sum += a * b; at -O3: the fma's accumulator on the first pass. */
static const char k_loop[] = HEAD
	".visible .entry mm(.param .u64 p, .param .u32 n)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<3>;\n"
	"\t.loc 1 30 1\n\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n"
	"\tmov.u32 %r2, 0;\n"
	"$L_loop:\n\t.loc 1 33 7\n\tld.global.f32 %f1, [%rd1];\n"
	"\tfma.rn.f32 %f3, %f1, %f1, %f3;\n"
	"\t.loc 1 32 5\n\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.s32 %p1, %r2, %r1;\n"
	"\t@%p1 bra $L_loop;\n"
	"\t.loc 1 35 5\n\tst.global.f32 [%rd1], %f3;\n\tret;\n}\n" TAIL;

static void test_loop_accumulator(void **state)
{
	(void)state;
	struct uninit_report *r;
	analyse(k_loop, &r);
	assert_int_equal(r->n, 1);
	const struct uninit_read *x = &r->reads[0];
	assert_string_equal(x->func, "mm");
	assert_int_equal(x->line, 33);
	assert_string_equal(x->file, "k.cu");
	assert_string_equal(x->op, "FMA");
	assert_int_equal(x->kind, UNINIT_LOOP);
	assert_int_equal(x->loop_line, 32);
	assert_int_equal(x->write_line, 33);
	assert_int_equal(x->nregs, 1);
	assert_false(x->mma_acc);
	/* %f3: the specials, %p0..2, %r0..3, %f0..2 before it (immediates come later) */
	assert_int_equal(x->slot, SR__COUNT + 3 + 4 + 3);
	uninit_report_free(r);
}

/* The same loop with sum = 0 first: nothing. */
static const char k_loop_ok[] = HEAD
	".visible .entry mm(.param .u64 p, .param .u32 n)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<3>;\n"
	"\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n"
	"\tmov.u32 %r2, 0;\n\tmov.f32 %f3, 0f00000000;\n"
	"$L_loop:\n\tld.global.f32 %f1, [%rd1];\n\tfma.rn.f32 %f3, %f1, %f1, %f3;\n"
	"\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.s32 %p1, %r2, %r1;\n\t@%p1 bra $L_loop;\n"
	"\tst.global.f32 [%rd1], %f3;\n\tret;\n}\n" TAIL;

static void test_loop_initialised(void **state)
{
	(void)state;
	assert_int_equal(count(k_loop_ok, 0), 0);
}

/* Written on one side of a branch only, read after the join: not a finding (cub loads
 * and stores a tile's items under conditions only a path-sensitive analysis sees are
 * the same), nor written on both sides. */
static const char k_paths[] = HEAD
	".visible .entry half(.param .u64 p)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
	"\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tsetp.eq.s32 %p1, %r1, 0;\n"
	"\t@%p1 bra $L_skip;\n\t.loc 1 10 3\n\tmov.u32 %r2, 7;\n"
	"$L_skip:\n\t.loc 1 12 3\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n"
	".visible .entry both(.param .u64 p)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
	"\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tsetp.eq.s32 %p1, %r1, 0;\n"
	"\t@%p1 bra $L_else;\n\tmov.u32 %r2, 7;\n\tbra.uni $L_join;\n"
	"$L_else:\n\tmov.u32 %r2, 9;\n"
	"$L_join:\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n" TAIL;

static void test_paths(void **state)
{
	(void)state;
	assert_int_equal(count(k_paths, 0), 0);
}

/* Guarded writes count as writes (nvcc's if-conversion: @%p / @!%p pairs); a guard and
 * a store's value and address are reads; never written at all: UNINIT_NEVER. */
static const char k_guards[] = HEAD
	".visible .entry pair(.param .u64 p)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
	"\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tsetp.eq.s32 %p1, %r1, 0;\n"
	"\t@%p1 mov.u32 %r2, 1;\n\t@!%p1 mov.u32 %r2, 2;\n\t@%p1 ld.global.u32 %r3, [%rd1];\n"
	"\t@%p1 st.global.u32 [%rd1], %r3;\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n"
	".visible .entry guard(.param .u64 p)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n"
	"\tld.param.u64 %rd1, [p];\n\t.loc 1 20 1\n\t@%p2 st.global.u32 [%rd1], 1;\n"
	"\t.loc 1 21 1\n\tst.global.u32 [%rd2], 1;\n\tret;\n}\n" TAIL;

static void test_guards(void **state)
{
	(void)state;
	struct uninit_report *r;
	analyse(k_guards, &r);
	assert_int_equal(r->n, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_string_equal(r->reads[i].func, "guard");
		assert_int_equal(r->reads[i].kind, UNINIT_NEVER);
		assert_int_equal(r->reads[i].line, 20 + i);
	}
	uninit_report_free(r);
}

/* Operand kinds: setp's two destinations, a vector load's four, unpack and pack,
 * shfl's predicate, atom's result, mbarrier.arrive's state (and `_`), a .func's
 * parameter and return value through .param, nested scopes' own registers (the same
 * names twice, and names of the function's own, as cub's inline asm does), bar.red's
 * result; all written before they are read. */
static const char k_kinds[] = HEAD
	".func (.param .b32 r) twice(.param .b32 a)\n{\n"
	"\t.reg .b32 %r<3>;\n\tld.param.b32 %r1, [a];\n\tadd.s32 %r2, %r1, %r1;\n"
	"\tst.param.b32 [r], %r2;\n\tret;\n}\n"
	".visible .entry kinds(.param .u64 p)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .f32 %f<6>;\n\t.reg .b64 %rd<6>;\n"
	"\t.shared .align 8 .b64 bar0;\n"
	"\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tsetp.ne.s32 %p3, %r1, 9;\n"
	"\tsetp.lt.and.s32 %p1|%p2, %r1, 4, %p3;\n"
	"\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
	"\tmov.b64 {%r2, %r3}, %rd1;\n\tmov.b64 %rd2, {%r3, %r2};\n"
	"\tshfl.sync.down.b32 %r4|%p3, %r1, 1, 31, -1;\n"
	"\tatom.global.add.u32 %r5, [%rd1], 1;\n"
	"\tmbarrier.arrive.shared.b64 %rd3, [bar0];\n\tmbarrier.arrive.shared.b64 _, [bar0];\n"
	"\tmbarrier.try_wait.shared.b64 %p1, [bar0], %rd3;\n"
	"\t{\n\t.reg .b32 %t<2>;\n\tadd.s32 %t1, %r4, %r5;\n\tmov.b32 %r6, %t1;\n\t}\n"
	"\t{\n\t.reg .b32 %t<2>;\n\tmul.lo.s32 %t1, %r6, 3;\n\tmov.b32 %r7, %t1;\n\t}\n"
	"\t{\n\t.param .b32 a0;\n\tst.param.b32 [a0], %r7;\n\t.param .b32 r0;\n"
	"\tcall.uni (r0), twice, (a0);\n\tld.param.b32 %r8, [r0];\n\t}\n"
	"\tbar.red.popc.u32 %r9, 0, %p1;\n"
	"\t{\n\t.reg .pred %p1;\n\t.reg .pred %p2;\n\tsetp.ne.u32 %p1, %r9, 0;\n"
	"\tbar.red.or.pred %p2, 0, %p1;\n\tselp.u32 %r13, 1, 0, %p2;\n\t}\n"
	"\t@%p2 add.s32 %r8, %r8, %r9;\n\tselp.b32 %r10, %r8, %r7, %p3;\n"
	"\tadd.f32 %f5, %f1, %f4;\n\tcvt.rzi.u32.f32 %r11, %f5;\n"
	"\tadd.s32 %r12, %r10, %r11;\n\tadd.s64 %rd4, %rd2, %rd3;\n"
	"\tst.global.u32 [%rd4], %r12;\n\tret;\n}\n" TAIL;

static void test_operand_kinds_written(void **state)
{
	(void)state;
	assert_int_equal(count(k_kinds, 0), 0);
}

/* The same reads, each of one register nothing writes: every kind of read is seen; the
 * value a shuffle moves is not counted (cub shuffles structs' padding words). */
static const char k_kinds_bad[] = HEAD
	".visible .entry reads(.param .u64 p)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .f32 %f<6>;\n\t.reg .b64 %rd<6>;\n"
	"\tld.param.u64 %rd1, [p];\n"
	"\t.loc 1 1 1\n\tsetp.lt.and.s32 %p1|%p2, %r1, 4, %p3;\n"            /* %r1, %p3 */
	"\t.loc 1 2 1\n\tst.global.v2.f32 [%rd1], {%f1, %f2};\n"            /* %f1, %f2 */
	"\t.loc 1 3 1\n\tmov.b64 %rd2, {%r3, %r2};\n"                       /* %r3, %r2 */
	"\t.loc 1 4 1\n\tshfl.sync.down.b32 %r4|%p3, %r5, %r8, 31, -1;\n"   /* %r8 */
	"\t.loc 1 5 1\n\tatom.global.cas.b32 %r6, [%rd3], %r4, %r7;\n"      /* %rd3, %r7 */
	"\t.loc 1 6 1\n\tbar.red.popc.u32 %r9, 0, %p0;\n"                   /* %p0 */
	"\t.loc 1 7 1\n\tst.global.u32 [%rd1], %r9;\n\tret;\n}\n" TAIL;

static void test_operand_kinds_read(void **state)
{
	(void)state;
	struct uninit_report *r;
	analyse(k_kinds_bad, &r);
	static const unsigned lines[] = { 1, 2, 3, 4, 5, 6 }, regs[] = { 2, 2, 2, 1, 2, 1 };
	assert_int_equal(r->n, 6);
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(r->reads[i].line, lines[i]);
		assert_int_equal(r->reads[i].nregs, regs[i]);
	}
	uninit_report_free(r);
}

/* A value read only from the loop's second pass on (if (i > 0) use(prev); prev = x;),
 * by a branch or a guard: the first pass does not read it, so no finding. */
static const char k_prev[] = HEAD
	".visible .entry prev(.param .u64 p, .param .u32 n)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<3>;\n"
	"\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, 0;\n"
	"$L_loop:\n\tld.global.f32 %f1, [%rd1];\n\tsetp.eq.s32 %p2, %r2, 0;\n"
	"\t@%p2 bra $L_skip;\n\tsub.f32 %f2, %f1, %f3;\n\tst.global.f32 [%rd1], %f2;\n"
	"$L_skip:\n\tmov.f32 %f3, %f1;\n\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.s32 %p1, %r2, %r1;\n"
	"\t@%p1 bra $L_loop;\n\tret;\n}\n"
	".visible .entry prevg(.param .u64 p, .param .u32 n)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<3>;\n"
	"\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, 0;\n"
	"$L_loop:\n\tld.global.f32 %f1, [%rd1];\n\tsetp.ne.s32 %p2, %r2, 0;\n"
	"\t@%p2 sub.f32 %f2, %f1, %f3;\n\t@%p2 st.global.f32 [%rd1], %f2;\n"
	"\tmov.f32 %f3, %f1;\n\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.s32 %p1, %r2, %r1;\n"
	"\t@%p1 bra $L_loop;\n\tret;\n}\n" TAIL;

static void test_second_pass_reads(void **state)
{
	(void)state;
	assert_int_equal(count(k_prev, 0), 0);
}

/* wmma without fill_fragment: the accumulator's registers in the loop's first pass. */
static const char k_wmma[] = HEAD
	".visible .entry tc(.param .u64 p, .param .u32 n)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<20>;\n\t.reg .b64 %rd<3>;\n"
	"\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, 0;\n"
	"$L_k:\n\t.loc 1 40 9\n"
	"\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r10, %r11, %r12, %r13, %r14, "
	"%r15, %r16, %r17}, [%rd1], 16;\n"
	"\twmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r20, %r21, %r22, %r23, %r24, "
	"%r25, %r26, %r27}, [%rd1], 16;\n"
	"\t.loc 1 41 9\n"
	"\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
	"%f8}, {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, {%r20, %r21, %r22, %r23, %r24, "
	"%r25, %r26, %r27}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};\n"
	"\t.loc 1 38 5\n\tadd.s32 %r2, %r2, 16;\n\tsetp.lt.s32 %p1, %r2, %r1;\n"
	"\t@%p1 bra $L_k;\n"
	"\t.loc 1 43 5\n"
	"\twmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, "
	"%f6, %f7, %f8}, 16;\n\tret;\n}\n" TAIL;

static void test_wmma_accumulator(void **state)
{
	(void)state;
	struct uninit_report *r;
	analyse(k_wmma, &r);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->reads[0].line, 41);
	assert_int_equal(r->reads[0].nregs, 8);
	assert_true(r->reads[0].mma_acc);
	assert_int_equal(r->reads[0].kind, UNINIT_LOOP);
	assert_int_equal(r->reads[0].loop_line, 38);
	uninit_report_free(r);
	/* filled first (what wmma::fill_fragment compiles to): nothing */
	char ok[sizeof k_wmma + 256];
	const char *at = strstr(k_wmma, "$L_k:");
	snprintf(ok, sizeof ok, "%.*s\tmov.f32 %%f1, 0f00000000;\n\tmov.f32 %%f2, %%f1;\n"
		 "\tmov.f32 %%f3, %%f1;\n\tmov.f32 %%f4, %%f1;\n\tmov.f32 %%f5, %%f1;\n"
		 "\tmov.f32 %%f6, %%f1;\n\tmov.f32 %%f7, %%f1;\n\tmov.f32 %%f8, %%f1;\n%s",
		 (int)(at - k_wmma), k_wmma, at);
	assert_int_equal(count(ok, 0), 0);
}

/* An instruction the emulator refuses writes what it writes: nothing after it is
 * flagged; code no path reaches is not looked at. */
static const char k_refused[] = HEAD
	".visible .entry refused(.param .u64 p)\n{\n"
	"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n"
	"\tbra.uni $L_end;\n\tst.global.u32 [%rd1], %r3;\n"
	"$L_end:\n\tvadd.u32.u32.u32 %r1, %r1, %r2, %r0;\n\tst.global.u32 [%rd1], %r1;\n"
	"\tret;\n}\n" TAIL;

static void test_refused_and_unreachable(void **state)
{
	(void)state;
	assert_int_equal(count(k_refused, 0), 0);
}

/* Each file of argv has no finding. */
static char **g_files;
static int g_nfiles;

static void test_files_clean(void **state)
{
	(void)state;
	if (!g_nfiles)
		skip();
	for (int i = 0; i < g_nfiles; i++) {
		struct uninit_report *r;
		char err[256] = "";
		if (uninit_analyze_file(g_files[i], &r, err, sizeof err))
			fail_msg("%s: %s", g_files[i], err);
		for (unsigned k = 0; k < r->n; k++)
			print_message("%s: %s pc %u %s:%u %s\n", g_files[i], r->reads[k].func,
				      r->reads[k].pc, r->reads[k].file ? r->reads[k].file : "?",
				      r->reads[k].line, r->reads[k].op);
		unsigned n = r->n;
		uninit_report_free(r);
		assert_int_equal(n, 0);
	}
}

int main(int argc, char **argv)
{
	g_files = argv + 1;
	g_nfiles = argc - 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_accumulator),
		cmocka_unit_test(test_loop_initialised),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_guards),
		cmocka_unit_test(test_operand_kinds_written),
		cmocka_unit_test(test_operand_kinds_read),
		cmocka_unit_test(test_second_pass_reads),
		cmocka_unit_test(test_wmma_accumulator),
		cmocka_unit_test(test_refused_and_unreachable),
		cmocka_unit_test(test_files_clean),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
