// Known-right (issue 14): pinned host buffers and two streams. Each stream copies its
// half of the inputs, adds it and copies its half of the result back asynchronously
// into a pinned staging buffer; the host then copies the staging buffer into C.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    float *A_d, *B_d, *C_d, *staging;
    cudaStream_t streams[2];
    CHECK(cudaMalloc((void **)&A_d, bytes));
    CHECK(cudaMalloc((void **)&B_d, bytes));
    CHECK(cudaMalloc((void **)&C_d, bytes));
    CHECK(cudaMallocHost((void **)&staging, bytes));
    for (int s = 0; s < 2; s++) {
        CHECK(cudaStreamCreate(&streams[s]));
    }
    int half = (n + 1) / 2;
    for (int s = 0; s < 2; s++) {
        int first = s * half, count = s == 0 ? half : n - half;
        if (count <= 0) {
            continue;
        }
        size_t off = first * sizeof(float), len = count * sizeof(float);
        CHECK(cudaMemcpyAsync((char *)A_d + off, (const char *)A_h + off, len, cudaMemcpyHostToDevice, streams[s]));
        CHECK(cudaMemcpyAsync((char *)B_d + off, (const char *)B_h + off, len, cudaMemcpyHostToDevice, streams[s]));
        vecAddKernel<<<(count + 255) / 256, 256, 0, streams[s]>>>(A_d + first, B_d + first, C_d + first, count);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync((char *)staging + off, (char *)C_d + off, len, cudaMemcpyDeviceToHost, streams[s]));
    }
    CHECK(cudaDeviceSynchronize());
    memcpy(C_h, staging, bytes);
    for (int s = 0; s < 2; s++) {
        CHECK(cudaStreamDestroy(streams[s]));
    }
    CHECK(cudaFreeHost(staging));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
