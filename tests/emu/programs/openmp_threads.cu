// Several host threads driving the one device at once (issue 18: cuda-samples'
// cudaOpenMP): an OpenMP team of 4 threads, each choosing the device, allocating,
// setting and copying memory (device, pinned and managed), launching on the default
// stream and on a stream of its own, recording and waiting for events, synchronising
// the device, then copying back and freeing, while the
// others do the same. Each thread's share of the array must come back incremented by
// both kernels. Built with -Xcompiler -fopenmp (`pmpplab run` adds it for a program that
// includes <omp.h>).
#include <cstdio>
#include <omp.h>
#include "check.h"

__global__ void addConstant(int *a, int b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] += b;
}

__global__ void scaleBy(int *a, int k, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] *= k;
}

int main()
{
	const int threads = 4, per = 5000, rounds = 3;
	const int n = threads * per;
	int *a = (int *)malloc(n * sizeof(int));
	int devices = 0;
	CHECK(cudaGetDeviceCount(&devices));
	int bad[threads] = {0}, seen_device[threads];
	for (int round = 0; round < rounds; round++) {
		for (int i = 0; i < n; i++)
			a[i] = i;
		omp_set_num_threads(threads);
#pragma omp parallel
		{
			int t = omp_get_thread_num();
			CHECK(cudaSetDevice(t % devices));
			CHECK(cudaGetDevice(&seen_device[t]));
			cudaDeviceProp prop;
			CHECK(cudaGetDeviceProperties(&prop, t % devices));
			int *sub = a + t * per, *d = NULL, *scratch = NULL, *pinned = NULL, *managed = NULL;
			CHECK(cudaMalloc(&d, per * sizeof(int)));
			CHECK(cudaMalloc(&scratch, per * sizeof(int)));
			CHECK(cudaMallocHost(&pinned, per * sizeof(int)));
			CHECK(cudaMallocManaged(&managed, per * sizeof(int)));
			CHECK(cudaMemset(d, 0, per * sizeof(int)));
			CHECK(cudaMemcpy(d, sub, per * sizeof(int), cudaMemcpyHostToDevice));
			addConstant<<<(per + 127) / 128, 128>>>(d, t + 1, per);
			CHECK(cudaGetLastError());
			cudaStream_t s;
			cudaEvent_t done;
			CHECK(cudaStreamCreate(&s));
			CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
			CHECK(cudaStreamSynchronize(0)); // the default stream's kernel, before s reads d
			scaleBy<<<(per + 255) / 256, 256, 0, s>>>(d, 2, per);
			CHECK(cudaMemcpyAsync(scratch, d, per * sizeof(int), cudaMemcpyDeviceToDevice, s));
			CHECK(cudaEventRecord(done, s));
			CHECK(cudaEventSynchronize(done));
			// through pinned and managed memory, then back to the host array
			CHECK(cudaMemcpyAsync(pinned, scratch, per * sizeof(int), cudaMemcpyDeviceToHost, s));
			CHECK(cudaStreamSynchronize(s));
			CHECK(cudaMemcpy(managed, pinned, per * sizeof(int), cudaMemcpyHostToDevice));
			addConstant<<<(per + 127) / 128, 128, 0, s>>>(managed, 0, per);
			CHECK(cudaDeviceSynchronize());
			for (int i = 0; i < per; i++)
				sub[i] = managed[i];
			CHECK(cudaEventDestroy(done));
			CHECK(cudaStreamDestroy(s));
			CHECK(cudaFree(managed));
			CHECK(cudaFreeHost(pinned));
			CHECK(cudaFree(scratch));
			CHECK(cudaFree(d));
		}
		for (int t = 0; t < threads; t++)
			for (int i = t * per; i < (t + 1) * per; i++)
				bad[t] += a[i] != 2 * (i + t + 1);
	}
	CHECK(cudaDeviceSynchronize());
	for (int t = 0; t < threads; t++)
		printf("thread %d: %s, %d of %d wrong\n", t,
		       seen_device[t] == t % devices ? "on the device it set" : "on another device",
		       bad[t], rounds * per);
	free(a);
	int wrong = bad[0] + bad[1] + bad[2] + bad[3];
	printf("%s\n", wrong ? "FAILED" : "PASSED");
	return wrong ? 1 : 0;
}
