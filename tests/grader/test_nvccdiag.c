/* Compiler output parsing: EDG (nvcc's front end) with caret columns, gcc, ptxas, ld. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvccdiag.h"

/* Captured from nvcc 13.0. */
static const char edg[] =
	"/home/s/vecadd.cu(4): error: identifier \"undefinedThing\" is undefined\n"
	"      a[i] = undefinedThing + 1;\n"
	"             ^\n"
	"\n"
	"/home/s/vecadd.cu(5): warning #177-D: variable \"unused\" was declared but never referenced\n"
	"      int unused;\n"
	"          ^\n"
	"\n"
	"Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
	"\n"
	"/home/s/vecadd.cu(7): error: expected a \";\"\n"
	"  void host() { k<<<1,1>>>(nullptr, 3) }\n"
	"                                       ^\n"
	"\n"
	"2 errors detected in the compilation of \"/home/s/vecadd.cu\".\n";

static void test_edg(void **state)
{
	(void)state;
	struct diag_list d;
	diag_list_init(&d);
	assert_int_equal(nvccdiag_parse(edg, &d), 2);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.items[0].file, "/home/s/vecadd.cu");
	assert_int_equal(d.items[0].line, 4);
	assert_int_equal(d.items[0].col, 12);
	assert_int_equal(d.items[0].severity, DIAG_ERROR);
	assert_string_equal(d.items[0].message, "identifier \"undefinedThing\" is undefined");
	assert_int_equal(d.items[1].severity, DIAG_WARNING);
	assert_int_equal(d.items[1].line, 5);
	assert_int_equal(d.items[1].col, 9);
	assert_int_equal(d.items[2].line, 7);
	assert_int_equal(d.items[2].col, 38);
	diag_list_release(&d);
}

static void test_gcc_ptxas_ld(void **state)
{
	(void)state;
	const char text[] =
		"/tmp/glue.c:12:5: error: 'x' undeclared (first use in this function)\n"
		"   12 |     x = 1;\n"
		"      |     ^\n"
		"ptxas error   : Entry function '_Z1kPf' uses too much shared data (0x10000 bytes, 0xc000 max)\n"
		"/usr/bin/ld: /tmp/tmpxft.o: in function `main':\n"
		"tmpxft_0000121e-6_bad2.cudafe1.cpp:(.text+0x33): undefined reference to `f()'\n"
		"collect2: error: ld returned 1 exit status\n";
	struct diag_list d;
	diag_list_init(&d);
	assert_int_equal(nvccdiag_parse(text, &d), 3);
	assert_string_equal(d.items[0].file, "/tmp/glue.c");
	assert_int_equal(d.items[0].line, 12);
	assert_int_equal(d.items[0].col, 5);
	assert_non_null(strstr(d.items[1].message, "too much shared data"));
	assert_non_null(strstr(d.items[2].message, "'f()' is used but never defined"));
	diag_list_release(&d);
}

/* A CUDA API the emulator lacks, used from two object files: one message, with what to
 * do instead of "define it". */
static void test_missing_cuda_api(void **state)
{
	(void)state;
	const char text[] =
		"/usr/bin/ld: /tmp/a.o: in function `main':\n"
		"a.cudafe1.cpp:(.text+0x33): undefined reference to `cudaCreateTextureObject'\n"
		"/usr/bin/ld: /tmp/b.o: in function `g':\n"
		"b.cudafe1.cpp:(.text+0x10): undefined reference to `cudaCreateTextureObject'\n"
		"collect2: error: ld returned 1 exit status\n";
	struct diag_list d;
	diag_list_init(&d);
	assert_int_equal(nvccdiag_parse(text, &d), 1);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.items[0].message, "'cudaCreateTextureObject' is a CUDA function"));
	assert_non_null(strstr(d.items[0].message, "--backend gpu"));
	diag_list_release(&d);
}

/* EDG prints the preprocessed line; the column must point into the real one. */
static void test_column_after_macro(void **state)
{
	(void)state;
	char path[] = "/tmp/pmpplab-nvccdiag-XXXXXX";
	int fd = mkstemp(path);
	const char src[] = "__global__ void k(int *o) { o[0] = nope; }\n";
	assert_true(write(fd, src, sizeof(src) - 1) == (ssize_t)(sizeof(src) - 1));
	close(fd);
	char text[1024];
	snprintf(text, sizeof(text),
		 "%s(1): error: identifier \"nope\" is undefined\n"
		 "  __attribute__((global)) void k(int *o) { o[0] = nope; }\n"
		 "                                                  ^\n\n", path);
	struct diag_list d;
	diag_list_init(&d);
	assert_int_equal(nvccdiag_parse(text, &d), 1);
	assert_int_equal(d.items[0].col, 36);
	diag_list_release(&d);
	unlink(path);
}

/* Issue 18: a missing ';' is reported at the start of the next code line; the note says
 * where the mistake is. Not for a token missing mid-line, nor after a line that ends in
 * the token already. */
static void test_missing_token_note(void **state)
{
	(void)state;
	char path[] = "/tmp/pmpplab-nvccdiag-XXXXXX";
	int fd = mkstemp(path);
	const char src[] = "__global__ void k(int *o, int n)\n"      /* 1 */
			   "{\n"                                      /* 2 */
			   "\tint i = threadIdx.x // the thread\n"     /* 3 */
			   "\n"                                        /* 4 */
			   "    if (i < n) o[i] = 0;\n"                /* 5 */
			   "    int j = 1;\n"                          /* 6 */
			   "    o[j] = f(1 2);\n"                      /* 7 */
			   "}\n";
	assert_true(write(fd, src, sizeof(src) - 1) == (ssize_t)(sizeof(src) - 1));
	close(fd);
	struct diag_list d;
	diag_list_init(&d);
	diag_add(&d, DIAG_ERROR, path, 5, 5, "expected a \";\"");
	diag_add(&d, DIAG_ERROR, path, 7, 16, "expected a \")\"");  /* mid-line */
	diag_add(&d, DIAG_ERROR, path, 6, 5, "expected a \";\"");   /* line 5 ends in ';' */
	diag_add(&d, DIAG_ERROR, "/nonexistent.cu", 2, 1, "expected a \";\"");
	nvccdiag_explain(&d);
	assert_int_equal(d.n, 5);
	assert_int_equal(d.items[0].line, 5);
	const struct diag *note = &d.items[1];
	assert_int_equal(note->severity, DIAG_NOTE);
	assert_string_equal(note->file, path);
	assert_int_equal(note->line, 3); /* the blank line 4 and the comment skipped */
	assert_int_equal(note->col, 21);  /* after "\tint i = threadIdx.x" */
	assert_non_null(strstr(note->message, "the mistake may be at the end of line 3"));
	for (unsigned i = 2; i < d.n; i++)
		assert_int_equal(d.items[i].severity, DIAG_ERROR);
	diag_list_release(&d);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edg),
		cmocka_unit_test(test_gcc_ptxas_ld),
		cmocka_unit_test(test_column_after_macro),
		cmocka_unit_test(test_missing_cuda_api),
		cmocka_unit_test(test_missing_token_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
