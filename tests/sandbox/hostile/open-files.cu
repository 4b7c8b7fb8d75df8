// Hostile: opens 100000 files.
#include "common.cuh"
#include <fcntl.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    int opened = 0;
    while (opened < 100000 && open("/dev/null", O_RDONLY) >= 0)
        opened++;
    if (opened < 100000)
        HOSTILE_FAIL("opened only %d files: %s", opened, strerror(errno));
    hostile_vecadd(A, B, C, n);
}
