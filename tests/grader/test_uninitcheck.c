/* Tests of grader/uninitcheck: a register read before it is given a value, said about the
 * student's source. Each case writes a .cu file and a PTX whose .loc lines point into it
 * (the read on line READ, the loop's branch on line LOOP), and checks the variable named
 * and the fix suggested. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "uninitcheck.h"

static char g_dir[64];

/* A loop whose fma reads %f3 unwritten on its first pass: the read at line `read`, the
 * loop's branch at line `loop`, in file k.cu of g_dir. */
static void write_ptx(const char *path, unsigned read, unsigned loop, const char *cu)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, ".version 8.0\n.target sm_90\n.address_size 64\n"
		".visible .entry mm(.param .u64 p, .param .u32 n)\n{\n"
		"\t.reg .pred %%p<3>;\n\t.reg .b32 %%r<4>;\n\t.reg .f32 %%f<4>;\n\t.reg .b64 %%rd<3>;\n"
		"\tld.param.u64 %%rd1, [p];\n\tld.param.u32 %%r1, [n];\n\tmov.u32 %%r2, 0;\n"
		"$L_loop:\n\t.loc 1 %u 7\n\tld.global.f32 %%f1, [%%rd1];\n"
		"\tfma.rn.f32 %%f3, %%f1, %%f1, %%f3;\n"
		"\t.loc 1 %u 5\n\tadd.s32 %%r2, %%r2, 1;\n\tsetp.lt.s32 %%p1, %%r2, %%r1;\n"
		"\t@%%p1 bra $L_loop;\n\tst.global.f32 [%%rd1], %%f3;\n\tret;\n}\n"
		".file 1 \"/elsewhere/build/%s\"\n", read, loop, cu);
	fclose(f);
}

/* Grades SOURCE (lines of k.cu) with the read at line read: the one finding. */
static struct uninitcheck_finding scan(const char *source, unsigned read, unsigned loop)
{
	char cu[128], ptx[128];
	snprintf(cu, sizeof cu, "%s/k.cu", g_dir);
	snprintf(ptx, sizeof ptx, "%s/k.ptx", g_dir);
	FILE *f = fopen(cu, "w");
	assert_non_null(f);
	fputs(source, f);
	fclose(f);
	write_ptx(ptx, read, loop, "k.cu");
	struct uninitcheck_findings fs;
	assert_int_equal(uninitcheck_scan(ptx, cu, &fs), 0);
	assert_int_equal(fs.n, 1);
	struct uninitcheck_finding x = fs.items[0];
	uninitcheck_release(&fs);
	assert_string_equal(x.file, "k.cu"); /* the base name, not the build's copy */
	assert_int_equal(x.line, read);
	return x;
}

static void test_scalar_sum(void **state)
{
	(void)state;
	struct uninitcheck_finding x = scan("__global__ void mm(const float *A, float *C, int sum2)\n"
					    "{\n"
					    "    float sum;\n"
					    "    for (int i = 0; i < 4; ++i)\n"
					    "        sum += A[i] * A[i];\n"
					    "    C[0] = sum;\n"
					    "}\n", 5, 4);
	assert_string_equal(x.var, "sum");
	assert_string_equal(x.text, "sum += A[i] * A[i];");
	assert_non_null(strstr(x.message, "`sum` (declared at line 3 without a value)"));
	assert_non_null(strstr(x.message, "the first pass of the loop at line 4"));
	assert_non_null(strstr(x.message, "float sum = 0.0f;"));
}

/* A list declaration, a double; the parameters named like it are not declarations. */
static void test_list_and_params(void **state)
{
	(void)state;
	struct uninitcheck_finding x = scan("__global__ void mm(double *acc, int n)\n"
					    "{\n"
					    "    double a = 1.0, acc;\n"
					    "    for (int i = 0; i < n; ++i)\n"
					    "        acc = acc * a;\n"
					    "}\n", 5, 4);
	assert_string_equal(x.var, "acc");
	assert_non_null(strstr(x.message, "declared at line 3"));
	assert_non_null(strstr(x.message, "double acc = 0.0;"));
	x = scan("__global__ void mm(const float *A, float *C, int n)\n"
		 "{\n"
		 "    for (int i = 0; i < n; ++i)\n"
		 "        C[0] += A[i];\n"
		 "}\n", 4, 3);
	assert_string_equal(x.var, ""); /* C is a parameter, not a variable left unset */
	assert_non_null(strstr(x.message, "a variable is read here before it is given a value"));
}

/* An array of accumulators: no scalar zero, every element set. */
static void test_array(void **state)
{
	(void)state;
	struct uninitcheck_finding x = scan("__global__ void mm(const float *A)\n"
					    "{\n"
					    "    float acc[4][4];\n"
					    "    for (int i = 0; i < 4; ++i)\n"
					    "        acc[i][0] += A[i];\n"
					    "}\n", 5, 4);
	assert_string_equal(x.var, "acc");
	assert_non_null(strstr(x.message, "set every element to its starting value"));
}

/* A line of a file outside the submission's folder (a lab header, the toolkit's) is not
 * the student's: nothing reported. */
static void test_other_file_ignored(void **state)
{
	(void)state;
	char cu[128], ptx[128];
	snprintf(cu, sizeof cu, "%s/k.cu", g_dir);
	snprintf(ptx, sizeof ptx, "%s/k.ptx", g_dir);
	FILE *f = fopen(cu, "w");
	assert_non_null(f);
	fputs("int x;\n", f);
	fclose(f);
	write_ptx(ptx, 5, 4, "not-here.h");
	struct uninitcheck_findings fs;
	assert_int_equal(uninitcheck_scan(ptx, cu, &fs), 0);
	assert_int_equal(fs.n, 0);
	uninitcheck_release(&fs);
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof g_dir, "/tmp/test-uninitcheck-XXXXXX");
	return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof path, "%s/k.cu", g_dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/k.ptx", g_dir);
	unlink(path);
	return rmdir(g_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalar_sum),
		cmocka_unit_test(test_list_and_params),
		cmocka_unit_test(test_array),
		cmocka_unit_test(test_other_file_ignored),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
