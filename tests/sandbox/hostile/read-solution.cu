// Hostile: reads the lab's solution and leaves a copy in /tmp for later.
#include "common.cuh"

void vecAdd(const float *A, const float *B, float *C, int n)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/kernels/01-vecadd/solution.cu", hostile_root());
    FILE *in = fopen(path, "r");
    if (!in)
        HOSTILE_FAIL("cannot read %s: %s", path, strerror(errno));
    FILE *out = fopen("/tmp/pmpplab-hostile-stolen.cu", "w");
    char buf[4096];
    size_t k;
    while (out && (k = fread(buf, 1, sizeof(buf), in)) > 0)
        fwrite(buf, 1, k, out);
    fclose(in);
    if (out)
        fclose(out);
    hostile_vecadd(A, B, C, n);
}
