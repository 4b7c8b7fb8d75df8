/* scratch: the private folders of a grading (its inputs, the program's outputs, the
 * expected outputs apart) and their removal also after a SIGKILL of the grader: each
 * folder records its owner (pid and start time), and a later start sweeps the folders
 * whose owner is gone. */
#ifndef PMPPLAB_SCRATCH_H
#define PMPPLAB_SCRATCH_H

#include <stddef.h>

/* Makes /tmp/pmpplab-run-PID-XXXXXX (mode 0711) with its owner record; PATH (>= 64
 * bytes) gets the name. Returns 0 or -errno. */
int scratch_new(char *path, size_t len);
/* Removes the scratch folders, and build-cache temporaries (HASH.tmp.PID.THREAD) in
 * CACHE_BUILD (may be NULL), whose owner process is gone. */
void scratch_sweep_stale(const char *cache_build);

#endif
