// Runs one kernel of bad.cu / good.cu by name, with the launch configuration its test
// uses, so that compute-sanitizer (GPU) or the emulator's race checker can be pointed at
// each known-bad and known-good kernel separately (gpu_sanitizer.sh).
// Usage: driver KERNEL     exit 0 when the launch completed, 1 on a CUDA error, 2 usage.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bad.cu"
#include "good.cu"

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "driver: %s: %s\n", #call, cudaGetErrorString(e_)); \
			return 1;                                                          \
		}                                                                          \
	} while (0)

static float *farray(size_t n)
{
	float *h = (float *)malloc(n * sizeof(float)), *d = NULL;
	for (size_t i = 0; i < n; i++)
		h[i] = (float)((i * 7 + 1) % 13) - 6.0f;
	cudaMalloc(&d, n * sizeof(float));
	cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
	free(h);
	return d;
}

static unsigned char *barray(size_t n)
{
	unsigned char *h = (unsigned char *)malloc(n), *d = NULL;
	for (size_t i = 0; i < n; i++)
		h[i] = (unsigned char)(i * 37 % 251);
	cudaMalloc(&d, n);
	cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);
	free(h);
	return d;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s KERNEL\n", argv[0]);
		return 2;
	}
	const char *k = argv[1];
	float *a = farray(48 * 48), *b = farray(48 * 48), *c = farray(48 * 48);
	float *in = farray(1024), *out = farray(1024);
	unsigned char *bytes = barray(4096);
	unsigned *hist = NULL;
	int *counts = NULL, hc[4] = { 0, 3, 1, 5 };
	cudaMalloc(&hist, 64 * sizeof(unsigned));
	cudaMemset(hist, 0, 64 * sizeof(unsigned));
	cudaMalloc(&counts, sizeof hc);
	cudaMemcpy(counts, hc, sizeof hc, cudaMemcpyHostToDevice);
	dim3 t16(16, 16);
	if (!strcmp(k, "mm_no_first_sync"))
		mm_no_first_sync<<<dim3(2, 2), t16>>>(a, b, c, 32);
	else if (!strcmp(k, "mm_no_second_sync"))
		mm_no_second_sync<<<dim3(2, 2), t16>>>(a, b, c, 32);
	else if (!strcmp(k, "mm_sync_in_if")) // whole warps outside (rows 40..47)
		mm_sync_in_if<<<dim3(2, 3), t16>>>(a, b, c, 40);
	else if (!strcmp(k, "mm_sync_in_if_split")) // columns 40..47: warps split
		mm_sync_in_if<<<dim3(3, 3), t16>>>(a, b, c, 40);
	else if (!strcmp(k, "mm_return_then_sync"))
		mm_return_then_sync<<<dim3(2, 3), t16>>>(a, b, c, 40);
	else if (!strcmp(k, "mm_return_then_sync_split"))
		mm_return_then_sync<<<dim3(3, 3), t16>>>(a, b, c, 40);
	else if (!strcmp(k, "reduce_no_sync"))
		reduce_no_sync<<<2, 256>>>(in, out);
	else if (!strcmp(k, "ks_inplace"))
		ks_inplace<<<2, 256>>>(in, out, 500);
	else if (!strcmp(k, "hist_plain"))
		hist_plain<<<4, 128>>>(bytes, 4096, hist);
	else if (!strcmp(k, "hist_no_init"))
		hist_no_init<<<2, 128>>>(bytes, 1024, hist);
	else if (!strcmp(k, "two_barriers"))
		two_barriers<<<1, 128>>>(out);
	else if (!strcmp(k, "warp_tail_no_syncwarp"))
		warp_tail_no_syncwarp<<<2, 64>>>(in, out);
	else if (!strcmp(k, "mm_good"))
		mm_good<<<dim3(3, 3), t16>>>(a, b, c, 40);
	else if (!strcmp(k, "reduce_syncwarp"))
		reduce_syncwarp<<<4, 256>>>(in, out);
	else if (!strcmp(k, "reduce_shuffle"))
		reduce_shuffle<<<4, 256>>>(in, out);
	else if (!strcmp(k, "uniform_conditions"))
		uniform_conditions<<<3, 128>>>(out, 1);
	else if (!strcmp(k, "uniform_conditions_32"))
		uniform_conditions<<<2, 32>>>(out, 1);
	else if (!strcmp(k, "hist_atomic"))
		hist_atomic<<<4, 128>>>(bytes, 4096, hist);
	else if (!strcmp(k, "ks_good"))
		ks_good<<<4, 256>>>(in, out, 1000);
	else if (!strcmp(k, "loop_from_shared"))
		loop_from_shared<<<4, 128>>>(counts, out);
	else {
		fprintf(stderr, "driver: no kernel %s\n", k);
		return 2;
	}
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	printf("%s: done\n", k);
	return 0;
}
