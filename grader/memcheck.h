/* memcheck: out-of-bounds and misaligned accesses found by compute-sanitizer (GPU) or by
 * the emulator (its fault events), summarised for a student with file:line and advice;
 * and the command line that runs a graded program under compute-sanitizer. */
#ifndef PMPPLAB_MEMCHECK_H
#define PMPPLAB_MEMCHECK_H

#include <stdbool.h>

struct memcheck_finding {
	char text[1024];
	unsigned errors;
};

/* Looks for compute-sanitizer memcheck reports in OUTPUT and for fault events in the
 * emulator's EVENTS file (either may be NULL). True when something was found. */
bool memcheck_scan(const char *output, const char *events, struct memcheck_finding *f);

/* Fills ARGV (room for 9) with PROGRAM REQUEST RESULT, run under compute-sanitizer (its
 * path SANITIZER, --tool TOOL: memcheck, racecheck or synccheck) when SANITIZER is not
 * NULL; NULL-terminated. */
void memcheck_command(const char **argv, const char *sanitizer, const char *tool,
		      const char *program, const char *request, const char *result);

#endif
