/* results: the lab view's right-hand pane as styled lines: the checklist of the run in
 * progress or of the latest report (build, correctness per dataset, other checks), the
 * compiler errors with the offending source lines and a caret, and the hints revealed
 * so far. A pure model over the grader's report; re-rendered on every change. */
#ifndef PMPPLAB_UI_RESULTS_H
#define PMPPLAB_UI_RESULTS_H

#include <stdbool.h>

#include "grade.h"
#include "sline.h"

/* A run in progress, as its progress messages tell it. */
struct results_run {
	bool running;
	bool quick;
	enum grade_stage stage;
	unsigned index, count;
	char what[96];
};

struct results_input {
	const struct lab_spec *spec;
	const char *student_path;         /* the file the student edits (for source lines) */
	const struct results_run *run;    /* NULL or not running: show the report */
	const struct report *report;      /* latest report, or NULL */
	bool report_quick;                /* it came from a quick run */
	double elapsed_ms;                /* how long it took; 0 = unknown */
	const struct diag_list *errors;   /* why the latest run could not grade, or NULL */
	unsigned hints;                   /* hints revealed */
	int width;
};

/* Appends the pane's lines to OUT. */
void results_render(const struct results_input *in, struct sline_list *out);
/* The first error line in the student's file among R's build diagnostics (matching by
 * base name, since the grader may build a copy), or 0. */
unsigned results_first_error_line(const struct report *r, const char *student_path);

#endif
