/* results: the lab view's right-hand pane as styled lines: the checklist of the run in
 * progress or of the latest report (build, correctness per dataset, other checks), the
 * compiler errors with the offending source lines and a caret, and the hints revealed
 * so far. A pure model over the grader's report; re-rendered on every change. */
#ifndef PMPPLAB_UI_RESULTS_H
#define PMPPLAB_UI_RESULTS_H

#include <stdbool.h>

#include "grade.h"
#include "sline.h"

/* Where a run's time goes, from the times of its progress messages. */
enum results_phase { PHASE_BUILD, PHASE_REFERENCE, PHASE_RUN, PHASE_CHECKS, PHASE_COUNT };

/* A run in progress, as its progress messages tell it. */
struct results_run {
	bool running;
	bool quick;
	enum grade_stage stage;
	unsigned index, count;
	char what[96];
	double phase_ms[PHASE_COUNT]; /* time spent in each phase so far */
	double last_ms;               /* time of the latest message */
	double first_result_ms;       /* when the first test was final; 0 = none yet */
};

/* Starts RUN afresh (quick or not) at the build stage. */
void results_run_start(struct results_run *run, bool quick);
/* Takes in a progress message sent AT_MS after the run started: the time since the
 * previous message goes to the phase that was running. GRADE_STAGE_DONE ends the run;
 * GRADE_STAGE_RESULT (a test is final) changes no phase. */
void results_run_progress(struct results_run *run, const struct grade_progress *p, double at_ms);
/* "build 2.1 s · reference 0.1 s · run 0.9 s · checks 0.4 s", the phases that took time. */
void results_run_timing(const struct results_run *run, char *buf, unsigned len);

struct results_input {
	const struct lab_spec *spec;
	const char *student_path;         /* the file the student edits (for source lines) */
	const struct results_run *run;    /* NULL or not running: show the report */
	const struct report *partial;     /* the running job's final tests so far, or NULL */
	const struct report *report;      /* latest report, or NULL */
	bool report_quick;                /* it came from a quick run */
	double elapsed_ms;                /* how long it took; 0 = unknown */
	const struct results_run *timing; /* the finished run's phases, or NULL */
	const struct diag_list *errors;   /* why the latest run could not grade, or NULL */
	unsigned hints;                   /* hints revealed */
	const char *notice;               /* a note kept on top (the reset's backup), or NULL */
	int width;
};

#define RESULTS_MAX_MARKS 16

/* Where parts of the pane landed, so a panel can scroll to them. */
struct results_marks {
	unsigned nhints;                         /* hints marked (at most RESULTS_MAX_MARKS) */
	unsigned hint_first[RESULTS_MAX_MARKS];  /* hint i + 1 takes lines [first, end) */
	unsigned hint_end[RESULTS_MAX_MARKS];
	unsigned hints_head;                     /* the line of the "Hints" heading */
};

/* Appends the pane's lines to OUT and, when MARKS is not NULL, says where the hints are
 * (line numbers count from OUT's first line before the call). */
void results_render(const struct results_input *in, struct sline_list *out,
		    struct results_marks *marks);
/* Where the student's editor should open: the first error line in the student's file
 * among R's build diagnostics, else the first FILE:LINE of the student's file in a failed
 * test's output (a runtime fault, a memcheck or barriers finding). Files match by base
 * name, since the grader may build a copy. 0 when there is none. */
unsigned results_first_error_line(const struct report *r, const char *student_path);
/* The first "FILE:LINE" in TEXT whose FILE is the student's (by base name), or 0. The
 * line number must end the token: "f.cu:9:", "f.cu:9 " and "in f.cu:9" all count. */
unsigned results_find_location(const char *text, const char *student_path);
/* When test T was not measured (it passed with no points and says "NOT MEASURED ..."),
 * why, as "not measured in a quick run" in BUF; else false. */
bool results_test_skipped(const struct report_test *t, char *buf, size_t len);

#endif
