/* exec_tex — the texture and surface instructions (OP_TEX, decoded by ptx_tex.c): each
 * lane's handle names an object of texture.h's table; the texture unit's arithmetic is
 * texture.c's. A handle that was never created or was destroyed, memory freed under an
 * object, a surface access out of range in .trap mode or at a byte offset that is not a
 * multiple of its size stop the kernel at the line, as the GPU's errors would (an
 * illegal or misaligned address). Surface accesses are not seen by the race checker or
 * the memory counters (they go through the texture path on a GPU too).
 */
#include "exec_internal.h"

#include <errno.h>
#include <string.h>

#include "texture.h"

/* The object of a lane's handle, bound for this instruction (the warp's lanes nearly
 * always share one handle: it is resolved once). */
struct bound {
	uint64_t handle;
	int ok;
	struct tex_view v;
};

static int bind(struct block *b, struct warp *w, unsigned l, const struct ptx_insn *in,
		const struct ptx_tex *tx, uint64_t h, struct bound *bd)
{
	if (bd->ok && bd->handle == h)
		return 0;
	int surface = tx->kind == TX_SULD || tx->kind == TX_SUST || tx->kind == TX_SUQ;
	const char *want = surface ? "surface" : "texture";
	int destroyed = 0;
	const struct tex_object *o = texture_get(h, &destroyed);
	if (!o)
		return fault_set(b, w, l, in, EMU_FAULT_OOB, -EFAULT,
				 "%s object %llu %s", want, (unsigned long long)h,
				 destroyed ? "was already destroyed"
				 : h ? "was never created" : "is 0 (never created)");
	if (!o->surface != !surface)
		return fault_set(b, w, l, in, EMU_FAULT_OOB, -EFAULT,
				 "handle %llu is a %s object, used here as a %s object",
				 (unsigned long long)h, o->surface ? "surface" : "texture", want);
	devaddr_t bad = 0;
	if (texture_bind(o, &bd->v, &bad))
		return fault_set(b, w, l, in, EMU_FAULT_OOB, -EFAULT,
				 "the memory of %s object %llu (at 0x%llx) was freed while the "
				 "object still uses it", want, (unsigned long long)h,
				 (unsigned long long)bad);
	bd->handle = h;
	bd->ok = 1;
	return 0;
}

static int surface_op(struct block *b, struct warp *w, unsigned l, const struct ptx_insn *in,
		      const struct ptx_tex *tx, const struct bound *bd, uint64_t *R)
{
	int32_t c[3];
	for (unsigned k = 0; k < tx->ncoord; k++)
		c[k] = (int32_t)R[(size_t)tx->c[k] * 32 + l];
	int32_t layer = (int32_t)R[(size_t)tx->layer * 32 + l];
	unsigned bytes = tx->size * tx->vec;
	int err;
	unsigned char *p = texture_surface_at(&bd->v, tx->geom, c, layer, bytes, tx->mode, &err);
	if (err)
		return fault_set(b, w, l, in, err == 2 ? EMU_FAULT_MISALIGNED : EMU_FAULT_OOB,
				 -EFAULT, "surface %s of %u bytes at byte x = %d%s%s", tx->kind ==
				 TX_SUST ? "store" : "load", bytes, c[0],
				 err == 2 ? ", not a multiple of the access size"
					  : " (or y, z, layer) outside the surface",
				 err == 2 ? "" : " (.trap mode: cudaBoundaryModeTrap)");
	if (p && tx->kind == TX_SUST && bd->v.written[0]) /* a kernel's work (provenance) */
		devmem_mark_by_kernel(bd->v.written[0] + (p - bd->v.host[0]), bytes);
	for (unsigned e = 0; e < tx->vec; e++) {
		if (tx->kind == TX_SUST) {
			if (p)
				store_n(p + e * tx->size, tx->size, R[(size_t)tx->v[e] * 32 + l]);
		} else {
			R[(size_t)in->d[e] * 32 + l] = p ? load_n(p + e * tx->size, tx->size, 0) : 0;
		}
	}
	return 0;
}

int tex_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	     uint32_t m)
{
	const struct ptx_tex *tx = &b->L->m->texs[in->target];
	const uint64_t *hv = SS(0);
	struct bound bd = { 0 };
	int rc = 0;
	LANES(if ((rc = bind(b, w, l, in, tx, hv[l], &bd))) return rc;
	      switch (tx->kind) {
	      case TX_TXQ: case TX_SUQ:
		      R[(size_t)in->d[0] * 32 + l] = (uint32_t)texture_query(
			      bd.v.o, tx->mode, (int32_t)R[(size_t)tx->lod * 32 + l]);
		      break;
	      case TX_SULD: case TX_SUST:
		      if ((rc = surface_op(b, w, l, in, tx, &bd, R)))
			      return rc;
		      break;
	      default: {
		      struct tex_fetch f = { .geom = tx->geom, .int_coords = tx->int_coords,
					     .lod_mode = tx->lod_mode, .gather = tx->gather,
					     .float_out = tx->float_out };
		      for (unsigned k = 0; k < tx->ncoord; k++) {
			      uint64_t x = R[(size_t)tx->c[k] * 32 + l];
			      if (tx->int_coords)
				      f.c.i[k] = (int32_t)x;
			      else
				      f.c.f[k] = f32(x);
			      if (tx->lod_mode == 2) {
				      f.dx[k] = f32(R[(size_t)tx->dx[k] * 32 + l]);
				      f.dy[k] = f32(R[(size_t)tx->dy[k] * 32 + l]);
			      }
		      }
		      f.layer = (int32_t)R[(size_t)tx->layer * 32 + l];
		      if (tx->lod_mode == 1)
			      f.lod = f32(R[(size_t)tx->lod * 32 + l]);
		      uint32_t out[4];
		      texture_fetch(&bd.v, &f, out);
		      for (unsigned k = 0; k < 4; k++)
			      R[(size_t)in->d[k] * 32 + l] = out[k];
	      }
	      });
	return 0;
}
