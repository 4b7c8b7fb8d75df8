// expect: performance
// expect-on: gpu
// Known-wrong for speed on a GPU (issue 14): unified memory without cudaMemPrefetchAsync.
// Correct, and the kernel wrote C (provenance passes), but every call's first touches of
// A, B and C fault their pages across to the GPU inside the kernel: on an H100 it took
// 27.2 ms against the solution's 0.080 ms (341x). The emulator has no page faults and
// lets it pass.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void vecAddKernel(const float *A, const float *B, float *C, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        C[i] = A[i] + B[i];
    }
}

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
    float *A, *B, *C;
    CHECK(cudaMallocManaged((void **)&A, bytes));
    CHECK(cudaMallocManaged((void **)&B, bytes));
    CHECK(cudaMallocManaged((void **)&C, bytes));
    for (int i = 0; i < n; i++) {
        A[i] = A_h[i];
        B[i] = B_h[i];
    }
    vecAddKernel<<<(n + 127) / 128, 128>>>(A, B, C, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++) {
        C_h[i] = C[i];
    }
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
}
