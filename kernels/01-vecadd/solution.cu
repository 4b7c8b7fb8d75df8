// BEGIN SOLUTION
// Lab 01 solution: what a good student writes after chapter 2. It is also the single
// source of the student's starter (labs/01-vecadd/vecadd.cu): `pmpplab lab starter
// 01-vecadd` keeps what lies outside the BEGIN/END SOLUTION blocks and puts in each
// block's place the lines after its STARTER mark ("//> " lines lose that prefix).
// STARTER
// Lab 01: vector addition. Read README.md beside this file first.
//
// Fill in the TODOs. pmpplab calls vecAdd() with host arrays A_h and B_h of n floats
// and expects C_h[i] = A_h[i] + B_h[i] when it returns.
// END SOLUTION
#include <cuda_runtime.h>
#include <stdio.h>

// BEGIN SOLUTION
// STARTER
// TODO 1: each thread computes one element of C.
//   - compute the global index i from blockIdx.x, blockDim.x and threadIdx.x
//   - only threads with i < n may touch the arrays
// END SOLUTION
__global__ void vecAddKernel(const float *A, const float *B, float *C, int n)
{
    // BEGIN SOLUTION
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        C[i] = A[i] + B[i];
    }
    // STARTER
    // END SOLUTION
}

// Stops the program with a message when a CUDA call fails.
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
    // BEGIN SOLUTION
    size_t bytes = n * sizeof(float);
    float *A_d, *B_d, *C_d;
    CHECK(cudaMalloc((void **)&A_d, bytes));
    CHECK(cudaMalloc((void **)&B_d, bytes));
    CHECK(cudaMalloc((void **)&C_d, bytes));
    // STARTER
    // TODO 2: declare the device pointers A_d, B_d and C_d and allocate n floats for
    //         each with cudaMalloc (sizes are in bytes: n * sizeof(float)).
    // END SOLUTION

    // BEGIN SOLUTION
    CHECK(cudaMemcpy(A_d, A_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B_d, B_h, bytes, cudaMemcpyHostToDevice));
    // STARTER
    // TODO 3: copy A_h and B_h to the device (cudaMemcpy, cudaMemcpyHostToDevice).
    // END SOLUTION

    // BEGIN SOLUTION
    vecAddKernel<<<(n + 255) / 256, 256>>>(A_d, B_d, C_d, n);
    CHECK(cudaGetLastError());
    // STARTER
    // TODO 4: launch vecAddKernel with 256 threads per block and enough blocks to
    //         cover all n elements, then check the launch with cudaGetLastError().
    // END SOLUTION

    // BEGIN SOLUTION
    CHECK(cudaMemcpy(C_h, C_d, bytes, cudaMemcpyDeviceToHost));
    // STARTER
    // TODO 5: copy C_d back into C_h (cudaMemcpyDeviceToHost).
    // END SOLUTION

    // BEGIN SOLUTION
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
    // STARTER
    // TODO 6: free the three device buffers (cudaFree).
    // END SOLUTION
}
