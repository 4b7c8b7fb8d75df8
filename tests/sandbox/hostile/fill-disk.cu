// Hostile: writes to /tmp until the disk (or a limit) says no, then adds the vectors.
#include "common.cuh"

void vecAdd(const float *A, const float *B, float *C, int n)
{
    static char block[1 << 20];
    memset(block, 'x', sizeof(block));
    FILE *f = fopen("/tmp/pmpplab-hostile-fill", "w");
    unsigned long mib = 0;
    while (f && fwrite(block, 1, sizeof(block), f) == sizeof(block) && fflush(f) == 0)
        mib++;
    if (f)
        fclose(f);
    fprintf(stderr, "hostile: wrote %lu MiB to /tmp\n", mib);
    hostile_vecadd(A, B, C, n);
}
