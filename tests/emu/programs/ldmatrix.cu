// ldmatrix (.x1 .x2 .x4, with and without .trans), stmatrix (sm_90) and movmatrix: each
// lane gives the address of one 8x8 matrix row (rows scattered in shared memory, in
// reverse order), and prints the registers it gets; stmatrix's shared memory is printed.
#include <cstdint>
#include "check.h"

#define STRIDE 24 // elements between rows (48 bytes, 16-byte aligned)
#define SHN (32 * STRIDE + 16)

// Row j of matrix i: reversed rows, odd matrices 8 elements further in.
__device__ static unsigned rowAddr(unsigned base, int i, int j)
{
	return base + 2u * ((i * 8 + (7 - j)) * STRIDE + 8 * (i % 2));
}

__global__ void kLd(uint32_t *out)
{
	__shared__ __align__(16) uint16_t s[SHN];
	int l = threadIdx.x;
	for (int e = l; e < SHN; e += 32)
		s[e] = (uint16_t)e;
	__syncwarp();
	unsigned base = (unsigned)__cvta_generic_to_shared(s);
	unsigned a1 = rowAddr(base, 0, l % 8), a2 = rowAddr(base, (l / 8) % 2, l % 8);
	unsigned a4 = rowAddr(base, l / 8, l % 8);
	uint32_t r[4], *o = out + l * 32;
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a1));
	o[0] = r[0];
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a1));
	o[1] = r[0];
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a2));
	o[2] = r[0], o[3] = r[1];
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a2));
	o[4] = r[0], o[5] = r[1];
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a4));
	for (int k = 0; k < 4; k++)
		o[6 + k] = r[k];
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a4));
	for (int k = 0; k < 4; k++)
		o[10 + k] = r[k];
	// movmatrix: the transposed fragment of an ldmatrix fragment
	uint32_t t;
	asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(t) : "r"(o[0]));
	o[14] = t;
	// the generic form of the address (ldmatrix's default state space is generic)
	const uint16_t *gp = s + ((l % 8) * STRIDE);
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.b16 {%0}, [%1];" : "=r"(r[0]) : "l"(gp));
	o[15] = r[0];
}

// stmatrix: lane l's register k holds (l * 8 + k * 2) and the next value.
__global__ void kSt(uint16_t *out, int variant)
{
	__shared__ __align__(16) uint16_t s[SHN];
	int l = threadIdx.x;
	for (int e = l; e < SHN; e += 32)
		s[e] = 0xffff;
	__syncwarp();
	uint32_t r[4];
	for (int k = 0; k < 4; k++)
		r[k] = (uint32_t)(l * 8 + k * 2) | (uint32_t)(l * 8 + k * 2 + 1) << 16;
	unsigned base = (unsigned)__cvta_generic_to_shared(s);
	unsigned a1 = rowAddr(base, 0, l % 8), a2 = rowAddr(base, (l / 8) % 2, l % 8);
	unsigned a4 = rowAddr(base, l / 8, l % 8);
	switch (variant) {
	case 0: asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a1), "r"(r[0])); break;
	case 1: asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a1), "r"(r[0])); break;
	case 2: asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(a2), "r"(r[0]), "r"(r[1])); break;
	case 3: asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a4), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])); break;
	default: asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a4), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])); break;
	}
	__syncwarp();
	for (int e = l; e < SHN; e += 32)
		out[e] = s[e];
}

int main()
{
	uint32_t *o;
	uint16_t *so;
	CHECK(cudaMallocManaged(&o, 32 * 32 * sizeof(uint32_t)));
	CHECK(cudaMallocManaged(&so, SHN * sizeof(uint16_t)));
	kLd<<<1, 32>>>(o);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	static const char *const what[] = {"x1", "x1.trans", "x2 r0", "x2 r1", "x2.trans r0",
		"x2.trans r1", "x4 r0", "x4 r1", "x4 r2", "x4 r3", "x4.trans r0", "x4.trans r1",
		"x4.trans r2", "x4.trans r3", "movmatrix(x1)", "x1 generic"};
	for (int k = 0; k < 16; k++) {
		printf("ldmatrix %s:", what[k]);
		for (int l = 0; l < 32; l++)
			printf("%s%08x", l % 8 ? " " : "\n ", o[l * 32 + k]);
		printf("\n");
	}
	static const char *const sw[] = {"x1", "x1.trans", "x2", "x4", "x4.trans"};
	for (int v = 0; v < 5; v++) {
		kSt<<<1, 32>>>(so, v);
		CHECK(cudaGetLastError());
		CHECK(cudaDeviceSynchronize());
		printf("stmatrix %s (rows of %d; ---- untouched):\n", sw[v], STRIDE);
		for (int row = 0; row < 32; row++) {
			bool any = false;
			for (int e = 0; e < STRIDE; e++)
				any |= so[row * STRIDE + e] != 0xffff;
			if (!any)
				continue;
			printf(" %2d:", row);
			for (int e = 0; e < STRIDE; e++) {
				uint16_t x = so[row * STRIDE + e];
				if (x == 0xffff)
					printf(" ----");
				else
					printf(" %4d", x);
			}
			printf("\n");
		}
	}
	return 0;
}
