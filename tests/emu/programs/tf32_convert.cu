// Conversions to tf32: wmma::__float_to_tf32 (cvt.rna.tf32.f32, ties away from zero) and
// the sm_90 forms cvt.rn/.rz.tf32.f32 and cvt.rna.satfinite.tf32.f32 (inline PTX), at
// ties, at the top of the range (rounding into infinity or saturating), on subnormals,
// infinities and NaN payloads. Printed as bits.
#include <mma.h>
#include <cstdint>
#include "check.h"

#define NF 32
static const uint32_t fbits[NF] = {
	0x00000000, 0x80000000, 0x3f800000, 0x3f801000, 0x3f803000, 0x3f800fff, 0x3f801001, 0xbf801000,
	0xbf803000, 0x7f7fffff, 0x7f7ff000, 0x7f7fefff, 0xff7ff000, 0x00000001, 0x00001000, 0x00000fff,
	0x807ff000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc12345, 0x7fa00000, 0x3dcccccd,
	0x3eaaaaab, 0x40490fdb, 0x3f7ff000, 0x3f7fefff, 0x00800000, 0x007ff000, 0xc2f6e979, 0x4b7fffff,
};

__global__ void kTf32(const uint32_t *in, uint32_t *out)
{
	int t = threadIdx.x;
	float f = __uint_as_float(in[t]);
	uint32_t r;
	out[t * 5] = __float_as_uint(nvcuda::wmma::__float_to_tf32(f));
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
	out[t * 5 + 1] = r;
	asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
	out[t * 5 + 2] = r;
	asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
	out[t * 5 + 3] = r;
	asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
	out[t * 5 + 4] = r;
}

int main()
{
	uint32_t *in, *out;
	CHECK(cudaMalloc(&in, sizeof fbits));
	CHECK(cudaMalloc(&out, NF * 5 * 4));
	CHECK(cudaMemcpy(in, fbits, sizeof fbits, cudaMemcpyHostToDevice));
	kTf32<<<1, NF>>>(in, out);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	static uint32_t h[NF * 5];
	CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	printf("float: __float_to_tf32 cvt.rna cvt.rn cvt.rz cvt.rna.satfinite\n");
	for (int t = 0; t < NF; t++)
		printf("%08x: %08x %08x %08x %08x %08x\n", fbits[t], h[t * 5], h[t * 5 + 1],
		       h[t * 5 + 2], h[t * 5 + 3], h[t * 5 + 4]);
	return 0;
}
