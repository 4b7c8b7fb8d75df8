// Device printf with most conversions and flags, in block then thread order after the
// host's own output, and a failed device assert(): the launch succeeds, the next
// synchronising call and every later one return cudaErrorAssert.
#include <cassert>
#include "check.h"

__device__ const char *names[3] = { "alpha", "beta", "gamma" };

__global__ void hello(int n, double d, long long big, const char *tag)
{
	int t = threadIdx.x + blockIdx.x * blockDim.x;
	if (t < n)
		printf("[%d,%d] t=%02d f=%8.3f e=%e g=%g ll=%lld u=%u x=%#x c=%c s=%s %s %5.1f%% "
		       "|%-6d|%+d ptr-null=%d\n", blockIdx.x, threadIdx.x, t, d * t, d / 1e5,
		       0.0001 * t, big + t, (unsigned)-t, 255 + t, 'A' + t, names[t % 3], "lit",
		       12.5f * t, t, t, tag == NULL);
}

__global__ void checker(const int *a, int n)
{
	int i = threadIdx.x;
	if (i < n)
		assert(a[i] >= 0);
}

int main()
{
	printf("host: before launch\n");
	hello<<<2, 3>>>(5, 1.5, 1LL << 40, NULL);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	printf("host: after sync\n");
	int h[8] = { 1, 2, 3, -4, 5, 6, 7, 8 }, *d;
	CHECK(cudaMalloc(&d, sizeof h));
	CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
	checker<<<1, 8>>>(d, 8);
	cudaError_t e1 = cudaGetLastError(), e2 = cudaDeviceSynchronize();
	cudaError_t e3 = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
	printf("assert: launch=%s sync=%s next=%s\n", cudaGetErrorName(e1), cudaGetErrorName(e2),
	       cudaGetErrorName(e3));
	int ok = e1 == cudaSuccess && e2 == cudaErrorAssert && e3 == cudaErrorAssert;
	printf("%s\n", ok ? "PASS" : "FAIL");
	return !ok;
}
