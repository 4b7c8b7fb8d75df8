/* fround — see fround.h. Built with -frounding-math (emu/meson.build). */
#include "fround.h"

#include <fenv.h>
#include <math.h>

#include "ptx_internal.h"

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

void fround_lanes(enum fround_op op, int wide, unsigned mode, uint64_t *d, const uint64_t *a,
		  const uint64_t *b, const uint64_t *c, uint32_t mask)
{
	int saved = fegetround();
	fesetround(host_mode(mode));
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		uint64_t x = a[l], y = b ? b[l] : 0, z = c ? c[l] : 0;
		if (wide)
			d[l] = mkf64(op_f64(op, f64(x), f64(y), f64(z)));
		else
			d[l] = mkf32(op_f32(op, f32(x), f32(y), f32(z)));
	}
	fesetround(saved);
}
