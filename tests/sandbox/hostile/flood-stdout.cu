// Hostile: floods stdout without end.
#include "common.cuh"

void vecAdd(const float *A, const float *B, float *C, int n)
{
    for (unsigned long i = 0;; i++)
        printf("debug line %lu: C[i] = A[i] + B[i], n = %d, all is well\n", i, n);
    hostile_vecadd(A, B, C, n);
}
