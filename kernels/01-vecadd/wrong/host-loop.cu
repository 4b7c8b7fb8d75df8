// expect: correctness
// expect-text: C was computed on the host: no kernel wrote it
// Known-wrong (issue 14): the sum is computed by a plain C loop on the host; the GPU is
// never used, so the answer is right but no kernel computed it.
#include <cuda_runtime.h>

void vecAdd(const float *A_h, const float *B_h, float *C_h, int n)
{
    for (int i = 0; i < n; i++) {
        C_h[i] = A_h[i] + B_h[i];
    }
}
