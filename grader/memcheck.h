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

/* The environment (NAME=value, NULL-terminated) an emulator build gets for a run memcheck
 * reads: the emulator then also reports reads of device memory nothing wrote
 * (emu/initcheck.h), which compute-sanitizer's memcheck does not. */
extern const char *const memcheck_emu_env[];
/* The same with the race checker on (the twin's run of the barriers dataset). */
extern const char *const memcheck_emu_race_env[];

/* Fills ARGV (room for 9) with PROGRAM REQUEST RESULT, run under compute-sanitizer (its
 * path SANITIZER, --tool TOOL: memcheck, racecheck or synccheck) when SANITIZER is not
 * NULL; NULL-terminated. */
void memcheck_command(const char **argv, const char *sanitizer, const char *tool,
		      const char *program, const char *request, const char *result);

#endif
