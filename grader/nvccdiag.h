/* nvccdiag: turns what nvcc (and the host compiler, ptxas and the linker behind it)
 * prints into located diagnostics. Understands EDG's "f.cu(12): error: ..." with its
 * caret line (for the column), gcc's "f.c:12:5: error: ...", "ptxas error : ..." and
 * linker "undefined reference" lines. */
#ifndef PMPPLAB_NVCCDIAG_H
#define PMPPLAB_NVCCDIAG_H

#include "diag.h"

/* Appends every diagnostic found in TEXT to out; returns how many errors it found. */
unsigned nvccdiag_parse(const char *text, struct diag_list *out);

/* After each error of L saying a token is missing ("expected a \";\"") at the first token
 * of its line, adds a note at the end of the code line before it: where the mistake
 * usually is, since the compiler notices it only at the next token (issue 18). Reads the
 * errors' files; errors whose file cannot be read get no note. */
void nvccdiag_explain(struct diag_list *l);

#endif
