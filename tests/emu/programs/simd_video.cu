// 16-bit and 8-bit SIMD on 32-bit words: every __v* intrinsic of the CUDA headers (which
// sm_90 builds from add.s16x2, max.u16x2, min.s16x2.relu, vabsdiff4, prmt...), the DPX
// functions (__vimax3, __viaddmax, __vibmax...), __dp4a/__dp2a and the mixed-signedness
// dp4a/dp2a forms, __fns, __byte_perm, __sad, the video instructions (vadd2, vsub4,
// vavrg2, vabsdiff4, vmin2, vmax4, vset2... with .sat, .add and merge masks) and prmt's
// modes, on 64 pairs of words with carries, signs and saturation at every byte.
#include <cstdint>
#include "check.h"

#define NV 8
static const uint32_t vals[NV] = {0x00000000, 0xffffffff, 0x80008000, 0x7fff7fff,
				  0x807f01ff, 0x7f80fe01, 0x12345678, 0xfedcba98};
#define NOPS 161
static const char *const names[NOPS] = {
	"vabsdiffs2",
	"vabsdiffs4",
	"vabsdiffu2",
	"vabsdiffu4",
	"vadd2",
	"vadd4",
	"vaddss2",
	"vaddss4",
	"vaddus2",
	"vaddus4",
	"vavgs2",
	"vavgs4",
	"vavgu2",
	"vavgu4",
	"vcmpeq2",
	"vcmpeq4",
	"vcmpges2",
	"vcmpges4",
	"vcmpgeu2",
	"vcmpgeu4",
	"vcmpgts2",
	"vcmpgts4",
	"vcmpgtu2",
	"vcmpgtu4",
	"vcmples2",
	"vcmples4",
	"vcmpleu2",
	"vcmpleu4",
	"vcmplts2",
	"vcmplts4",
	"vcmpltu2",
	"vcmpltu4",
	"vcmpne2",
	"vcmpne4",
	"vhaddu2",
	"vhaddu4",
	"vmaxs2",
	"vmaxs4",
	"vmaxu2",
	"vmaxu4",
	"vmins2",
	"vmins4",
	"vminu2",
	"vminu4",
	"vsads2",
	"vsads4",
	"vsadu2",
	"vsadu4",
	"vseteq2",
	"vseteq4",
	"vsetges2",
	"vsetges4",
	"vsetgeu2",
	"vsetgeu4",
	"vsetgts2",
	"vsetgts4",
	"vsetgtu2",
	"vsetgtu4",
	"vsetles2",
	"vsetles4",
	"vsetleu2",
	"vsetleu4",
	"vsetlts2",
	"vsetlts4",
	"vsetltu2",
	"vsetltu4",
	"vsetne2",
	"vsetne4",
	"vsub2",
	"vsub4",
	"vsubss2",
	"vsubss4",
	"vsubus2",
	"vsubus4",
	"vimax_s16x2_relu",
	"vimin_s16x2_relu",
	"vimax_s32_relu",
	"vimin_s32_relu",
	"vabs2",
	"vabs4",
	"vabsss2",
	"vabsss4",
	"vneg2",
	"vneg4",
	"vnegss2",
	"vnegss4",
	"viaddmax_s16x2",
	"viaddmax_s16x2_relu",
	"viaddmax_u16x2",
	"viaddmax_u32",
	"viaddmin_s16x2",
	"viaddmin_s16x2_relu",
	"viaddmin_u16x2",
	"viaddmin_u32",
	"vimax3_s16x2",
	"vimax3_s16x2_relu",
	"vimax3_u16x2",
	"vimax3_u32",
	"vimin3_s16x2",
	"vimin3_s16x2_relu",
	"vimin3_u16x2",
	"vimin3_u32",
	"viaddmax_s32",
	"viaddmax_s32_relu",
	"viaddmin_s32",
	"viaddmin_s32_relu",
	"vimax3_s32",
	"vimax3_s32_relu",
	"vimin3_s32",
	"vimin3_s32_relu",
	"vibmax_s32",
	"vibmin_s32",
	"vibmax_u32",
	"vibmin_u32",
	"vibmax_s16x2",
	"vibmin_s16x2",
	"vibmax_u16x2",
	"vibmin_u16x2",
	"dp4a s32",
	"dp4a u32",
	"dp2a_lo s32",
	"dp2a_lo u32",
	"dp2a_hi s32",
	"dp2a_hi u32",
	"dp4a.s32.u32",
	"dp4a.u32.s32",
	"dp2a.lo.u32.s32",
	"dp2a.hi.s32.u32",
	"__byte_perm",
	"__sad",
	"__usad",
	"vadd2.u32.u32.u32",
	"vadd2.s32.s32.s32.sat",
	"vadd4.u32.u32.u32.sat",
	"vsub2.s32.s32.s32",
	"vsub4.s32.s32.s32.sat",
	"vavrg2.u32.u32.u32",
	"vavrg4.s32.s32.s32",
	"vabsdiff2.s32.s32.s32.add",
	"vabsdiff4.u32.u32.u32.add",
	"vabsdiff4.s32.s32.s32",
	"vmin2.u32.u32.u32",
	"vmin4.s32.s32.s32",
	"vmax2.s32.s32.s32.add",
	"vmax4.u32.u32.u32",
	"vset2.u32.u32.ne",
	"vset2.s32.s32.lt.add",
	"vset4.u32.u32.ge",
	"vset4.s32.s32.eq.add",
	"vadd4.s32.s32.s32.add",
	"vsub2.u32.u32.u32.sat",
	"vmin2.s32.u32.s32",
	"vmax4.u32.s32.u32.sat",
	"prmt.b32.f4e",
	"prmt.b32.b4e",
	"prmt.b32.rc8",
	"prmt.b32.ecl",
	"prmt.b32.ecr",
	"prmt.b32.rc16",
	"vadd2.u32.u32.u32 d.h0",
	"vmax4.u32.u32.u32 d.b2"};

#define ptx3(op, a, b, c)                                                                \
	({                                                                               \
		uint32_t r_;                                                            \
		asm(op " %0, %1, %2, %3;" : "=r"(r_) : "r"(a), "r"(b), "r"(c));      \
		r_;                                                                      \
	})
#define MASKED(text)                                                                     \
	({                                                                               \
		uint32_t r_;                                                            \
		asm(text : "=r"(r_) : "r"(x), "r"(y), "r"(z));                          \
		r_;                                                                      \
	})
__device__ static uint32_t ibs32(bool mx, uint32_t x, uint32_t y)
{
	bool p;
	int r = mx ? __vibmax_s32((int)x, (int)y, &p) : __vibmin_s32((int)x, (int)y, &p);
	return (uint32_t)r ^ (p ? 0x80000000u : 0) ^ 1u * p;
}
__device__ static uint32_t ibu32(bool mx, uint32_t x, uint32_t y)
{
	bool p;
	uint32_t r = mx ? __vibmax_u32(x, y, &p) : __vibmin_u32(x, y, &p);
	return r ^ (p ? 0x5a5a5a5au : 0);
}
__device__ static uint32_t ib16(int k, uint32_t x, uint32_t y)
{
	bool lo, hi;
	uint32_t r;
	switch (k) {
	case 0: r = __vibmax_s16x2(x, y, &hi, &lo); break;
	case 1: r = __vibmin_s16x2(x, y, &hi, &lo); break;
	case 2: r = __vibmax_u16x2(x, y, &hi, &lo); break;
	default: r = __vibmin_u16x2(x, y, &hi, &lo); break;
	}
	return r ^ (hi ? 0xa5000000u : 0) ^ (lo ? 0x00005a00u : 0);
}

__device__ static uint32_t op(int k, uint32_t x, uint32_t y, uint32_t z)
{
	switch (k) {
	case 0: return __vabsdiffs2(x, y);
	case 1: return __vabsdiffs4(x, y);
	case 2: return __vabsdiffu2(x, y);
	case 3: return __vabsdiffu4(x, y);
	case 4: return __vadd2(x, y);
	case 5: return __vadd4(x, y);
	case 6: return __vaddss2(x, y);
	case 7: return __vaddss4(x, y);
	case 8: return __vaddus2(x, y);
	case 9: return __vaddus4(x, y);
	case 10: return __vavgs2(x, y);
	case 11: return __vavgs4(x, y);
	case 12: return __vavgu2(x, y);
	case 13: return __vavgu4(x, y);
	case 14: return __vcmpeq2(x, y);
	case 15: return __vcmpeq4(x, y);
	case 16: return __vcmpges2(x, y);
	case 17: return __vcmpges4(x, y);
	case 18: return __vcmpgeu2(x, y);
	case 19: return __vcmpgeu4(x, y);
	case 20: return __vcmpgts2(x, y);
	case 21: return __vcmpgts4(x, y);
	case 22: return __vcmpgtu2(x, y);
	case 23: return __vcmpgtu4(x, y);
	case 24: return __vcmples2(x, y);
	case 25: return __vcmples4(x, y);
	case 26: return __vcmpleu2(x, y);
	case 27: return __vcmpleu4(x, y);
	case 28: return __vcmplts2(x, y);
	case 29: return __vcmplts4(x, y);
	case 30: return __vcmpltu2(x, y);
	case 31: return __vcmpltu4(x, y);
	case 32: return __vcmpne2(x, y);
	case 33: return __vcmpne4(x, y);
	case 34: return __vhaddu2(x, y);
	case 35: return __vhaddu4(x, y);
	case 36: return __vmaxs2(x, y);
	case 37: return __vmaxs4(x, y);
	case 38: return __vmaxu2(x, y);
	case 39: return __vmaxu4(x, y);
	case 40: return __vmins2(x, y);
	case 41: return __vmins4(x, y);
	case 42: return __vminu2(x, y);
	case 43: return __vminu4(x, y);
	case 44: return __vsads2(x, y);
	case 45: return __vsads4(x, y);
	case 46: return __vsadu2(x, y);
	case 47: return __vsadu4(x, y);
	case 48: return __vseteq2(x, y);
	case 49: return __vseteq4(x, y);
	case 50: return __vsetges2(x, y);
	case 51: return __vsetges4(x, y);
	case 52: return __vsetgeu2(x, y);
	case 53: return __vsetgeu4(x, y);
	case 54: return __vsetgts2(x, y);
	case 55: return __vsetgts4(x, y);
	case 56: return __vsetgtu2(x, y);
	case 57: return __vsetgtu4(x, y);
	case 58: return __vsetles2(x, y);
	case 59: return __vsetles4(x, y);
	case 60: return __vsetleu2(x, y);
	case 61: return __vsetleu4(x, y);
	case 62: return __vsetlts2(x, y);
	case 63: return __vsetlts4(x, y);
	case 64: return __vsetltu2(x, y);
	case 65: return __vsetltu4(x, y);
	case 66: return __vsetne2(x, y);
	case 67: return __vsetne4(x, y);
	case 68: return __vsub2(x, y);
	case 69: return __vsub4(x, y);
	case 70: return __vsubss2(x, y);
	case 71: return __vsubss4(x, y);
	case 72: return __vsubus2(x, y);
	case 73: return __vsubus4(x, y);
	case 74: return __vimax_s16x2_relu(x, y);
	case 75: return __vimin_s16x2_relu(x, y);
	case 76: return (unsigned)__vimax_s32_relu((int)x, (int)y);
	case 77: return (unsigned)__vimin_s32_relu((int)x, (int)y);
	case 78: return __vabs2(x);
	case 79: return __vabs4(x);
	case 80: return __vabsss2(x);
	case 81: return __vabsss4(x);
	case 82: return __vneg2(x);
	case 83: return __vneg4(x);
	case 84: return __vnegss2(x);
	case 85: return __vnegss4(x);
	case 86: return __viaddmax_s16x2(x, y, z);
	case 87: return __viaddmax_s16x2_relu(x, y, z);
	case 88: return __viaddmax_u16x2(x, y, z);
	case 89: return __viaddmax_u32(x, y, z);
	case 90: return __viaddmin_s16x2(x, y, z);
	case 91: return __viaddmin_s16x2_relu(x, y, z);
	case 92: return __viaddmin_u16x2(x, y, z);
	case 93: return __viaddmin_u32(x, y, z);
	case 94: return __vimax3_s16x2(x, y, z);
	case 95: return __vimax3_s16x2_relu(x, y, z);
	case 96: return __vimax3_u16x2(x, y, z);
	case 97: return __vimax3_u32(x, y, z);
	case 98: return __vimin3_s16x2(x, y, z);
	case 99: return __vimin3_s16x2_relu(x, y, z);
	case 100: return __vimin3_u16x2(x, y, z);
	case 101: return __vimin3_u32(x, y, z);
	case 102: return (unsigned)__viaddmax_s32((int)x, (int)y, (int)z);
	case 103: return (unsigned)__viaddmax_s32_relu((int)x, (int)y, (int)z);
	case 104: return (unsigned)__viaddmin_s32((int)x, (int)y, (int)z);
	case 105: return (unsigned)__viaddmin_s32_relu((int)x, (int)y, (int)z);
	case 106: return (unsigned)__vimax3_s32((int)x, (int)y, (int)z);
	case 107: return (unsigned)__vimax3_s32_relu((int)x, (int)y, (int)z);
	case 108: return (unsigned)__vimin3_s32((int)x, (int)y, (int)z);
	case 109: return (unsigned)__vimin3_s32_relu((int)x, (int)y, (int)z);
	case 110: return ibs32(true, x, y);
	case 111: return ibs32(false, x, y);
	case 112: return ibu32(true, x, y);
	case 113: return ibu32(false, x, y);
	case 114: return ib16(0, x, y);
	case 115: return ib16(1, x, y);
	case 116: return ib16(2, x, y);
	case 117: return ib16(3, x, y);
	case 118: return (unsigned)__dp4a((int)x, (int)y, (int)z);
	case 119: return __dp4a(x, y, z);
	case 120: return (unsigned)__dp2a_lo((int)x, (int)y, (int)z);
	case 121: return __dp2a_lo(x, y, z);
	case 122: return (unsigned)__dp2a_hi((int)x, (int)y, (int)z);
	case 123: return __dp2a_hi(x, y, z);
	case 124: return ptx3("dp4a.s32.u32", x, y, z);
	case 125: return ptx3("dp4a.u32.s32", x, y, z);
	case 126: return ptx3("dp2a.lo.u32.s32", x, y, z);
	case 127: return ptx3("dp2a.hi.s32.u32", x, y, z);
	case 128: return __byte_perm(x, y, z);
	case 129: return __sad((int)x, (int)y, z);
	case 130: return __usad(x, y, z);
	case 131: return ptx3("vadd2.u32.u32.u32", x, y, z);
	case 132: return ptx3("vadd2.s32.s32.s32.sat", x, y, z);
	case 133: return ptx3("vadd4.u32.u32.u32.sat", x, y, z);
	case 134: return ptx3("vsub2.s32.s32.s32", x, y, z);
	case 135: return ptx3("vsub4.s32.s32.s32.sat", x, y, z);
	case 136: return ptx3("vavrg2.u32.u32.u32", x, y, z);
	case 137: return ptx3("vavrg4.s32.s32.s32", x, y, z);
	case 138: return ptx3("vabsdiff2.s32.s32.s32.add", x, y, z);
	case 139: return ptx3("vabsdiff4.u32.u32.u32.add", x, y, z);
	case 140: return ptx3("vabsdiff4.s32.s32.s32", x, y, z);
	case 141: return ptx3("vmin2.u32.u32.u32", x, y, z);
	case 142: return ptx3("vmin4.s32.s32.s32", x, y, z);
	case 143: return ptx3("vmax2.s32.s32.s32.add", x, y, z);
	case 144: return ptx3("vmax4.u32.u32.u32", x, y, z);
	case 145: return ptx3("vset2.u32.u32.ne", x, y, z);
	case 146: return ptx3("vset2.s32.s32.lt.add", x, y, z);
	case 147: return ptx3("vset4.u32.u32.ge", x, y, z);
	case 148: return ptx3("vset4.s32.s32.eq.add", x, y, z);
	case 149: return ptx3("vadd4.s32.s32.s32.add", x, y, z);
	case 150: return ptx3("vsub2.u32.u32.u32.sat", x, y, z);
	case 151: return ptx3("vmin2.s32.u32.s32", x, y, z);
	case 152: return ptx3("vmax4.u32.s32.u32.sat", x, y, z);
	case 153: return ptx3("prmt.b32.f4e", x, y, z);
	case 154: return ptx3("prmt.b32.b4e", x, y, z);
	case 155: return ptx3("prmt.b32.rc8", x, y, z);
	case 156: return ptx3("prmt.b32.ecl", x, y, z);
	case 157: return ptx3("prmt.b32.ecr", x, y, z);
	case 158: return ptx3("prmt.b32.rc16", x, y, z);
	case 159: return MASKED("vadd2.u32.u32.u32 %0.h0, %1, %2, %3;");
	case 160: return MASKED("vmax4.u32.u32.u32 %0.b2, %1, %2, %3;");
	default: return 0;
	}
}

__global__ void kSimd(const uint32_t *v, uint32_t *out)
{
	int p = threadIdx.x, k = blockIdx.x;
	uint32_t x = v[p / NV], y = v[p % NV], z = v[(p * 3 + 5) % NV] ^ (uint32_t)p * 0x01010101u;
	out[k * 64 + p] = op(k, x, y, z);
}

// __fns(mask, base, offset): the offset-th set bit from base, both directions.
__global__ void kFns(uint32_t *out)
{
	static const uint32_t masks[5] = {0u, 0xffffffffu, 0x80000001u, 0x0f0f0f0fu, 0x12345678u};
	static const int offs[10] = {-33, -5, -1, 0, 1, 2, 5, 17, 32, 33};
	static const uint32_t bases[6] = {0, 1, 5, 16, 31, 40};
	int t = threadIdx.x; // 300 threads: mask, base, offset
	int m = t / 60, b = t / 10 % 6, o = t % 10;
	out[t] = __fns(masks[m], bases[b], offs[o]);
}

int main()
{
	uint32_t *v, *out, *fo;
	CHECK(cudaMalloc(&v, sizeof vals));
	CHECK(cudaMalloc(&out, NOPS * 64 * 4));
	CHECK(cudaMalloc(&fo, 300 * 4));
	CHECK(cudaMemcpy(v, vals, sizeof vals, cudaMemcpyHostToDevice));
	kSimd<<<NOPS, 64>>>(v, out);
	kFns<<<1, 300>>>(fo);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	static uint32_t h[NOPS * 64], hf[300];
	CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hf, fo, sizeof hf, cudaMemcpyDeviceToHost));
	printf("x = value p/8, y = value p%8, z = value (3p+5)%8 ^ p*0x01010101; values:");
	for (int i = 0; i < NV; i++)
		printf(" %08x", vals[i]);
	printf("\n");
	for (int k = 0; k < NOPS; k++) {
		printf("%s:", names[k]);
		for (int p = 0; p < 64; p++)
			printf("%s%08x", p % 8 ? " " : "\n ", h[k * 64 + p]);
		printf("\n");
	}
	printf("__fns(mask, base, offset) for masks 0 ffffffff 80000001 0f0f0f0f 12345678, bases 0 1 5 16 31 40, offsets -33 -5 -1 0 1 2 5 17 32 33:");
	for (int t = 0; t < 300; t++)
		printf("%s%d", t % 10 ? " " : "\n ", (int)hf[t]);
	printf("\n");
	return 0;
}
