// expect: correctness: not-a-multiple
// expect-text: elements of C were computed on the host: no kernel wrote them
// Known-wrong (issue 14): the kernel adds the first half of the vectors and the host
// adds the rest in a loop; the answer is right, but half of it is the host's work.
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
    int half = n / 2;
    size_t bytes = n * sizeof(float);
    float *A_d, *B_d, *C_d;
    CHECK(cudaMalloc((void **)&A_d, bytes));
    CHECK(cudaMalloc((void **)&B_d, bytes));
    CHECK(cudaMalloc((void **)&C_d, bytes));
    CHECK(cudaMemcpy(A_d, A_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B_d, B_h, bytes, cudaMemcpyHostToDevice));
    if (half > 0) {
        vecAddKernel<<<(half + 255) / 256, 256>>>(A_d, B_d, C_d, half);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(C_h, C_d, half * sizeof(float), cudaMemcpyDeviceToHost));
    }
    for (int i = half; i < n; i++) {
        C_h[i] = A_h[i] + B_h[i];
    }
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
