// Hostile: writes outside its run folder (a file in /var/tmp).
#include "common.cuh"

void vecAdd(const float *A, const float *B, float *C, int n)
{
    FILE *f = fopen("/var/tmp/pmpplab-hostile-wrote", "w");
    if (!f)
        HOSTILE_FAIL("cannot write /var/tmp/pmpplab-hostile-wrote: %s", strerror(errno));
    fputs("written by a submission\n", f);
    fclose(f);
    hostile_vecadd(A, B, C, n);
}
