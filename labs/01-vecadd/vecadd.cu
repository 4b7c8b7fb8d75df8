// Lab 01: vector addition. Read README.md beside this file first.
//
// Fill in the TODOs. pmpplab calls vecAdd() with host arrays A_h and B_h of n floats
// and expects C_h[i] = A_h[i] + B_h[i] when it returns.
#include <cuda_runtime.h>
#include <stdio.h>

// TODO 1: each thread computes one element of C.
//   - compute the global index i from blockIdx.x, blockDim.x and threadIdx.x
//   - only threads with i < n may touch the arrays
__global__ void vecAddKernel(const float *A, const float *B, float *C, int n)
{
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
    // TODO 2: declare the device pointers A_d, B_d and C_d and allocate n floats for
    //         each with cudaMalloc (sizes are in bytes: n * sizeof(float)).

    // TODO 3: copy A_h and B_h to the device (cudaMemcpy, cudaMemcpyHostToDevice).

    // TODO 4: launch vecAddKernel with 256 threads per block and enough blocks to
    //         cover all n elements, then check the launch with cudaGetLastError().

    // TODO 5: copy C_d back into C_h (cudaMemcpyDeviceToHost).

    // TODO 6: free the three device buffers (cudaFree).
}
