// Known-right: part 1 counts the resident blocks by adding one block at a time until the
// next does not fit, checking threads, block slots, registers and shared memory in that
// order (so ties name the same limiter as the solution): a loop whose trip count depends
// on the configuration, so the lanes of a warp diverge (36% of them busy on the emulator).
#include <cuda_runtime.h>
#include <stdio.h>

#define WARP_SIZE 32
#define REG_ALLOC_UNIT 256   // registers are given to a warp in multiples of 256
#define SHARED_ALLOC_UNIT 256 // shared memory is given to a block in multiples of 256 bytes
#define MAX_REGS_PER_THREAD 255

enum { LIMIT_INVALID = 0, LIMIT_THREADS = 1, LIMIT_BLOCKS = 2, LIMIT_REGISTERS = 3, LIMIT_SHARED = 4 };

struct SMLimits {
    int maxThreadsPerSM, maxBlocksPerSM, regsPerSM, sharedPerSM;
    int maxThreadsPerBlock, maxSharedPerBlock;
};

// Resident blocks per SM of a kernel with THREADS threads per block, REGS registers per
// thread and SHARED bytes of shared memory per block; *limiter says which resource
// allows the fewest blocks (the first of threads, blocks, registers, shared on a tie).
__host__ __device__ int residentBlocks(int threads, int regs, int shared, const SMLimits *sm,
                                       int *limiter)
{
    if (threads < 1 || threads > sm->maxThreadsPerBlock || regs > MAX_REGS_PER_THREAD ||
        shared > sm->maxSharedPerBlock) {
        *limiter = LIMIT_INVALID;
        return 0;
    }
    // add blocks one at a time until the next one does not fit; the limiter is the first
    // resource (in the order threads, slots, registers, shared memory) that refuses it
    int warps = (threads + WARP_SIZE - 1) / WARP_SIZE;
    int regsPerBlock = warps * ((regs * WARP_SIZE + REG_ALLOC_UNIT - 1) / REG_ALLOC_UNIT) * REG_ALLOC_UNIT;
    int shPerBlock = (shared + SHARED_ALLOC_UNIT - 1) / SHARED_ALLOC_UNIT * SHARED_ALLOC_UNIT;
    int b = 0;
    for (;;) {
        int next = b + 1;
        if (next * warps * WARP_SIZE > sm->maxThreadsPerSM) { *limiter = LIMIT_THREADS; break; }
        if (next > sm->maxBlocksPerSM) { *limiter = LIMIT_BLOCKS; break; }
        if (next * regsPerBlock > sm->regsPerSM) { *limiter = LIMIT_REGISTERS; break; }
        if (next * shPerBlock > sm->sharedPerSM) { *limiter = LIMIT_SHARED; break; }
        b = next;
    }
    return b;
}

__global__ void occupancyKernel(const int *threads, const int *regs, const int *shared,
                                SMLimits sm, int *blocks, int *warps, int *limiter, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k) {
        int lim;
        int b = residentBlocks(threads[i], regs[i], shared[i], &sm, &lim);
        blocks[i] = b;
        warps[i] = b * ((threads[i] + WARP_SIZE - 1) / WARP_SIZE);
        limiter[i] = lim;
    }
}

// Part 2's kernel: it only has to exist; its resources are what we look at.
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

#define PROBE_SIZES 7
static const int probeBlockSizes[PROBE_SIZES] = {32, 96, 128, 250, 512, 1000, 1024};

// Part 2: deviceAgree_h[j] = 1 when residentBlocks() on this GPU agrees with the runtime
// for probeKernel in blocks of probeBlockSizes[j] threads, 0 when it does not.
static void checkOnDevice(int *deviceAgree_h)
{
    int dev;
    cudaDeviceProp prop;
    cudaFuncAttributes attr;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    CHECK(cudaFuncGetAttributes(&attr, probeKernel));

    SMLimits sm;
    sm.maxThreadsPerSM = prop.maxThreadsPerMultiProcessor;
    sm.maxBlocksPerSM = prop.maxBlocksPerMultiProcessor;
    sm.regsPerSM = prop.regsPerMultiprocessor;
    sm.sharedPerSM = (int)prop.sharedMemPerMultiprocessor;
    sm.maxThreadsPerBlock = prop.maxThreadsPerBlock;
    sm.maxSharedPerBlock = (int)prop.sharedMemPerBlock;
    printf("%s: %d SMs, %d threads, %d blocks, %d registers, %zu bytes of shared memory per SM\n",
           prop.name, prop.multiProcessorCount, prop.maxThreadsPerMultiProcessor,
           prop.maxBlocksPerMultiProcessor, prop.regsPerMultiprocessor,
           prop.sharedMemPerMultiprocessor);

    for (int j = 0; j < PROBE_SIZES; j++) {
        int limiter, runtimeBlocks;
        int mine = residentBlocks(probeBlockSizes[j], attr.numRegs, (int)attr.sharedSizeBytes,
                                  &sm, &limiter);
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtimeBlocks, probeKernel,
                                                            probeBlockSizes[j], 0));
        printf("probeKernel, %4d threads, %d registers: %2d blocks per SM (runtime: %2d)\n",
               probeBlockSizes[j], attr.numRegs, mine, runtimeBlocks);
        deviceAgree_h[j] = (mine == runtimeBlocks);
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
    int *threads_d, *regs_d, *shared_d, *blocks_d, *warps_d, *limiter_d;
    CHECK(cudaMalloc((void **)&threads_d, bytes));
    CHECK(cudaMalloc((void **)&regs_d, bytes));
    CHECK(cudaMalloc((void **)&shared_d, bytes));
    CHECK(cudaMalloc((void **)&blocks_d, bytes));
    CHECK(cudaMalloc((void **)&warps_d, bytes));
    CHECK(cudaMalloc((void **)&limiter_d, bytes));
    CHECK(cudaMemcpy(threads_d, threads_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(regs_d, regs_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(shared_d, shared_h, bytes, cudaMemcpyHostToDevice));

    // Part 1
    occupancyKernel<<<(k + 255) / 256, 256>>>(threads_d, regs_d, shared_d, sm, blocks_d,
                                              warps_d, limiter_d, k);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(blocks_h, blocks_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(warps_h, warps_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(limiter_h, limiter_d, bytes, cudaMemcpyDeviceToHost));

    // Part 2
    checkOnDevice(deviceAgree_h);

    CHECK(cudaFree(threads_d));
    CHECK(cudaFree(regs_d));
    CHECK(cudaFree(shared_d));
    CHECK(cudaFree(blocks_d));
    CHECK(cudaFree(warps_d));
    CHECK(cudaFree(limiter_d));
}
