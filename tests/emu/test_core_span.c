/* The interpreter's warp-wide memory paths and block start (exec_span.c, exec_fast.c's
 * linked shapes, block_start's special registers), on PTX written in the test: each case
 * against what a lane-by-lane run gives. Split from test_core_ptx.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "devmem.h"
#include "exec.h"
#include "ptx.h"

/* Block indices and %smid in every block when one worker runs many blocks: block_start
 * (exec.c) rewrites the special registers of the kernel frame it keeps from the worker's
 * previous block, only those the module names; a stale %ctaid.y, %ctaid.z or %smid
 * fails here. 40 threads: a full and a partial warp. */
static const char k_block_ids[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
	"\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
	"\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ctaid.y;\n\tmov.u32 %r3, %ctaid.z;\n"
	"\tmov.u32 %r4, %smid;\n\tmov.u32 %r5, %nctaid.x;\n\tmov.u32 %r6, %nctaid.y;\n"
	"\tmad.lo.s32 %r7, %r6, %r3, %r2;\n\tmad.lo.s32 %r7, %r7, %r5, %r1;\n"
	"\tmov.u32 %r8, %ntid.x;\n\tmov.u32 %r9, %tid.x;\n\tmad.lo.s32 %r7, %r7, %r8, %r9;\n"
	"\tmul.wide.u32 %rd2, %r7, 16;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tst.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};\n\tret;\n}\n";

static void test_block_ids(void **state)
{
	(void)state;
	struct ptx_module *m;
	char err[256];
	assert_int_equal(ptx_module_load(k_block_ids, strlen(k_block_ids), "ids.ptx", &m, err,
					 sizeof err), 0);
	enum { GX = 3, GY = 2, GZ = 3, NT = 40, N = GX * GY * GZ * NT };
	devaddr_t out;
	assert_int_equal(devmem_alloc(N * 16, DEVMEM_GLOBAL, "out", &out), 0);
	void *args[] = { &out };
	struct emu_launch l = { m, ptx_module_kernel(m, "k"), { GX, GY, GZ }, { NT, 1, 1 }, 0, args };
	struct emu_fault f;
	setenv("PMPPLAB_EMU_THREADS", "1", 1); /* every block on the one worker */
	assert_int_equal(emu_run(&l, &f), 0);
	unsetenv("PMPPLAB_EMU_THREADS");
	const uint32_t *o = devmem_host(out, N * 16);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t blk = i / NT;
		assert_int_equal(o[4 * i], blk % GX);
		assert_int_equal(o[4 * i + 1], blk / GX % GY);
		assert_int_equal(o[4 * i + 2], blk / (GX * GY));
		assert_int_equal(o[4 * i + 3], blk); /* one block an SM, breadth first (132 SMs) */
	}
	devmem_free(out);
	ptx_module_free(m);
}

/* A full warp's 4-byte shared access whose half-warps are rows of 16 words or one word
 * each (exec_span.c's span_shape_at, checked at the halves' ends): half-warp 0 at A + o0,
 * half-warp 1 at A + o1 or B + o1 (both in C, 16 bytes, when inb is 2), lane j of a half
 * at + step * j. The values loaded, and
 * A and B after a store, against a lane-by-lane model; a half that reaches past its
 * array, below it or misaligned faults. */
static const char k_half_rows[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k(\n\t.param .u64 p0,\n\t.param .u32 p1,\n\t.param .u32 p2,\n"
	"\t.param .u32 p3,\n\t.param .u32 p4,\n\t.param .u32 p5\n)\n{\n"
	"\t.reg .pred %p<5>;\n\t.reg .b32 %r<22>;\n\t.reg .b64 %rd<4>;\n"
	"\t.shared .align 4 .b8 A[256];\n\t.shared .align 4 .b8 B[256];\n\t.shared .align 4 .b8 C[16];\n"
	"\tld.param.u64 %rd1, [p0];\n\tld.param.u32 %r1, [p1];\n\tld.param.u32 %r2, [p2];\n"
	"\tld.param.u32 %r3, [p3];\n\tld.param.u32 %r4, [p4];\n\tld.param.u32 %r5, [p5];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n\tmov.u32 %r6, %tid.x;\n"
	"\tmov.u32 %r7, A;\n\tmov.u32 %r8, B;\n\tshl.b32 %r9, %r6, 2;\n"
	"\tadd.s32 %r10, %r7, %r9;\n\tadd.s32 %r11, %r6, 1000;\n\tst.shared.u32 [%r10], %r11;\n"
	"\tadd.s32 %r11, %r6, 1032;\n\tst.shared.u32 [%r10+128], %r11;\n"
	"\tadd.s32 %r12, %r8, %r9;\n\tadd.s32 %r11, %r6, 2000;\n\tst.shared.u32 [%r12], %r11;\n"
	"\tadd.s32 %r11, %r6, 2032;\n\tst.shared.u32 [%r12+128], %r11;\n\tbar.sync 0;\n"
	"\tand.b32 %r13, %r6, 15;\n\tmul.lo.s32 %r13, %r13, %r3;\n"
	"\tsetp.lt.u32 %p1, %r6, 16;\n\tsetp.ne.s32 %p2, %r4, 0;\n"
	"\tselp.b32 %r14, %r8, %r7, %p2;\n\tmov.u32 %r20, C;\n\tsetp.eq.s32 %p4, %r4, 2;\n"
	"\tselp.b32 %r14, %r20, %r14, %p4;\n\tselp.b32 %r21, %r20, %r7, %p4;\n"
	"\tadd.s32 %r14, %r14, %r2;\n\tadd.s32 %r15, %r21, %r1;\n"
	"\tselp.b32 %r16, %r15, %r14, %p1;\n\tadd.s32 %r16, %r16, %r13;\n"
	"\tmul.wide.u32 %rd2, %r6, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tsetp.ne.s32 %p3, %r5, 0;\n\t@%p3 bra $L_st;\n"
	"\tld.shared.u32 %r17, [%r16];\n\tst.global.u32 [%rd3], %r17;\n\tbra.uni $L_dump;\n"
	"$L_st:\n\tadd.s32 %r17, %r6, 5000;\n\tst.shared.u32 [%r16], %r17;\n"
	"$L_dump:\n\tbar.sync 0;\n"
	"\tld.shared.u32 %r18, [%r10];\n\tst.global.u32 [%rd3+128], %r18;\n"
	"\tld.shared.u32 %r18, [%r10+128];\n\tst.global.u32 [%rd3+256], %r18;\n"
	"\tld.shared.u32 %r18, [%r12];\n\tst.global.u32 [%rd3+384], %r18;\n"
	"\tld.shared.u32 %r18, [%r12+128];\n\tst.global.u32 [%rd3+512], %r18;\n"
	"\tsub.s32 %r19, %r8, %r7;\n\tst.global.u32 [%rd1+640], %r19;\n\tret;\n}\n";

static void test_half_warp_rows(void **state)
{
	(void)state;
	struct ptx_module *m;
	char err[256];
	assert_int_equal(ptx_module_load(k_half_rows, strlen(k_half_rows), "rows.ptx", &m, err,
					 sizeof err), 0);
	devaddr_t out;
	assert_int_equal(devmem_alloc(161 * 4, DEVMEM_GLOBAL, "out", &out), 0);
	uint32_t *o = devmem_host(out, 161 * 4);
	static const struct { uint32_t st, o0, o1, step, inb, faults; } cases[] = {
		{ 0, 0, 192, 4, 0, 0 },   /* rows, the second at A's last 16 words */
		{ 0, 0, 196, 4, 0, 1 },   /* its last word past A */
		{ 0, 0, 0, 4, 1, 0 },     /* the second half in B: lane by lane */
		{ 0, 252, 252, 0, 0, 0 }, /* one word each: A's last */
		{ 0, 0, 256, 0, 0, 1 },   /* the second half's word just past A */
		{ 0, -4u, 0, 0, 0, 1 },   /* the first half's just below A */
		{ 0, 2, 66, 4, 0, 1 },    /* misaligned */
		{ 0, 0, 66, 4, 0, 1 },    /* the second half misaligned */
		{ 0, 196, 0, 4, 0, 1 },   /* the first half's last word past A */
		{ 0, 64, 0, 4, 0, 0 },    /* halves in reverse order */
		{ 1, 0, 192, 4, 0, 0 },   /* stores: rows */
		{ 1, 0, 196, 4, 0, 1 },
		{ 1, 0, 0, 4, 1, 0 },
		{ 1, 60, 60, 0, 0, 0 },   /* one word: the last lane's value stays */
		{ 1, 0, 32, 4, 0, 0 },    /* overlapping halves: the second half's words stay */
		{ 1, 252, 256, 0, 0, 1 },
		{ 0, 0, 0, 4, 2, 1 },     /* rows in an array of 4 words */
		{ 1, 0, 0, 4, 2, 1 },
	};
	uint32_t boff = 0;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		memset(o, 0, 161 * 4);
		uint32_t o0 = cases[c].o0, o1 = cases[c].o1, step = cases[c].step;
		uint32_t inb = cases[c].inb, st = cases[c].st;
		void *args[] = { &out, &o0, &o1, &step, &inb, &st };
		struct emu_launch l = { m, ptx_module_kernel(m, "k"), { 1, 1, 1 }, { 32, 1, 1 }, 0,
					args };
		struct emu_fault f;
		int rc = emu_run(&l, &f);
		if (cases[c].faults) {
			assert_int_not_equal(rc, 0);
			continue;
		}
		assert_int_equal(rc, 0);
		if (!boff)
			boff = o[160]; /* B's offset from A: A's size and its red zone */
		assert_int_equal(o[160], boff);
		uint32_t model[2][64]; /* A and B */
		for (uint32_t i = 0; i < 64; i++) {
			model[0][i] = 1000 + i;
			model[1][i] = 2000 + i;
		}
		for (uint32_t lane = 0; lane < 32; lane++) {
			uint32_t x = (lane < 16 ? o0 : (inb ? boff : 0) + o1) + step * (lane % 16);
			uint32_t *word = x < 256 ? &model[0][x / 4] : &model[1][(x - boff) / 4];
			if (st)
				*word = 5000 + lane;
			else
				assert_int_equal(o[lane], *word);
		}
		for (uint32_t i = 0; i < 128; i++)
			assert_int_equal(o[32 + i], model[i / 64][i % 64]);
	}
	devmem_free(out);
	ptx_module_free(m);
}

/* Shapes kept along a chain of accesses to one register (exec_fast.c's fast_link): the
 * next access on the register reuses the shape the one before found, checked against
 * the region kept with it. Rows and one word a half-warp reused with a new offset; a
 * write to the register between (the shape must be found again); a branch that lands
 * between the two after writing it; stores to global memory along a chain (their written
 * flags); a loop whose first access's second round has addresses of neither shape
 * (the access after the loop must not take the first round's); and in k2 a reused row that reaches past the array,
 * which must fault. */
static const char k_linked[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k(\n\t.param .u64 p0\n)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<4>;\n"
	"\t.shared .align 4 .b8 A[256];\n"
	"\tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tmov.u32 %r2, A;\n\tshl.b32 %r3, %r1, 2;\n\tadd.s32 %r4, %r2, %r3;\n"
	"\tadd.s32 %r5, %r1, 100;\n\tst.shared.u32 [%r4], %r5;\n"
	"\tadd.s32 %r5, %r1, 132;\n\tst.shared.u32 [%r4+128], %r5;\n\tbar.sync 0;\n"
	"\tld.shared.u32 %r6, [%r4];\n\tld.shared.u32 %r7, [%r4+4];\n"
	"\tadd.s32 %r4, %r2, 8;\n\tld.shared.u32 %r8, [%r4+4];\n"
	"\tshr.u32 %r9, %r1, 4;\n\tshl.b32 %r9, %r9, 5;\n\tadd.s32 %r9, %r9, %r2;\n"
	"\tadd.s32 %r9, %r9, 8;\n\tld.shared.u32 %r10, [%r9];\n\tld.shared.u32 %r11, [%r9+4];\n"
	"\tadd.s32 %r12, %r2, %r3;\n\tld.shared.u32 %r13, [%r12];\n\tbra.uni $L_skip;\n"
	"$L_back:\n\tld.shared.u32 %r14, [%r12+8];\n"
	"\tst.global.u32 [%rd3], %r6;\n\tst.global.u32 [%rd3+128], %r7;\n"
	"\tst.global.u32 [%rd3+256], %r8;\n\tst.global.u32 [%rd3+384], %r10;\n"
	"\tst.global.u32 [%rd3+512], %r11;\n\tst.global.u32 [%rd3+640], %r13;\n"
	"\tst.global.u32 [%rd3+768], %r14;\n"
	"\tmov.u32 %r16, 0;\n$L_loop:\n\tld.shared.u32 %r17, [%r4];\n\tadd.s32 %r16, %r16, 1;\n"
	"\tsetp.lt.u32 %p1, %r16, 2;\n\t@%p1 bra $L_next;\n\tld.shared.u32 %r18, [%r4+4];\n"
	"\tst.global.u32 [%rd3+896], %r18;\n\tret;\n"
	"$L_next:\n\tadd.s32 %r4, %r2, %r3;\n\tadd.s32 %r4, %r4, %r3;\n\tbra.uni $L_loop;\n"
	"$L_skip:\n\tmov.u32 %r12, A;\n\tbra.uni $L_back;\n}\n"
	".visible .entry k2(\n\t.param .u64 p0\n)\n{\n"
	"\t.reg .b32 %r<8>;\n\t.shared .align 4 .b8 B[256];\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, B;\n\tshl.b32 %r3, %r1, 2;\n"
	"\tadd.s32 %r4, %r2, %r3;\n\tld.shared.u32 %r6, [%r4];\n"
	"\tld.shared.u32 %r7, [%r4+192];\n\tret;\n}\n";

static void test_linked_shapes(void **state)
{
	(void)state;
	struct ptx_module *m;
	char err[256];
	assert_int_equal(ptx_module_load(k_linked, strlen(k_linked), "linked.ptx", &m, err,
					 sizeof err), 0);
	devaddr_t out;
	assert_int_equal(devmem_alloc(8 * 32 * 4, DEVMEM_GLOBAL, "out", &out), 0);
	const uint32_t *o = devmem_host(out, 8 * 32 * 4);
	void *args[] = { &out };
	struct emu_launch l = { m, ptx_module_kernel(m, "k"), { 1, 1, 1 }, { 32, 1, 1 }, 0, args };
	struct emu_fault f;
	assert_int_equal(emu_run(&l, &f), 0);
	for (uint32_t t = 0; t < 32; t++) {
		assert_int_equal(o[t], 100 + t);               /* rows */
		assert_int_equal(o[32 + t], 101 + t);          /* rows kept, +4 */
		assert_int_equal(o[64 + t], 103);              /* written between: one word */
		assert_int_equal(o[96 + t], t < 16 ? 102 : 110); /* one word a half */
		assert_int_equal(o[128 + t], t < 16 ? 103 : 111); /* kept, +4 */
		assert_int_equal(o[160 + t], 100 + t);
		assert_int_equal(o[192 + t], 102);             /* written on the way round */
		assert_int_equal(o[224 + t], 101 + 2 * t);     /* the loop's second round */
	}
	unsigned char kbits[8 * 32 * 4 / 8], fbits[sizeof kbits];
	assert_int_equal(devmem_flags_get(out, 8 * 32 * 4, kbits, fbits), 0);
	for (size_t i = 0; i < 8 * 32 * 4; i++) /* every byte a kernel's: the stores' flags */
		assert_int_equal(devmem_flag_at(kbits, fbits, i), DEVMEM_BY_KERNEL);
	l.kernel = ptx_module_kernel(m, "k2");
	assert_int_not_equal(emu_run(&l, &f), 0); /* half-warp 1's row past B */
	devmem_free(out);
	ptx_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_ids),
		cmocka_unit_test(test_half_warp_rows),
		cmocka_unit_test(test_linked_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
