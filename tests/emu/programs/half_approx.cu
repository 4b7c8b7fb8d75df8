// The approximate half and bf16 functions of cuda_fp16.h/cuda_bf16.h (hsqrt, hrcp, hexp,
// hlog, hsin, htanh... built on sqrt/rcp/ex2/lg2/sin.approx.f32 and on ex2.approx.f16
// and tanh.approx.f16): every 128th half (and bf16) bit pattern, or all 65536 with the
// argument "all". Printed as bits: the emulator's approximations are IEEE results
// rounded, so the two may differ in the last bit (emu/README.md gives the bound).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>
#include <cstring>
#include "check.h"

#define NFN 20
static const char *const names[NFN] = {
	"hsqrt", "hrsqrt", "hrcp", "hexp", "hexp2", "hexp10", "hlog", "hlog2", "hlog10", "hsin",
	"hcos", "htanh", "htanh_approx", "h2exp2.x", "h2exp.y", "bf16 hsqrt", "bf16 hrcp",
	"bf16 hexp2", "bf16 hlog", "bf16 htanh_approx",
};

__global__ void kApprox(int step, int n, uint16_t *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint16_t bits = (uint16_t)(i * step);
	__half x = __ushort_as_half(bits);
	__nv_bfloat16 y = __ushort_as_bfloat16(bits);
	__half2 x2 = __halves2half2(x, __hneg(x));
	__half r[15] = {hsqrt(x), hrsqrt(x), hrcp(x), hexp(x), hexp2(x), hexp10(x), hlog(x),
			hlog2(x), hlog10(x), hsin(x), hcos(x), htanh(x), htanh_approx(x),
			__low2half(h2exp2(x2)), __high2half(h2exp(x2))};
	for (int k = 0; k < 15; k++)
		out[(size_t)k * n + i] = __half_as_ushort(r[k]);
	__nv_bfloat16 s[5] = {hsqrt(y), hrcp(y), hexp2(y), hlog(y), htanh_approx(y)};
	for (int k = 0; k < 5; k++)
		out[(size_t)(15 + k) * n + i] = __bfloat16_as_ushort(s[k]);
}

int main(int argc, char **argv)
{
	int step = argc > 1 && !strcmp(argv[1], "all") ? 1 : 128, n = 65536 / step;
	uint16_t *out;
	CHECK(cudaMalloc(&out, (size_t)NFN * n * 2));
	kApprox<<<(n + 255) / 256, 256>>>(step, n, out);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	uint16_t *h = new uint16_t[(size_t)NFN * n];
	CHECK(cudaMemcpy(h, out, (size_t)NFN * n * 2, cudaMemcpyDeviceToHost));
	for (int k = 0; k < NFN; k++) {
		printf("%s of every %d-th pattern:", names[k], step);
		for (int i = 0; i < n; i++)
			printf("%s%04x", i % 16 ? " " : "\n ", h[(size_t)k * n + i]);
		printf("\n");
	}
	delete[] h;
	return 0;
}
