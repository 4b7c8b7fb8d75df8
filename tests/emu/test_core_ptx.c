/* Tests of emu/ptx: parsing, decoding and error messages, from PTX text in the test. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exec.h"
#include "ptx.h"
#include "uniformity.h"

static const char k_simple[] =
	".version 9.0\n.target sm_75\n.address_size 64\n"
	".global .align 4 .b8 tbl[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
	".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<5>;\n"
	"\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u32 %r1, [k_param_1];\n"
	"\tmov.u32 %r2, %tid.x;\n\tsetp.ge.u32 %p1, %r2, %r1;\n\t@%p1 bra $L_end;\n"
	"\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.u32 %rd3, %r2, 4;\n"
	"\tadd.s64 %rd4, %rd2, %rd3;\n\tmov.u64 %rd1, tbl;\n\tld.global.u8 %r3, [%rd1+5];\n"
	"\tmad.lo.s32 %r4, %r2, %r2, %r3;\n\tst.global.u32 [%rd4], %r4;\n"
	"$L_end:\n\tret;\n}\n";

static void test_parse_and_run(void **state)
{
	(void)state;
	struct ptx_module *m;
	char err[256];
	assert_int_equal(ptx_module_load(k_simple, strlen(k_simple), "s.ptx", &m, err, sizeof err), 0);
	const struct ptx_kernel *k = ptx_module_kernel(m, "k");
	assert_non_null(k);
	assert_null(ptx_module_kernel(m, "nope"));
	assert_int_equal(ptx_kernel_nparams(k), 2);
	assert_int_equal(ptx_kernel_param_size(k, 0), 8);
	assert_int_equal(ptx_kernel_param_size(k, 1), 4);
	devaddr_t tbl, out;
	size_t sz;
	assert_int_equal(ptx_module_symbol(m, "tbl", &tbl, &sz), 0);
	assert_int_equal(sz, 8);
	assert_int_equal(((unsigned char *)devmem_host(tbl, 8))[7], 8);
	assert_int_equal(devmem_alloc(40 * 4, DEVMEM_GLOBAL, "out", &out), 0);
	unsigned n = 37;
	void *args[] = { &out, &n };
	struct emu_launch l = { m, k, { 1, 1, 1 }, { 40, 1, 1 }, 0, args };
	struct emu_fault f;
	assert_int_equal(emu_run(&l, &f), 0);
	const uint32_t *o = devmem_host(out, 160);
	for (unsigned i = 0; i < 40; i++)
		assert_int_equal(o[i], i < 37 ? i * i + 6 : 0);
	devmem_free(out);
	ptx_module_free(m);
}

/* A label after the last instruction (found by tests/fuzz: the last instruction was an
 * unconditional branch, so no return was added, and a branch to the label jumped past the
 * code): reaching it returns, in the interpreter and in the barrier analysis. */
static void test_label_at_end_returns(void **state)
{
	(void)state;
	static const char text[] =
		".version 9.0\n.target sm_75\n.address_size 64\n"
		".visible .entry k(.param .u64 k_p)\n{\n"
		"\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [k_p];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
		"\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd2, %rd2, %rd3;\n"
		"\tsetp.lt.u32 %p1, %r1, 2;\n\t@%p1 bra $L_end;\n\tbar.sync 0;\n"
		"\tst.global.u32 [%rd2], %r1;\n\tbra.uni $L_end;\n$L_end:\n}\n";
	struct ptx_module *m;
	char err[256];
	assert_int_equal(ptx_module_load(text, strlen(text), "end.ptx", &m, err, sizeof err), 0);
	struct uniformity_report *r;
	assert_int_equal(uniformity_analyze(m, &r), 0);
	assert_int_equal(r->nkernels, 1);
	assert_int_equal(r->kernels[0].ndivergent, 1); /* the barrier after the early exit */
	uniformity_report_free(r);
	devaddr_t out;
	assert_int_equal(devmem_alloc(8 * 4, DEVMEM_GLOBAL, "out", &out), 0);
	memset(devmem_host(out, 32), 0, 32);
	void *args[] = { &out };
	struct emu_launch l = { m, ptx_module_kernel(m, "k"), { 1, 1, 1 }, { 8, 1, 1 }, 0, args };
	struct emu_fault f;
	assert_int_equal(emu_run(&l, &f), 0);
	const uint32_t *o = devmem_host(out, 32);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(o[i], i < 2 ? 0 : i);
	devmem_free(out);
	ptx_module_free(m);
}

/* %r<N> with a huge N (found by tests/fuzz: naming 2^32 registers took minutes) */
static void test_huge_register_range_refused(void **state)
{
	(void)state;
	static const char text[] = ".version 9.0\n.target sm_75\n.address_size 64\n"
				   ".visible .entry k()\n{\n\t.reg .b32 %r<777777777777>;\n\tret;\n}\n";
	struct ptx_module *m = NULL;
	char err[256];
	assert_int_equal(ptx_module_load(text, strlen(text), "big.ptx", &m, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "big.ptx:6:"));
	assert_non_null(strstr(err, "more registers than the emulator takes"));
}

static void test_syntax_error(void **state)
{
	(void)state;
	static const char bad[] = ".version 9.0\n.target sm_75\n.address_size 64\n"
				  ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
				  "\tadd.s32 %r1, %r9, 1;\n\tret;\n}\n";
	struct ptx_module *m = NULL;
	char err[256];
	assert_int_equal(ptx_module_load(bad, strlen(bad), "bad.ptx", &m, err, sizeof err), -EINVAL);
	assert_null(m);
	assert_non_null(strstr(err, "bad.ptx:7:"));
	assert_non_null(strstr(err, "%r9"));
}

static void test_unknown_instruction_refused_at_launch(void **state)
{
	(void)state;
	static const char txt[] = ".version 9.0\n.target sm_75\n.address_size 64\n"
				  ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
				  "\t.loc 1 12 3\n\tsured.b.add.1d.u32.trap [t, {%r2}], %r1;\n"
				  "\tret;\n}\n.file 1 \"x.cu\"\n";
	struct ptx_module *m;
	char err[256];
	assert_int_equal(ptx_module_load(txt, strlen(txt), "t.ptx", &m, err, sizeof err), 0);
	struct emu_launch l = { m, ptx_module_kernel(m, "k"), { 1, 1, 1 }, { 1, 1, 1 }, 0, NULL };
	struct emu_fault f;
	assert_int_equal(emu_run(&l, &f), -ENOTSUP);
	assert_int_equal(f.kind, EMU_FAULT_UNSUPPORTED);
	assert_int_equal(f.line, 12);
	assert_string_equal(f.file, "x.cu");
	assert_non_null(strstr(f.message, "surface reductions"));
	assert_non_null(strstr(f.message, "--backend gpu"));
	ptx_module_free(m);
}

/* Runs kernel k of PTX text txt with one output buffer of nout 32-bit words and nthreads
 * threads (dynamic shared memory dyn). Returns emu_run's code; *out is devmem's copy. */
static int run_ptx(const char *txt, unsigned nthreads, size_t dyn, unsigned nout,
		   uint32_t **out, struct emu_fault *f, struct ptx_module **mp, devaddr_t *buf)
{
	char err[256];
	assert_int_equal(ptx_module_load(txt, strlen(txt), "t.ptx", mp, err, sizeof err), 0);
	assert_int_equal(devmem_alloc(nout * 4, DEVMEM_GLOBAL, "out", buf), 0);
	*out = devmem_host(*buf, nout * 4);
	memset(*out, 0, nout * 4);
	void *args[] = { buf };
	struct emu_launch l = { *mp, ptx_module_kernel(*mp, "k"), { 1, 1, 1 }, { nthreads, 1, 1 },
				dyn, args };
	return emu_run(&l, f);
}

#define PTX_HEAD(target) ".version 9.0\n.target " target "\n.address_size 64\n"
/* The start of kernel k(out): %rd2 = out + 4 * %tid.x * STRIDE (in words). */
#define PTX_K(stride)                                                                    \
	".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"                            \
	"\t.reg .pred %p<8>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<40>;\n"                \
	"\t.reg .f64 %fd<40>;\n\t.reg .b64 %rd<8>;\n"                                    \
	"\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"          \
	"\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, " #stride ";\n"               \
	"\tadd.s64 %rd2, %rd1, %rd2;\n"

/* min/max .NaN and .xorsign.abs of f32 (sm_80): a NaN operand gives the canonical
 * NaN; the magnitude's min/max with the operands' signs xor'ed. */
static void test_minmax_nan_f32(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_90") PTX_K(4)
		"\tmov.b32 %f1, 0f7FC00001;\n\tmov.f32 %f2, 0f3F800000;\n"
		"\tmin.NaN.f32 %f3, %f1, %f2;\n\tst.global.f32 [%rd2], %f3;\n"
		"\tmin.f32 %f3, %f1, %f2;\n\tst.global.f32 [%rd2+4], %f3;\n"
		"\tmov.f32 %f1, 0fC0000000;\n\tmov.f32 %f2, 0f40400000;\n"
		"\tmax.xorsign.abs.f32 %f3, %f1, %f2;\n\tst.global.f32 [%rd2+8], %f3;\n"
		"\tret;\n}\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 1, 0, 3, &o, &f, &m, &buf), 0);
	assert_int_equal(o[0], 0x7fffffff);
	assert_int_equal(o[1], 0x3f800000);
	assert_int_equal(o[2], 0xc0400000); /* -3 */
	devmem_free(buf);
	ptx_module_free(m);
}

/* setp on 32-bit integers in every mode, against a register and an immediate, with
 * values across the sign bit (the fast path's compares as 64-bit vectors: exec_compare.c
 * setp_exec), and with two destinations. Each thread packs its 32 results into word 0,
 * its p|q pair into word 1. */
#define SETP_BIT(md, ty, b, k)                                                           \
	"\tsetp." md "." ty " %p1, %r2, " b ";\n\tselp.u32 %r5, 1, 0, %p1;\n"            \
	"\tshl.b32 %r5, %r5, " #k ";\n\tor.b32 %r10, %r10, %r5;\n"
static void test_setp_int_modes(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_80") PTX_K(8)
		"\tmul.lo.u32 %r2, %r1, 268435455;\n\tmov.u32 %r3, 31;\n"
		"\tsub.u32 %r3, %r3, %r1;\n\tmul.lo.u32 %r3, %r3, 268435455;\n\tmov.u32 %r10, 0;\n"
		SETP_BIT("eq", "u32", "%r3", 0) SETP_BIT("ne", "u32", "%r3", 1)
		SETP_BIT("lt", "u32", "%r3", 2) SETP_BIT("le", "u32", "%r3", 3)
		SETP_BIT("gt", "u32", "%r3", 4) SETP_BIT("ge", "u32", "%r3", 5)
		SETP_BIT("lo", "u32", "%r3", 6) SETP_BIT("ls", "u32", "%r3", 7)
		SETP_BIT("hi", "u32", "%r3", 8) SETP_BIT("hs", "u32", "%r3", 9)
		SETP_BIT("eq", "u32", "2147483647", 10) SETP_BIT("ne", "u32", "2147483647", 11)
		SETP_BIT("lt", "u32", "2147483647", 12) SETP_BIT("le", "u32", "2147483647", 13)
		SETP_BIT("gt", "u32", "2147483647", 14) SETP_BIT("ge", "u32", "2147483647", 15)
		SETP_BIT("lo", "u32", "2147483647", 16) SETP_BIT("ls", "u32", "2147483647", 17)
		SETP_BIT("hi", "u32", "2147483647", 18) SETP_BIT("hs", "u32", "2147483647", 19)
		SETP_BIT("eq", "s32", "%r3", 20) SETP_BIT("ne", "s32", "%r3", 21)
		SETP_BIT("lt", "s32", "%r3", 22) SETP_BIT("le", "s32", "%r3", 23)
		SETP_BIT("gt", "s32", "%r3", 24) SETP_BIT("ge", "s32", "%r3", 25)
		SETP_BIT("eq", "s32", "-5", 26) SETP_BIT("ne", "s32", "-5", 27)
		SETP_BIT("lt", "s32", "-5", 28) SETP_BIT("le", "s32", "-5", 29)
		SETP_BIT("gt", "s32", "-5", 30) SETP_BIT("ge", "s32", "-5", 31)
		"\tst.global.u32 [%rd2], %r10;\n"
		"\tsetp.lt.s32 %p2|%p3, %r2, %r3;\n\tselp.u32 %r6, 1, 0, %p2;\n"
		"\tselp.u32 %r7, 2, 0, %p3;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tst.global.u32 [%rd2+4], %r6;\n\tret;\n}\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 32, 0, 64, &o, &f, &m, &buf), 0);
	for (uint32_t t = 0; t < 32; t++) {
		uint32_t a = t * 268435455u, b = (31 - t) * 268435455u, k = 2147483647u, want = 0;
		int32_t sa = (int32_t)a, sb = (int32_t)b, sk = -5;
		int r[32] = { a == b, a != b, a < b, a <= b, a > b, a >= b, a < b, a <= b, a > b, a >= b,
			      a == k, a != k, a < k, a <= k, a > k, a >= k, a < k, a <= k, a > k, a >= k,
			      sa == sb, sa != sb, sa < sb, sa <= sb, sa > sb, sa >= sb,
			      sa == sk, sa != sk, sa < sk, sa <= sk, sa > sk, sa >= sk };
		for (unsigned i = 0; i < 32; i++)
			want |= (uint32_t)r[i] << i;
		assert_int_equal(o[2 * t], want);
		assert_int_equal(o[2 * t + 1], sa < sb ? 1u : 2u);
	}
	devmem_free(buf);
	ptx_module_free(m);
}

/* A modifier the interpreter does not implement is refused by name at launch, at the
 * instruction's .cu line; one that changes nothing here (a cache hint) is accepted. */
static void test_unknown_modifier_refused(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_90") PTX_K(4)
		"\t.reg .b16 %h<4>;\n\tld.global.nc.L1::no_allocate.b16 %h1, [%rd2];\n"
		"\t.loc 1 7 2\n\tfma.rn.oob.f16 %h2, %h1, %h1, %h1;\n"
		"\tst.global.b16 [%rd2], %h2;\n\tret;\n}\n.file 1 \"m.cu\"\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 1, 0, 1, &o, &f, &m, &buf), -ENOTSUP);
	assert_int_equal(f.kind, EMU_FAULT_UNSUPPORTED);
	assert_int_equal(f.line, 7);
	assert_non_null(strstr(f.message, "modifier .oob"));
	assert_non_null(strstr(f.message, "'fma.rn.oob.f16'"));
	assert_non_null(strstr(f.message, "--backend gpu"));
	devmem_free(buf);
	ptx_module_free(m);
}

/* Fences of every order and scope run (as no-ops: one host memory), e.g. libcu++'s
 * block-scope atomic_thread_fence, which compiles to fence.acq_rel.cta. */
static void test_fences_accepted(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_80") PTX_K(4)
		"\tfence.sc.cta;\n\tfence.acq_rel.gpu;\n\tfence.acq_rel.cta;\n\tfence.sc.sys;\n"
		"\tmembar.cta;\n\tmov.u32 %r2, 7;\n\tst.global.u32 [%rd2], %r2;\n\tret;\n}\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 32, 0, 32, &o, &f, &m, &buf), 0);
	assert_int_equal(o[31], 7);
	devmem_free(buf);
	ptx_module_free(m);
}

/* cvt from an integer to f32 in a directed mode (__int2float_ru, _rd, _rz): 16777219
 * lies between the floats 16777218 and 16777220. */
static void test_cvt_int_directed(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_80") PTX_K(16)
		"\tmov.u32 %r2, 16777219;\n"
		"\tcvt.rp.f32.s32 %f1, %r2;\n\tcvt.rm.f32.s32 %f2, %r2;\n"
		"\tcvt.rz.f32.u32 %f3, %r2;\n\tcvt.rn.f32.s32 %f4, %r2;\n"
		"\tst.global.f32 [%rd2], %f1;\n\tst.global.f32 [%rd2+4], %f2;\n"
		"\tst.global.f32 [%rd2+8], %f3;\n\tst.global.f32 [%rd2+12], %f4;\n\tret;\n}\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 1, 0, 4, &o, &f, &m, &buf), 0);
	float r[4];
	memcpy(r, o, sizeof r);
	assert_true(r[0] == 16777220.0f && r[1] == 16777218.0f);
	assert_true(r[2] == 16777218.0f && r[3] == 16777220.0f);
	devmem_free(buf);
	ptx_module_free(m);
}

/* bfind.shiftamt (what __ffs compiles to): the shift that moves the found bit to the
 * top, 0xffffffff when there is none; bmsk.clamp and .wrap at their edges. */
static void test_bfind_shiftamt_and_bmsk(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_75") PTX_K(64)
		"\tshl.b32 %r2, 1, %r1;\n"                      /* 1 << tid (0 from 32 on) */
		"\tbfind.shiftamt.u32 %r3, %r2;\n\tst.global.u32 [%rd2], %r3;\n"
		"\tbfind.u32 %r4, %r2;\n\tst.global.u32 [%rd2+4], %r4;\n"
		"\tbfind.shiftamt.s32 %r5, -256;\n\tst.global.u32 [%rd2+8], %r5;\n"
		"\tbmsk.clamp.b32 %r6, 4, 8;\n\tst.global.u32 [%rd2+12], %r6;\n"
		"\tbmsk.clamp.b32 %r7, 28, 8;\n\tst.global.u32 [%rd2+16], %r7;\n"
		"\tbmsk.clamp.b32 %r8, 32, 8;\n\tst.global.u32 [%rd2+20], %r8;\n"
		"\tbmsk.clamp.b32 %r9, 3, 40;\n\tst.global.u32 [%rd2+24], %r9;\n"
		"\tbmsk.wrap.b32 %r10, 1, 2;\n\tst.global.u32 [%rd2+28], %r10;\n"
		"\tbmsk.wrap.b32 %r11, 33, 34;\n\tst.global.u32 [%rd2+32], %r11;\n"
		"\tbmsk.wrap.b32 %r12, 5, 32;\n\tst.global.u32 [%rd2+36], %r12;\n"
		"\tbmsk.clamp.b32 %r13, %r1, 3;\n\tst.global.u32 [%rd2+40], %r13;\n"
		"\tret;\n}\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 40, 0, 40 * 16, &o, &f, &m, &buf), 0);
	for (unsigned t = 0; t < 40; t++) {
		const uint32_t *r = o + t * 16;
		assert_int_equal(r[0], t < 32 ? 31 - t : 0xffffffffu);
		assert_int_equal(r[1], t < 32 ? t : 0xffffffffu);
	}
	assert_int_equal(o[2], 31 - 7);         /* -256: highest non-sign bit is 7 */
	assert_int_equal(o[3], 0x00000ff0u);
	assert_int_equal(o[4], 0xf0000000u);    /* cut at bit 31 */
	assert_int_equal(o[5], 0);              /* .clamp: a >= 32 */
	assert_int_equal(o[6], 0xfffffff8u);    /* .clamp: b >= 32, all from a */
	assert_int_equal(o[7], 0x00000006u);    /* the PTX ISA's example */
	assert_int_equal(o[8], 0x00000006u);    /* .wrap: 1 and 2 again */
	assert_int_equal(o[9], 0);              /* .wrap: b = 0 */
	assert_int_equal(o[16 * 29 + 10], 0xe0000000u); /* bmsk.clamp 29, 3 */
	devmem_free(buf);
	ptx_module_free(m);
}

/* The correctly rounded result of an f64 division or square root in a directed mode,
 * from round to nearest and the sign of the exact residual (fma). */
static double dir_f64(double q, double resid, int up)
{
	if (resid == 0)
		return q;
	if (up)
		return resid > 0 ? nextafter(q, INFINITY) : q;
	return resid < 0 ? nextafter(q, -INFINITY) : q;
}

/* .rz/.rm/.rp on f32 div, sqrt and rcp and on f64 add, mul, fma, div and sqrt; .sat on
 * float add; all compared with the correctly rounded results. */
static void test_directed_rounding(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_75") PTX_K(64)
		"\tmov.f32 %f1, 0f3F800000;\n\tmov.f32 %f2, 0f40400000;\n"  /* 1, 3 */
		"\tdiv.rn.f32 %f3, %f1, %f2;\n\tst.global.f32 [%rd2], %f3;\n"
		"\tdiv.rz.f32 %f4, %f1, %f2;\n\tst.global.f32 [%rd2+4], %f4;\n"
		"\tdiv.rm.f32 %f5, %f1, %f2;\n\tst.global.f32 [%rd2+8], %f5;\n"
		"\tdiv.rp.f32 %f6, %f1, %f2;\n\tst.global.f32 [%rd2+12], %f6;\n"
		"\tmov.f32 %f7, 0f40000000;\n"                               /* 2 */
		"\tsqrt.rm.f32 %f8, %f7;\n\tst.global.f32 [%rd2+16], %f8;\n"
		"\tsqrt.rp.f32 %f9, %f7;\n\tst.global.f32 [%rd2+20], %f9;\n"
		"\trcp.rm.f32 %f10, %f2;\n\tst.global.f32 [%rd2+24], %f10;\n"
		"\trcp.rp.f32 %f11, %f2;\n\tst.global.f32 [%rd2+28], %f11;\n"
		"\tmov.f64 %fd1, 0d3FF0000000000000;\n"                      /* 1 */
		"\tmov.f64 %fd2, 0d3C30000000000000;\n"                      /* 2^-60 */
		"\tadd.rm.f64 %fd3, %fd1, %fd2;\n\tst.global.f64 [%rd2+32], %fd3;\n"
		"\tadd.rp.f64 %fd4, %fd1, %fd2;\n\tst.global.f64 [%rd2+40], %fd4;\n"
		"\tmov.f64 %fd5, 0d3FF0000000400000;\n"                      /* 1 + 2^-30 */
		"\tmul.rz.f64 %fd6, %fd5, %fd5;\n\tst.global.f64 [%rd2+48], %fd6;\n"
		"\tmul.rp.f64 %fd7, %fd5, %fd5;\n\tst.global.f64 [%rd2+56], %fd7;\n"
		"\tfma.rm.f64 %fd8, %fd5, %fd5, %fd2;\n\tst.global.f64 [%rd2+64], %fd8;\n"
		"\tmov.f64 %fd9, 0d4008000000000000;\n"                      /* 3 */
		"\tdiv.rm.f64 %fd10, %fd1, %fd9;\n\tst.global.f64 [%rd2+72], %fd10;\n"
		"\tdiv.rp.f64 %fd11, %fd1, %fd9;\n\tst.global.f64 [%rd2+80], %fd11;\n"
		"\tmov.f64 %fd12, 0d4000000000000000;\n"                     /* 2 */
		"\tsqrt.rm.f64 %fd13, %fd12;\n\tst.global.f64 [%rd2+88], %fd13;\n"
		"\tsqrt.rp.f64 %fd14, %fd12;\n\tst.global.f64 [%rd2+96], %fd14;\n"
		"\tadd.sat.f32 %f12, %f7, %f1;\n\tst.global.f32 [%rd2+104], %f12;\n"
		"\tsub.sat.f32 %f13, %f3, %f7;\n\tst.global.f32 [%rd2+108], %f13;\n"
		"\tmul.rp.f32 %f14, %f3, %f2;\n\tst.global.f32 [%rd2+112], %f14;\n"
		"\tret;\n}\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 1, 0, 32, &o, &f, &m, &buf), 0);
	float fo[8];
	double d[9];
	memcpy(fo, o, sizeof fo);
	memcpy(d, o + 8, sizeof d);
	float third = 1.0f / 3.0f; /* rounded up: 3 * third > 1 */
	assert_true((double)third * 3 > 1);
	assert_true(fo[0] == third);
	assert_true(fo[1] == nextafterf(third, 0) && fo[2] == fo[1] && fo[3] == third);
	float r2 = sqrtf(2.0f), lo = (double)r2 * r2 > 2 ? nextafterf(r2, 0) : r2;
	assert_true(fo[4] == lo && fo[5] == nextafterf(lo, 1e9f));
	assert_true(fo[6] == fo[1] && fo[7] == third);
	double sq = 1 + ldexp(1, -29);
	assert_true(d[0] == 1.0 && d[1] == nextafter(1.0, 2.0));
	assert_true(d[2] == sq && d[3] == nextafter(sq, 2.0)); /* exact: 1 + 2^-29 + 2^-60 */
	assert_true(d[4] == sq);                                /* + 2^-60 + 2^-60: still down */
	double q = 1.0 / 3.0, s2 = sqrt(2.0);
	assert_true(d[5] == dir_f64(q, fma(-q, 3.0, 1.0), 0));
	assert_true(d[6] == dir_f64(q, fma(-q, 3.0, 1.0), 1));
	assert_true(d[6] == nextafter(d[5], 1.0));
	assert_true(d[7] == dir_f64(s2, fma(-s2, s2, 2.0), 0));
	assert_true(d[8] == dir_f64(s2, fma(-s2, s2, 2.0), 1));
	assert_true(d[8] == nextafter(d[7], 2.0));
	float sat[3];
	memcpy(sat, o + 26, sizeof sat);
	assert_true(sat[0] == 1.0f && sat[1] == 0.0f);
	assert_true(sat[2] == nextafterf(1.0f, 2.0f)); /* third * 3 = 1 + 2^-25, up */
	devmem_free(buf);
	ptx_module_free(m);
}

/* Faults inside toolkit headers are reported at the user's line: nvcc emits one .loc
 * per level of inlining, so the chain (driver_abi.h in cooperative_groups.h in the
 * user's header in the kernel) is followed up to the first file outside the toolkit.
 * Special registers the emulator does not model and device runtime calls it does not run
 * (exec_cdp.c runs the launches) are refused by what they are. */
static void test_inlined_lines_and_refusals(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_75")
		".extern .func (.param .b32 func_retval0) __cudaCDP2EventRecord\n"
		"(\n\t.param .b64 p0,\n\t.param .b64 p1\n)\n;\n"
		".visible .entry g()\n{\n\t.reg .b32 %r<4>;\n"
		"\t.loc 1 8 3\n\tmov.u32 %r1, %tid.x;\n"
		"\t.loc 4 30 2, function_name $L__info_string0, inlined_at 1 12 3\n"
		"\t.loc 2 261 5, function_name $L__info_string1, inlined_at 4 30 2\n"
		"\t.loc 3 92 9, function_name $L__info_string2, inlined_at 2 261 5\n"
		"\t.loc 3 66 9, function_name $L__info_string3, inlined_at 3 92 9\n"
		"\tmov.u32 %r2, %envreg5;\n\tret;\n}\n"
		".visible .entry d()\n{\n\t.reg .b64 %rd<3>;\n"
		"\t.loc 1 20 5\n\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd1;\n"
		"\t.param .b64 param1;\n\tst.param.b64 [param1], %rd2;\n"
		"\t.param .b32 retval0;\n"
		"\tcall.uni (retval0), __cudaCDP2EventRecord, (param0, param1);\n\t}\n"
		"\tret;\n}\n"
		".file 1 \"/home/s/k.cu\"\n"
		".file 2 \"/usr/local/cuda/include/cooperative_groups.h\"\n"
		".file 3 \"/usr/local/cuda/include/cooperative_groups/details/driver_abi.h\"\n"
		".file 4 \"/home/s/helpers.cuh\"\n";
	struct ptx_module *m;
	char err[256];
	assert_int_equal(ptx_module_load(txt, strlen(txt), "i.ptx", &m, err, sizeof err), 0);
	struct emu_launch l = { m, ptx_module_kernel(m, "g"), { 1, 1, 1 }, { 1, 1, 1 }, 0, NULL };
	struct emu_fault f;
	assert_int_equal(emu_run(&l, &f), -ENOTSUP);
	assert_string_equal(f.file, "/home/s/helpers.cuh");
	assert_int_equal(f.line, 30);
	assert_non_null(strstr(f.message, "the special register %envreg5 is not emulated"));
	assert_non_null(strstr(f.message, "--backend gpu"));
	l.kernel = ptx_module_kernel(m, "d");
	assert_int_equal(emu_run(&l, &f), -ENOTSUP);
	assert_string_equal(f.file, "/home/s/k.cu");
	assert_int_equal(f.line, 20);
	assert_non_null(strstr(f.message, "the device runtime call '__cudaCDP2EventRecord' (dynamic "
					  "parallelism) is not emulated"));
	ptx_module_free(m);
}

/* vote, match and redux over the lanes each lane's member mask names: per half warp. */
static void test_member_masks(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_80") PTX_K(16)
		"\tand.b32 %r3, %r1, 31;\n\tsetp.lt.u32 %p1, %r3, 16;\n"
		"\tselp.b32 %r4, 65535, -65536, %p1;\n"
		"\tredux.sync.add.s32 %r5, %r1, %r4;\n\tst.global.u32 [%rd2], %r5;\n"
		"\tredux.sync.max.u32 %r6, %r1, %r4;\n\tst.global.u32 [%rd2+4], %r6;\n"
		"\tvote.sync.ballot.b32 %r7, %p1, %r4;\n\tst.global.u32 [%rd2+8], %r7;\n"
		"\tmatch.any.sync.b32 %r8, %r3, %r4;\n\tst.global.u32 [%rd2+12], %r8;\n"
		"\tret;\n}\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 64, 0, 64 * 4, &o, &f, &m, &buf), 0);
	for (uint32_t t = 0; t < 64; t++) {
		uint32_t h0 = t / 16 * 16, sum = 0;
		for (uint32_t k = h0; k < h0 + 16; k++)
			sum += k;
		assert_int_equal(o[t * 4], sum);
		assert_int_equal(o[t * 4 + 1], h0 + 15);
		assert_int_equal(o[t * 4 + 2], (t & 31) < 16 ? 0x0000ffffu : 0);
		assert_int_equal(o[t * 4 + 3], 1u << (t & 31));
	}
	devmem_free(buf);
	ptx_module_free(m);
}

/* The address of extern .shared (placed after the static .shared at the end of the
 * module) is never shared with a plain immediate of the same value, and sym+imm of it
 * moves with it. */
static void test_extern_shared_immediates(void **state)
{
	(void)state;
	static const char txt[] = PTX_HEAD("sm_75")
		".extern .shared .align 4 .b8 dyn[];\n.shared .align 4 .b8 fixed[16];\n"
		PTX_K(32)
		"\tmov.u32 %r2, dyn+8;\n\tmov.u32 %r3, dyn;\n\tst.shared.u32 [%r2], 5;\n"
		"\tmov.u32 %r5, fixed;\n\tst.shared.u32 [%r5], 9;\n"
		"\tld.shared.u32 %r4, [%r3+8];\n\tsub.s32 %r6, %r2, %r3;\n"
		"\tsetp.eq.s32 %p1, %r4, 0;\n\tselp.u32 %r7, 1, 2, %p1;\n\tmov.u32 %r8, 0;\n"
		"\tst.global.u32 [%rd2], %r4;\n\tst.global.u32 [%rd2+4], %r6;\n"
		"\tst.global.u32 [%rd2+8], %r7;\n\tst.global.u32 [%rd2+12], %r3;\n"
		"\tst.global.u32 [%rd2+16], %r8;\n\tret;\n}\n";
	struct ptx_module *m;
	struct emu_fault f;
	devaddr_t buf;
	uint32_t *o;
	assert_int_equal(run_ptx(txt, 1, 64, 8, &o, &f, &m, &buf), 0);
	assert_int_equal(o[0], 5);
	assert_int_equal(o[1], 8);
	assert_int_equal(o[2], 2);
	assert_int_equal(o[3], 16 + 128); /* after the 16 static bytes and their red zone */
	assert_int_equal(o[4], 0);
	devmem_free(buf);
	ptx_module_free(m);
}

/* redux.sync (sm_80) and carry arithmetic (add.cc/addc, sub.cc/subc, mad.lo.cc/madc). */
static const char k_redux_carry[] =
	".version 9.0\n.target sm_80\n.address_size 64\n"
	".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
	"\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<5>;\n"
	"\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
	"\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 24;\n\tadd.s64 %rd4, %rd2, %rd3;\n"
	"\tredux.sync.add.s32 %r2, %r1, -1;\n\tredux.sync.max.u32 %r3, %r1, -1;\n"
	"\tadd.cc.u32 %r4, %r1, -1;\n\taddc.u32 %r5, 0, 0;\n"
	"\tsub.cc.u32 %r6, %r1, 1;\n\tsubc.u32 %r7, 10, 0;\n"
	"\tmad.lo.cc.u32 %r8, %r1, 65536, -65536;\n\tmadc.hi.u32 %r9, %r1, 65536, 0;\n"
	"\tst.global.u32 [%rd4], %r2;\n\tst.global.u32 [%rd4+4], %r3;\n"
	"\tst.global.u32 [%rd4+8], %r5;\n\tst.global.u32 [%rd4+12], %r7;\n"
	"\tst.global.u32 [%rd4+16], %r8;\n\tst.global.u32 [%rd4+20], %r9;\n"
	"\tret;\n}\n";

static void test_redux_and_carry(void **state)
{
	(void)state;
	struct ptx_module *m;
	char err[256];
	assert_int_equal(ptx_module_load(k_redux_carry, strlen(k_redux_carry), "rc.ptx", &m, err,
					 sizeof err), 0);
	devaddr_t out;
	assert_int_equal(devmem_alloc(32 * 24, DEVMEM_GLOBAL, "out", &out), 0);
	void *args[] = { &out };
	struct emu_launch l = { m, ptx_module_kernel(m, "k"), { 1, 1, 1 }, { 32, 1, 1 }, 0, args };
	struct emu_fault f;
	assert_int_equal(emu_run(&l, &f), 0);
	const uint32_t *o = devmem_host(out, 32 * 24);
	for (uint32_t t = 0; t < 32; t++) {
		assert_int_equal(o[t * 6], 31 * 32 / 2);
		assert_int_equal(o[t * 6 + 1], 31);
		assert_int_equal(o[t * 6 + 2], t >= 1 ? 1 : 0);       /* carry of t + 0xffffffff */
		assert_int_equal(o[t * 6 + 3], t >= 1 ? 10 : 9);      /* borrow of t - 1 */
		uint64_t wide = (uint64_t)t * 65536 + 0xffff0000u;    /* lo with carry into hi */
		assert_int_equal(o[t * 6 + 4], (uint32_t)wide);
		assert_int_equal(o[t * 6 + 5], (uint32_t)(((uint64_t)t * 65536) >> 32) + (uint32_t)(wide >> 32));
	}
	devmem_free(out);
	ptx_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_run),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_label_at_end_returns),
		cmocka_unit_test(test_huge_register_range_refused),
		cmocka_unit_test(test_unknown_instruction_refused_at_launch),
		cmocka_unit_test(test_redux_and_carry),
		cmocka_unit_test(test_unknown_modifier_refused),
		cmocka_unit_test(test_minmax_nan_f32),
		cmocka_unit_test(test_setp_int_modes),
		cmocka_unit_test(test_fences_accepted),
		cmocka_unit_test(test_cvt_int_directed),
		cmocka_unit_test(test_bfind_shiftamt_and_bmsk),
		cmocka_unit_test(test_directed_rounding),
		cmocka_unit_test(test_inlined_lines_and_refusals),
		cmocka_unit_test(test_member_masks),
		cmocka_unit_test(test_extern_shared_immediates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
