/* fround — see fround.h. Built with -frounding-math (emu/meson.build). */
#include "fround.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

#include "ptx_internal.h"

static float bits_f32(uint64_t v)
{
	uint32_t u = (uint32_t)v;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint64_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static double bits_f64(uint64_t v)
{
	double f;
	memcpy(&f, &v, 8);
	return f;
}

static uint64_t f64_bits(double f)
{
	uint64_t u;
	memcpy(&u, &f, 8);
	return u;
}

/* One f32 operation in the current rounding mode. */
static float op_f32(enum fround_op op, float a, float b, float c)
{
	switch (op) {
	case FROUND_ADD: return a + b;
	case FROUND_SUB: return a - b;
	case FROUND_MUL: return a * b;
	case FROUND_FMA: return fmaf(a, b, c);
	case FROUND_DIV: return a / b;
	case FROUND_SQRT: return sqrtf(a);
	default: return 1.0f / a;
	}
}

/* One f64 operation in the current rounding mode. */
static double op_f64(enum fround_op op, double a, double b, double c)
{
	switch (op) {
	case FROUND_ADD: return a + b;
	case FROUND_SUB: return a - b;
	case FROUND_MUL: return a * b;
	case FROUND_FMA: return fma(a, b, c);
	case FROUND_DIV: return a / b;
	case FROUND_SQRT: return sqrt(a);
	default: return 1.0 / a;
	}
}

static int host_mode(unsigned mode)
{
	switch (mode) {
	case RND_RZ: return FE_TOWARDZERO;
	case RND_RM: return FE_DOWNWARD;
	case RND_RP: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

void fround_lanes(enum fround_op op, int f64, unsigned mode, uint64_t *d, const uint64_t *a,
		  const uint64_t *b, const uint64_t *c, uint32_t mask)
{
	int saved = fegetround();
	fesetround(host_mode(mode));
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		uint64_t x = a[l], y = b ? b[l] : 0, z = c ? c[l] : 0;
		if (f64)
			d[l] = f64_bits(op_f64(op, bits_f64(x), bits_f64(y), bits_f64(z)));
		else
			d[l] = f32_bits(op_f32(op, bits_f32(x), bits_f32(y), bits_f32(z)));
	}
	fesetround(saved);
}
