// The commonest beginner's mistake: a host pointer (or a never-allocated NULL) passed
// to a kernel. The emulator stops the kernel and names the argument. (A GPU with
// heterogeneous memory management may even accept the host pointer: emulator only.)
#include <cstdio>
#include <cstdlib>

__global__ void addOne(const float *a, float *c, int n)
{
	int i = threadIdx.x;
	if (i < n)
		c[i] = a[i] + 1;
}

int main()
{
	float *h = (float *)malloc(400), *d;
	for (int i = 0; i < 100; i++)
		h[i] = (float)i;
	cudaMalloc(&d, 400);
	addOne<<<1, 100>>>(h, d, 100); // wrong: h is host memory
	printf("host pointer: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	cudaDeviceReset();
	cudaMalloc(&d, 400);
	float *never = NULL;
	addOne<<<1, 100>>>(never, d, 100); // wrong: never allocated
	printf("null pointer: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	free(h);
	return 0;
}
