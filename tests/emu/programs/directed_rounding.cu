// The directed-rounding intrinsics (the SDK's interval arithmetic style: __fadd_rd,
// __ddiv_ru, __fsqrt_rd...) compared with the host's IEEE arithmetic under fesetround;
// kernels in a namespace, in an anonymous namespace and static; atomicAdd_block and
// _system, __threadfence_block, __nanosleep, __saturatef.
#include <cfenv>
#include <cmath>
#include "check.h"

#define NR 20 // results per element

namespace interval {
__global__ void rounding(const float *a, const float *b, const double *da, const double *db,
			 double *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x = a[i], y = b[i];
	double u = da[i], v = db[i];
	double *o = out + (size_t)i * NR;
	o[0] = __fadd_rd(x, y);
	o[1] = __fadd_ru(x, y);
	o[2] = __fmul_rd(x, y);
	o[3] = __fmul_ru(x, y);
	o[4] = __fdiv_rd(x, y);
	o[5] = __fdiv_ru(x, y);
	o[6] = __fsqrt_rd(fabsf(x));
	o[7] = __fsqrt_ru(fabsf(x));
	o[8] = __fmaf_rz(x, y, 1.f);
	o[9] = __frcp_rd(y);
	o[10] = __dadd_rd(u, v);
	o[11] = __dadd_ru(u, v);
	o[12] = __dmul_rd(u, v);
	o[13] = __dmul_ru(u, v);
	o[14] = __ddiv_rd(u, v);
	o[15] = __ddiv_ru(u, v);
	o[16] = __dsqrt_rd(fabs(u));
	o[17] = __fma_ru(u, v, 1.0);
	o[18] = __saturatef(x * 0.01f);
	o[19] = __double2float_rd(u) + (double)__double2float_ru(v);
}
} // namespace interval

namespace {
__global__ void anonKernel(int *c)
{
	atomicAdd_block(c, 1);
	__threadfence_block();
	atomicAdd_system(c + 1, 2);
	__nanosleep(10);
}
} // namespace

static __global__ void staticKernel(int *c)
{
	atomicAdd(c + 2, 3);
}

// The host's mode for result k of the kernel.
static int hostMode(int k)
{
	if (k == 8)
		return FE_TOWARDZERO;
	if (k == 18)
		return FE_TONEAREST;
	if (k == 9 || k == 16)
		return FE_DOWNWARD;
	if (k == 17)
		return FE_UPWARD;
	return (k < 10 ? k : k - 10) % 2 == 0 ? FE_DOWNWARD : FE_UPWARD;
}

// Result k computed on the host (volatile keeps the arithmetic after fesetround).
static double cpu(int k, float x, float y, double u, double v)
{
	volatile float fx = x, fy = y, rf;
	volatile double du = u, dv = v, r = 0;
	fesetround(hostMode(k));
	switch (k) {
	case 0: case 1: rf = fx + fy; r = rf; break;
	case 2: case 3: rf = fx * fy; r = rf; break;
	case 4: case 5: rf = fx / fy; r = rf; break;
	case 6: case 7: rf = sqrtf(fabsf(fx)); r = rf; break;
	case 8: rf = fmaf(fx, fy, 1.f); r = rf; break;
	case 9: rf = 1.f / fy; r = rf; break;
	case 10: case 11: r = du + dv; break;
	case 12: case 13: r = du * dv; break;
	case 14: case 15: r = du / dv; break;
	case 16: r = sqrt(fabs(du)); break;
	case 17: r = fma(du, dv, 1.0); break;
	case 18: {
		float t = fx * 0.01f;
		r = t < 0 ? 0 : t > 1 ? 1 : t;
		break;
	}
	default: {
		fesetround(FE_DOWNWARD);
		volatile float lo = (float)du;
		fesetround(FE_UPWARD);
		volatile float hi = (float)dv;
		fesetround(FE_TONEAREST);
		r = (double)lo + (double)hi;
	}
	}
	fesetround(FE_TONEAREST);
	return r;
}

int main()
{
	static const char *const names[NR] = {
		"fadd_rd", "fadd_ru", "fmul_rd", "fmul_ru", "fdiv_rd", "fdiv_ru", "fsqrt_rd",
		"fsqrt_ru", "fmaf_rz", "frcp_rd", "dadd_rd", "dadd_ru", "dmul_rd", "dmul_ru",
		"ddiv_rd", "ddiv_ru", "dsqrt_rd", "fma_ru", "saturatef", "double2float_rd/ru"
	};
	const int n = 2048;
	float *ha = new float[n], *hb = new float[n];
	double *hda = new double[n], *hdb = new double[n];
	srand(5);
	for (int i = 0; i < n; i++) {
		ha[i] = (rand() / (float)RAND_MAX - 0.3f) * 300.f;
		hb[i] = (rand() / (float)RAND_MAX + 0.01f) * (i % 2 ? 7.f : -3.f);
		hda[i] = (rand() / (double)RAND_MAX - 0.5) * 1e5;
		hdb[i] = (rand() / (double)RAND_MAX + 0.01) * 3.3;
	}
	float *da, *db;
	double *dda, *ddb, *dout;
	int *dc, c[3];
	CHECK(cudaMalloc(&da, n * 4));
	CHECK(cudaMalloc(&db, n * 4));
	CHECK(cudaMalloc(&dda, n * 8));
	CHECK(cudaMalloc(&ddb, n * 8));
	CHECK(cudaMalloc(&dout, (size_t)n * NR * 8));
	CHECK(cudaMalloc(&dc, 12));
	CHECK(cudaMemcpy(da, ha, n * 4, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(db, hb, n * 4, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dda, hda, n * 8, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(ddb, hdb, n * 8, cudaMemcpyHostToDevice));
	CHECK(cudaMemset(dc, 0, 12));
	interval::rounding<<<n / 128, 128>>>(da, db, dda, ddb, dout, n);
	CHECK(cudaGetLastError());
	anonKernel<<<3, 64>>>(dc);
	staticKernel<<<2, 32>>>(dc);
	CHECK(cudaGetLastError());
	double *h = new double[(size_t)n * NR];
	CHECK(cudaMemcpy(h, dout, (size_t)n * NR * 8, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(c, dc, 12, cudaMemcpyDeviceToHost));
	int bad[NR] = { 0 }, total = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < NR; k++) {
			double r = cpu(k, ha[i], hb[i], hda[i], hdb[i]), g = h[(size_t)i * NR + k];
			if (r == g)
				continue;
			if (bad[k]++ == 0)
				printf("  k=%d i=%d: gpu %.17g cpu %.17g\n", k, i, g, r);
			total++;
		}
	for (int k = 0; k < NR; k++)
		if (bad[k])
			printf("  %-20s %d wrong\n", names[k], bad[k]);
	int countsOk = c[0] == 192 && c[1] == 384 && c[2] == 192;
	printf("rounding intrinsics: %d wrong; namespaced/static kernels + scoped atomics: "
	       "%d %d %d %s\n", total, c[0], c[1], c[2], countsOk ? "ok" : "WRONG");
	int ok = total == 0 && countsOk;
	printf("%s\n", ok ? "PASS" : "FAIL");
	return !ok;
}
