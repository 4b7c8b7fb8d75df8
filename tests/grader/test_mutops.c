/* The C/CUDA lexer (clex) and the mutation operators (mutops): tokens keep comments and
 * strings intact, and each operator makes the mutants it promises, with the solution's
 * lines kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>

#include "clex.h"
#include "mutops.h"

static const char kernel[] =
	"#include <cuda_runtime.h>\n"                                   /* 1 */
	"#define TILE 16\n"                                             /* 2 */
	"#define CHECK(c) do { if ((c) != cudaSuccess) exit(1); } while (0)\n" /* 3 */
	"// a comment: i < n and __syncthreads();\n"                    /* 4 */
	"__global__ void k(const float *a, float *c, int *h, int n)\n"  /* 5 */
	"{\n"                                                           /* 6 */
	"    __shared__ float s[TILE];\n"                               /* 7 */
	"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"          /* 8 */
	"    s[threadIdx.x] = i < n ? a[i] : 0.0f;\n"                   /* 9 */
	"    __syncthreads();\n"                                        /* 10 */
	"    if (i < n && threadIdx.x > 0) {\n"                         /* 11 */
	"        c[i] = s[threadIdx.x - 1];\n"                          /* 12 */
	"        atomicAdd(&h[0], 1);\n"                                /* 13 */
	"    }\n"                                                       /* 14 */
	"}\n"                                                           /* 15 */
	"void run(float *a_d, float *c_d, int *h_d, float *c_h, int n)\n" /* 16 */
	"{\n"                                                           /* 17 */
	"    const char *msg = \"i < n\";\n"                            /* 18 */
	"    k<<<(n + TILE - 1) / TILE, TILE>>>(a_d, c_d, h_d, n);\n"   /* 19 */
	"    CHECK(cudaMemcpy(c_h, c_d, n * sizeof(float),\n"           /* 20 */
	"                     cudaMemcpyDeviceToHost));\n"              /* 21 */
	"}\n";                                                          /* 22 */

static size_t find_tok(const struct clex *lx, const char *text, unsigned line)
{
	for (size_t i = 0; i < lx->n; i++)
		if (clex_is(lx, i, text) && lx->tok[i].line == line)
			return i;
	fail_msg("no token '%s' on line %u", text, line);
	return 0;
}

static void test_lex(void **state)
{
	(void)state;
	struct clex lx;
	assert_int_equal(clex_lex(&lx, kernel, strlen(kernel)), 0);
	size_t hdr = find_tok(&lx, "<cuda_runtime.h>", 1);
	assert_int_equal(lx.tok[hdr].kind, CLEX_HEADER);
	assert_true(lx.tok[hdr].flags & CLEX_DIRECTIVE);
	/* nothing from the comment or the string is a token */
	for (size_t i = 0; i < lx.n; i++)
		assert_true(lx.tok[i].line != 4);
	size_t str = find_tok(&lx, "\"i < n\"", 18);
	assert_int_equal(lx.tok[str].kind, CLEX_STRING);
	/* <<< and >>> are single tokens; brackets pair; bodies are marked */
	size_t launch = find_tok(&lx, "<<<", 19);
	assert_true(clex_is(&lx, launch + 1, "("));
	assert_true(clex_is(&lx, (size_t)lx.tok[launch + 1].match, ")"));
	size_t sync = find_tok(&lx, "__syncthreads", 10);
	assert_true(lx.tok[sync].flags & CLEX_DEVICE);
	assert_true(lx.tok[launch].flags & CLEX_BODY);
	assert_false(lx.tok[launch].flags & CLEX_DEVICE);
	/* a #define body is lexed, flagged as a directive */
	size_t ne = find_tok(&lx, "!=", 3);
	assert_true(lx.tok[ne].flags & CLEX_DIRECTIVE);
	assert_int_equal(lx.tok[find_tok(&lx, "cudaMemcpyDeviceToHost", 21)].line, 21);
	clex_release(&lx);
}

/* The mutant of operator OP on LINE whose description contains WHAT, applied. */
static char *mutant_text(const struct mutant_list *l, enum mutops_op op, const char *what,
			 unsigned line)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->m[i].op == op && l->m[i].line == line && strstr(l->m[i].what, what))
			return mutops_apply(kernel, strlen(kernel), &l->m[i], NULL);
	fail_msg("no %s mutant '%s' on line %u", mutops_name(op), what, line);
	return NULL;
}

/* Line LINE (1-based) of TEXT. */
static const char *line_of(const char *text, unsigned line, char *buf, size_t cap)
{
	for (unsigned l = 1; l < line && text; l++) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
	}
	snprintf(buf, cap, "%.*s", text ? (int)strcspn(text, "\n") : 0, text ? text : "");
	return buf;
}

static unsigned lines(const char *text)
{
	unsigned n = 0;
	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static void expect(const struct mutant_list *l, enum mutops_op op, const char *what,
		   unsigned line, const char *now)
{
	char *t = mutant_text(l, op, what, line);
	char buf[200];
	assert_int_equal(lines(t), lines(kernel)); /* the solution's lines are kept */
	assert_string_equal(line_of(t, line, buf, sizeof(buf)), now);
	free(t);
}

static void test_operators(void **state)
{
	(void)state;
	struct clex lx;
	struct mutant_list l;
	assert_int_equal(clex_lex(&lx, kernel, strlen(kernel)), 0);
	assert_int_equal(mutops_generate(&lx, MUTOPS_ALL, &l), 0);
	expect(&l, MUTOP_ROR, "`<` -> `<=`", 11, "    if (i <= n && threadIdx.x > 0) {");
	expect(&l, MUTOP_BOUND, "`n` -> `n - 1`", 11, "    if (i < n - 1 && threadIdx.x > 0) {");
	expect(&l, MUTOP_IDX, "`threadIdx.x - 1` -> `threadIdx.x - 1 + 1`", 12,
	       "        c[i] = s[threadIdx.x - 1 + 1];");
	expect(&l, MUTOP_STRIDE, "(TILE / 2)", 7, "    __shared__ float s[(TILE / 2)];");
	expect(&l, MUTOP_THREAD, "`blockIdx.x` -> `blockIdx.y`", 8,
	       "    int i = blockIdx.y * blockDim.x + threadIdx.x;");
	expect(&l, MUTOP_LAUNCH, "<<<TILE,", 19, "    k<<<TILE, (n + TILE - 1) / TILE>>>(a_d, c_d, h_d, n);");
	expect(&l, MUTOP_MEMCPY, "drop a cudaMemcpy", 20, "    CHECK(cudaSuccess");
	expect(&l, MUTOP_SYNC, "delete", 10, "    ");
	expect(&l, MUTOP_SYNC, "up", 9, "    __syncthreads(); s[threadIdx.x] = i < n ? a[i] : 0.0f;");
	expect(&l, MUTOP_GUARD, "`i < n`", 9, "    s[threadIdx.x] = 1 ? a[i] : 0.0f;");
	expect(&l, MUTOP_COND, "drop `i < n`", 11, "    if ( threadIdx.x > 0) {");
	expect(&l, MUTOP_STMT, "delete `c[i]", 12, "        ;");
	expect(&l, MUTOP_ATOMIC, "atomicAdd", 13, "        (h[0] += 1);");
	/* never in a comment, a string, an #include, an exit status or a named constant's value */
	for (size_t i = 0; i < l.n; i++) {
		const struct mutant *m = &l.m[i];
		assert_true(m->line != 1 && m->line != 2 && m->line != 4 && m->line != 18);
		assert_false(m->op == MUTOP_CONST && m->line == 3);
	}
	/* a declared size is never made larger (that is padding, not a mistake) */
	for (size_t i = 0; i < l.n; i++)
		assert_false(l.m[i].op == MUTOP_STRIDE && l.m[i].line == 7 && strstr(l.m[i].what, "* 2"));
	mutant_list_release(&l);
	clex_release(&lx);
}

/* A dimension declared with a typedef's or template parameter's type is a declared
 * size too (no larger variant); an index after `return` is not. */
static void test_typedef_size(void **state)
{
	(void)state;
	static const char src[] = "template <typename E> __device__ E f(const E *a)\n"
				  "{\n"
				  "    __shared__ __align__(16) E s[BM][4];\n"
				  "    return a[BM];\n"
				  "}\n";
	struct clex lx;
	struct mutant_list l;
	assert_int_equal(clex_lex(&lx, src, strlen(src)), 0);
	assert_int_equal(mutops_generate(&lx, MUTOPS_ALL, &l), 0);
	bool larger3 = false, larger4 = false;
	for (size_t i = 0; i < l.n; i++)
		if (l.m[i].op == MUTOP_IDX && strstr(l.m[i].what, "+ 1")) {
			larger3 |= l.m[i].line == 3;
			larger4 |= l.m[i].line == 4;
		}
	assert_false(larger3);
	assert_true(larger4);
	mutant_list_release(&l);
	clex_release(&lx);
}

static void test_parse(void **state)
{
	(void)state;
	unsigned mask;
	char err[32];
	assert_int_equal(mutops_parse("ror,sync", &mask, err, sizeof(err)), 0);
	assert_int_equal(mask, (1u << MUTOP_ROR) | (1u << MUTOP_SYNC));
	assert_int_equal(mutops_parse("ror,bogus", &mask, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bogus");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lex),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_typedef_size),
		cmocka_unit_test(test_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
