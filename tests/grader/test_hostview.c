/* The host view of a CUDA file (grader/hostview.h): what a reused host program depends on
 * (issue 16, the emulator's fast build path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hostview.h"

#define BASE                                                                             \
	"#include <stdio.h>\n"                                                           \
	"#define TILE 16\n"                                                              \
	"__global__ void k(float *x, int n)\n"                                           \
	"{\n"                                                                            \
	"    int i = blockIdx.x * blockDim.x + threadIdx.x; // the index\n"              \
	"    if (i < n) { x[i] = 2 * x[i]; }\n"                                          \
	"}\n"                                                                            \
	"__host__ __device__ float twice(float v) { return 2 * v; }\n"                   \
	"/* the host side */\n"                                                          \
	"void run(float *x, int n)\n"                                                    \
	"{\n"                                                                            \
	"    k<<<(n + 255) / 256, 256>>>(x, n);\n"                                       \
	"    printf(\"%d\\n\", __LINE__);\n"                                             \
	"}\n"

/* The view of TEXT; fails the test when it doubts. */
static char *view(const char *text)
{
	struct hostview v;
	assert_int_equal(hostview_make(text, strlen(text), &v), 0);
	if (v.doubt)
		fail_msg("doubt: %s", v.doubt);
	char *out = strdup(v.text);
	hostview_release(&v);
	return out;
}

/* Whether the two files have the same host view. */
static bool same(const char *a, const char *b)
{
	char *x = view(a), *y = view(b);
	bool eq = strcmp(x, y) == 0;
	free(x);
	free(y);
	return eq;
}

static const char *doubt_of(const char *text)
{
	struct hostview v;
	assert_int_equal(hostview_make(text, strlen(text), &v), 0);
	const char *d = v.doubt;
	hostview_release(&v);
	return d;
}

/* BASE with FROM replaced by TO (FROM must be in it). */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(BASE, from);
	assert_non_null(at);
	size_t n = strlen(BASE) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);
	snprintf(out, n, "%.*s%s%s", (int)(at - BASE), BASE, to, at + strlen(from));
	return out;
}

static void check(const char *from, const char *to, bool expect_same)
{
	char *e = edit(from, to);
	if (same(BASE, e) != expect_same)
		fail_msg("editing '%s' into '%s' should %s the host view", from, to,
			 expect_same ? "keep" : "change");
	free(e);
}

static void test_device_edits_keep_the_view(void **state)
{
	(void)state;
	check("2 * x[i]", "x[i] * x[i] + 1", true);        /* a kernel's body */
	check("if (i < n) {", "if (i <= n) { return;", true); /* braces and all */
	check("// the index", "// another comment", true);
	check("/* the host side */", "/* host */", true);  /* comments anywhere */
	check("    int i", "\tint i", true);                /* spaces inside a body */
}

static void test_host_edits_change_it(void **state)
{
	(void)state;
	check("(n + 255) / 256", "n / 256 + 1", false);     /* host code */
	check("return 2 * v;", "return v + v;", false);    /* a __host__ __device__ body */
	check("float *x, int n)\n{\n    int", "float *x, long n)\n{\n    int", false); /* a kernel's signature */
	check("#define TILE 16", "#define TILE 32", false);
	check("printf(\"%d", "printf( \"%d", false);       /* a space: # turns it into text */
	check("// the index\n", "// the index\n\n", false); /* host lines move: __LINE__ */
}

/* A #define inside a kernel counts for the host code after it. */
static void test_directives_in_device_bodies(void **state)
{
	(void)state;
	check("    if (i < n)", "#define LIMIT 3\n    if (i < n)", false);
	char *a = edit("    if (i < n)", "#define LIMIT 3\n    if (i < n)");
	char *b = edit("    if (i < n)", "#define LIMIT 4\n    if (i < n)");
	assert_false(same(a, b));
	free(a);
	free(b);
}

/* Namespaces and extern "C" keep declarations inside; types and initialisers are kept. */
static void test_scopes(void **state)
{
	(void)state;
	const char *ns = "namespace lab { __global__ void k(int *x) { x[0] = 1; } }\n"
			 "extern \"C\" { __device__ int f(int v) { return v; } }\n"
			 "struct S { int a; __device__ int get() { return a; } };\n"
			 "int table[2] = { 1, 2 };\n";
	const char *ns2 = "namespace lab { __global__ void k(int *x) { x[0] = 2; } }\n"
			  "extern \"C\" { __device__ int f(int v) { return -v; } }\n"
			  "struct S { int a; __device__ int get() { return a; } };\n"
			  "int table[2] = { 1, 2 };\n";
	const char *ty = "namespace lab { __global__ void k(int *x) { x[0] = 1; } }\n"
			 "extern \"C\" { __device__ int f(int v) { return v; } }\n"
			 "struct S { int a; __device__ int get() { return a + 1; } };\n"
			 "int table[2] = { 1, 2 };\n";
	assert_true(same(ns, ns2));
	assert_false(same(ns, ty)); /* a member function stays: not told apart */
}

static void test_doubts(void **state)
{
	(void)state;
	assert_null(doubt_of(BASE));
	assert_null(doubt_of("#ifndef TILE\n#define TILE 16\n#endif\n" BASE));
	assert_non_null(doubt_of("#define KERNEL __global__\nKERNEL void k() {}\n"));
	assert_non_null(doubt_of("#include \"mine.h\"\n" BASE));
	assert_non_null(doubt_of("#ifdef X\n__device__\n#endif\nvoid f() {}\n"));
	assert_non_null(doubt_of("__global__ void k() {\n#if A\n}\n#else\n}\n#endif\n"));
	assert_non_null(doubt_of("const char *s = R\"(a \" b)\";\n"));
	assert_non_null(doubt_of("int c = __COUNTER__;\n"));
	assert_non_null(doubt_of("void f() {\n"));
	assert_non_null(doubt_of("}\n"));
}

/* The device view (NVRTC's input): host-only definitions and the C library's headers
 * blanked, everything else where it was. */
static void test_device_view(void **state)
{
	(void)state;
	struct hostview v;
	const char *src = BASE "void g()\n{\n#define LATER 3\n}\n__device__ int later = LATER;\n";
	assert_int_equal(hostview_make(src, strlen(src), &v), 0);
	assert_null(v.doubt);
	assert_non_null(v.device);
	assert_int_equal(strlen(v.device), strlen(src));
	for (size_t i = 0; src[i]; i++) /* lines and columns kept */
		assert_true((src[i] == '\n') == (v.device[i] == '\n'));
	assert_null(strstr(v.device, "stdio.h"));
	assert_non_null(strstr(v.device, "#define TILE 16"));
	assert_non_null(strstr(v.device, "x[i] = 2 * x[i];"));
	assert_non_null(strstr(v.device, "__host__ __device__ float twice(float v) { return 2 * v; }"));
	assert_null(strstr(v.device, "run"));
	assert_null(strstr(v.device, "printf"));
	assert_null(strstr(v.device, "void g"));
	assert_non_null(strstr(v.device, "#define LATER 3")); /* a directive counts below */
	assert_non_null(strstr(v.device, "__device__ int later = LATER;"));
	hostview_release(&v);
	/* no device view: what tells nvcc and NVRTC apart; what only host code makes NVRTC
	 * emit (a kernel template's instances, kernels and variables of internal linkage) */
	static const char *const none[] = {
		"#ifndef __CUDACC_RTC__\n#endif\n" BASE,
		"template <int B>\n__global__ void t(float *x) { x[B] = 0; }\nvoid h(float *x) { t<4><<<1, 1>>>(x); }\n",
		"static __global__ void s(float *x) { x[0] = 0; }\n",
		"static __constant__ float c[4];\n",
		"static __device__ int d = 1;\n",
		"namespace {\n__global__ void a(float *x) { x[0] = 0; }\n}\n",
	};
	for (unsigned i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		assert_int_equal(hostview_make(none[i], strlen(none[i]), &v), 0);
		assert_null(v.doubt);
		if (v.device)
			fail_msg("a device view of: %s", none[i]);
		hostview_release(&v);
	}
	/* but a static device function is only for the kernels that call it */
	const char *helper = "static __device__ float sq(float v) { return v * v; }\n" BASE;
	assert_int_equal(hostview_make(helper, strlen(helper), &v), 0);
	assert_non_null(v.device);
	hostview_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_edits_keep_the_view),
		cmocka_unit_test(test_host_edits_change_it),
		cmocka_unit_test(test_directives_in_device_bodies),
		cmocka_unit_test(test_scopes),
		cmocka_unit_test(test_doubts),
		cmocka_unit_test(test_device_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
