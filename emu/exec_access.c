/* exec_access — the memory instructions, ld, st, atom and red: a kernel parameter read
 * once for all lanes; a warp's access inside one array checked once and copied as rows
 * or lane by lane (exec_span.c); else each lane's address checked (exec_memory.c), with
 * the hooks (race checker) and the trace told of every access.
 */
#include "exec_access.h"

#include <errno.h>
#include <string.h>

#include "initcheck.h" /* reads of memory nothing wrote, when on */
#include "trace.h" /* issue 7 (panels) */

#if EMU_CLONES
__attribute__((target_clones("arch=x86-64-v3", "default"))) /* see emu/meson.build */
#endif
int access_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
		uint32_t m)
{
	const struct emu_hooks *hooks = EMU_HOOKS ? b->L->hooks : NULL;
	struct emu_trace_sm *tsm = b->tsm; /* issue 7 (panels) */
	unsigned sz = ptx_tsize(in->type);
	int rc = 0;
	switch (in->op) {
	CASE(LD) {
		const uint64_t *a = SS(0);
		if (__builtin_expect(in->xmod & PX_POLL, 0) && b->L->grid_ws &&
		    grid_poll(b, w, in, a, m)) {
			/* parked before the load, which runs again when the grid
			 * barrier has opened (exec_grid.c): warp_exec undoes its start */
			return ACCESS_PARKED;
		}
		int64_t off = in->off;
		unsigned n = in->vec, tot = sz * n, sp = in->space;
		if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
			emu_trace_mem(tsm, in, (int)sp, a, off, tot, m, 0);
		int sg = is_signed_t(in->type);
		uint64_t *d0 = DS(0);
		uintptr_t p0, w0;
		if (sp == SP_KPARAM && !hooks) {
			/* a kernel parameter, the same value for every lane: at an immediate
			 * address, or one register holds for all of them (an array in a
			 * __grid_constant__ parameter indexed in a loop: LargeKernelParameter) */
			uint64_t x = a[__builtin_ctz(m)] + (uint64_t)off, apart = 0;
			if (in->s[0] != SR_ZERO && !(in->imm & 1)) /* a register: compare */
				LANES(apart |= a[l] != a[__builtin_ctz(m)]);
			if (!apart && x <= b->L->kparam_size && tot <= b->L->kparam_size - x) {
				for (unsigned k = 0; k < n; k++) {
					uint64_t v = load_n(b->L->kparams + x + k * sz, sz, sg), *dk = DS(k);
					LANES(dk[l] = v);
				}
				NEXT;
			}
		}
		/* initcheck_read, of global memory, lane by lane */
		int shape, lanewise = hooks || (initcheck_on && (sp == SP_GLOBAL || sp == SP_GENERIC));
		if (!lanewise && n == 1 && sz == 4 && m == FULL && sp != SP_LOCAL && sp < SP_KPARAM &&
		    (shape = span_shape_at(b, w, (int)sp, a, off, &p0, &w0))) {
			span_load_shape(d0, a[0], a[16], p0, sg, shape);
			NEXT;
		}
		if (!lanewise && (p0 = warp_span(b, w, (int)sp, a, off, tot, m, &w0))) {
			if (n == 1)
				span_load(d0, a, p0, sz, sg, m);
			else { /* a vector: the addresses first, a destination may be their register */
				uint64_t ta[32];
				memcpy(ta, a, sizeof ta);
				for (unsigned k = 0; k < n; k++) {
					uint64_t *dk = DS(k);
					uintptr_t pk = p0 + k * sz;
					LANES(dk[l] = load_n((const void *)(pk + ta[l]), sz, sg));
				}
			}
			NEXT;
		}
		for (uint32_t mm = m; mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			uint64_t addr = (a[l] + (uint64_t)off) & space_addr_mask((int)sp);
			const unsigned char *p = mem_at(b, w, l, in, (int)sp, addr, tot, 0);
			if (!p) {
				rc = -EFAULT;
				goto out;
			}
#if EMU_HOOKS
			if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
				hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, tot, 0, in->line);
#endif
			if (__builtin_expect(initcheck_on, 0))
				initcheck_read(b, w, l, in, addr, p, tot);
			if (n == 1) {
				d0[l] = load_n(p, sz, sg);
			} else {
				for (unsigned k = 0; k < n; k++)
					R[(size_t)in->d[k] * 32 + l] = load_n(p + k * sz, sz, sg);
			}
		}
		NEXT;
	}
	CASE(ST) {
		const uint64_t *a = SS(0);
		int64_t off = in->off;
		unsigned n = in->vec, tot = sz * n, sp = in->space;
		if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
			emu_trace_mem(tsm, in, (int)sp, a, off, tot, m, 1);
		uintptr_t p0, w0;
		int shape;
		if (!hooks && n == 1 && sz == 4 && m == FULL && sp != SP_LOCAL && sp < SP_KPARAM &&
		    (shape = span_shape_at(b, w, (int)sp, a, off, &p0, &w0))) {
			span_store_shape(SS(1), a[0], a[16], p0, w0, shape);
			NEXT;
		}
		if (!hooks && (p0 = warp_span(b, w, (int)sp, a, off, tot, m, &w0))) {
			for (unsigned k = 0; k < n; k++)
				span_store(a, SS(1 + k), p0 + k * sz, sz, m);
			if (w0)
				span_written(a, w0, tot, m);
			NEXT;
		}
		for (uint32_t mm = m; mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			uint64_t addr = (a[l] + (uint64_t)off) & space_addr_mask((int)sp);
			unsigned char *p = mem_at(b, w, l, in, (int)sp, addr, tot, 1);
			if (!p) {
				rc = -EFAULT;
				goto out;
			}
#if EMU_HOOKS
			if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
				hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, tot, 1, in->line);
#endif
			for (unsigned k = 0; k < n; k++)
				store_n(p + k * sz, sz, R[(size_t)in->s[1 + k] * 32 + l]);
			mem_mark_written(w, p, tot);
		}
		NEXT;
	}
	CASE(ATOM) CASE(RED) {
		int red = in->op == OP_RED;
		const uint64_t *a = SS(0), *bv = SS(1), *cv = in->ns > 2 ? SS(2) : SS(1);
		uint64_t *d = red ? NULL : DS(0);
		unsigned sp = in->space;
		if (__builtin_expect(tsm != NULL, 0)) /* issue 7 (panels) */
			emu_trace_mem(tsm, in, (int)sp, a, in->off, sz, m, 1);
		/* every lane on one address (a counter, a flag): one update (atom_warp) */
		uint64_t a0 = a[__builtin_ctz(m)];
		uint32_t apart = 0;
		LANES(apart |= a[l] != a0);
		if (!apart && (m & (m - 1)) && !(EMU_HOOKS && hooks && hooks->on_access)) {
			unsigned l0 = (unsigned)__builtin_ctz(m);
			uint64_t addr = (a0 + (uint64_t)in->off) & space_addr_mask((int)sp);
			void *p = mem_at(b, w, l0, in, (int)sp, addr, sz, 1);
			if (!p) {
				rc = -EFAULT;
				goto out;
			}
			if (__builtin_expect(initcheck_on, 0))
				initcheck_read(b, w, l0, in, addr, p, sz);
			if (atom_warp(in, p, bv, cv, m, d)) {
				mem_mark_written(w, p, sz);
				NEXT;
			}
		}
		for (uint32_t mm = m; mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			uint64_t addr = (a[l] + (uint64_t)in->off) & space_addr_mask((int)sp);
			void *p = mem_at(b, w, l, in, (int)sp, addr, sz, 1);
			if (!p) {
				rc = -EFAULT;
				goto out;
			}
#if EMU_HOOKS
			if (__builtin_expect(hooks != NULL, 0) && hooks->on_access)
				hooks->on_access(hooks->ctx, b->idx, w->id, l, (int)sp, addr, sz, 2, in->line);
#endif
			if (__builtin_expect(initcheck_on, 0))
				initcheck_read(b, w, l, in, addr, p, sz);
			uint64_t old = atom_one(in, p, bv[l], cv[l]);
			mem_mark_written(w, p, sz);
			if (d)
				d[l] = old;
		}
		NEXT;
	}
	default:
		break;
	}
out:
	return rc;
}
