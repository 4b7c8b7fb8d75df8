/* barriers: the findings of checks of kind barriers (issue 6; labs/README.md, "Barrier
 * checks"): read from the PTX, the emulator's events and compute-sanitizer's output, and
 * written for the student; the check's runs are barriers_check.h's.
 *
 * A missing __syncthreads() often still gives the right answer by luck, so output
 * comparison alone passes broken code. This check looks for barrier misuse three ways
 * and turns everything it finds into findings with file:line, a severity, a one-sentence
 * explanation and the PMPP idea behind it:
 *   - statically, from the PTX of the build (emu/uniformity.h): the barriers of each
 *     kernel with their lines, the ones under a thread-dependent condition, and the
 *     spec's minimum number of barriers;
 *   - on the emulator, the program runs the check's dataset once more with
 *     PMPPLAB_EMU_RACECHECK=1: the runtime's tracker (emu/race.h) writes "finding"
 *     events (hazards, uninitialised shared reads, barrier divergence) and "fault"
 *     events of kind barrier;
 *   - on a GPU, under compute-sanitizer's racecheck and synccheck when installed, and
 *     on the emulator as well (a build of the same submission for it), so a race that
 *     racecheck cannot see (one involving atomics) is caught on both backends.
 * The check passes when nothing is found (barriers_check.h). */
#ifndef PMPPLAB_BARRIERS_H
#define PMPPLAB_BARRIERS_H

#include <stdbool.h>
#include <stdio.h>

enum barriers_severity { BARRIERS_ERROR, BARRIERS_WARNING };

struct barriers_finding {
	char kind[32];           /* "raw", "war", "waw", "uninit", "barrier-divergence",
				  * "barrier-exited", "divergent-barrier" (static),
				  * "too-few-barriers" (static), "barrier-fault", "synccheck" */
	enum barriers_severity severity;
	bool intra_warp;         /* hazard between lanes of one warp (needs __syncwarp) */
	char file[128];          /* base name; "" when unknown */
	unsigned line;
	char other_file[128];    /* the other access, barrier or condition; "" when none */
	unsigned other_line;
	char message[640];       /* one sentence */
	const char *idea;        /* the PMPP idea behind it (static text) */
	char source[24];         /* "static", "emulator", "racecheck", "synccheck" */
	/* emulator hazards: where the barrier is missing (emu/race.h, enum race_gap):
	 * "between" (in one pass, from gap_line on), "loop" (before a loop's next pass),
	 * "" unknown; and the shared element, to show it with the array's own indices */
	char gap[12];
	unsigned gap_line;
	bool gap_from_write;     /* "between": the gap runs from the write to the read */
	char var[64];
	long long index;         /* the element (in units of size), -1 unknown */
	unsigned size;
	unsigned long long var_bytes; /* the array's size, 0 unknown */
};

/* A __syncthreads() of the build, from the static analysis: a racecheck hazard between
 * two lines with one of these between them crossed it, so it is one between the passes
 * of a loop (barriers_racecheck_gaps). */
struct barriers_line {
	char file[128]; /* base name */
	unsigned line;
};
struct barriers_findings {
	struct barriers_finding *items;
	unsigned n, cap;
	struct barriers_line *bars; /* the block barriers barriers_static saw */
	unsigned nbars;
	bool partial; /* the checked run stopped before its end (a fault, a crash): no
	                 finding then is not a pass */
};

void barriers_findings_release(struct barriers_findings *fs);

/* Static analysis of the PTX at ptx_path. kernel: the kernel min_barriers applies to
 * (its plain or mangled name); NULL = the kernel with the most barriers. min_barriers:
 * 0 = not checked. Returns 0, or a negative code with err set (unreadable PTX). */
int barriers_static(const char *ptx_path, const char *kernel, unsigned min_barriers,
		    bool forbid_divergent, struct barriers_findings *out, char *err,
		    size_t errlen);

/* Writes one line per kernel of the PTX at ptx_path: its name and the lines of its
 * __syncthreads() and __syncwarp(), or that it has none. Returns 0 or a negative code. */
int barriers_describe(const char *ptx_path, FILE *f);

/* Adds the emulator's finding events and barrier fault events of the events file at
 * path (a missing file adds nothing). Returns how many were added. */
unsigned barriers_scan_events(const char *path, struct barriers_findings *out);

/* Adds the hazards and barrier errors of compute-sanitizer output (tool: "racecheck"
 * or "synccheck"). Returns how many were added. */
unsigned barriers_scan_sanitizer(const char *output, const char *tool,
				 struct barriers_findings *out);

/* Tells each racecheck hazard that no emulator finding explains (on a GPU whose
 * submission the emulator could not run, or a hazard its run did not meet) where its
 * barrier is missing, from the barriers barriers_static saw: with a __syncthreads()
 * between its two lines the accesses were in different passes of a loop (the barrier
 * at the end of the loop body is missing), without one in the same pass. */
void barriers_racecheck_gaps(struct barriers_findings *fs);

/* Writes the findings for a student, what to fix first first: barriers that not every
 * thread reaches, then hazards by the barrier they miss (in one pass before between
 * passes), the other errors, the barrier count, a result that depends on the warp
 * order, then warnings. Each is "file:line: error: message" then the idea (once: a
 * later finding with the same idea omits it; racecheck's hazard between the same lines
 * as the emulator's gets the emulator's advice and comes after it: the emulator's names
 * the threads, the element and the pass), at most max of them, then how many more. */
void barriers_format(FILE *f, const struct barriers_findings *fs, unsigned max);

#endif
