// Each kind of kernel fault and the error the host then sees: a failed assert(), a
// trap, a misaligned store. cudaDeviceReset between them clears the sticky error.
#include <cassert>
#include <cstdio>

__global__ void checkBound(int *a, int n)
{
	int i = threadIdx.x;
	assert(i < n);
	a[i] = i;
}

__global__ void trapAt5(int *a)
{
	if (threadIdx.x == 5)
		asm("trap;");
	a[threadIdx.x] = 1;
}

__global__ void misaligned(int *a)
{
	int *p = (int *)((char *)a + 2);
	*p = 1;
}

int main()
{
	int *d;
	cudaMalloc(&d, 1024);
	checkBound<<<1, 64>>>(d, 10);
	printf("assert: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	printf("after assert, malloc: %s\n", cudaGetErrorName(cudaMalloc(&d, 16)));
	cudaDeviceReset();
	cudaMalloc(&d, 1024);
	trapAt5<<<1, 32>>>(d);
	printf("trap: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	cudaDeviceReset();
	cudaMalloc(&d, 1024);
	misaligned<<<1, 1>>>(d);
	printf("misaligned: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	return 0;
}
