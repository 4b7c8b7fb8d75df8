// Known-right (issue 14): the solution's answer with 2-D blocks of 32 x 8 threads in a 2-D
// grid 64 blocks wide; each thread's configuration is its linear index in the grid.
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
    int warps = (threads + WARP_SIZE - 1) / WARP_SIZE;

    int best = sm->maxThreadsPerSM / (warps * WARP_SIZE);
    *limiter = LIMIT_THREADS;

    if (sm->maxBlocksPerSM < best) {
        best = sm->maxBlocksPerSM;
        *limiter = LIMIT_BLOCKS;
    }

    int regsPerWarp = (regs * WARP_SIZE + REG_ALLOC_UNIT - 1) / REG_ALLOC_UNIT * REG_ALLOC_UNIT;
    if (regsPerWarp > 0) {
        int byRegs = sm->regsPerSM / (regsPerWarp * warps);
        if (byRegs < best) {
            best = byRegs;
            *limiter = LIMIT_REGISTERS;
        }
    }

    int sharedPerBlock = (shared + SHARED_ALLOC_UNIT - 1) / SHARED_ALLOC_UNIT * SHARED_ALLOC_UNIT;
    if (sharedPerBlock > 0) {
        int byShared = sm->sharedPerSM / sharedPerBlock;
        if (byShared < best) {
            best = byShared;
            *limiter = LIMIT_SHARED;
        }
    }
    return best;
}

__global__ void occupancyKernel(const int *threads, const int *regs, const int *shared,
                                SMLimits sm, int *blocks, int *warps, int *limiter, int k)
{
    int block = blockIdx.y * gridDim.x + blockIdx.x;
    int i = block * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
    if (i < k) {
        int lim;
        int b = residentBlocks(threads[i], regs[i], shared[i], &sm, &lim);
        blocks[i] = b;
        warps[i] = b * ((threads[i] + WARP_SIZE - 1) / WARP_SIZE);
        limiter[i] = lim;
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
    dim3 block(32, 8);
    dim3 grid(64, (k + 64 * 256 - 1) / (64 * 256));
    occupancyKernel<<<grid, block>>>(threads_d, regs_d, shared_d, sm, blocks_d, warps_d,
                                     limiter_d, k);
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
