// Known-right (issue 14): a fixed 1-D grid of 512-thread blocks sized to the GPU; each
// thread strides over the elements of C, whatever its shape.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void matMulKernel(const float *A, const float *B, float *C, int m, int k, int n)
{
    int total = m * n;
    for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < total; e += gridDim.x * blockDim.x) {
        int row = e / n, col = e % n;
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) {
            sum += A[row * k + i] * B[i * n + col];
        }
        C[e] = sum;
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

void matMul(const float *A_h, const float *B_h, float *C_h, int m, int k, int n)
{
    size_t bytesA = (size_t)m * k * sizeof(float);
    size_t bytesB = (size_t)k * n * sizeof(float);
    size_t bytesC = (size_t)m * n * sizeof(float);
    float *A_d, *B_d, *C_d;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaMalloc((void **)&A_d, bytesA));
    CHECK(cudaMalloc((void **)&B_d, bytesB));
    CHECK(cudaMalloc((void **)&C_d, bytesC));
    CHECK(cudaMemcpy(A_d, A_h, bytesA, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B_d, B_h, bytesB, cudaMemcpyHostToDevice));
    matMulKernel<<<2 * sms, 512>>>(A_d, B_d, C_d, m, k, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}
