// Known-right (issue 14): 64-thread blocks, each thread adding 4 elements blockDim.x
// apart, so a warp's accesses stay consecutive; a quarter of the blocks.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 64
#define COARSE 4

__global__ void vecAddKernel(const float *A, const float *B, float *C, int n)
{
    int first = blockIdx.x * BLOCK * COARSE + threadIdx.x;
    for (int k = 0; k < COARSE; k++) {
        int i = first + k * BLOCK;
        if (i < n) {
            C[i] = A[i] + B[i];
        }
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
    vecAddKernel<<<(n + BLOCK * COARSE - 1) / (BLOCK * COARSE), BLOCK>>>(A_d, B_d, C_d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C_h, C_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
