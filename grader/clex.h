/* clex: a small lexer for C and CUDA source, for tools that rewrite code by its tokens
 * (mutation testing, grader/mutate.h). It splits a source into tokens with their byte
 * offsets and lines, and never looks inside comments, string or character literals or
 * #include names: an edit made through the tokens leaves them intact.
 *
 * Whitespace and comments are not tokens (the bytes between two tokens hold them).
 * Preprocessor directives are lexed too, their tokens flagged CLEX_DIRECTIVE, so a
 * #define's body can be read; a directive ends at the first newline that no backslash
 * continues. Every token also knows its matching bracket and the function it is in. */
#ifndef PMPPLAB_CLEX_H
#define PMPPLAB_CLEX_H

#include <stdbool.h>
#include <stddef.h>

enum clex_kind {
	CLEX_IDENT,   /* names and keywords */
	CLEX_NUMBER,  /* a preprocessing number: 42, 0x1f, 1.5f, 3e-2 */
	CLEX_STRING,  /* "..." with its quotes and any prefix (u8, L) */
	CLEX_CHAR,    /* '...' */
	CLEX_HEADER,  /* <stdio.h> after #include */
	CLEX_PUNCT,   /* operators and punctuation, longest match: <<<, >>=, ->, ... */
	CLEX_OTHER,   /* a byte that starts no token (stray @, $, a backslash) */
};

enum clex_flag {
	CLEX_DIRECTIVE = 1u << 0, /* inside a preprocessor directive */
	CLEX_DEVICE = 1u << 1,    /* inside the body of a __global__ or __device__ function */
	CLEX_BODY = 1u << 2,      /* inside the body of any function */
};

struct clex_token {
	enum clex_kind kind;
	unsigned flags;   /* enum clex_flag */
	size_t off, len;  /* bytes of the source */
	unsigned line;    /* 1-based */
	long match;       /* ( [ { ) ] }: the index of the matching bracket, else -1 */
	long directive;   /* CLEX_DIRECTIVE: the index of the directive's '#' token */
};

struct clex {
	const char *src;  /* borrowed: the text lexed */
	size_t len;
	struct clex_token *tok;
	size_t n;
};

/* Lexes SRC (LEN bytes). Returns 0, or -ENOMEM. Release with clex_release. Unbalanced
 * brackets are not an error: their match stays -1. */
int clex_lex(struct clex *lx, const char *src, size_t len);
void clex_release(struct clex *lx);

/* Whether token I is TEXT exactly. False when I is out of range. */
bool clex_is(const struct clex *lx, size_t i, const char *text);
/* Token I's text, copied into BUF (cut to fit). Returns BUF. */
const char *clex_text(const struct clex *lx, size_t i, char *buf, size_t cap);

#endif
