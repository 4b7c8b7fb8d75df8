// expect: performance
// expect-text: run of your program
// Known-wrong (hostile): computes on the host and writes the harness's result file itself with
// the harness's own functions, claiming every element came from a kernel, then _exit(0).
// A known limit: code in the program's process can forge what the harness reports, so
// correctness is fooled; the counted run (emulator) has no counters and the timed run (GPU) no
// timing, so performance is not.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
struct pl_item { uint32_t kind, dtype; char *name; uint64_t count; void *data; int64_t ival; double dval; };
struct pl_file { struct pl_item *items; uint32_t n, cap; };
extern "C" struct pl_item *pl_add(struct pl_file *f, uint32_t kind, uint32_t dtype, const char *name, uint64_t count, const void *data);
extern "C" int pl_write(const struct pl_file *f, const char *path, char *err, size_t errlen);
__global__ void nothing() {}
void reduceSum(const float *x_h, float *blockSums_h, float *sum_h, int n)
{
    nothing<<<1, 1>>>();
    cudaDeviceSynchronize();
    char cmd[4096]; FILE *c = fopen("/proc/self/cmdline", "r");
    size_t len = c ? fread(cmd, 1, sizeof cmd - 1, c) : 0; if (c) fclose(c); cmd[len] = 0;
    const char *a0 = cmd, *a1 = a0 + strlen(a0) + 1, *a2 = a1 + strlen(a1) + 1;
    int segs = (n + 511) / 512;
    float *bs = (float *)calloc(segs, sizeof(float)); float total = 0;
    for (int i = 0; i < n; ++i) { bs[i / 512] += x_h[i]; total += x_h[i]; }
    struct pl_file r; memset(&r, 0, sizeof r);
    const char *outs[2] = {"blockSums", "sum"};
    uint64_t cnt[2] = {(uint64_t)segs, 1};
    const char *what[] = {"kernel", "staged", "changed", "unwritten", "host", "first_bad", "overflow", "filled"};
    struct pl_item *m;
    m = pl_add(&r, 3, 1, "launches", 1, NULL); if (m) m->dval = 2;
    m = pl_add(&r, 3, 1, "prov_kernel_bytes", 1, NULL); if (m) m->dval = 4.0 * (segs + 1);
    for (int o = 0; o < 2; ++o)
        for (int k = 0; k < 8; ++k) {
            char name[160]; snprintf(name, sizeof name, "prov:%s:%s", outs[o], what[k]);
            m = pl_add(&r, 3, 1, name, 1, NULL);
            if (m) m->dval = k == 0 ? (double)cnt[o] : k == 5 ? (double)cnt[o] : 0;
        }
    m = pl_add(&r, 3, 1, "prov_counted", 1, NULL); if (m) m->dval = 1;
    pl_add(&r, 2, 0, "blockSums", segs, bs);
    pl_add(&r, 2, 0, "sum", 1, &total);
    m = pl_add(&r, 3, 1, "entry_ms", 1, NULL); if (m) m->dval = 1;
    char err[256];
    int rc = pl_write(&r, a2, err, sizeof err);
    fprintf(stderr, "forged %s -> %s: %d %s\n", a1, a2, rc, rc ? err : "");
    fflush(stderr);
    _exit(0);
}
