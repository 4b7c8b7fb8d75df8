// expect: correctness
// expect-text: no kernel wrote
// Known-wrong (issue 14): the host computes C, copies it to the device and back. The
// copies go through the GPU, but no kernel ever wrote C.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                   \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

void vecAdd(const float *A_h, const float *B_h, float *C_h, int n)
{
    size_t bytes = n * sizeof(float);
    float *tmp = (float *)malloc(bytes), *C_d;
    for (int i = 0; i < n; i++) {
        tmp[i] = A_h[i] + B_h[i];
    }
    CHECK(cudaMalloc((void **)&C_d, bytes));
    CHECK(cudaMemcpy(C_d, tmp, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(C_h, C_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(C_d));
    free(tmp);
}
