// Hostile: writes its own result file (the harness's format, grader/harness/pl_io.h)
// with output C declared as n floats but carrying no data (n = 1), else as n bytes typed
// u8, and exits before the harness writes the real one. The grader must refuse the file with a
// message, not read past what the file holds (it used to dereference NULL and crash).
#include "common.cuh"
#include <stdint.h>
#include <unistd.h>

static void put(FILE *f, const void *p, size_t n) { fwrite(p, 1, n, f); }

void vecAdd(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C;
    char cmd[8192] = "";
    FILE *f = fopen("/proc/self/cmdline", "rb");
    size_t len = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
    if (f)
        fclose(f);
    const char *args[4] = {0};
    for (size_t i = 0, k = 0; i < len && k < 4; i += strlen(cmd + i) + 1)
        args[k++] = cmd + i;
    if (!args[2])
        HOSTILE_FAIL("no result on my command line");
    FILE *out = fopen(args[2], "wb");
    if (!out)
        HOSTILE_FAIL("cannot write %s", args[2]);
    uint32_t items = 1, kind = 2 /* output */, dtype = n == 1 ? 0 /* f32 */ : 4 /* u8 */;
    uint32_t name_len = 1, flag = dtype == 4;
    uint64_t count = (uint64_t)n;
    put(out, "PMPPLAB1", 8);
    put(out, &items, 4);
    put(out, &kind, 4), put(out, &dtype, 4), put(out, &name_len, 4), put(out, "C", 1);
    put(out, &count, 8), put(out, &flag, 4);
    for (int i = 0; flag && i < n; i++)
        fputc(0x41, out);
    fclose(out);
    fflush(NULL);
    _exit(0);
}
