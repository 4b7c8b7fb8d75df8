// A classic mistake: reading a cudaMalloc'd pointer on the host. On a GPU this dies
// with SIGSEGV; the emulator must die the same way and say why.
#include "check.h"

__global__ void fill(int *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] = i * i;
}

int main()
{
	const int n = 1000;
	int *d;
	CHECK(cudaMalloc(&d, n * sizeof(int)));
	fill<<<(n + 255) / 256, 256>>>(d, n);
	CHECK(cudaDeviceSynchronize());
	printf("kernel done\n");
	fflush(stdout);
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += d[i]; // wrong: d is a device pointer
	printf("sum=%ld\n", sum);
	return 0;
}
