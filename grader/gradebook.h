/* gradebook: a batch's results (batch.h) read back as one table, and what a teacher
 * wants to know about the class: grades.csv, the score distribution, the checks that
 * fail most, the most common findings grouped by kind (one example each, file:line and
 * message), identical submissions (same content hash), submissions that build but never
 * launch a kernel, and on a GPU the slowest and fastest kernels. classreport.h writes it
 * as report.md and report.html; junit.h as JUnit XML. */
#ifndef PMPPLAB_GRADEBOOK_H
#define PMPPLAB_GRADEBOOK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "batch.h"

struct json_t;

enum gb_status { GB_GRADED, GB_INVALID, GB_ERROR, GB_MISSING };

struct gb_test {
	char *name;
	double score, max;
	bool passed;
	char *output;
};

struct gb_row {
	char *student;
	enum gb_status status;
	double score, max;
	struct gb_test *tests;
	unsigned n_tests;
	char hash[33];
	int launches;             /* -1 unknown */
	double kernel_ms, solution_ms; /* 0 unknown */
	double seconds;           /* grading time */
	int same_as;              /* the first row with the same content, or -1 */
	char *why;                /* invalid/error/missing: the reason */
	struct json_t *doc;       /* the results.json, or NULL */
};

/* One kind of finding: a check and a message with its numbers and names blanked out. */
struct gb_finding {
	char *check;              /* "correctness", "memcheck", "build"... */
	char *signature;          /* the message, numbers as N */
	unsigned count;           /* students with it */
	unsigned example;         /* the first student's row */
	char *file;               /* the example's location, or NULL */
	unsigned line;
	char *message;            /* the example's message, as written */
	unsigned last_row;        /* while counting: the last student counted */
};

struct gradebook {
	char *lab, *backend;
	uint64_t seed;
	struct gb_row *rows;      /* by student name */
	unsigned n;
	char **columns;           /* every test name, in the order the reports give them */
	unsigned n_columns;
	struct gb_finding *findings; /* most common first */
	unsigned n_findings;
	double max;               /* the lab's total points (the most any report had) */
};

/* Reads every student's results.json. Students without one are GB_MISSING. 0 or
 * -ENOMEM. */
int gradebook_load(struct gradebook *gb, const struct batch *b);
void gradebook_release(struct gradebook *gb);

/* Whether rows A and B are both graded and have the same content. */
bool gradebook_same(const struct gradebook *gb, unsigned a, unsigned b);
/* Whether row R builds, ran, and never launched a kernel. */
bool gradebook_no_launch(const struct gradebook *gb, unsigned r);
/* Counts per status. */
unsigned gradebook_count(const struct gradebook *gb, enum gb_status s);
/* Row R's result for column C: the test, or NULL when its report has no such test. */
const struct gb_test *gradebook_cell(const struct gradebook *gb, unsigned r, unsigned c);
/* Students that failed column C, out of those graded. */
unsigned gradebook_failures(const struct gradebook *gb, unsigned c);
/* The first line of TEXT that names a source location ("file.cu:12: message"): fills
 * FILE (caller frees), LINE and MESSAGE (caller frees). False when there is none: then
 * MESSAGE is the first "error: " line (without that), else the first non-empty line.
 * Public for the tests. */
bool gradebook_locate(const char *text, char **file, unsigned *line, char **message);
/* MESSAGE with its numbers, addresses and quoted values blanked ("read 4 bytes at
 * 0x7f00" -> "read N bytes at 0xN"), so one mistake made by many reads the same. */
char *gradebook_signature(const char *message);

/* The notes on row R, what a teacher should look at beside the score: identical
 * submissions, no kernel launched, why it was not graded. */
void gradebook_notes(const struct gradebook *gb, unsigned r, char *buf, size_t len);

/* grades.csv: student, score, max_score, one column per test (its score; "pass" or
 * "fail" for a test worth no points), status, notes (identical submissions, no kernel
 * launched, why a submission was not graded). 0 or -errno. */
int gradebook_write_csv(const struct gradebook *gb, FILE *f);

#endif
