// Vendor yardstick for the memory-bound labs: the fastest way to move bytes, a copy.
// A kernel that reads its input once and writes its output once can at best run at the
// rate of a device-to-device copy, so the grader prints the student's bytes per second
// as a fraction of this copy's (no points). The copy is a kernel (a grid-stride loop of
// 16-byte loads and stores), so it is timed like the student's kernels; a performance
// check's `vendor.bytes` says how many bytes it moves (read + written).
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

__global__ void vendorCopyKernel(const float4 *in, float4 *out, size_t n4, const float *tailIn,
                                 float *tailOut, int tail)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride)
        out[i] = in[i];
    if (blockIdx.x == 0 && threadIdx.x < tail)
        tailOut[threadIdx.x] = tailIn[threadIdx.x];
}

static void vendorCopy(const void *in_h, void *out_h, size_t count)
{
    size_t bytes = count * sizeof(float);
    float *in_d, *out_d;
    CHECK(cudaMalloc((void **)&in_d, bytes ? bytes : 4));
    CHECK(cudaMalloc((void **)&out_d, bytes ? bytes : 4));
    CHECK(cudaMemcpy(in_d, in_h, bytes, cudaMemcpyHostToDevice));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t n4 = count / 4;
    vendorCopyKernel<<<sms * 8, 512>>>((const float4 *)in_d, (float4 *)out_d, n4,
                                       in_d + 4 * n4, out_d + 4 * n4, (int)(count % 4));
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}

// Copies n floats from in to out: 8 n bytes moved.
void copyFloats(const float *in_h, float *out_h, int n)
{
    vendorCopy(in_h, out_h, (size_t)n);
}

// Copies a rows x cols matrix of floats: 8 rows cols bytes moved.
void copyFloats2D(const float *in_h, float *out_h, int rows, int cols)
{
    vendorCopy(in_h, out_h, (size_t)rows * cols);
}
