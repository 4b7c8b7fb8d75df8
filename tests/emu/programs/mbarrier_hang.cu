// A cuda::barrier whose phase can never complete: it is initialised for one thread more
// than the block has, so arrive_and_wait() waits for ever. A GPU hangs (until the
// watchdog, or for good); the emulator stops the kernel with a barrier fault at the wait's
// line, naming the arrivals still missing (with the grader's time limit set, it writes
// the hang report there instead: exec_stuck.c). Not for a GPU.
#include <cuda/barrier>
#include "check.h"
#pragma nv_diag_suppress static_var_with_dynamic_init // cuda::barrier is set up by init()

__global__ void oneShort(int *data)
{
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	if (threadIdx.x == 0)
		init(&bar, blockDim.x + 1); // the mistake: one arrival more than the threads
	__syncthreads();
	data[threadIdx.x] = threadIdx.x;
	bar.arrive_and_wait();
	data[threadIdx.x] += data[(threadIdx.x + 1) % blockDim.x];
}

int main()
{
	int *d;
	CHECK(cudaMalloc(&d, 64 * sizeof(int)));
	oneShort<<<1, 64>>>(d);
	printf("launched\n");
	cudaError_t e = cudaDeviceSynchronize();
	printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
	return e == cudaSuccess;
}
