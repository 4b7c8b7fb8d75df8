// Hostile: allocates and touches 50 GB of host memory.
#include "common.cuh"

void vecAdd(const float *A, const float *B, float *C, int n)
{
    size_t bytes = (size_t)50 << 30;
    char *p = (char *)malloc(bytes);
    if (!p)
        HOSTILE_FAIL("malloc of 50 GB failed: %s", strerror(errno));
    memset(p, 1, bytes);
    free(p);
    hostile_vecadd(A, B, C, n);
}
