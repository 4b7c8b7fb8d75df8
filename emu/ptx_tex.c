/* ptx_tex — decoding the texture and surface instructions: tex (1d, 2d, 3d, a1d, a2d,
 * cube, acube; .level and .grad), tld4, txq, suld.b, sust.b and suq, as nvcc emits them
 * for texture and surface objects (the handle is a .u64 register). Each gets a
 * description in module->texs (ptx_internal.h's struct ptx_tex); exec_tex.c runs them.
 * Formatted surface stores (sust.p), reductions (sured), multisample geometries, depth
 * compares, texel offsets and f16 results are refused by name.
 */
#include "ptx_parser.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "texture.h"

static int refuse(struct ctx *c, const struct tok *ot, const char *why)
{
	char what[200];
	snprintf(what, sizeof what, "'%.*s': %s", (int)ot->len, ot->p, why);
	return add_unsupported(c, what, NULL);
}

static int malformed(struct ctx *c, const struct tok *ot)
{
	return perr(c->p, c->line, "%.*s: malformed", (int)ot->len, ot->p);
}

static int geom_of(const struct mwords *mw)
{
	static const char *const names[] = { "1d", "2d", "3d", "a1d", "a2d", "cube", "acube" };
	for (int g = 0; g < 7; g++)
		if (mw_has(mw, names[g]))
			return g;
	return -1;
}

/* One register or immediate of an operand list. */
static int slot_of(struct ctx *c, struct tok *t, size_t n, unsigned ty, uint32_t *out)
{
	int s = scalar_operand(c, t, n, ty);
	if (s < 0)
		return c->p->rc ? c->p->rc : perr(c->p, c->line, "bad operand");
	*out = (uint32_t)s;
	return 0;
}

/* A {list} (or a single register) of up to max slots; returns the count or < 0. */
static int list_of(struct ctx *c, struct tok *t, size_t n, uint32_t *slots, int max,
		   unsigned ty)
{
	if (t->kind != '{')
		return slot_of(c, t, n, ty, slots) ? -1 : 1;
	int k = vector_operand(c, t, n, slots, max, ty);
	if (k < 0 && !c->p->rc)
		perr(c->p, c->line, "bad register list");
	return k;
}

/* [handle, {coordinates}] or [handle]: the handle into in->s[0], the coordinates into
 * tx (the layer first for the arrayed geometries, as PTX orders them). */
static int tex_address(struct ctx *c, const struct tok *ot, const struct opnd *o,
		       struct ptx_tex *tx, unsigned cty, int want_coords)
{
	struct tok *t = o->t;
	size_t n = o->n;
	if (t[0].kind != '[' || t[n - 1].kind != ']' || n < 3)
		return perr(c->p, c->line, "%.*s: expected [handle, {coordinates}]", (int)ot->len,
			    ot->p);
	size_t h = 1;
	while (h < n - 1 && t[h].kind != ',')
		h++;
	if (slot_of(c, &t[1], h - 1, PT_B64, &c->in->s[0]))
		return c->p->rc ? c->p->rc : -EINVAL;
	c->in->ns = 1;
	if (!want_coords)
		return h == n - 1 ? 0 : malformed(c, ot);
	if (h >= n - 2)
		return malformed(c, ot);
	uint32_t sl[4];
	int k = list_of(c, &t[h + 1], n - h - 2, sl, 4, cty);
	if (k < 0)
		return c->p->rc ? c->p->rc : -EINVAL;
	unsigned g = tx->geom, layered = g == TG_A1D || g == TG_A2D || g == TG_ACUBE;
	unsigned spatial = g == TG_1D || g == TG_A1D ? 1 : g == TG_2D || g == TG_A2D ? 2 : 3;
	if ((unsigned)k < spatial + layered)
		return perr(c->p, c->line, "%.*s: %d coordinates where %u are needed",
			    (int)ot->len, ot->p, k, spatial + layered);
	tx->has_layer = (uint8_t)layered;
	tx->layer = layered ? sl[0] : SR_ZERO;
	tx->ncoord = (uint8_t)spatial;
	for (unsigned i = 0; i < spatial; i++)
		tx->c[i] = sl[layered + i];
	for (int i = 0; i < k && c->in->ns < 6; i++)
		c->in->s[c->in->ns++] = sl[i];
	return 0;
}

/* The destination list: nd registers into in->d. */
static int dests(struct ctx *c, const struct tok *ot, const struct opnd *o, unsigned want,
		 unsigned ty)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->t[i].kind == '|')
			return refuse(c, ot, "a predicate destination (sparse textures) is not "
				      "emulated");
	int k = list_of(c, o->t, o->n, c->in->d, 4, ty);
	if (k < 0)
		return c->p->rc ? c->p->rc : -EINVAL;
	if ((unsigned)k != want)
		return perr(c->p, c->line, "%.*s: %d destinations where %u are needed",
			    (int)ot->len, ot->p, k, want);
	c->in->nd = (uint8_t)k;
	return 0;
}

static int new_tex(struct ctx *c, struct ptx_tex **out)
{
	struct ptx_module *m = c->p->m;
	struct ptx_tex *na = realloc(m->texs, (m->ntexs + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	m->texs = na;
	*out = &na[m->ntexs];
	memset(*out, 0, sizeof(**out));
	c->in->op = OP_TEX;
	c->in->target = m->ntexs++;
	return 0;
}

/* tex / tld4: d, [a, c] {, lod} {, dPdx, dPdy} */
static int decode_fetch(struct ctx *c, const struct tok *ot, const struct mwords *mw,
			struct opnd *ops, int nops, struct ptx_tex *tx)
{
	int types[2], nt = 0;
	for (int i = 1; i < mw->n; i++) {
		unsigned t = parse_type_word(mw->w[i], mw->wl[i]);
		if (t != PT_NONE && nt < 2)
			types[nt++] = (int)t;
	}
	if (nt != 2 || !mw_has(mw, "v4"))
		return refuse(c, ot, "only the .v4 forms nvcc emits are emulated");
	if (types[0] != PT_F32 && types[0] != PT_S32 && types[0] != PT_U32)
		return refuse(c, ot, "f16 texture results are not emulated");
	if (types[1] != PT_F32 && types[1] != PT_S32)
		return malformed(c, ot);
	tx->float_out = types[0] == PT_F32;
	tx->int_coords = types[1] == PT_S32;
	tx->gather = -1;
	if (tx->kind == TX_TLD4) {
		static const char comps[] = "rgba";
		for (int k = 0; k < 4; k++) {
			char w[2] = { comps[k], 0 };
			if (mw_has(mw, w))
				tx->gather = (int8_t)k;
		}
		if (tx->gather < 0 || tx->geom != TG_2D || tx->int_coords)
			return refuse(c, ot, "only tld4 of 2D textures is emulated");
	}
	tx->lod_mode = mw_has(mw, "level") ? 1 : mw_has(mw, "grad") ? 2 : 0;
	int want = 2 + (tx->lod_mode == 1) + 2 * (tx->lod_mode == 2);
	if (nops != want)
		return refuse(c, ot, "texel offsets and depth compares are not emulated");
	int rc = dests(c, ot, &ops[0], 4, types[0]);
	if (!rc)
		rc = tex_address(c, ot, &ops[1], tx, types[1], 1);
	if (rc)
		return rc;
	if (tx->lod_mode == 1)
		return slot_of(c, ops[2].t, ops[2].n, PT_F32, &tx->lod);
	if (tx->lod_mode == 2) {
		uint32_t g[2][4];
		for (int k = 0; k < 2; k++) {
			int n = list_of(c, ops[2 + k].t, ops[2 + k].n, g[k], 4, PT_F32);
			if (n < (int)tx->ncoord)
				return c->p->rc ? c->p->rc : malformed(c, ot);
		}
		for (unsigned i = 0; i < tx->ncoord; i++)
			tx->dx[i] = g[0][i], tx->dy[i] = g[1][i];
	}
	return 0;
}

/* suld.b / sust.b: d, [a, {x...}]  or  [a, {x...}], {v...} */
static int decode_surface(struct ctx *c, const struct tok *ot, const struct mwords *mw,
			  struct opnd *ops, int nops, struct ptx_tex *tx)
{
	if (mw->n < 2 || !mw_is(mw, 1, "b"))
		return refuse(c, ot, "formatted surface accesses (.p) are not emulated");
	unsigned ty = PT_NONE;
	for (int i = 2; i < mw->n; i++) {
		unsigned t = parse_type_word(mw->w[i], mw->wl[i]);
		if (t != PT_NONE)
			ty = t;
	}
	if (ty != PT_B8 && ty != PT_B16 && ty != PT_B32 && ty != PT_B64)
		return malformed(c, ot);
	tx->size = (uint8_t)ptx_tsize(ty);
	tx->vec = mw_has(mw, "v4") ? 4 : mw_has(mw, "v2") ? 2 : 1;
	tx->mode = mw_has(mw, "clamp") ? SURF_CLAMP : mw_has(mw, "zero") ? SURF_ZERO : SURF_TRAP;
	if (nops != 2)
		return malformed(c, ot);
	int st = tx->kind == TX_SUST;
	int rc = tex_address(c, ot, &ops[st ? 0 : 1], tx, PT_S32, 1);
	if (rc)
		return rc;
	if (!st)
		return dests(c, ot, &ops[0], tx->vec, ty);
	int k = list_of(c, ops[1].t, ops[1].n, tx->v, 4, ty);
	if (k < 0)
		return c->p->rc ? c->p->rc : -EINVAL;
	return (unsigned)k == tx->vec ? 0 : malformed(c, ot);
}

/* txq / suq: d, [a] {, lod} */
static int decode_query(struct ctx *c, const struct tok *ot, const struct mwords *mw,
			struct opnd *ops, int nops, struct ptx_tex *tx)
{
	static const char *const names[] = { "width", "height", "depth", "array_size",
					     "num_mipmap_levels", "normalized_coords",
					     "filter_mode", "addr_mode_0", "addr_mode_1",
					     "addr_mode_2", "num_samples" };
	int q = -1;
	for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
		if (mw_has(mw, names[k]))
			q = k;
	if (q < 0)
		return refuse(c, ot, "this texture query is not emulated");
	tx->mode = (uint8_t)q;
	tx->lod_mode = mw_has(mw, "level");
	tx->lod = SR_ZERO;
	if (nops != 2 + tx->lod_mode)
		return malformed(c, ot);
	int rc = dests(c, ot, &ops[0], 1, PT_B32);
	if (!rc)
		rc = tex_address(c, ot, &ops[1], tx, PT_S32, 0);
	if (!rc && tx->lod_mode)
		rc = slot_of(c, ops[2].t, ops[2].n, PT_S32, &tx->lod);
	return rc;
}

int ptx_tex_mnemonic(const char *mn, size_t len)
{
	static const char *const names[] = { "tex", "tld4", "txq", "suld", "sust", "suq" };
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], mn, len))
			return 1;
	return 0;
}

int decode_tex(struct ctx *c, size_t end)
{
	struct parser *p = c->p;
	const struct tok *ot = &p->t[p->i++];
	struct mwords mw;
	mw_split(ot, &mw);
	struct opnd ops[6];
	int nops = split_operands(p, end, ops, 6);
	if (nops < 0)
		return perr(p, c->line, "too many operands");
	static const char *const kinds[] = { "tex", "tld4", "txq", "suld", "sust", "suq" };
	int kind = 0;
	for (int k = 0; k < 6; k++)
		if (mw_is(&mw, 0, kinds[k]))
			kind = k;
	int geom = geom_of(&mw);
	if (kind != TX_TXQ && kind != TX_SUQ && geom < 0)
		return refuse(c, ot, "multisample and other geometries are not emulated");
	if ((kind == TX_SULD || kind == TX_SUST) && (geom == TG_CUBE || geom == TG_ACUBE))
		return malformed(c, ot);
	struct ptx_tex *tx;
	int rc = new_tex(c, &tx);
	if (rc)
		return rc;
	tx->kind = (uint8_t)kind;
	tx->geom = (uint8_t)(geom < 0 ? TG_1D : geom);
	tx->layer = SR_ZERO;
	switch (kind) {
	case TX_TEX: case TX_TLD4: return decode_fetch(c, ot, &mw, ops, nops, tx);
	case TX_SULD: case TX_SUST: return decode_surface(c, ot, &mw, ops, nops, tx);
	default: return decode_query(c, ot, &mw, ops, nops, tx);
	}
}
