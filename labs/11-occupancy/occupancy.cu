// Lab 11: device query and occupancy. Read README.md beside this file first.
//
// Part 1: pmpplab describes an SM (the limits) and k kernel configurations (threads per
//         block, registers per thread, shared bytes per block); occupancy() must return,
//         for each, the resident blocks and warps per SM and the limiting resource.
// Part 2: the same computation for probeKernel on the GPU this program runs on, checked
//         against the CUDA runtime's own answer.
// The data movement and the kernel are written; residentBlocks() and part 2 are yours.
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
    // TODO 1: a configuration that cannot launch at all (threads outside
    //         1..maxThreadsPerBlock, regs > MAX_REGS_PER_THREAD, shared > maxSharedPerBlock)
    //         gets 0 blocks and LIMIT_INVALID.

    // TODO 2: the blocks each resource allows, from warps = threads rounded up to warps:
    //         thread slots, block slots, registers (per warp, rounded up to
    //         REG_ALLOC_UNIT), shared memory (per block, rounded up to SHARED_ALLOC_UNIT;
    //         no limit when the block uses none).

    // TODO 3: return the smallest; *limiter = the first resource (in the order of the
    //         LIMIT_ codes) that gives it.
    (void)threads; (void)regs; (void)shared; (void)sm;
    *limiter = LIMIT_INVALID;
    return 0;
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

    // TODO 4: read the device's properties (cudaGetDeviceProperties) and probeKernel's
    //         resources (cudaFuncGetAttributes), and fill an SMLimits from the properties.
    (void)prop; (void)attr;

    for (int j = 0; j < PROBE_SIZES; j++) {
        // TODO 5: your residentBlocks() for probeKernel in blocks of probeBlockSizes[j]
        //         threads, and the runtime's answer from
        //         cudaOccupancyMaxActiveBlocksPerMultiprocessor; deviceAgree_h[j] = 1 when
        //         they are equal, 0 when not.
    }
    (void)deviceAgree_h;
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
