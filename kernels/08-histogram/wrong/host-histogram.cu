// expect: correctness
// expect-text: histo was computed on the host: no kernel wrote it
// Known-wrong (issue 14): the histogram is counted on the host. No kernel runs, so the
// barrier, memory and performance checks have nothing to measure either, and fail.
#include <cuda_runtime.h>
#include <string.h>

void histogram(const unsigned char *data_h, unsigned int *histo_h, int n)
{
    memset(histo_h, 0, 256 * sizeof(unsigned int));
    for (int i = 0; i < n; i++) {
        histo_h[data_h[i]]++;
    }
}
