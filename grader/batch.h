/* batch: a class's submissions graded as one resumable job (issue 13, `pmpplab --grade
 * LAB --submissions DIR`). A submissions folder holds one .cu per student (the student is
 * the file's name without .cu) or one folder per student holding one .cu.
 *
 * Everything lives in the output folder, so a batch killed at any point (SIGKILL
 * included) and started again skips what is done, loses nothing, and ends with the same
 * grades as a run that was never stopped:
 *   OUT/batch.json                   the batch: lab, lab collection, submissions folder,
 *                                    backend and seed (every student gets the same inputs)
 *   OUT/students/NAME/results.json   the student's Gradescope results, written atomically
 *                                    (temporary file + rename) when the grading is over;
 *                                    extra_data.batch records the content hash and seed
 *                                    that were graded and the status
 * A student is done when that file exists with status "graded" (or "invalid": a folder
 * without exactly one .cu) for the current content hash and the batch's seed; an "error"
 * (the grader itself failed) is graded again at the next start.
 *
 * Each submission is graded in a worker process of its own (fork), so a grader crash on
 * one submission is recorded as that student's error and the batch goes on; workers die
 * with the batch (PR_SET_PDEATHSIG), so a killed batch leaves no grading behind. */
#ifndef PMPPLAB_BATCH_H
#define PMPPLAB_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "diag.h"
#include "spec.h"

struct batch_student {
	char *name;      /* the gradebook's row: file name without .cu, or the folder's name */
	char *source;    /* absolute path of the .cu, or NULL when problem is set */
	char *problem;   /* why it cannot be graded ("no .cu file in alice/"), or NULL */
	char hash[33];   /* content hash of the source (of the problem text when invalid) */
};

/* What a new batch is asked for (a batch that exists must agree with it). */
struct batch_params {
	const char *lab;          /* the lab's id */
	const char *labs_dir;     /* the lab collection */
	const char *submissions;  /* the submissions folder */
	enum backend_kind backend; /* resolved: BACKEND_GPU or BACKEND_EMU */
	uint64_t seed;            /* 0: the existing batch's, or a fresh one */
	bool quick;               /* skip the datasets marked perf */
};

struct batch {
	char *out;                /* the output folder, absolute */
	char *lab, *labs_dir, *submissions;
	enum backend_kind backend;
	uint64_t seed;
	bool quick;
	struct batch_student *students; /* sorted by name */
	unsigned n;
};

/* Opens (creates when new) the batch in OUT and lists its students. With PARAMS, a new
 * batch.json is written, or the existing one is checked against PARAMS (another lab,
 * folder, backend or seed is an error naming both); with NULL, batch.json must exist
 * (--collect, a Slurm task). Returns 0, or a negative code with the reason in diags. */
int batch_open(struct batch *b, const char *out, const struct batch_params *params,
	       struct diag_list *diags);
void batch_release(struct batch *b);

/* The one .cu of a student's folder DIR: STUDENT_FILE (the lab's starter name) when the
 * folder holds several, else the only one, searched two levels deep. Returns the path
 * (caller frees), or NULL with *problem set (caller frees) to a sentence saying why. */
char *batch_find_source(const char *dir, const char *student_file, char **problem);

enum batch_state {
	BATCH_LEFT,     /* not graded for its current content and the batch's seed */
	BATCH_GRADED,   /* done: graded (whatever the score) */
	BATCH_INVALID,  /* done: cannot be graded (a folder without exactly one .cu) */
	BATCH_ERROR,    /* the grader failed on it: graded again at the next start */
};
/* Where S stands, from its results.json. */
enum batch_state batch_state(const struct batch *b, const struct batch_student *s);
/* OUT/students/NAME/results.json. Caller frees. */
char *batch_results_path(const struct batch *b, const struct batch_student *s);

/* Grades S in this process and writes its results.json. Returns 0 (graded or invalid,
 * even with failed tests), or a negative code when the grader failed (then an "error"
 * results.json says why). */
int batch_grade_one(const struct batch *b, const struct lab_spec *spec,
		    const struct batch_student *s);
/* Records that grading S failed (a worker that crashed): an "error" results.json. */
int batch_record_error(const struct batch *b, const struct batch_student *s, const char *why);

struct batch_progress {
	unsigned total;           /* students in the batch */
	unsigned done, failed;    /* graded / could not be graded (this run or before) */
	unsigned left, running;   /* done + failed + left = total */
	unsigned done_now;        /* graded by this run (for the rate) */
	double elapsed_s;         /* since batch_run started */
	const struct batch_student *last; /* the one that just finished, or NULL */
	bool last_failed;
	double last_score, last_max, last_s;
};
typedef void (*batch_progress_fn)(void *userdata, const struct batch_progress *p);

/* Grades the students TODO[0..n) (indexes into b->students) with up to JOBS workers at
 * a time, calling FN (may be NULL) once at the start, after each one (with p->last set)
 * and about once a second in between (p->last NULL). Returns 0, or -errno when no worker
 * could be started. */
int batch_run(const struct batch *b, const struct lab_spec *spec, const unsigned *todo,
	      unsigned n, unsigned jobs, batch_progress_fn fn, void *userdata);

/* The students not done (neither graded nor invalid), as indexes into b->students, in
 * order. Caller frees *todo. 0 or -ENOMEM. */
int batch_todo(const struct batch *b, unsigned **todo, unsigned *n);

#endif
