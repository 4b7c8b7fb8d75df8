/* Tests of emu/ptx: parsing, decoding and error messages, from PTX text in the test. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "exec.h"
#include "ptx.h"

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
				  "\t.loc 1 12 3\n\ttex.1d.v4.s32.s32 {%r1, %r1, %r1, %r1}, [t, {%r2}];\n"
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
	assert_non_null(strstr(f.message, "textures"));
	assert_non_null(strstr(f.message, "--backend gpu"));
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
		cmocka_unit_test(test_unknown_instruction_refused_at_launch),
		cmocka_unit_test(test_redux_and_carry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
