// What one small launch costs on the emulator beside its instructions (issue 18 item 5:
// simpleCudaGraphs' reduceFinal, 1 block of 512 threads, ~27 k thread-instructions a
// launch, took ~30 ms a launch). The program holds a pinned host buffer of PINNED_MIB
// MiB that is only copied from, as that sample does, and launches the same 1-block
// reduction LAUNCHES times. bench/launch_setup.sh runs it with and without the buffer.
#include <cstdio>
#include <cstdlib>

#define THREADS 512

__global__ void reduceFinal(const double *in, double *out, size_t n)
{
	__shared__ double tmp[THREADS];
	double s = 0.0;
	for (size_t i = threadIdx.x; i < n; i += blockDim.x)
		s += in[i];
	tmp[threadIdx.x] = s;
	__syncthreads();
	for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
		if (threadIdx.x < half)
			tmp[threadIdx.x] += tmp[threadIdx.x + half];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*out = tmp[0];
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	int launches = argc > 2 ? atoi(argv[2]) : 50;
	const size_t n = 2048;
	float *pinned = NULL;
	double *in, *out, h[n], r = 0;
	for (size_t i = 0; i < n; i++)
		h[i] = 1.0;
	if (mib && cudaMallocHost(&pinned, mib << 20) != cudaSuccess)
		return 1;
	float *dev = NULL;
	if (mib && (cudaMalloc(&dev, mib << 20) != cudaSuccess ||
		    cudaMemcpy(dev, pinned, mib << 20, cudaMemcpyHostToDevice) != cudaSuccess))
		return 1;
	if (cudaMalloc(&in, sizeof h) != cudaSuccess || cudaMalloc(&out, sizeof r) != cudaSuccess)
		return 1;
	cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
	for (int k = 0; k < launches; k++)
		reduceFinal<<<1, THREADS>>>(in, out, n);
	cudaMemcpy(&r, out, sizeof r, cudaMemcpyDeviceToHost);
	printf("sum %g (expected %zu)\n", r, n);
	return r == (double)n ? 0 : 1;
}
