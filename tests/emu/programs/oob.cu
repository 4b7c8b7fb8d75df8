// An off-by-one bound (i <= n) writes one element past a cudaMalloc allocation. The
// emulator stops the kernel (a GPU may not notice one element; compute-sanitizer does),
// reports the .cu line, and every later call returns the sticky error.
#include <cstdio>

__global__ void initKernel(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i <= n)
		a[i] = 1.0f;
}

int main()
{
	const int n = 1000; // 4 blocks of 256: thread 1000 exists
	float *d;
	float h[4];
	printf("malloc: %s\n", cudaGetErrorName(cudaMalloc(&d, n * sizeof(float))));
	initKernel<<<(n + 255) / 256, 256>>>(d, n);
	printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
	printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	printf("memcpy: %s\n", cudaGetErrorName(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)));
	printf("getlast: %s\n", cudaGetErrorName(cudaGetLastError()));
	printf("getlast again: %s\n", cudaGetErrorName(cudaGetLastError()));
	return 1;
}
