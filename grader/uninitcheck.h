/* uninitcheck: the registers a submission's kernels read before giving them a value
 * (emu/uninit.h's static analysis of the build's PTX), said about the student's source:
 * the line, its text, the variable (found in the source: a declaration of a name on that
 * line without an initialiser, or the accumulator an mma_sync call passes), and what to
 * do. The grader shows them with the build's warnings, under each failing correctness
 * test, and fails memcheck with them: reading an uninitialised value is undefined
 * behaviour even when the numbers happen to come out right (as compute-sanitizer's
 * initcheck says of memory). */
#ifndef PMPPLAB_UNINITCHECK_H
#define PMPPLAB_UNINITCHECK_H

#include <stdio.h>

struct uninitcheck_finding {
	char file[128];    /* base name of the source file */
	unsigned line;
	char text[160];    /* that line of the source, trimmed; "" when unknown */
	char var[64];      /* the variable read; "" when not found */
	char message[640]; /* one sentence: what, why, what to do */
};

struct uninitcheck_findings {
	struct uninitcheck_finding *items; /* one per source line, in the PTX's order */
	unsigned n;
};

/* At most this many lines are kept. */
#define UNINITCHECK_MAX 8u

/* The reads of unwritten registers in the PTX at ptx_path whose line is in a file of the
 * submission's folder (source: the submission; its folder's files are read for the
 * text). Returns 0 (out->n may be 0), or a negative code (unreadable PTX: out empty). */
int uninitcheck_scan(const char *ptx_path, const char *source, struct uninitcheck_findings *out);

void uninitcheck_release(struct uninitcheck_findings *fs);

/* "file:line: warning: message" then "   LINE | text", for each of at most max. */
void uninitcheck_format(FILE *f, const struct uninitcheck_findings *fs, unsigned max);

/* The same as a string (malloc'd; NULL when out of memory or fs is empty). */
char *uninitcheck_text(const struct uninitcheck_findings *fs, unsigned max);

#endif
