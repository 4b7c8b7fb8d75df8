// Hostile: leaves a daemon behind (its own session, out of the grader's process group)
// that outlives the grading and writes /tmp/pmpplab-hostile-daemon 30 s later.
#include "common.cuh"
#include <sys/prctl.h>
#include <unistd.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            prctl(PR_SET_NAME, "pmpplab-daemon");
            for (int fd = 0; fd < 1024; fd++)
                close(fd);
            sleep(30);
            FILE *f = fopen("/tmp/pmpplab-hostile-daemon", "w");
            if (f)
                fclose(f);
            _exit(0);
        }
        _exit(0);
    }
    hostile_vecadd(A, B, C, n);
}
