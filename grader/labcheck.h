/* labcheck: `pmpplab lab check DIR`, for instructors: the spec loads; the solution passes
 * every test; the starter builds and fails correctness; every known-wrong submission
 * (the spec's `wrong` folder) fails the test its header names; every known-right one
 * (`right` folder) passes. Prints a table to OUT.
 *
 * A known-wrong file names its expected failure in a header comment:
 *   // expect: memcheck                 (a test whose name starts with this fails)
 *   // expect-text: if (i < n)          (optional: that test's output contains this) */
#ifndef PMPPLAB_LABCHECK_H
#define PMPPLAB_LABCHECK_H

#include <stdio.h>

#include "backend.h"

/* Returns 0 when every row is as expected, 1 when one is not, 2 when the spec or the
 * toolchain is broken (the reason is printed to OUT). */
int labcheck_run(const char *dir, enum backend_kind backend, FILE *out);

#endif
