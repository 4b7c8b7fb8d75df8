/* The instruction families of sm_80/sm_90 (core/core_isa.cu, as nvcc -arch=compute_90
 * compiles it): a wmma product through shared memory; the race checker, the trace and
 * the faults seeing wmma's accesses; ldmatrix's fragments; the trace seeing cp.async; one or two results of each
 * half, bf16, tf32 and integer SIMD instruction the CUDA headers emit, with the values
 * an H100 gives (the programs in tests/emu/programs compare whole tables with one);
 * cvta.param's generic addresses of kernel parameters.
 * Usage: test_core_isa CORE_ISA.ptx CORE_DIR */
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

#include "devmem.h"
#include "exec.h"
#include "ptx.h"
#include "race.h"
#include "trace.h"

static const char *g_path, *g_dir;
static struct ptx_module *g_m;

static int setup(void **state)
{
	(void)state;
	char err[512];
	if (ptx_module_load_file(g_path, &g_m, err, sizeof err))
		fail_msg("%s", err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ptx_module_free(g_m);
	return 0;
}

static const struct ptx_kernel *kernel(const char *name)
{
	for (unsigned i = 0; i < ptx_module_nkernels(g_m); i++)
		if (strstr(ptx_kernel_name(ptx_module_kernel_at(g_m, i)), name))
			return ptx_module_kernel_at(g_m, i);
	fail_msg("no kernel %s", name);
	return NULL;
}

static int run(const char *name, unsigned threads, void **args, struct emu_fault *f)
{
	struct emu_launch l = { g_m, kernel(name), { 1, 1, 1 }, { threads, 1, 1 }, 0, args };
	return emu_run(&l, f);
}

static devaddr_t dalloc(size_t n, void **host)
{
	devaddr_t a;
	assert_int_equal(devmem_alloc(n, DEVMEM_GLOBAL, "isa", &a), 0);
	*host = devmem_host(a, n);
	memset(*host, 0, n);
	return a;
}

/* The line of core_isa.cu holding MARK. */
static unsigned source_line(const char *mark)
{
	char path[1024], buf[512];
	snprintf(path, sizeof path, "%s/core_isa.cu", g_dir);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	unsigned n = 0, found = 0;
	while (fgets(buf, sizeof buf, fp) && !found) {
		n++;
		if (strstr(buf, mark))
			found = n;
	}
	fclose(fp);
	return found;
}

static uint16_t to_half(int v) /* small integers only */
{
	if (v == 0)
		return 0;
	unsigned a = (unsigned)(v < 0 ? -v : v), e = 31 - (unsigned)__builtin_clz(a);
	return (uint16_t)((v < 0 ? 0x8000u : 0) | (e + 15) << 10 | ((a << (10 - e)) & 0x3ff));
}

static void test_wmma_shared(void **state)
{
	(void)state;
	uint16_t *a, *b;
	float *c;
	devaddr_t da = dalloc(512, (void **)&a), db = dalloc(512, (void **)&b);
	devaddr_t dc = dalloc(1024, (void **)&c);
	for (int i = 0; i < 256; i++) {
		a[i] = to_half(i % 7 - 3);            /* A[r][k] row-major */
		b[i] = to_half((i * 5) % 9 - 4);      /* B[k][n] stored by column: b[n*16+k] */
	}
	void *args[] = { &da, &db, &dc };
	struct emu_fault f;
	assert_int_equal(run("wmmaShared", 32, args, &f), 0);
	for (int r = 0; r < 16; r++)
		for (int n = 0; n < 16; n++) {
			int want = 0;
			for (int k = 0; k < 16; k++)
				want += ((r * 16 + k) % 7 - 3) * ((n * 16 + k) * 5 % 9 - 4);
			assert_true(c[r * 16 + n] == (float)want);
		}
	devmem_free(da), devmem_free(db), devmem_free(dc);
}

/* The race checker sees wmma's shared accesses: a fragment handed from one warp to the
 * other without __syncthreads() is a read-after-write race between the two lines. */
static void test_wmma_race(void **state)
{
	(void)state;
	float *o;
	devaddr_t d = dalloc(32 * 4, (void **)&o);
	unsigned st = source_line("STORE_LINE"), ld = source_line("LOAD_LINE");
	for (int sync = 0; sync < 2; sync++) {
		void *args[] = { &d, &sync };
		struct emu_launch l = { g_m, kernel("wmmaHandoff"), { 1, 1, 1 }, { 64, 1, 1 }, 0, args };
		struct race_tracker *t = race_new(&l);
		assert_non_null(t);
		struct emu_fault f;
		assert_int_equal(race_run(t, &f), 0);
		int raced = 0;
		for (unsigned i = 0; i < race_nfindings(t); i++) {
			const struct race_finding *r = race_finding_at(t, i);
			print_message("sync %d: %s\n", sync, r->message);
			raced |= r->kind == RACE_RAW && r->line1 == st && r->line2 == ld;
		}
		assert_int_equal(raced, !sync);
		if (sync)
			assert_int_equal(race_nfindings(t), 0);
		race_free(t);
		for (int i = 0; i < 32; i++)
			assert_true(!sync || o[i] == 2.0f);
	}
	devmem_free(d);
}

/* The trace counts wmma's shared requests on the source line of the load. At -O0 the
 * wmma calls stay calls into mma.hpp, whose lines the trace counts apart: skipped. */
static void test_wmma_trace(void **state)
{
	(void)state;
	if (strstr(g_path, "_O0"))
		skip();
	char path[] = "/tmp/pmpplab-test-isa-trace-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	float *o;
	devaddr_t d = dalloc(32 * 4, (void **)&o);
	int sync = 1;
	void *args[] = { &d, &sync };
	struct emu_fault f;
	setenv("PMPPLAB_TRACE", path, 1);
	int rc = run("wmmaHandoff", 64, args, &f);
	unsetenv("PMPPLAB_TRACE");
	assert_int_equal(rc, 0);
	struct emu_trace_file *tf = malloc(sizeof *tf);
	FILE *fp = fopen(path, "rb");
	assert_non_null(tf);
	assert_non_null(fp);
	assert_int_equal(fread(tf, sizeof *tf, 1, fp), 1);
	fclose(fp);
	unlink(path);
	unsigned ld = source_line("LOAD_LINE"), st = source_line("STORE_LINE"), seen = 0;
	for (unsigned i = 0; i < tf->nlines && i < EMU_TRACE_MAX_LINES; i++) {
		const struct emu_trace_line_snap *s = &tf->lines[i];
		if (s->line == ld || s->line == st)
			seen += s->shd_req > 0;
	}
	assert_int_equal(seen, 2);
	free(tf);
	devmem_free(d);
}

/* The memory panel sees a cp.async as one global read request (4 sectors for 32
 * consecutive floats) and one shared write, at the copy's line; the copy lands at the
 * wait. */
static void test_cp_async_trace(void **state)
{
	(void)state;
	char path[] = "/tmp/pmpplab-test-isa-cpasync-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	float *in, *out;
	devaddr_t din = dalloc(32 * 4, (void **)&in), dout = dalloc(32 * 4, (void **)&out);
	for (int i = 0; i < 32; i++)
		in[i] = (float)(i * 3);
	void *args[] = { &din, &dout };
	struct emu_fault f;
	setenv("PMPPLAB_TRACE", path, 1);
	int rc = run("cpAsyncTile", 32, args, &f);
	unsetenv("PMPPLAB_TRACE");
	assert_int_equal(rc, 0);
	for (int i = 0; i < 32; i++)
		assert_true(out[i] == (float)(((i + 1) % 32) * 3));
	struct emu_trace_file *tf = malloc(sizeof *tf);
	FILE *fp = fopen(path, "rb");
	assert_non_null(tf);
	assert_non_null(fp);
	assert_int_equal(fread(tf, sizeof *tf, 1, fp), 1);
	fclose(fp);
	unlink(path);
	unsigned line = source_line("CPASYNC_LINE"), seen = 0;
	for (unsigned i = 0; i < tf->nlines && i < EMU_TRACE_MAX_LINES; i++) {
		const struct emu_trace_line_snap *s = &tf->lines[i];
		if (s->line != line)
			continue;
		seen = 1;
		assert_int_equal(s->gld_req, 1);
		assert_int_equal(s->gld_sectors, 4);
		assert_int_equal(s->shd_req, 1);
		assert_int_equal(s->shd_passes, 1);
	}
	assert_int_equal(seen, 1);
	free(tf);
	devmem_free(din), devmem_free(dout);
}

/* wmma misused: in divergent code, on a misaligned matrix; each stopped at its line. */
static void test_wmma_faults(void **state)
{
	(void)state;
	void *ha, *ho;
	devaddr_t a = dalloc(1024, &ha), o = dalloc(32 * 4, &ho);
	void *args[] = { &a, &o };
	struct emu_fault f;
	assert_int_equal(run("wmmaDivergent", 32, args, &f), -EDEADLK);
	assert_int_equal(f.line, source_line("DIVERGENT_LINE"));
	assert_non_null(strstr(f.message, "only some threads of warp 0"));
	assert_int_equal(run("wmmaMisaligned", 32, args, &f), -EFAULT);
	assert_int_equal(f.kind, EMU_FAULT_MISALIGNED);
	assert_int_equal(f.line, source_line("MISALIGNED_LINE"));
	assert_non_null(strstr(f.message, "32-byte aligned"));
	/* the alignment is the fragment's size: 8 bytes for an s8 matrix_a */
	int off = 16;
	void *iargs[] = { &a, &o, &off };
	assert_int_equal(run("wmmaInt8Offset", 32, iargs, &f), 0);
	off = 4;
	assert_int_equal(run("wmmaInt8Offset", 32, iargs, &f), -EFAULT);
	assert_int_equal(f.line, source_line("INT8_OFFSET_LINE"));
	assert_non_null(strstr(f.message, "8-byte aligned"));
	devmem_free(a), devmem_free(o);
}

static void test_ldmatrix(void **state)
{
	(void)state;
	uint32_t *o;
	devaddr_t d = dalloc(64 * 4, (void **)&o);
	void *args[] = { &d };
	struct emu_fault f;
	assert_int_equal(run("ldMatrix", 32, args, &f), 0);
	for (unsigned l = 0; l < 32; l++) {
		unsigned r = l / 4, c = 2 * (l % 4);
		assert_int_equal(o[l], (8 * r + c + 1) << 16 | (8 * r + c));
		assert_int_equal(o[32 + l], (8 * (c + 1) + r) << 16 | (8 * c + r));
	}
	devmem_free(d);
}

static void test_scalars(void **state)
{
	(void)state;
	float *fin;
	uint32_t *uin, *o;
	devaddr_t df = dalloc(64, (void **)&fin), du = dalloc(64, (void **)&uin);
	devaddr_t dout = dalloc(64 * 4, (void **)&o);
	const float fv[] = { 1.0f, 1.0f / 2048, 65504.0f, 1.0f / 3, -2.5f, 1.00390625f, 0.01171875f };
	const uint32_t uv[] = { 0x3f801000, 0x0a14ff00, 0x1e0a0001, 0x0002fffe, 0x00000305,
				0x12345678, 0x7fff0001, 0x00017fff, 0x33221100, 0x77665544,
				0xfff00010, 0x00200005 };
	memcpy(fin, fv, sizeof fv);
	memcpy(uin, uv, sizeof uv);
	void *args[] = { &df, &du, &dout };
	struct emu_fault f;
	assert_int_equal(run("scalars", 1, args, &f), 0);
	static const uint32_t want[] = {
		0x3c00, 0x3c02, 0x7c00, 0x3c00, 0x7fff, 0x0000, 0xc1003555, 0x0000ffff, 0x3f80,
		0x3f81, 0x3f802000, 0x140aff01, 96, 5, 28, 0x7fff7fff, 0, 0x44332211, 0x55667700,
		0xffff0015, 0x3f82, 0x3c00, 0x0000, 0x3555,
	};
	for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
		if (o[i] != want[i])
			print_message("out[%u] = 0x%x, want 0x%x\n", i, o[i], want[i]);
		assert_int_equal(o[i], want[i]);
	}
	devmem_free(df), devmem_free(du), devmem_free(dout);
}

/* cvta.param: a __grid_constant__ parameter's generic address (core_isa.cu) */
static void test_param_generic(void **state)
{
	(void)state;
	struct { int a, b; } s = { 41, -7 };
	int *o;
	devaddr_t d = dalloc(64 * 4, (void **)&o);
	void *args[] = { &s, &d };
	struct emu_fault f;
	assert_int_equal(run("gcParamRead", 32, args, &f), 0);
	for (unsigned l = 0; l < 32; l++) {
		assert_int_equal(o[l], l & 1 ? s.b : s.a);
		/* isspacep.param and .global: the parameters' window lies in global's (PTX
		 * ISA, "Generic Addressing"; nvcc -O3 folds __isGlobal to 1 there) */
		assert_int_equal(o[32 + l], 3);
	}
	assert_int_equal(run("gcParamWrite", 32, args, &f), -EFAULT);
	assert_int_equal(f.line, source_line("GCPOKE_LINE"));
	assert_non_null(strstr(f.message, "read-only"));
	assert_int_equal(s.a, 41); /* the host's copy untouched */
	devmem_free(d);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_core_isa CORE_ISA.ptx CORE_DIR\n");
		return 2;
	}
	g_path = argv[1];
	g_dir = argv[2];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wmma_shared),
		cmocka_unit_test(test_wmma_race),
		cmocka_unit_test(test_wmma_trace),
		cmocka_unit_test(test_wmma_faults),
		cmocka_unit_test(test_cp_async_trace),
		cmocka_unit_test(test_ldmatrix),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_param_generic),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
