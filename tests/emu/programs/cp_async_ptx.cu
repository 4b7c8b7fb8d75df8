// cp.async in inline PTX, every form sm_80 code uses: .ca with 4, 8 and 16 bytes, .cg
// with 16, a src-size operand (the first src-size bytes come from global memory, the
// rest are zeros), the ignore-src predicate, a guarded copy (@p), the L2 prefetch-size
// hint, an offset in the shared address, commit_group, wait_group N (older groups only)
// and wait_all. Every thread prints what landed, as bytes.
#include "check.h"

__device__ __forceinline__ unsigned smem(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

#define COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")

// 16 threads. Three groups: 4-byte copies of src-size t % 5, 8-byte ones (t % 9, with
// the L2::128B hint), 16-byte .cg ones (t % 17, with src-size 16 for the last thread).
// Each group is read once the wait that covers it has run, from a neighbour's slot.
__global__ void copySizes(const unsigned char *src, unsigned char *out)
{
	__shared__ __align__(16) unsigned char s4[16 * 4], s8[16 * 8], s16[16 * 16];
	int t = threadIdx.x, u = (t + 1) % 16;
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(smem(s4 + 4 * t)),
		     "l"(src + 4 * t), "r"(t % 5) : "memory");
	COMMIT();
	asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8, %2;" ::"r"(smem(s8 + 8 * t)),
		     "l"(src + 64 + 8 * t), "r"(t % 9) : "memory");
	COMMIT();
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem(s16 + 16 * t)),
		     "l"(src + 192 + 16 * t), "r"(t == 15 ? 16 : t % 17) : "memory");
	COMMIT();
	asm volatile("cp.async.wait_group 2;" ::: "memory"); // the 4-byte group
	__syncthreads();
	for (int i = 0; i < 4; i++)
		out[4 * t + i] = s4[4 * u + i];
	asm volatile("cp.async.wait_group 1;" ::: "memory"); // and the 8-byte one
	__syncthreads();
	for (int i = 0; i < 8; i++)
		out[64 + 8 * t + i] = s8[8 * u + i];
	asm volatile("cp.async.wait_group 0;" ::: "memory"); // all
	__syncthreads();
	for (int i = 0; i < 16; i++)
		out[192 + 16 * t + i] = s16[16 * u + i];
}

// 16 threads, dynamic shared memory: odd threads pass ignore-src (zeros land), threads
// t % 3 == 0 also copy 8 bytes under a guard predicate to offset +256 of their slot; the
// tile was filled with 0xee first, so a copy that did not happen shows; then wait_all.
__global__ void copyPredicated(const unsigned char *src, unsigned char *out)
{
	extern __shared__ __align__(16) unsigned char dyn[];
	int t = threadIdx.x;
	for (int i = 0; i < 32; i++)
		dyn[32 * t + i] = 0xee;
	__syncthreads();
	unsigned d = smem(dyn + 16 * t);
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
		     "cp.async.ca.shared.global [%0], [%1], 16, p;\n\t}" ::"r"(d),
		     "l"(src + 16 * t), "r"(t & 1) : "memory");
	asm volatile("{\n\t.reg .pred q;\n\tsetp.eq.b32 q, %2, 0;\n\t"
		     "@q cp.async.ca.shared.global [%0+256], [%1], 8;\n\t}" ::"r"(d),
		     "l"(src + 304 + 8 * t), "r"(t % 3) : "memory");
	asm volatile("cp.async.wait_all;" ::: "memory");
	__syncthreads();
	int u = 15 - t;
	for (int i = 0; i < 16; i++) {
		out[16 * t + i] = dyn[16 * u + i];
		out[256 + 16 * t + i] = dyn[256 + 16 * u + i];
	}
}

static void dump(const char *name, const unsigned char *b, int n, int per)
{
	printf("%s:\n", name);
	for (int i = 0; i < n; i += per) {
		printf("  %3d:", i);
		for (int k = 0; k < per; k++)
			printf(" %02x", b[i + k]);
		printf("\n");
	}
}

int main()
{
	const int n = 512;
	unsigned char h[n], out[n];
	for (int i = 0; i < n; i++)
		h[i] = (unsigned char)(i * 37 + 11);
	unsigned char *dsrc, *dout;
	CHECK(cudaMalloc(&dsrc, n));
	CHECK(cudaMalloc(&dout, n));
	CHECK(cudaMemcpy(dsrc, h, n, cudaMemcpyHostToDevice));

	CHECK(cudaMemset(dout, 0x55, n));
	copySizes<<<1, 16>>>(dsrc, dout);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(out, dout, n, cudaMemcpyDeviceToHost));
	dump("cp-size 4, src-size (t+1)%16 % 5", out, 64, 16);
	dump("cp-size 8 .L2::128B, src-size (t+1)%16 % 9", out + 64, 128, 16);
	dump("cp-size 16 .cg, src-size (t+1)%16 % 17", out + 192, 256, 16);

	CHECK(cudaMemset(dout, 0x55, n));
	copyPredicated<<<1, 16, 512>>>(dsrc, dout);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(out, dout, n, cudaMemcpyDeviceToHost));
	dump("ignore-src for odd threads (of 15 - t)", out, 256, 16);
	dump("@p 8-byte copies at +256 for t % 3 == 0 (of 15 - t)", out + 256, 256, 16);

	CHECK(cudaFree(dsrc));
	CHECK(cudaFree(dout));
	return 0;
}
