/* mutops_internal: what mutops.c (token operators) and mutops_stmt.c (statement
 * operators) share. Not a public interface. */
#ifndef PMPPLAB_MUTOPS_INTERNAL_H
#define PMPPLAB_MUTOPS_INTERNAL_H

#include "mutops.h"

struct mutgen {
	const struct clex *lx;
	struct mutant_list *out;
	int rc; /* the first error (-ENOMEM) */
};

/* Adds a mutant of OP replacing token range [A, B] (inclusive) with TEXT. */
void mutgen_replace(struct mutgen *g, enum mutops_op op, size_t a, size_t b, const char *text,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Adds a mutant with two raw edits (byte ranges; the second may be empty: an insertion). */
void mutgen_edits(struct mutgen *g, enum mutops_op op, unsigned line, size_t off1, size_t len1,
		  const char *t1, size_t off2, size_t len2, const char *t2, const char *fmt, ...)
	__attribute__((format(printf, 10, 11)));

/* Whether token I may be mutated: code, or the body of a #define (not its name or
 * parameters). */
bool mutgen_mutable(const struct clex *lx, size_t i);
/* Whether token I is inside a function body or a #define body. */
bool mutgen_in_code(const struct clex *lx, size_t i);
/* The end (exclusive) of the expression operand starting at I: the first token at its
 * bracket depth that is && || ) ] } ; , ? : or a comparison or assignment. */
size_t mutgen_operand_end(const struct clex *lx, size_t i);
/* The start of the expression operand that ends just before I (same stops, backward). */
size_t mutgen_operand_start(const struct clex *lx, size_t i);
/* The source of tokens [A, B], whitespace squeezed, cut to fit BUF. */
const char *mutgen_span(const struct clex *lx, size_t a, size_t b, char *buf, size_t cap);
/* The innermost '{' whose block holds token I, or -1. */
long mutgen_block_open(const struct clex *lx, size_t i);
/* The last token of the statement that starts at I (a compound, an if/else, a loop, or
 * up to its ';'). */
size_t mutgen_stmt_end(const struct clex *lx, size_t i);

void mutops_gen_statements(struct mutgen *g, unsigned mask);

#endif
