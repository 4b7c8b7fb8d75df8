// Hostile: lists root's home and $HOME/.ssh and keeps the names in /tmp.
#include "common.cuh"
#include <dirent.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    const char *home = getenv("HOME");
    char ssh[4200];
    snprintf(ssh, sizeof(ssh), "%s/.ssh", home ? home : "/root");
    const char *dirs[] = { "/root", ssh, "/home" };
    FILE *out = fopen("/tmp/pmpplab-hostile-home", "w");
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (e->d_name[0] != '.' || strcmp(e->d_name, ".ssh") == 0) {
                if (out)
                    fprintf(out, "%s/%s\n", dirs[i], e->d_name);
                seen++;
            }
        if (d)
            closedir(d);
    }
    if (out)
        fclose(out);
    if (!seen)
        HOSTILE_FAIL("nothing to see in /root, %s or /home", ssh);
    hostile_vecadd(A, B, C, n);
}
