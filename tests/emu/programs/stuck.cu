// A kernel that never finishes (issue 18, item 1): warp 0 spins in a loop, warp 1 waits at
// the __syncthreads() warp 0 never reaches. Past PMPPLAB_EMU_STOP_MS the emulator names
// both (exec_stuck.c; the spinning warp is at line 13 or 14, its loop is 13-14);
// alarm() then ends the program, as the grader's time limit would.
#include "check.h"
#include <stdlib.h>
#include <unistd.h>

__global__ void spin(float *x, float stop)
{
	float s = x[threadIdx.x];
	if (threadIdx.x < 32) {
		while (s < stop) {
			s = s * 1.0f + 0.0f;
		}
	}
	__syncthreads();
	x[threadIdx.x] = s;
}

int main(void)
{
	float *x;
	CHECK(cudaMalloc(&x, 64 * sizeof(float)));
	CHECK(cudaMemset(x, 0, 64 * sizeof(float)));
	setenv("PMPPLAB_EMU_STOP_MS", "300", 1);
	alarm(3);
	spin<<<1, 64>>>(x, 1.0f);
	CHECK(cudaDeviceSynchronize());
	printf("finished\n");
	return 0;
}
