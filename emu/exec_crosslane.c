/* exec_crosslane — the instructions that read other lanes of the warp: shfl, vote,
 * match, redux, activemask (match and redux's lane work in exec_arith.c).
 */
#include "exec_crosslane.h"

#include <string.h>

#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
void crosslane_exec(const struct ptx_insn *in, uint64_t *R, uint32_t m)
{
	switch (in->op) {
	CASE(SHFL) {
		uint64_t *d = DS(0);
		const uint64_t *a = SS(0), *bb = SS(1), *cc = SS(2);
		uint64_t src[32];
		memcpy(src, a, sizeof src);
		unsigned md = in->mod;
		uint32_t oks = 0;
		LANES(int lane = (int)l, bval = (int)(bb[l] & 0x1f), cval = (int)(cc[l] & 0x1f);
		      int seg = (int)((cc[l] >> 8) & 0x1f);
		      int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j, ok;
		      switch (md) {
		      case SHFL_UP: j = lane - bval; ok = j >= maxl; break;
		      case SHFL_DOWN: j = lane + bval; ok = j <= maxl; break;
		      case SHFL_BFLY: j = lane ^ bval; ok = j <= maxl; break;
		      default: j = minl | (bval & ~seg); ok = j <= maxl; break;
		      }
		      if (!ok) j = lane;
		      d[l] = src[j] & 0xffffffffu;
		      oks |= (uint32_t)ok << l);
		if (in->d[1] != SR_SINK)
			pred_write(R, in->d[1], oks, m);
		NEXT;
	}
	CASE(VOTE) {
		uint64_t *d = DS(0);
		uint32_t bal = (pred_src(in, R, 0) ^ (in->neg_c ? FULL : 0)) & m, grp[32];
		member_groups(in, R, m, 1, grp);
		if (in->mod == VOTE_BALLOT) {
			LANES(d[l] = bal & grp[l]);
			NEXT;
		}
		uint32_t res = 0;
		LANES(uint32_t v = bal & grp[l];
		      res |= (uint32_t)(in->mod == VOTE_ALL ? v == grp[l] : in->mod == VOTE_ANY
					? v != 0 : v == 0 || v == grp[l]) << l);
		pred_write(R, in->d[0], res, m);
		NEXT;
	}
	CASE(MATCH) {
		match_lanes(in, R, m);
		NEXT;
	}
	CASE(REDUX) {
		redux_lanes(in, R, m);
		NEXT;
	}
	CASE(ACTIVEMASK) {
		uint64_t *d = DS(0);
		LANES(d[l] = m);
		NEXT;
	}
	default:
		break;
	}
}
