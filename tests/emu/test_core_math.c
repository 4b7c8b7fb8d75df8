/* The math sequences nvcc emits (libdevice expf/sinf/pow..., with carry arithmetic
 * for large sin arguments), local arrays with dynamic indices, structs passed by value,
 * 64-bit division and vector loads, compared with the host's libm.
 * Usage: test_core_math MATH.ptx */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exec.h"
#include "ptx.h"

static const char *g_path;
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

static int run(const char *name, unsigned threads, void **args)
{
	const struct ptx_kernel *k = NULL;
	for (unsigned i = 0; i < ptx_module_nkernels(g_m); i++)
		if (strstr(ptx_kernel_name(ptx_module_kernel_at(g_m, i)), name))
			k = ptx_module_kernel_at(g_m, i);
	assert_non_null(k);
	struct emu_launch l = { g_m, k, { 1, 1, 1 }, { threads, 1, 1 }, 0, args };
	struct emu_fault f;
	int rc = emu_run(&l, &f);
	if (rc)
		fprintf(stderr, "  %s: %s:%u: %s\n", name, f.file ? f.file : "?", f.line, f.message);
	return rc;
}

static devaddr_t dalloc(size_t n)
{
	devaddr_t a;
	assert_int_equal(devmem_alloc(n, DEVMEM_GLOBAL, "math", &a), 0);
	return a;
}

static void near(double got, double want, double rel, const char *what, double x)
{
	double tol = rel * fabs(want) + rel;
	if (got != want && !(fabs(got - want) <= tol) && !(isnan(got) && isnan(want)))
		fail_msg("%s(%g) = %.9g, want %.9g", what, x, got, want);
}

static const float xs[] = { 0.5f, -1.25f, 3.0f, -7.75f, 10.0f, 0.001f, 250000.5f, -88.0f };
#define NX (int)(sizeof xs / sizeof xs[0])

static void test_float_math(void **state)
{
	(void)state;
	int n = NX;
	devaddr_t x = dalloc(sizeof xs), out = dalloc((size_t)n * 12 * 4);
	memcpy(devmem_host(x, sizeof xs), xs, sizeof xs);
	void *args[] = { &x, &out, &n };
	assert_int_equal(run("mathF", 32, args), 0);
	const float *o = devmem_host(out, (size_t)n * 48);
	for (int i = 0; i < n; i++) {
		float v = xs[i];
		const float *r = o + i * 12;
		near(r[0], expf(v), 1e-6, "expf", v);
		near(r[1], logf(fabsf(v) + 1.0f), 1e-6, "logf", v);
		near(r[2], sinf(v), 1e-6, "sinf", v);
		near(r[3], cosf(v), 1e-6, "cosf", v);
		near(r[4], powf(fabsf(v), 1.5f), 1e-6, "powf", v);
		near(r[5], tanhf(v), 1e-6, "tanhf", v);
		near(r[6], atan2f(v, 2.0f), 1e-6, "atan2f", v);
		near(r[7], erff(v), 1e-6, "erff", v);
		near(r[8], expf(v), 1e-5, "__expf", v);
		near(r[9], fmodf(v, 1.25f), 1e-6, "fmodf", v);
		near(r[10], floorf(v) + ceilf(v) + roundf(v) + truncf(v), 0, "rounding", v);
		near(r[11], exp2f(v) + log2f(fabsf(v) + 2.0f) + cbrtf(v), 1e-6, "exp2f/log2f/cbrtf", v);
	}
	devmem_free(x);
	devmem_free(out);
}

static void test_double_math(void **state)
{
	(void)state;
	int n = NX;
	double xd[NX];
	for (int i = 0; i < n; i++)
		xd[i] = (double)xs[i] / 3.0;
	devaddr_t x = dalloc(sizeof xd), out = dalloc((size_t)n * 64);
	memcpy(devmem_host(x, sizeof xd), xd, sizeof xd);
	void *args[] = { &x, &out, &n };
	assert_int_equal(run("mathD", 32, args), 0);
	const double *o = devmem_host(out, (size_t)n * 64);
	for (int i = 0; i < n; i++) {
		double v = xd[i];
		const double *r = o + i * 8;
		near(r[0], exp(v), 1e-14, "exp", v);
		near(r[1], log(fabs(v) + 1.0), 1e-14, "log", v);
		near(r[2], sin(v), 1e-14, "sin", v);
		near(r[3], cos(v), 1e-14, "cos", v);
		near(r[4], pow(fabs(v), 1.5), 1e-14, "pow", v);
		near(r[5], sqrt(fabs(v)) / (v + 10.0), 1e-15, "sqrt/div", v);
		near(r[6], tanh(v), 1e-14, "tanh", v);
		near(r[7], floor(v * 3.0) + fmod(v, 0.75), 1e-15, "floor/fmod", v);
	}
	devmem_free(x);
	devmem_free(out);
}

struct params {
	float scale;
	int offset;
	double bias;
	char tag[3];
};

static void test_locals_structs(void **state)
{
	(void)state;
	int n = 40;
	devaddr_t idx = dalloc((size_t)n * 4), out = dalloc((size_t)n * 48);
	int *hi = devmem_host(idx, (size_t)n * 4);
	for (int i = 0; i < n; i++)
		hi[i] = i * 7 + 3;
	struct params p = { 2.5f, -7, 1.75, { 'a', 'b', 'c' } };
	void *args[] = { &idx, &out, &p, &n };
	assert_int_equal(run("localsAndStructs", 64, args), 0);
	const long long *o = devmem_host(out, (size_t)n * 48);
	for (int i = 0; i < n; i++) {
		long long b = (long long)i * 1000000007LL;
		assert_int_equal(o[i * 6], (hi[i] & 15) * (hi[i] & 15) + i);
		assert_int_equal(o[i * 6 + 1], b / (i + 3));
		assert_int_equal(o[i * 6 + 2], b % (i + 3));
		assert_int_equal(o[i * 6 + 3], (unsigned short)(i * 40000) + (signed char)(i * 3));
		assert_int_equal(o[i * 6 + 4], (long long)(2.5f * i) - 7 + 'b');
		assert_int_equal(o[i * 6 + 5], 7);
	}
	devmem_free(idx);
	devmem_free(out);
}

static void test_vector_loads(void **state)
{
	(void)state;
	int n = 33;
	devaddr_t in = dalloc((size_t)n * 16), out = dalloc((size_t)n * 16),
		  pairs = dalloc((size_t)n * 8), sums = dalloc((size_t)n * 4);
	float *hin = devmem_host(in, (size_t)n * 16);
	int *hp = devmem_host(pairs, (size_t)n * 8);
	for (int i = 0; i < n * 4; i++)
		hin[i] = (float)i;
	for (int i = 0; i < n * 2; i++)
		hp[i] = i;
	void *args[] = { &in, &out, &pairs, &sums, &n };
	assert_int_equal(run("vectorLoads", 64, args), 0);
	const float *ho = devmem_host(out, (size_t)n * 16);
	const int *hs = devmem_host(sums, (size_t)n * 4);
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			assert_true(ho[i * 4 + k] == hin[i * 4 + 3 - k]);
		assert_int_equal(hs[i], hp[2 * i] * 10 + hp[2 * i + 1]);
	}
	devmem_free(in); devmem_free(out); devmem_free(pairs); devmem_free(sums);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s MATH.ptx\n", argv[0]);
		return 2;
	}
	g_path = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_float_math),
		cmocka_unit_test(test_double_math),
		cmocka_unit_test(test_locals_structs),
		cmocka_unit_test(test_vector_loads),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
