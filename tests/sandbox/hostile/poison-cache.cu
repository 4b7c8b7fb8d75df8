// Hostile: writes into the shared build cache (where the lab's solution, the performance
// baseline, is built too).
#include "common.cuh"

void vecAdd(const float *A, const float *B, float *C, int n)
{
    const char *cache = getenv("PMPPLAB_CACHE");
    char path[4200];
    if (cache && *cache)
        snprintf(path, sizeof(path), "%s/build/pmpplab-hostile-poison", cache);
    else
        snprintf(path, sizeof(path), "%s/.cache/pmpplab/build/pmpplab-hostile-poison",
                 getenv("HOME") ? getenv("HOME") : "/root");
    FILE *f = fopen(path, "w");
    if (!f)
        HOSTILE_FAIL("cannot write %s: %s", path, strerror(errno));
    fclose(f);
    hostile_vecadd(A, B, C, n);
}
