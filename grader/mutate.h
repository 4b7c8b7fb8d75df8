/* mutate: `pmpplab lab mutate DIR`, mutation testing of a lab (issue 14 part 5). The
 * lab's solution is mutated by the operators of grader/mutops.h (one mistake each);
 * every mutant is graded on the emulator through grade_lab, the way a student's file
 * is, in parallel worker processes; and the report says how many mutants the lab's
 * tests catch:
 *
 *   generated   distinct mutants (one that repeats another's text, or the solution's,
 *               is left out)
 *   stillborn   do not compile: not counted
 *   killed      some test failed, and which ones (correctness, memcheck, barriers,
 *               performance)
 *   equivalent  survivors proven to behave exactly as the solution does: the same
 *               outputs, bit for bit, on every dataset graded on the emulator under two
 *               seeds and with each parameter one more and one less, and the same memory
 *               behaviour (the emulator's counters: requests, sectors, bytes, bank
 *               passes, leaked device memory, and a fingerprint of every global and
 *               shared access with the barrier phase it happened in;
 *               grader/harness/pl_counters.h)
 *   judged      survivors the lab's author judged equivalent, each with a reason
 *               (equivalent-mutants.txt beside the solution: a phase that only adds
 *               zeros changes the memory behaviour, not the result, for every input)
 *   survived    the rest, each shown with a unified diff against the solution
 *
 *   kill rate = killed / (generated - stillborn - equivalent - judged)
 *
 * A mistake that a check names should be caught by that check: a deleted or moved
 * barrier by `barriers`, an access out of bounds by `memcheck`; the report counts the
 * mutants that only a wrong output caught. */
#ifndef PMPPLAB_MUTATE_H
#define PMPPLAB_MUTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct mutate_opts {
	unsigned jobs;     /* worker processes; 0 = 1 */
	unsigned limit;    /* 0: every mutant; else a fixed sample of LIMIT, spread evenly */
	unsigned ops;      /* a mask of enum mutops_op; 0 = all */
	bool list;         /* list the mutants, grade none */
	const char *keep;  /* a folder to write every mutant's source into (mNNN.cu), or NULL */
	uint64_t seed;     /* the grading seed; 0 = fresh */
	unsigned timeout;  /* seconds per run of a mutant; 0 = from the solution's grading */
	double min_rate;   /* percent: the exit status says whether the kill rate reached it */
};

/* Mutates and grades the lab in DIR, writing progress and the report to OUT. Returns 0
 * when the kill rate reached min_rate (or nothing was graded: --list), 1 when it did
 * not, 2 when the lab could not be mutated (bad spec, failing solution, no toolchain;
 * the reason is printed to OUT). */
int mutate_lab(const char *dir, const struct mutate_opts *o, FILE *out);

#endif
