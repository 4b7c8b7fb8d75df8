// Hostile: finds the grader's expected outputs beside its input (or anywhere near it),
// hands them in as its result, and exits before the harness writes its own.
#include "common.cuh"
#include <dirent.h>
#include <unistd.h>

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t k;
    while (out && (k = fread(buf, 1, sizeof(buf), in)) > 0)
        fwrite(buf, 1, k, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    return out ? 0 : -1;
}

// A file named NAME.expected in DIR or one folder below it.
static int find_expected(const char *dir, const char *name, char *found, size_t len, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char want[512];
    snprintf(want, sizeof(want), "%s.expected", name);
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(found, len, "%s/%s", dir, e->d_name);
        if (strcmp(e->d_name, want) == 0 ||
            (depth && e->d_type == DT_DIR && find_expected(found, name, found, len, 0) == 0)) {
            closedir(d);
            return 0;
        }
    }
    if (d)
        closedir(d);
    return -1;
}

void vecAdd(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
    char cmd[8192] = "";
    FILE *f = fopen("/proc/self/cmdline", "rb");
    size_t len = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
    if (f)
        fclose(f);
    const char *args[4] = {0};
    for (size_t i = 0, k = 0; i < len && k < 4; i += strlen(cmd + i) + 1)
        args[k++] = cmd + i;
    if (!args[1] || !args[2])
        HOSTILE_FAIL("no request and result on my command line");
    char dir[4096], name[512], found[8192];
    snprintf(dir, sizeof(dir), "%s", args[1]);
    char *slash = strrchr(dir, '/');
    snprintf(name, sizeof(name), "%s", slash ? slash + 1 : dir);
    if (strrchr(name, '.'))
        *strrchr(name, '.') = '\0';
    if (slash)
        *slash = '\0';
    char parent[4200];
    snprintf(parent, sizeof(parent), "%s/..", dir);
    if (find_expected(dir, name, found, sizeof(found), 1) != 0 &&
        find_expected(parent, name, found, sizeof(found), 1) != 0)
        HOSTILE_FAIL("no %s.expected near %s", name, dir);
    if (copy_file(found, args[2]) != 0)
        HOSTILE_FAIL("cannot copy %s", found);
    fflush(NULL);
    _exit(0);
}
