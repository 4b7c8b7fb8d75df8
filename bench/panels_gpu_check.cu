/* panels_gpu_check — on a GPU, compares pmpplab's occupancy model (grader/occupancy.c
 * through cuda_occupancy.h) with the CUDA runtime's
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor, for kernels of different register and
 * shared-memory appetites, every block size 32..1024 and a few dynamic shared sizes; and
 * the detected device's fields with cudaGetDeviceProperties. Prints one line per
 * mismatch and a summary; exits 1 on any mismatch, 77 without a GPU.
 * Built and run by bench/panels_gpu_check.sh. */
#include <cstdio>
#include <cstring>

#include "occupancy.h"

#define TILE 16

__global__ void k_small(float *x) { x[threadIdx.x] += 1.0f; }

__global__ void k_tiled(const float *a, const float *b, float *c, int n)
{
	__shared__ float as[TILE][TILE], bs[TILE][TILE];
	int r = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
	float s = 0;
	for (int t = 0; t < n / TILE; t++) {
		as[threadIdx.y][threadIdx.x] = a[r * n + t * TILE + threadIdx.x];
		bs[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + col];
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			s += as[threadIdx.y][k] * bs[k][threadIdx.x];
		__syncthreads();
	}
	c[r * n + col] = s;
}

__global__ void k_smem12k(float *x)
{
	__shared__ float buf[3072];
	buf[threadIdx.x] = x[threadIdx.x];
	__syncthreads();
	x[threadIdx.x] = buf[3071 - threadIdx.x];
}

/* Many live values: high register count. */
__global__ void k_regs(const float *in, float *out, int n)
{
	float v[40];
#pragma unroll
	for (int k = 0; k < 40; k++)
		v[k] = in[(threadIdx.x + k * 97) % n];
	float s = 0;
#pragma unroll
	for (int k = 0; k < 40; k++)
		s += v[k] * v[(k * 7) % 40] + v[(k * 13) % 40];
	out[threadIdx.x] = s;
}

extern __shared__ float dyn[];
__global__ void k_dyn(float *x)
{
	dyn[threadIdx.x] = x[threadIdx.x];
	__syncthreads();
	x[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}

struct kern {
	const char *name;
	const void *fn;
};

static int check_device(const cudaDeviceProp &p, const occ_device &d)
{
	int bad = 0;
#define SAME(a, b)                                                                       \
	if ((long long)(a) != (long long)(b)) {                                          \
		printf("device field mismatch: %s = %lld, cudaDeviceProp %s = %lld\n", #a, \
		       (long long)(a), #b, (long long)(b));                              \
		bad++;                                                                   \
	}
	SAME(d.cc_major, p.major);
	SAME(d.cc_minor, p.minor);
	SAME(d.max_threads_per_block, p.maxThreadsPerBlock);
	SAME(d.max_threads_per_sm, p.maxThreadsPerMultiProcessor);
	SAME(d.regs_per_block, p.regsPerBlock);
	SAME(d.regs_per_sm, p.regsPerMultiprocessor);
	SAME(d.warp_size, p.warpSize);
	SAME(d.smem_per_block, p.sharedMemPerBlock);
	SAME(d.smem_per_sm, p.sharedMemPerMultiprocessor);
	SAME(d.smem_per_block_optin, p.sharedMemPerBlockOptin);
	SAME(d.reserved_smem_per_block, p.reservedSharedMemPerBlock);
	SAME(d.sm_count, p.multiProcessorCount);
	return bad;
}

int main()
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("no GPU: skipped\n");
		return 77;
	}
	cudaDeviceProp p;
	cudaGetDeviceProperties(&p, 0);
	occ_device d;
	if (occ_device_detect(&d) != 0) {
		printf("occ_device_detect failed on a machine with a GPU\n");
		return 1;
	}
	printf("device: %s (%s), %d SMs\n", d.name, d.arch, d.sm_count);
	int bad = check_device(p, d);
	/* The built-in table's entry of the same architecture, where there is one, must
	 * agree on everything but the SM count (H200 vs H100...). */
	const occ_device *t = occ_device_find(d.arch);
	if (t) {
		occ_device same = *t;
		same.sm_count = p.multiProcessorCount;
		int tb = check_device(p, same);
		printf("built-in %s entry (%s): %s\n", d.arch, t->name, tb ? "DIFFERS (see above)" : "agrees");
		bad += tb;
	}
	kern ks[] = {{"k_small", (const void *)k_small}, {"k_tiled", (const void *)k_tiled},
		     {"k_smem12k", (const void *)k_smem12k}, {"k_regs", (const void *)k_regs},
		     {"k_dyn", (const void *)k_dyn}};
	const size_t dyns[] = {0, 4096, 20000, 48 * 1024};
	long checked = 0;
	for (const kern &k : ks) {
		cudaFuncAttributes a;
		if (cudaFuncGetAttributes(&a, k.fn) != cudaSuccess) {
			printf("%s: cudaFuncGetAttributes failed\n", k.name);
			return 1;
		}
		printf("%-10s numRegs %3d sharedSizeBytes %6zu maxThreadsPerBlock %d\n", k.name,
		       a.numRegs, a.sharedSizeBytes, a.maxThreadsPerBlock);
		for (size_t dyn : dyns) {
			if (dyn && strcmp(k.name, "k_dyn") != 0 && strcmp(k.name, "k_small") != 0)
				continue;
			for (int block = 32; block <= 1024; block += 32) {
				int want = -1;
				cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&want, k.fn, block, dyn);
				occ_kernel ok = {a.numRegs, a.sharedSizeBytes, dyn, 1};
				occ_result r;
				int rc = occ_compute(&d, &ok, block, &r);
				checked++;
				int got = rc == 0 ? r.blocks_per_sm : -1;
				if (e != cudaSuccess)
					want = 0; /* an impossible configuration */
				if (got != want) {
					printf("MISMATCH %s block %d dyn %zu: runtime %d (%s), pmpplab %d\n",
					       k.name, block, dyn, want, cudaGetErrorString(e), got);
					bad++;
				}
			}
		}
	}
	printf("%ld configurations checked, %d mismatches\n", checked, bad);
	return bad ? 1 : 0;
}
