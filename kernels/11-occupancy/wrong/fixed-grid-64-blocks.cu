// expect: performance
// expect-on: gpu
// Known-wrong for speed on a GPU: correct (the limits of every resource in a table and a
// min loop; part 2 reads the device's limits with cudaDeviceGetAttribute), but the kernel
// is a grid-stride loop on a fixed grid of 64 blocks of 128 threads, for a GPU of 132
// SMs: on an H100 it took 9.99 times the solution's time.
#include <cuda_runtime.h>
#include <stdio.h>
#include <limits.h>

struct SMLimits {
    int maxThreadsPerSM, maxBlocksPerSM, regsPerSM, sharedPerSM;
    int maxThreadsPerBlock, maxSharedPerBlock;
};

__host__ __device__ static int roundUp(int v, int unit)
{
    return (v + unit - 1) / unit * unit;
}

// Returns the resident blocks; *limiter: 0 cannot launch, 1 threads, 2 block slots,
// 3 registers, 4 shared memory (the first on a tie).
__host__ __device__ int residentBlocks(int threads, int regs, int shared, const SMLimits *sm,
                                       int *limiter)
{
    *limiter = 0;
    if (threads < 1 || threads > sm->maxThreadsPerBlock || regs > 255 ||
        shared > sm->maxSharedPerBlock) {
        return 0;
    }
    int warps = roundUp(threads, 32) / 32;
    int limit[5];
    limit[1] = sm->maxThreadsPerSM / (warps * 32);
    limit[2] = sm->maxBlocksPerSM;
    limit[3] = regs > 0 ? sm->regsPerSM / (warps * roundUp(regs * 32, 256)) : INT_MAX;
    limit[4] = shared > 0 ? sm->sharedPerSM / roundUp(shared, 256) : INT_MAX;
    *limiter = 1;
    for (int r = 2; r <= 4; r++) {
        if (limit[r] < limit[*limiter]) {
            *limiter = r;
        }
    }
    return limit[*limiter];
}

__global__ void occupancyKernel(const int *threads, const int *regs, const int *shared,
                                SMLimits sm, int *blocks, int *warps, int *limiter, int k)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < k; i += blockDim.x * gridDim.x) {
        int b = residentBlocks(threads[i], regs[i], shared[i], &sm, &limiter[i]);
        blocks[i] = b;
        warps[i] = b * roundUp(threads[i], 32) / 32;
    }
}

__global__ void probeKernel(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = i;
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

static void checkOnDevice(int *deviceAgree_h)
{
    static const int sizes[7] = {32, 96, 128, 250, 512, 1000, 1024};
    int dev;
    CHECK(cudaGetDevice(&dev));
    SMLimits sm;
    CHECK(cudaDeviceGetAttribute(&sm.maxThreadsPerSM, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    CHECK(cudaDeviceGetAttribute(&sm.maxBlocksPerSM, cudaDevAttrMaxBlocksPerMultiprocessor, dev));
    CHECK(cudaDeviceGetAttribute(&sm.regsPerSM, cudaDevAttrMaxRegistersPerMultiprocessor, dev));
    CHECK(cudaDeviceGetAttribute(&sm.sharedPerSM, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    CHECK(cudaDeviceGetAttribute(&sm.maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, dev));
    CHECK(cudaDeviceGetAttribute(&sm.maxSharedPerBlock, cudaDevAttrMaxSharedMemoryPerBlock, dev));
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, probeKernel));
    for (int j = 0; j < 7; j++) {
        int limiter, n;
        int mine = residentBlocks(sizes[j], attr.numRegs, (int)attr.sharedSizeBytes, &sm, &limiter);
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, probeKernel, sizes[j], 0));
        deviceAgree_h[j] = mine == n ? 1 : 0;
    }
}

void occupancy(const int *threads_h, const int *regs_h, const int *shared_h, int *blocks_h,
               int *warps_h, int *limiter_h, int *deviceAgree_h, int k, int maxThreadsPerSM,
               int maxBlocksPerSM, int regsPerSM, int sharedPerSM, int maxThreadsPerBlock,
               int maxSharedPerBlock)
{
    SMLimits sm = {maxThreadsPerSM, maxBlocksPerSM, regsPerSM, sharedPerSM,
                   maxThreadsPerBlock, maxSharedPerBlock};
    size_t bytes = k * sizeof(int);
    int *in_d, *out_d; // three inputs and three outputs, each in one allocation
    CHECK(cudaMalloc((void **)&in_d, 3 * bytes));
    CHECK(cudaMalloc((void **)&out_d, 3 * bytes));
    CHECK(cudaMemcpy(in_d, threads_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(in_d + k, regs_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(in_d + 2 * k, shared_h, bytes, cudaMemcpyHostToDevice));

    occupancyKernel<<<64, 128>>>(in_d, in_d + k, in_d + 2 * k, sm, out_d, out_d + k,
                                 out_d + 2 * k, k);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(blocks_h, out_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(warps_h, out_d + k, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(limiter_h, out_d + 2 * k, bytes, cudaMemcpyDeviceToHost));

    checkOnDevice(deviceAgree_h);
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
}
