/* provenance: whether a run's outputs are the work of the student's kernels (issue 14).
 *
 * A lab program's result carries the metrics of grader/harness/pl_provenance.h: how
 * many kernels ran during the correctness call and, on the emulator, for every element
 * of every output where its final value came from (memory a kernel wrote, the host, a
 * copy of memory no kernel wrote). The grader judges them against each output's
 * `provenance` in lab.yaml (labs/README.md):
 *
 *   device         every element must be a kernel's (the default)
 *   host-combines  the host may compute it, from kernel results it copied back: a kernel
 *                  must have run and written data that reached the host
 *   host           not judged (host code's own answer, e.g. from runtime queries)
 *
 * On a GPU only the launches are in the result; the grader runs the emulator build of
 * the same file for the rest (grade_datasets.c). */
#ifndef PMPPLAB_PROVENANCE_H
#define PMPPLAB_PROVENANCE_H

#include "harness/pl_io.h"
#include "spec.h"

enum provenance_verdict {
	PROVENANCE_OK,      /* everything the result says is as the lab requires */
	PROVENANCE_BAD,     /* *text says which output, how many elements and why */
	PROVENANCE_UNKNOWN, /* the result has no provenance metrics (nothing to judge) */
};

/* Judges RESULT (a lab program's result file, read) for SPEC's outputs. On
 * PROVENANCE_BAD, *text (malloc'd) explains it for the student; else *text is NULL. */
enum provenance_verdict provenance_judge(const struct lab_spec *spec, const struct pl_file *result,
					 char **text);

/* The "launches" metric of RESULT: kernels that ran in the correctness call; -1 when the
 * result does not say (a CPU reference, a GPU run without CUPTI or under a tool). */
long provenance_launches(const struct pl_file *result);

#endif
