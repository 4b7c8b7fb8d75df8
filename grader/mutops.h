/* mutops: mutation operators for C/CUDA source (issue 14 part 5). Each operator finds
 * the places in a lexed source (grader/clex.h) where a typical mistake can be made and
 * describes, for each, a mutant: one or two edits of token ranges, so comments, strings
 * and the lines of the file are never disturbed (a mutant has the solution's lines, and
 * its diff is the lines it changed).
 *
 * Operators, by the name that --operators takes:
 *   ror     relational boundaries: < <=, > >=, == !=
 *   bound   +1 / -1 on the right operand of a comparison (i < n - 1)
 *   idx     +1 / -1 inside an array subscript (A[i + 1]), declarations excepted
 *   const   +1 / -1 on an integer literal (255 -> 254), except a named constant's value
 *   stride  one use of a named constant (#define TILE 16, const int) doubled or halved
 *   aor     arithmetic: + -, * /, % /, << >>, += -=, ++ --
 *   thread  .x <-> .y of threadIdx and blockIdx
 *   dim     blockDim <-> gridDim
 *   launch  <<<grid, block>>> swapped
 *   memcpy  a cudaMemcpy/cudaMemset dropped, or its direction reversed
 *   shfl    a shuffle's offset + 1, down <-> up, xor -> down
 *   sync    a __syncthreads()/__syncwarp() deleted, or moved one statement up or down
 *   guard   an if's or ?:'s condition replaced by 1 (the guard deleted)
 *   cond    one operand of a guard's && dropped
 *   stmt    an expression statement of a kernel deleted
 *   atomic  atomicAdd(&x, v) -> x += v (and Sub, Max, Min, Or, And, Exch likewise) */
#ifndef PMPPLAB_MUTOPS_H
#define PMPPLAB_MUTOPS_H

#include <stdbool.h>
#include <stddef.h>

#include "clex.h"

#define MUTOPS_X(X) \
	X(ROR, "ror") X(BOUND, "bound") X(IDX, "idx") X(CONST, "const") X(STRIDE, "stride") \
	X(AOR, "aor") X(THREAD, "thread") X(DIM, "dim") X(LAUNCH, "launch") \
	X(MEMCPY, "memcpy") X(SHFL, "shfl") X(SYNC, "sync") X(GUARD, "guard") X(COND, "cond") \
	X(STMT, "stmt") X(ATOMIC, "atomic")

enum mutops_op {
#define MUTOPS_ENUM(e, s) MUTOP_##e,
	MUTOPS_X(MUTOPS_ENUM)
#undef MUTOPS_ENUM
	MUTOP_COUNT
};

#define MUTOPS_ALL ((1u << MUTOP_COUNT) - 1)

/* The check whose name says what a mutant's mistake is, where one does. */
enum mutops_names { MUTOPS_NAMES_NONE, MUTOPS_NAMES_BARRIERS };

struct mutant_edit {
	size_t off, len; /* the source bytes replaced */
	char *text;      /* by this (malloc'd) */
};

struct mutant {
	enum mutops_op op;
	unsigned line;      /* the first edit's line */
	char *what;         /* one line: "`<` -> `<=`", "delete __syncthreads()" (malloc'd) */
	struct mutant_edit edit[2];
	unsigned n_edits;   /* 1 or 2, sorted by offset, not overlapping */
	enum mutops_names names;
};

struct mutant_list {
	struct mutant *m;
	size_t n, cap;
};

const char *mutops_name(enum mutops_op op);
/* Parses a comma-separated list of operator names into a mask. Returns 0, or -EINVAL
 * with the unknown name in ERR. */
int mutops_parse(const char *list, unsigned *mask, char *err, size_t errlen);

/* Every mutant of the operators in MASK, in source order per operator. Returns 0 or
 * -ENOMEM. Release with mutant_list_release. */
int mutops_generate(const struct clex *lx, unsigned mask, struct mutant_list *out);
void mutant_list_release(struct mutant_list *l);

/* The source with M's edits applied (malloc'd, NUL-terminated; *outlen its length), or
 * NULL on ENOMEM. */
char *mutops_apply(const char *src, size_t len, const struct mutant *m, size_t *outlen);

#endif
