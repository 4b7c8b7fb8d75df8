/* mutate_internal: what mutate.c (the run), mutate_equiv.c (equivalence proofs) and
 * mutate_report.c (the report) share. Not a public interface. */
#ifndef PMPPLAB_MUTATE_INTERNAL_H
#define PMPPLAB_MUTATE_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "build.h"
#include "mutate.h"
#include "mutops.h"
#include "report.h"
#include "spec.h"

/* The tests that can kill a mutant, by the beginning of their names. */
enum mutate_kill { MK_CORRECTNESS, MK_MEMCHECK, MK_BARRIERS, MK_PERFORMANCE, MK_OTHER, MK_COUNT };

/* MO_JUDGED: survived, not proven equivalent, but the lab's author judged it so (the
 * solution's equivalent-mutants.txt, with the reason). */
enum mutate_outcome { MO_STILLBORN, MO_KILLED, MO_SURVIVED, MO_EQUIVALENT, MO_JUDGED, MO_ERROR };

/* One mutant's fate: written by its worker as raw bytes, read by the parent (the same
 * program, so the layout agrees). */
struct mutate_result {
	enum mutate_outcome outcome;
	unsigned killed_by;   /* bits of enum mutate_kill */
	bool oob;             /* a test reported an access out of bounds */
	bool timed_out;       /* a run ran out of time */
	double seconds;
	char why[320];        /* the first failure, or why (not) equivalent */
};

/* A solution run of the equivalence proof: a dataset under one seed, or a variant of it
 * with one parameter one more or one less (a copy whose vals are its own). */
struct mutate_eq_run {
	struct spec_dataset d;
	char what[160];   /* "tiny (seed 14)", "tiny with n = 2" */
	uint64_t seed;
	char request[PATH_MAX], result[PATH_MAX];
};

struct mutate_run {
	struct lab_spec *spec;
	char *sol_path;
	char *src;                /* the solution's text */
	size_t len;
	struct mutant_list muts;  /* every mutant generated */
	size_t *pick;             /* the ones graded: indices into muts */
	size_t n;
	size_t duplicates;
	struct mutate_result *res; /* per picked mutant */
	uint64_t seed;
	char work[64];            /* the work folder */
	struct mutate_eq_run *eq;
	unsigned n_eq;
	char *judged_path;        /* the solution's equivalent-mutants.txt, or NULL */
	char **judged;            /* per mutant (muts): the author's reason, or NULL */
	char *judged_text;        /* the file (judged points into it) */
	bool judged_stale;        /* an entry matched no mutant */
};

/* What a mutant's grade report makes it (r->outcome, killed_by, oob, timed_out, why):
 * stillborn when the compiler rejected its code, ERROR when its build failed for a
 * reason outside it, killed when a test failed, else survived (for now). */
void mutate_classify(const struct report *rep, struct mutate_result *r);

/* Mutant ID's source file (alone in its own folder) and result record in the work folder
 * (PATH_MAX each). */
void mutate_paths(const struct mutate_run *m, size_t id, char *src, char *res);

/* Runs the solution for the proofs: every dataset graded on the emulator under two
 * seeds, and each with every parameter one more and one less (where the solution runs:
 * the boundaries where an off-by-one shows). Returns 0, or -1 with the reason printed
 * to OUT. */
int mutate_equiv_prepare(struct mutate_run *m, FILE *out);
void mutate_equiv_release(struct mutate_run *m);
/* Whether the mutant in PATH behaves as the solution does (mutate.h); WHY says what
 * differed, or what was compared. */
bool mutate_equivalent(const struct mutate_run *m, const char *path, char *why, size_t len);

/* Reads the lab author's judgements, equivalent-mutants.txt beside the solution: a line
 * per mutant, "OPERATOR | the line as the mutant has it, trimmed | why", '#' comments
 * (one entry names every mutant of that operator that makes that line). Entries that match no mutant are reported to OUT. Returns 0 (also when
 * there is no file), or -1 (printed: a line without its four fields). */
int mutate_judged_load(struct mutate_run *m, FILE *out);
void mutate_judged_release(struct mutate_run *m);

/* Prints the summary, the tables and the survivors' diffs. Returns mutate_lab's code. */
int mutate_report(const struct mutate_run *m, const struct mutate_opts *o, double seconds, FILE *out);

#endif
