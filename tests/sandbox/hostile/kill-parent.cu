// Hostile: kills the process that runs it (the grader, when nothing is in between).
#include "common.cuh"
#include <signal.h>
#include <unistd.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    kill(getppid(), SIGKILL);
    hostile_vecadd(A, B, C, n);
}
