// expect: correctness
// expect-text: changed by the host after they were copied back
// Known-wrong (issue 14): a kernel runs and its result is copied back, but then the
// host recomputes every element in a loop: the answer is the host's, not the kernel's
// (here the kernel even adds the wrong vectors, so only the host's loop is right).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void vecAddKernel(const float *A, const float *B, float *C, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        C[i] = A[i] + A[i];
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
    float *A_d, *B_d, *C_d;
    CHECK(cudaMalloc((void **)&A_d, bytes));
    CHECK(cudaMalloc((void **)&B_d, bytes));
    CHECK(cudaMalloc((void **)&C_d, bytes));
    CHECK(cudaMemcpy(A_d, A_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B_d, B_h, bytes, cudaMemcpyHostToDevice));
    vecAddKernel<<<(n + 255) / 256, 256>>>(A_d, B_d, C_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C_h, C_d, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        C_h[i] = A_h[i] + B_h[i];
    }
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
