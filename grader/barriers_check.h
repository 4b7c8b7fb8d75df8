/* barriers_check: the run of a check of kind barriers (issue 6; barriers.h says what it
 * looks for): the static analysis of the build's PTX, the check's dataset on the emulator
 * under the race checker and in other warp orders, and on a GPU under racecheck and
 * synccheck; their findings, where their barriers are missing and the shared arrays'
 * shapes make the test's text. */
#ifndef PMPPLAB_BARRIERS_CHECK_H
#define PMPPLAB_BARRIERS_CHECK_H

#include <stdint.h>

#include "backend.h"
#include "barriers.h"
#include "build.h"
#include "diag.h"
#include "report.h"
#include "spec.h"
#include "subrun.h"

/* What the check needs of the grading run. */
struct barriers_context {
	const struct lab_spec *spec;
	enum backend_kind backend;
	const struct build_result *student;
	const struct build_result *emu_twin; /* gpu: the same submission built for the
				  * emulator, whose race checker runs too (racecheck does not
				  * see races that involve atomics); NULL when it could not be
				  * built. emu: unused. */
	const char *tmp;         /* the grading run's scratch folder */
	uint64_t seed;           /* the grading's seed (datagen_request_file) */
	unsigned timeout_ms;     /* per run of the student program */
	struct subrun *runs;     /* how the programs run (sandbox, fail fast) */
	const char *student_source; /* the submission, for the shapes of its shared arrays;
				  * NULL: elements are shown flat */
	/* gpu: the twin's run under the race checker on the check's dataset, made already
	 * (grade_checks.c shares it with memcheck): its result file (events: that path and
	 * ".events") and how it ended; NULL: the check runs it itself */
	const char *twin_forward;
	const struct runner_result *twin_forward_res;
};

/* Runs a check of kind barriers and adds its test to r. Returns 0, or a negative code
 * for a configuration problem (explained in diags). */
int barriers_grade(const struct barriers_context *ctx, const struct spec_check *c,
		   struct report *r, struct diag_list *diags);

#endif
