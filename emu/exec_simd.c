/* exec_simd — integer SIMD within a 32-bit register: the 16x2 arithmetic of sm_90
 * (add/sub/min/max .u16x2/.s16x2, .relu; what the CUDA headers build __vadd2,
 * __vimax3_s16x2... from), min/max.relu.s32, the video instructions (vadd2, vsub4,
 * vavrg2, vabsdiff4, vmin2, vmax4, vset2... with .sat, .add and a destination mask),
 * dp2a, fns and prmt's modes. Results match the H100's (tests/emu/programs/simd_video.cu).
 */
#include "exec_internal.h"

#include "exec_compare.h"

/* ---- add/sub/min/max/neg/abs on .u16x2/.s16x2 and .relu min/max (OP_SIMD) ---------------- */

static int64_t lane16(uint32_t x, unsigned i, int sg)
{
	uint32_t h = x >> (16 * i) & 0xffff;
	return sg ? (int64_t)(int16_t)h : (int64_t)h;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static uint32_t simd_one(const struct ptx_insn *in, uint32_t a, uint32_t b)
{
	unsigned op = in->target, t = in->type;
	int relu = in->xmod & PX_RELU, sat = in->flags & PF_SAT;
	if (t != PT_U16X2 && t != PT_S16X2) { /* min/max.relu.s32 */
		int32_t x = (int32_t)a, y = (int32_t)b, r = op == OP_MAX ? (x > y ? x : y) : (x < y ? x : y);
		return (uint32_t)(relu && r < 0 ? 0 : r);
	}
	int sg = t == PT_S16X2;
	uint32_t r = 0;
	for (unsigned i = 0; i < 2; i++) {
		int64_t x = lane16(a, i, sg), y = lane16(b, i, sg), v;
		switch (op) {
		case OP_ADD: v = x + y; break;
		case OP_SUB: v = x - y; break;
		case OP_MIN: v = x < y ? x : y; break;
		case OP_MAX: v = x > y ? x : y; break;
		case OP_NEG: v = -x; break;
		default: v = x < 0 ? -x : x; break; /* OP_ABS */
		}
		if (sat)
			v = sg ? clamp64(v, -32768, 32767) : clamp64(v, 0, 65535);
		if (relu && v < 0)
			v = 0;
		r |= ((uint32_t)v & 0xffff) << (16 * i);
	}
	return r;
}

static void simd_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = DS(0);
	const uint64_t *a = SS(0), *b = in->ns > 1 ? SS(1) : SS(0);
	LANES(d[l] = simd_one(in, (uint32_t)a[l], (uint32_t)b[l]));
}

/* ---- the video SIMD instructions (OP_VIDEO) ---------------------------------------------- */

/* One lane: n elements (2 halfwords or 4 bytes) of a and b, signed as atype and btype
 * say, combined by the operation (in->mod: enum video_op), saturated to dtype with
 * .sat; then merged into c under the destination mask (in->space), or
 * with .add summed onto c. */
static uint32_t video_one(const struct ptx_insn *in, uint32_t a, uint32_t b, uint32_t c)
{
	unsigned n = in->vec, w = 32 / n, op = in->mod;
	int sa = is_signed_t(in->type2), sb = (in->xmod & PX_BSIGNED) != 0;
	int sd = is_signed_t(in->type), sat = in->flags & PF_SAT, add = in->xmod & PX_ADD;
	uint32_t emask = (1u << w) - 1, r = 0, mask = in->space; /* destination mask bits */
	int64_t sum = (int32_t)c;
	for (unsigned i = 0; i < n; i++) {
		uint32_t ea = a >> (w * i) & emask, eb = b >> (w * i) & emask;
		int64_t x = sa ? ((int64_t)ea << (64 - w)) >> (64 - w) : (int64_t)ea;
		int64_t y = sb ? ((int64_t)eb << (64 - w)) >> (64 - w) : (int64_t)eb;
		int64_t v;
		switch (op) {
		case VOP_ADD: v = x + y; break;
		case VOP_SUB: v = x - y; break;
		case VOP_AVRG: v = (x + y + (x + y >= 0)) >> 1; break; /* halves away from 0 */
		case VOP_ABSDIFF: v = x > y ? x - y : y - x; break;
		case VOP_MIN: v = x < y ? x : y; break;
		case VOP_MAX: v = x > y ? x : y; break;
		default: v = cmp_s(in->mod2, x, y); break; /* VOP_SET */
		}
		if (sat && op != VOP_SET) {
			int64_t hi = sd ? ((int64_t)1 << (w - 1)) - 1 : ((int64_t)1 << w) - 1;
			v = clamp64(v, sd ? -hi - 1 : 0, hi);
		}
		if (add)
			sum += v;
		else if (mask >> i & 1)
			r |= ((uint32_t)v & emask) << (w * i);
		else
			r |= c & (emask << (w * i));
	}
	return add ? (uint32_t)sum : r;
}

static void video_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = DS(0);
	const uint64_t *a = SS(0), *b = SS(1), *c = SS(2);
	LANES(d[l] = video_one(in, (uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l]));
}

/* ---- dp2a, fns, prmt --------------------------------------------------------------------- */

/* dp2a.lo/.hi: the two 16-bit halves of a times bytes 0-1 (lo) or 2-3 (hi) of b, plus c. */
static uint32_t dp2a_one(const struct ptx_insn *in, uint32_t a, uint32_t b, uint32_t c)
{
	int sa = is_signed_t(in->type), sb = is_signed_t(in->type2);
	unsigned base = in->mod == MUL_HI ? 2 : 0;
	int64_t acc = (int32_t)c;
	for (unsigned i = 0; i < 2; i++) {
		uint32_t x = a >> (16 * i) & 0xffff, y = b >> (8 * (base + i)) & 0xff;
		acc += (sa ? (int64_t)(int16_t)x : (int64_t)x) * (sb ? (int64_t)(int8_t)y : (int64_t)y);
	}
	return (uint32_t)acc;
}

/* fns: the offset-th set bit of mask counting from base (up for a positive offset,
 * down for a negative one, base itself for 0), or 0xffffffff. */
static uint32_t fns_one(uint32_t mask, uint32_t base, int32_t offset)
{
	if (offset == 0)
		return base < 32 && (mask >> base & 1) ? base : 0xffffffffu;
	int step = offset > 0 ? 1 : -1;
	int64_t left = offset > 0 ? offset : -(int64_t)offset;
	for (int64_t pos = base; pos >= 0 && pos < 32; pos += step)
		if (mask >> pos & 1 && --left == 0)
			return (uint32_t)pos;
	return 0xffffffffu;
}

/* prmt with a mode (.f4e .b4e .rc8 .ecl .ecr .rc16): the selector's low two bits pick a
 * fixed pattern of the eight bytes of {b, a}. */
static uint32_t prmt_mode_one(unsigned mode, uint32_t a, uint32_t b, uint32_t sel)
{
	uint64_t x = (uint64_t)b << 32 | a;
	unsigned s = sel & 3, r = 0;
	for (unsigned i = 0; i < 4; i++) {
		unsigned k;
		switch (mode) {
		case PRMT_F4E: k = (s + i) & 7; break;
		case PRMT_B4E: k = (s - i) & 7; break;
		case PRMT_RC8: k = s; break;
		case PRMT_ECL: k = i > s ? i : s; break;
		case PRMT_ECR: k = i < s ? i : s; break;
		default: k = (s & 1) * 2 + (i & 1); break; /* PRMT_RC16 */
		}
		r |= (uint32_t)(x >> (8 * k) & 0xff) << (8 * i);
	}
	return r;
}

void family_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	uint64_t *d = DS(0);
	const uint64_t *a = SS(0), *b = in->ns > 1 ? SS(1) : SS(0), *c = in->ns > 2 ? SS(2) : SS(0);
	switch (in->op) {
	case OP_HALF: half_exec(in, R, m); break;
	case OP_SIMD: simd_exec(in, R, m); break;
	case OP_VIDEO: video_exec(in, R, m); break;
	case OP_DP2A: LANES(d[l] = dp2a_one(in, (uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l])); break;
	case OP_FNS: LANES(d[l] = fns_one((uint32_t)a[l], (uint32_t)b[l], (int32_t)c[l])); break;
	default: /* OP_PRMT with a mode */
		LANES(d[l] = prmt_mode_one(in->mod, (uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l]));
		break;
	}
}
