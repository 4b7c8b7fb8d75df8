// A cooperative grid whose barrier never opens: block 1 returns before this_grid().sync(),
// so the other blocks wait for ever. A GPU hangs (until the watchdog, or for good); the
// emulator stops the kernel with a barrier fault at the grid.sync() line, naming how many
// blocks wait and which one ended. Not for a GPU.
#include <cooperative_groups.h>
#include "check.h"
namespace cg = cooperative_groups;

__global__ void phase(int *data)
{
	cg::grid_group grid = cg::this_grid();
	if (blockIdx.x == 1)
		return; // the mistake: this block never reaches grid.sync()
	data[grid.thread_rank()] = 1;
	grid.sync();
	data[grid.thread_rank()] += data[(grid.thread_rank() + 64) % grid.size()];
}

int main()
{
	int *d;
	CHECK(cudaMalloc(&d, 4 * 64 * sizeof(int)));
	void *args[] = { &d };
	CHECK(cudaLaunchCooperativeKernel((void *)phase, 4, 64, args, 0, 0));
	printf("launched\n");
	cudaError_t e = cudaDeviceSynchronize();
	printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
	return e == cudaSuccess;
}
