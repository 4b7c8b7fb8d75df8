// Hostile: ignores SIGTERM and sleeps for ever.
#include "common.cuh"
#include <signal.h>
#include <unistd.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    for (;;)
        sleep(1);
    hostile_vecadd(A, B, C, n);
}
