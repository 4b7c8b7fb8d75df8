/* texture — texture and surface objects, and the texture unit's arithmetic (texture.h).
 *
 * The filtering follows the CUDA programming guide's appendix "Texture Fetching": a
 * coordinate (times the size, when normalized) selects texel floor(x) for point
 * sampling; linear filtering takes xb = x - 0.5, texels floor(xb) and floor(xb) + 1 and
 * the weight frac(xb) held in 9-bit fixed point with 8 fractional bits (1/256 steps,
 * 1.0 exact). The weight is the coordinate rounded to nearest at 1/256, as an NVIDIA GPU
 * gives (tex1D between 1 and 2 at xb = 0.3 gives 1 + 77/256, not 1 + 76/256; ties go up,
 * and a mipmap's level weight is truncated: tests/emu/programs/texture_filter.cu on an
 * H100, 2026-11-25). Addressing
 * applies to the texel indices, as on the hardware: wrap and mirror repeat the image,
 * clamp takes the edge texel, border the border colour; wrap and mirror need normalized
 * coordinates (else they clamp). The weighted sum of the texels is exact (the weights'
 * products have 27 bits at most) and rounded once to float.
 */
#include "texture.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table of objects ------------------------------------------------------------ */

/* Handles index chunks that never move, so readers need no lock while a writer adds. */
#define CHUNK 1024u
#define NCHUNKS 1024u
struct slot {
	_Atomic(const struct tex_object *) obj; /* NULL once destroyed */
	int used;
};
static _Atomic(struct slot *) tex_chunks[NCHUNKS];
static pthread_mutex_t tex_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned tex_next; /* slots handed out; handle = index + 1 */

int texture_register(const struct tex_object *o, uint64_t *handle)
{
	struct tex_object *copy = malloc(sizeof *copy);
	if (!copy)
		return -ENOMEM;
	*copy = *o;
	pthread_mutex_lock(&tex_lock);
	int rc = 0;
	unsigned i = tex_next;
	if (i >= CHUNK * NCHUNKS) {
		rc = -ENOSPC;
		goto out;
	}
	struct slot *ch = atomic_load(&tex_chunks[i / CHUNK]);
	if (!ch) {
		ch = calloc(CHUNK, sizeof *ch);
		if (!ch) {
			rc = -ENOMEM;
			goto out;
		}
		atomic_store(&tex_chunks[i / CHUNK], ch);
	}
	ch[i % CHUNK].used = 1;
	atomic_store(&ch[i % CHUNK].obj, copy);
	tex_next++;
	*handle = (uint64_t)i + 1;
out:
	pthread_mutex_unlock(&tex_lock);
	if (rc)
		free(copy);
	return rc;
}

static struct slot *slot_of(uint64_t handle)
{
	if (handle == 0 || handle > CHUNK * NCHUNKS)
		return NULL;
	uint64_t i = handle - 1;
	struct slot *ch = atomic_load(&tex_chunks[i / CHUNK]);
	return ch ? &ch[i % CHUNK] : NULL;
}

int texture_unregister(uint64_t handle, int surface)
{
	pthread_mutex_lock(&tex_lock);
	struct slot *s = slot_of(handle);
	const struct tex_object *o = s ? atomic_load(&s->obj) : NULL;
	int rc = -EINVAL;
	if (o && !o->surface == !surface) {
		/* a kernel running behind the host's back may still hold it: kept */
		atomic_store(&s->obj, NULL);
		rc = 0;
	}
	pthread_mutex_unlock(&tex_lock);
	return rc;
}

const struct tex_object *texture_get(uint64_t handle, int *destroyed)
{
	struct slot *s = slot_of(handle);
	const struct tex_object *o = s ? atomic_load(&s->obj) : NULL;
	if (destroyed)
		*destroyed = s && !o && s->used;
	return o;
}

int texture_bind(const struct tex_object *o, struct tex_view *v, devaddr_t *bad)
{
	v->o = o;
	for (unsigned l = 0; l < o->img.nlevels; l++) {
		const struct tex_level *lv = &o->img.lv[l];
		size_t bytes = lv->slice * (lv->d - 1) + lv->pitch * (lv->h - 1) +
			       (size_t)lv->w * texture_texel_size(&o->img);
		v->host[l] = devmem_host(lv->addr, bytes);
		v->written[l] = devmem_written(lv->addr, bytes);
		if (!v->host[l]) {
			*bad = lv->addr;
			return -EFAULT;
		}
	}
	return 0;
}

/* ---- texels ------------------------------------------------------------------------ */

static float half_to_float(uint16_t h)
{
	unsigned e = h >> 10 & 0x1f, m = h & 0x3ff;
	float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
		  : ldexpf((float)(m | 0x400), (int)e - 25);
	return h & 0x8000 ? -v : v;
}

static float srgb_to_linear(float c)
{
	return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* Channel ch of the texel at p: its raw bits (sign-extended for signed kinds) and its
 * value as the fetch reads it when the result is float. */
static void channel(const struct tex_object *o, const unsigned char *p, unsigned ch,
		    uint32_t *raw, float *val)
{
	const struct tex_image *im = &o->img;
	unsigned k = im->kind, b = im->bits;
	int sgn = k == TK_SIGNED || k == TK_SNORM;
	uint32_t u;
	if (b == 8) {
		u = p[ch];
		if (sgn)
			u = (uint32_t)(int32_t)(int8_t)u;
	} else if (b == 16) {
		uint16_t x;
		memcpy(&x, p + 2 * ch, 2);
		u = sgn ? (uint32_t)(int32_t)(int16_t)x : x;
	} else {
		memcpy(&u, p + 4 * ch, 4);
	}
	*raw = u;
	if (k == TK_FLOAT) {
		if (b == 16) {
			*val = half_to_float((uint16_t)u);
			*raw = 0;
			memcpy(raw, val, 4);
		} else {
			memcpy(val, &u, 4);
		}
		return;
	}
	int norm = (k == TK_UNORM || k == TK_SNORM || o->read_norm) && b <= 16;
	if (!norm) {
		*val = sgn ? (float)(int32_t)u : (float)u;
		return;
	}
	float max = b == 8 ? (sgn ? 127.0f : 255.0f) : (sgn ? 32767.0f : 65535.0f);
	float f = (sgn ? (float)(int32_t)u : (float)u) / max;
	*val = f < -1.0f ? -1.0f : f;
	if (o->srgb && ch < 3 && !sgn)
		*val = srgb_to_linear(*val);
}

/* The four channels of texel (x, y, z) of level l, or the border colour when any index
 * is -1. Missing channels read 0, and 1 for the fourth. */
static void texel(const struct tex_view *v, unsigned l, long x, long y, long z,
		  uint32_t raw[4], float val[4])
{
	const struct tex_object *o = v->o;
	if (x < 0 || y < 0 || z < 0) {
		for (unsigned c = 0; c < 4; c++) {
			val[c] = o->border[c];
			raw[c] = (uint32_t)(int32_t)o->border[c];
		}
		return;
	}
	const struct tex_level *lv = &o->img.lv[l];
	const unsigned char *p = v->host[l] + (size_t)z * lv->slice + (size_t)y * lv->pitch +
				 (size_t)x * texture_texel_size(&o->img);
	int f32 = o->img.kind == TK_FLOAT && o->img.bits == 32; /* the common case, at once */
	if (f32) {
		memcpy(raw, p, 4 * o->img.nch);
		memcpy(val, p, 4 * o->img.nch);
	}
	for (unsigned c = 0; c < 4; c++) {
		if (c < o->img.nch) {
			if (!f32)
				channel(o, p, c, &raw[c], &val[c]);
		} else {
			val[c] = c == 3 ? 1.0f : 0.0f;
			raw[c] = c == 3 ? 1u : 0u;
		}
	}
}

/* ---- addressing ---------------------------------------------------------------------- */

/* Texel index i of an axis of n texels under mode am: the index read, or -1 (border). */
static long address(long i, long n, unsigned am)
{
	if (i >= 0 && i < n) /* inside: every mode reads it (and wrap's division is slow) */
		return i;
	switch (am) {
	case TA_WRAP:
		i %= n;
		return i < 0 ? i + n : i;
	case TA_MIRROR: {
		long k = i % (2 * n);
		if (k < 0)
			k += 2 * n;
		return k < n ? k : 2 * n - 1 - k;
	}
	case TA_CLAMP:
		return i < 0 ? 0 : i >= n ? n - 1 : i;
	default:
		return i < 0 || i >= n ? -1 : i;
	}
}

/* The cube map face a direction points at, and the face's normalized (s, t) (the
 * programming guide's table "Cubemap Fetch"). */
static unsigned cube_face(const float d[3], float *s, float *t)
{
	float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]), sc, tc, ma;
	unsigned face;
	if (ax >= ay && ax >= az) {
		face = d[0] >= 0 ? 0 : 1;
		sc = d[0] >= 0 ? -d[2] : d[2];
		tc = -d[1];
		ma = ax;
	} else if (ay >= az) {
		face = d[1] >= 0 ? 2 : 3;
		sc = d[0];
		tc = d[1] >= 0 ? d[2] : -d[2];
		ma = ay;
	} else {
		face = d[2] >= 0 ? 4 : 5;
		sc = d[2] >= 0 ? d[0] : -d[0];
		tc = -d[1];
		ma = az;
	}
	*s = ma > 0 ? (sc / ma + 1.0f) * 0.5f : 0.5f;
	*t = ma > 0 ? (tc / ma + 1.0f) * 0.5f : 0.5f;
	return face;
}

/* ---- sampling ---------------------------------------------------------------------- */

/* What one level's sampling needs, the coordinates resolved. */
struct sample {
	unsigned n;         /* spatial axes (1..3) */
	double x[3];        /* texel-space coordinates (already scaled when normalized) */
	long ix[3];         /* integer coordinates (int_coords) */
	int int_coords;
	long slice;         /* the layer (or -1: border) for layered images */
	unsigned am[3];
	int linear;
};

/* Samples level l; results in raw (integers) and val (floats). gather >= 0: tld4's
 * component of the four texels of the bilinear footprint. */
static void sample_level(const struct tex_view *v, const struct sample *s, unsigned l,
			 int gather, uint32_t raw[4], float val[4])
{
	const struct tex_level *lv = &v->o->img.lv[l];
	long size[3] = { lv->w, lv->h, lv->d };
	long i0[3] = { 0, 0, 0 }, i1[3] = { 0, 0, 0 };
	unsigned wt[3] = { 0, 0, 0 }; /* weight of i1, in 1/256 */
	for (unsigned k = 0; k < s->n; k++) {
		if (s->int_coords) {
			i0[k] = address(s->ix[k], size[k], s->am[k]);
			continue;
		}
		double x = s->x[k];
		if (!(x == x))
			x = 0;
		if (!s->linear && gather < 0) {
			x = x < -1e15 ? -1e15 : x > 1e15 ? 1e15 : x;
			long fl = (long)x; /* floor, without a libm call per lane */
			i0[k] = address(fl - (x < (double)fl), size[k], s->am[k]);
			continue;
		}
		double fx = floor((x - 0.5) * 256.0 + 0.5); /* ties up, as the H100 does */
		fx = fx < -1e15 ? -1e15 : fx > 1e15 ? 1e15 : fx;
		long q = (long)fx, base = q >= 0 ? q / 256 : -((-q + 255) / 256);
		wt[k] = (unsigned)(q - base * 256);
		i0[k] = address(base, size[k], s->am[k]);
		i1[k] = address(base + 1, size[k], s->am[k]);
	}
	long z = s->n == 3 ? 0 : s->slice; /* 3D: z is an axis; layered: the layer */
	if (s->int_coords || (!s->linear && gather < 0)) {
		texel(v, l, i0[0], s->n > 1 ? i0[1] : 0, s->n == 3 ? i0[2] : z, raw, val);
		return;
	}
	if (gather >= 0) { /* (i0,j1) (i1,j1) (i1,j0) (i0,j0), as the PTX ISA orders them */
		const long *xs[4] = { i0, i1, i1, i0 }, *ys[4] = { i1, i1, i0, i0 };
		for (unsigned c = 0; c < 4; c++) {
			uint32_t r[4];
			float f[4];
			texel(v, l, xs[c][0], ys[c][1], z, r, f);
			raw[c] = r[gather];
			val[c] = f[gather];
		}
		return;
	}
	double acc[4] = { 0, 0, 0, 0 };
	unsigned corners = 1u << s->n;
	for (unsigned c = 0; c < corners; c++) {
		double w = 1;
		long ix[3];
		for (unsigned k = 0; k < 3; k++) {
			int hi = k < s->n && (c >> k & 1);
			ix[k] = hi ? i1[k] : i0[k];
			if (k < s->n)
				w *= hi ? wt[k] : 256 - wt[k];
		}
		if (w == 0)
			continue;
		uint32_t r[4];
		float f[4];
		texel(v, l, ix[0], s->n > 1 ? ix[1] : 0, s->n == 3 ? ix[2] : z, r, f);
		for (unsigned ch = 0; ch < 4; ch++)
			acc[ch] += w * (double)f[ch];
	}
	double scale = ldexp(1.0, -8 * (int)s->n);
	for (unsigned ch = 0; ch < 4; ch++) {
		val[ch] = (float)(acc[ch] * scale);
		memcpy(&raw[ch], &val[ch], 4);
	}
}

/* The level of detail of a fetch (before the clamps), from its mode. */
static double fetch_lod(const struct tex_object *o, const struct tex_fetch *f, unsigned n)
{
	if (f->lod_mode == 1)
		return f->lod;
	if (f->lod_mode != 2)
		return 0;
	/* isotropic: the longer of the two gradients, in texels of level 0 */
	const struct tex_level *lv = &o->img.lv[0];
	double size[3] = { lv->w, lv->h, lv->d }, lx = 0, ly = 0;
	for (unsigned k = 0; k < n; k++) {
		double sx = f->dx[k] * (o->norm_coords ? size[k] : 1);
		double sy = f->dy[k] * (o->norm_coords ? size[k] : 1);
		lx += sx * sx;
		ly += sy * sy;
	}
	double m = lx > ly ? lx : ly;
	return m > 0 ? 0.5 * log2(m) : -1000;
}

void texture_fetch(const struct tex_view *v, const struct tex_fetch *f, uint32_t out[4])
{
	const struct tex_object *o = v->o;
	const struct tex_image *im = &o->img;
	struct sample s = { .int_coords = f->int_coords, .slice = 0 };
	int norm = o->norm_coords;
	float cube[2];
	switch (f->geom) {
	case TG_1D: case TG_A1D: s.n = 1; break;
	case TG_2D: case TG_A2D: s.n = 2; break;
	case TG_3D: s.n = 3; break;
	default: s.n = 2; break;
	}
	unsigned layers = im->layers ? im->layers : 1;
	if (f->geom == TG_A1D || f->geom == TG_A2D)
		s.slice = f->layer < 0 ? 0 : f->layer >= (int32_t)layers ? (long)layers - 1
									  : f->layer;
	for (unsigned k = 0; k < 3; k++)
		s.am[k] = o->res == TR_LINEAR ? TA_BORDER
			  : !norm && (o->addr[k] == TA_WRAP || o->addr[k] == TA_MIRROR) ? TA_CLAMP
			  : o->addr[k];
	if (f->geom == TG_CUBE || f->geom == TG_ACUBE) {
		float d[3] = { f->c.f[0], f->c.f[1], f->c.f[2] };
		unsigned face = cube_face(d, &cube[0], &cube[1]);
		long cubes = layers / 6 ? layers / 6 : 1;
		long li = f->geom == TG_ACUBE ? (f->layer < 0 ? 0 : f->layer >= cubes ? cubes - 1
											 : f->layer)
				: 0;
		s.slice = li * 6 + face;
		s.int_coords = 0;
		norm = 1;
		s.am[0] = s.am[1] = TA_CLAMP;
	}
	s.linear = o->linear && f->float_out && !s.int_coords;
	/* the level(s) */
	unsigned l0 = 0, l1 = 0, w1 = 0;
	if (im->nlevels > 1 && f->lod_mode) {
		double lod = fetch_lod(o, f, s.n) + o->lod_bias, top = im->nlevels - 1;
		if (o->max_lod > o->min_lod || o->max_lod > 0) {
			lod = lod < o->min_lod ? o->min_lod : lod;
			lod = lod > o->max_lod ? o->max_lod : lod;
		}
		lod = lod < 0 ? 0 : lod > top ? top : lod;
		if (o->mip_linear) {
			l0 = (unsigned)floor(lod);
			w1 = (unsigned)floor((lod - l0) * 256.0); /* truncated, as the H100 does */
			l1 = l0 + 1 > top ? l0 : l0 + 1;
		} else {
			l0 = l1 = (unsigned)floor(lod + 0.5);
		}
	}
	uint32_t raw[4], raw1[4];
	float val[4], val1[4];
	for (int pass = 0; pass < 2; pass++) {
		unsigned l = pass ? l1 : l0;
		const struct tex_level *lv = &im->lv[l];
		double size[3] = { lv->w, lv->h, lv->d };
		for (unsigned k = 0; k < s.n; k++) {
			double c = f->geom == TG_CUBE || f->geom == TG_ACUBE ? cube[k] : f->c.f[k];
			s.x[k] = norm ? c * size[k] : c;
			s.ix[k] = s.int_coords ? f->c.i[k] : 0;
		}
		sample_level(v, &s, l, f->gather, pass ? raw1 : raw, pass ? val1 : val);
		if (!w1)
			break;
	}
	for (unsigned c = 0; c < 4; c++) {
		if (w1) {
			val[c] = (float)(((256.0 - w1) * val[c] + (double)w1 * val1[c]) / 256.0);
			memcpy(&raw[c], &val[c], 4);
		}
		if (f->float_out)
			memcpy(&out[c], &val[c], 4);
		else
			out[c] = raw[c];
	}
}

/* ---- surfaces and queries ------------------------------------------------------------ */

unsigned char *texture_surface_at(const struct tex_view *v, unsigned geom, const int32_t *c,
				  int32_t layer, unsigned size, unsigned mode, int *err)
{
	const struct tex_image *im = &v->o->img;
	const struct tex_level *lv = &im->lv[0];
	unsigned n = geom == TG_3D ? 3 : geom == TG_1D || geom == TG_A1D ? 1 : 2;
	long lim[3] = { (long)lv->w * texture_texel_size(im), lv->h, lv->d };
	long at[3] = { c[0], n > 1 ? c[1] : 0, n > 2 ? c[2] : 0 };
	*err = 0;
	if (at[0] % (long)size) {
		*err = 2;
		return NULL;
	}
	if (geom == TG_A1D || geom == TG_A2D || geom == TG_CUBE || geom == TG_ACUBE) {
		at[2] = layer;
		n = 3;
		lim[2] = im->layers ? im->layers : 1;
	}
	for (unsigned k = 0; k < n; k++) {
		long hi = k == 0 ? lim[0] - (long)size : lim[k] - 1;
		if (at[k] >= 0 && at[k] <= hi)
			continue;
		if (mode == SURF_ZERO)
			return NULL;
		if (mode == SURF_TRAP) {
			*err = 1;
			return NULL;
		}
		at[k] = at[k] < 0 ? 0 : hi;
	}
	return v->host[0] + (size_t)at[2] * lv->slice + (size_t)at[1] * lv->pitch + (size_t)at[0];
}

int32_t texture_query(const struct tex_object *o, unsigned q, int32_t level)
{
	const struct tex_image *im = &o->img;
	unsigned l = level < 0 ? 0 : (unsigned)level >= im->nlevels ? im->nlevels - 1
								     : (unsigned)level;
	const struct tex_level *lv = &im->lv[l];
	switch (q) {
	case TQ_WIDTH: return (int32_t)lv->w;
	case TQ_HEIGHT: return im->dims > 1 || im->cubemap ? (int32_t)lv->h : 0;
	case TQ_DEPTH: return im->dims > 2 ? (int32_t)lv->d : 0;
	case TQ_ARRAY_SIZE:
		return im->cubemap ? (int32_t)(im->layers / 6) : (int32_t)im->layers;
	case TQ_LEVELS: return (int32_t)im->nlevels;
	case TQ_NORM_COORDS: return o->norm_coords;
	case TQ_FILTER: return o->linear;
	case TQ_ADDR0: case TQ_ADDR1: case TQ_ADDR2: return (int32_t)o->addr[q - TQ_ADDR0];
	default: return 0;
	}
}
