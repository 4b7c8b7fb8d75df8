/* livetrace: reading the emulator's live trace file (emu/trace.h: $PMPPLAB_TRACE) from
 * another process, and the figures the warp and memory panels show (issue 7). The TUI
 * sets $PMPPLAB_TRACE before grading; the student program, running on the emulator,
 * publishes a snapshot 20 times a second; the TUI reads one per refresh. */
#ifndef PMPPLAB_LIVETRACE_H
#define PMPPLAB_LIVETRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../emu/trace.h"

/* Copies a consistent snapshot of PATH into *out. Returns 0; -ENOENT when there is no
 * file yet (nothing ran), -EAGAIN when the writer was busy every time it looked (try at
 * the next refresh), -EINVAL when the file is not a trace of this version. */
int livetrace_read(const char *path, struct emu_trace_file *out);

/* Which run of a grading wrote the trace (issue 18: the panels say which dataset they
 * show). Before each run of the program the grader appends "SEQ\tDATASET\tWHAT" to
 * PATH.runs, SEQ being the trace's sequence number then (0: none yet): a trace whose
 * sequence number is above it was written by that run or a later one. Whoever removes
 * the trace removes PATH.runs with it. Returns PATH.runs (caller frees). */
char *livetrace_runs_path(const char *trace_path);
/* Says in $PMPPLAB_TRACE's runs file that a run of the program on input REQUEST (a
 * dataset's request file, NAME.in) starts, for WHAT ("dataset tiny", "memcheck").
 * Nothing when $PMPPLAB_TRACE is unset or empty, or when ENV (the run's extra NAME=value,
 * may be NULL) blanks it. */
void livetrace_note_run(char *const *env, const char *request, const char *what);
/* The run that wrote a trace of sequence number SEQ, from TRACE_PATH's runs file: its
 * dataset (DATASET, "" when its input was no dataset's) and what it was for (WHAT).
 * False when the file says nothing of it. */
bool livetrace_run_of(const char *trace_path, uint64_t seq, char *dataset, size_t dlen,
		      char *what, size_t wlen);

/* Active lanes / 32 over the line's warp instructions, 0..1 (1 when none ran). */
double livetrace_simt(const struct emu_trace_line_snap *l);
/* Sectors per global load / store request (0 when none). 4 is a coalesced float access
 * of a warp; 32, one sector per lane. */
double livetrace_ld_sectors(const struct emu_trace_line_snap *l);
double livetrace_st_sectors(const struct emu_trace_line_snap *l);
/* Bank passes per shared request: 1 is conflict-free, 32 a 32-way conflict. */
double livetrace_bank_degree(const struct emu_trace_line_snap *l);

/* Counts of T's SM I's warps in each state (indexed by enum emu_trace_warp_state). */
void livetrace_warp_counts(const struct emu_trace_sm_snap *s, unsigned counts[5]);

#endif
