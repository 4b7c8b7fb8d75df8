// Provenance (emu/cudart_provenance.h, issue 14): where a host buffer's final values
// came from, after each way a program can fill it. Emulator only: the API is the
// emulator runtime's. Each case prints
//   NAME: kernel K (staged S) filled F changed C unwritten U host H first B launches L
#include <cuda_runtime.h>
#include <mma.h>
#include <string.h>

#include "check.h"

extern "C" {
void emu_provenance_begin(void);
int emu_provenance_query(const void *p, size_t bytes, size_t elem, unsigned long long *out);
unsigned long long emu_provenance_kernel_bytes(void);
unsigned long long emu_launch_count(void);
}

#define N 1000

__device__ float symbolData[N];

__global__ void fill(float *out, int n, float base)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = base + i;
}

__global__ void fillSymbol(int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		symbolData[i] = 3.0f * i;
}

__global__ void countOdd(unsigned *bins, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n && i % 2)
		atomicAdd(&bins[i], 1u);
}

// A tensor-core store is a kernel's work too (it was not: a lab 14 kernel storing its
// fragments straight into C was told that no kernel wrote C).
__global__ void wmmaFill(float *out)
{
	nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> c;
	nvcuda::wmma::fill_fragment(c, 13.0f);
	nvcuda::wmma::store_matrix_sync(out, c, 16, nvcuda::wmma::mem_row_major);
}

static void report(const char *name, const void *p, size_t bytes)
{
	unsigned long long c[9];
	if (emu_provenance_query(p, bytes, 4, c) != 0) {
		printf("%s: query failed\n", name);
		return;
	}
	// indices: elements kernel staged changed unwritten host first_bad overflow filled
	printf("%s: kernel %llu (staged %llu) filled %llu changed %llu unwritten %llu host %llu first %llu launches %llu\n",
	       name, c[1], c[2], c[8], c[3], c[4], c[5], c[6], emu_launch_count());
}

static float host_buf[N], other[N];

int main(void)
{
	float *d, *e;
	size_t bytes = N * sizeof(float);
	CHECK(cudaMalloc(&d, bytes));
	CHECK(cudaMalloc(&e, bytes));

	emu_provenance_begin();
	fill<<<(N + 127) / 128, 128>>>(d, N, 1.0f);
	CHECK(cudaMemcpy(host_buf, d, bytes, cudaMemcpyDeviceToHost));
	report("kernel then copy", host_buf, bytes);

	emu_provenance_begin();
	for (int i = 0; i < N; i++)
		host_buf[i] = 2.0f * i;
	report("host loop", host_buf, bytes);
	CHECK(cudaMemcpy(e, host_buf, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(host_buf, e, bytes, cudaMemcpyDeviceToHost));
	report("host, to the device and back", host_buf, bytes);

	emu_provenance_begin();
	fill<<<(N + 127) / 128, 128>>>(d, N, 1.0f);
	CHECK(cudaMemcpy(host_buf, d, bytes, cudaMemcpyDeviceToHost));
	host_buf[5] = -1.0f;
	host_buf[7] = -1.0f;
	host_buf[9] = host_buf[9]; // the same value: still the kernel's
	report("kernel, then the host changes 2", host_buf, bytes);

	emu_provenance_begin();
	fill<<<(N / 2 + 127) / 128, 128>>>(d, N / 2, 1.0f);
	CHECK(cudaMemcpy(host_buf, d, bytes / 2, cudaMemcpyDeviceToHost));
	for (int i = N / 2; i < N; i++)
		host_buf[i] = 1.0f + i;
	report("half kernel, half host", host_buf, bytes);

	emu_provenance_begin();
	fill<<<(N + 127) / 128, 128>>>(d, N, 5.0f);
	CHECK(cudaMemcpy(e, d, bytes, cudaMemcpyDeviceToDevice));
	CHECK(cudaMemset(d, 0, bytes));
	CHECK(cudaMemcpy(host_buf, e, bytes, cudaMemcpyDeviceToHost));
	report("kernel, device to device", host_buf, bytes);
	CHECK(cudaMemcpy(host_buf, d, bytes, cudaMemcpyDeviceToHost));
	report("memset only, kernels ran before", host_buf, bytes);

	emu_provenance_begin();
	unsigned *bins;
	CHECK(cudaMalloc(&bins, bytes));
	CHECK(cudaMemset(bins, 0, bytes));
	countOdd<<<(N + 127) / 128, 128>>>(bins, N);
	CHECK(cudaMemcpy(host_buf, bins, bytes, cudaMemcpyDeviceToHost));
	report("memset, atomics on half", host_buf, bytes);
	CHECK(cudaFree(bins));

	emu_provenance_begin();
	float *m;
	CHECK(cudaMallocManaged(&m, bytes));
	fill<<<(N + 127) / 128, 128>>>(m, N, 7.0f);
	CHECK(cudaDeviceSynchronize());
	m[3] = -3.0f; // the host's, after the kernel
	for (int i = 0; i < N; i++)
		host_buf[i] = m[i];
	report("managed, copied by the host", host_buf, bytes);
	CHECK(cudaFree(m));
	report("managed, after cudaFree", host_buf, bytes);

	emu_provenance_begin();
	float *pinned;
	CHECK(cudaMallocHost(&pinned, bytes));
	fill<<<(N + 127) / 128, 128>>>(d, N, 9.0f);
	CHECK(cudaMemcpyAsync(pinned, d, bytes, cudaMemcpyDeviceToHost, 0));
	CHECK(cudaStreamSynchronize(0));
	memcpy(host_buf, pinned, bytes);
	report("pinned staging", host_buf, bytes);
	float *staging = (float *)malloc(bytes);
	CHECK(cudaMemcpy(staging, d, bytes, cudaMemcpyDeviceToHost));
	memcpy(other, staging, bytes);
	free(staging);
	report("malloc staging, freed", other, bytes);
	CHECK(cudaFreeHost(pinned));

	emu_provenance_begin();
	fill<<<(N + 127) / 128, 128>>>(d, N, 11.0f);
	CHECK(cudaMemcpy2D(host_buf, 40 * sizeof(float), d, 40 * sizeof(float), 40 * sizeof(float),
			   N / 40, cudaMemcpyDeviceToHost));
	report("cudaMemcpy2D", host_buf, bytes);

	emu_provenance_begin();
	fillSymbol<<<(N + 127) / 128, 128>>>(N);
	CHECK(cudaMemcpyFromSymbol(host_buf, symbolData, bytes));
	report("from a __device__ symbol", host_buf, bytes);
	printf("kernel bytes that reached the host: %llu\n", emu_provenance_kernel_bytes());

	emu_provenance_begin();
	CHECK(cudaMemset(d, 0, 256 * sizeof(float))); // no longer an earlier kernel's bytes
	wmmaFill<<<1, 32>>>(d);
	CHECK(cudaMemcpy(host_buf, d, 256 * sizeof(float), cudaMemcpyDeviceToHost));
	report("wmma::store_matrix_sync", host_buf, 256 * sizeof(float));

	CHECK(cudaFree(d));
	CHECK(cudaFree(e));
	return 0;
}
