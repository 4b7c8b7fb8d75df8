/* texture — texture and surface objects of the emulated device: the table the runtime's
 * cudaCreateTextureObject/cudaCreateSurfaceObject fill and the interpreter's tex, tld4,
 * suld, sust, txq and suq read, and the texture unit's arithmetic (addressing modes,
 * point and linear filtering with the hardware's 8-bit fractional weights, normalized
 * reads of 8/16-bit integers, layers, cube maps, mipmap levels).
 *
 * An image's texels live in device memory (devmem.h), row-major, one level after another
 * as the runtime placed them; an object records their device addresses, so memory freed
 * under a live object is found when a kernel uses it (texture_bind) instead of read.
 *
 * Thread safety: texture_register/texture_unregister may run while kernels run;
 * texture_get never blocks. Objects are immutable once registered and never freed (a
 * destroyed handle stays known as destroyed, so a kernel using it is told so).
 */
#ifndef PMPPLAB_EMU_TEXTURE_H
#define PMPPLAB_EMU_TEXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "devmem.h"

/* How a channel's bits read (cudaChannelFormatKind's first three, and the fixed-point
 * formats that always read as normalized floats). */
enum tex_kind { TK_SIGNED, TK_UNSIGNED, TK_FLOAT, TK_SNORM, TK_UNORM };
enum tex_addr { TA_WRAP, TA_CLAMP, TA_MIRROR, TA_BORDER }; /* cudaTextureAddressMode */
enum tex_res { TR_ARRAY, TR_MIPMAP, TR_LINEAR, TR_PITCH2D }; /* cudaResourceType */
/* The geometry an instruction names (tex.1d, .2d, .3d, .a1d, .a2d, .cube, .acube). */
enum tex_geom { TG_1D, TG_2D, TG_3D, TG_A1D, TG_A2D, TG_CUBE, TG_ACUBE };
#define TEX_MAX_LEVELS 16

struct tex_level {
	devaddr_t addr;       /* the level's first texel */
	size_t pitch, slice;  /* bytes between rows, between slices (layers, depth) */
	unsigned w, h, d;     /* texels (h, d at least 1) */
};

struct tex_image {
	unsigned nch, bits;   /* channels (1, 2, 4) and bits of each (8, 16, 32) */
	unsigned kind;        /* enum tex_kind */
	unsigned dims;        /* 1, 2 or 3: the array's dimensions (layers not counted) */
	unsigned layers;      /* layered: the layer count (a cube map: 6 per cube); else 0 */
	int cubemap;
	unsigned nlevels;     /* 1 unless a mipmapped array */
	struct tex_level lv[TEX_MAX_LEVELS];
};

struct tex_object {
	int surface;          /* a surface object (suld/sust), else a texture object */
	unsigned res;         /* enum tex_res */
	struct tex_image img;
	unsigned addr[3];     /* enum tex_addr per coordinate */
	int linear;           /* cudaFilterModeLinear */
	int mip_linear;       /* mipmapFilterMode is linear */
	int read_norm;        /* cudaReadModeNormalizedFloat */
	int norm_coords;      /* normalizedCoords */
	int srgb;
	float border[4];
	float lod_bias, min_lod, max_lod;
};

/* Bytes of one texel. */
static inline unsigned texture_texel_size(const struct tex_image *im)
{
	return im->nch * im->bits / 8;
}

/* Registers a copy of *o; *handle gets its non-zero handle. 0 or -ENOMEM (-ENOSPC when
 * the table is full). */
int texture_register(const struct tex_object *o, uint64_t *handle);
/* Destroys a handle: 0, or -EINVAL when it is not a live object of that kind. */
int texture_unregister(uint64_t handle, int surface);
/* The live object of a handle, or NULL; *destroyed (may be NULL) says whether the
 * handle was one once. */
const struct tex_object *texture_get(uint64_t handle, int *destroyed);

/* An object with its levels' texels resolved to host memory, for one instruction. */
struct tex_view {
	const struct tex_object *o;
	unsigned char *host[TEX_MAX_LEVELS];
	devmem_flags_t written[TEX_MAX_LEVELS]; /* devmem_written()'s handles, or 0 */
};
/* Resolves o's levels: 0, or -EFAULT when a level's memory is no longer allocated
 * (*bad gets that level's address). */
int texture_bind(const struct tex_object *o, struct tex_view *v, devaddr_t *bad);

/* One texture fetch of a lane. Coordinates: c[0..] as the geometry takes them (x, y, z;
 * a cube map's direction), floats unless int_coords; layer for the arrayed forms.
 * lod_mode: 0 level 0 (or the LOD a plain fetch gets: 0), 1 explicit level `lod`,
 * 2 gradients dx/dy (3 each). gather: -1 for tex, else tld4's component (0..3). The four
 * results as 32-bit words: floats when float_out, else integers. */
struct tex_fetch {
	unsigned geom;
	int int_coords;
	union { float f[3]; int32_t i[3]; } c;
	int32_t layer;
	int lod_mode;
	float lod;
	float dx[3], dy[3];
	int gather;
	int float_out;
};
void texture_fetch(const struct tex_view *v, const struct tex_fetch *f, uint32_t out[4]);

/* Surfaces: the byte address of texel (x in bytes, y, z or layer) for an access of
 * `size` bytes. mode: 0 trap, 1 clamp, 2 zero. Returns the host pointer, NULL for a
 * zero-mode access out of range (nothing read, zeros; nothing written); *err gets 0,
 * or 1 when out of range in trap mode, 2 when x is not a multiple of size. */
enum surf_mode { SURF_TRAP, SURF_CLAMP, SURF_ZERO };
unsigned char *texture_surface_at(const struct tex_view *v, unsigned geom, const int32_t *c,
				  int32_t layer, unsigned size, unsigned mode, int *err);

/* txq / suq: the query names of the PTX ISA (width, height, depth, array_size,
 * num_mipmap_levels, normalized_coords, filter_mode, addr_mode_0..2, num_samples,
 * channel_data_type, channel_order) as enum tex_query, and their value for o at level. */
enum tex_query {
	TQ_WIDTH, TQ_HEIGHT, TQ_DEPTH, TQ_ARRAY_SIZE, TQ_LEVELS, TQ_NORM_COORDS, TQ_FILTER,
	TQ_ADDR0, TQ_ADDR1, TQ_ADDR2, TQ_SAMPLES, TQ_DATA_TYPE, TQ_ORDER
};
int32_t texture_query(const struct tex_object *o, unsigned q, int32_t level);

#endif
