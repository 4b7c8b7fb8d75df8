/* cudart_array — CUDA arrays (see cudart_array.h). */
#include "cudart_array.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_async.h"
#include "cudart_errors.h"
#include "cudart_memory.h"
#include "cudart_provenance.h"
#include "cudart_report.h"
#include "cudart_stream.h"
#include "devmem.h"

#define ARRAY_MAGIC 0x41525259u /* "ARRY" */
#define MIP_MAGIC 0x4d49504du   /* "MIPM" */

/* cudaArray_t and cudaMipmappedArray_t point at these. A freed one stays (its magic
 * cleared), so a stale handle is told apart from garbage; a level of a mipmapped array
 * is a cudaArray inside it. */
struct cudaArray {
	uint32_t magic;
	int freed;
	struct cudaChannelFormatDesc desc;
	struct cudaExtent ext; /* as the program gave it */
	unsigned flags;
	struct tex_image img;  /* one level */
	devaddr_t mem;         /* the allocation (0: a level of a mipmapped array) */
};

struct cudaMipmappedArray {
	uint32_t magic;
	int freed;
	struct cudaArray base; /* desc, extent, flags; img holds every level */
	struct cudaArray level[TEX_MAX_LEVELS];
};

/* Every handle ever made, to tell ours from anything else without dereferencing it. */
static pthread_mutex_t arr_lock = PTHREAD_MUTEX_INITIALIZER;
struct known {
	const void *p;
	int mip;
};
static struct known *arr_known;
static size_t arr_n, arr_cap;

static int arr_remember(const void *p, int mip)
{
	pthread_mutex_lock(&arr_lock);
	int rc = 0;
	if (arr_n == arr_cap) {
		size_t nc = arr_cap ? 2 * arr_cap : 64;
		struct known *na = realloc(arr_known, nc * sizeof *na);
		if (!na)
			rc = -ENOMEM;
		else
			arr_known = na, arr_cap = nc;
	}
	if (!rc)
		arr_known[arr_n++] = (struct known){ p, mip };
	pthread_mutex_unlock(&arr_lock);
	return rc;
}

static int arr_is_known(const void *p)
{
	pthread_mutex_lock(&arr_lock);
	int k = 0;
	for (size_t i = 0; i < arr_n && !k; i++)
		k = arr_known[i].p == p;
	pthread_mutex_unlock(&arr_lock);
	return k;
}

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
						   enum cudaChannelFormatKind f)
{
	struct cudaChannelFormatDesc d = { x, y, z, w, f };
	return d;
}

cudaError_t rt_array_format(const char *call, const struct cudaChannelFormatDesc *d,
			    struct tex_image *img)
{
	int b[4] = { d->x, d->y, d->z, d->w }, f = (int)d->f;
	unsigned n = 0;
	while (n < 4 && b[n])
		n++;
	int ok = n == 1 || n == 2 || n == 4;
	for (unsigned i = 0; i < 4; i++)
		ok = ok && (i < n ? b[i] == b[0] : b[i] == 0);
	ok = ok && (b[0] == 8 || b[0] == 16 || b[0] == 32);
	unsigned kind = TK_FLOAT;
	if (f >= cudaChannelFormatKindUnsignedNormalized8X1 &&
	    f <= cudaChannelFormatKindSignedNormalized16X4) {
		/* the fixed-point kinds: 8X1 8X2 8X4 16X1 16X2 16X4, unsigned then signed */
		int k = (f - cudaChannelFormatKindUnsignedNormalized8X1) % 6;
		unsigned bits = k < 3 ? 8 : 16, nch = 1u << (k % 3);
		ok = ok && (unsigned)b[0] == bits && n == nch;
		kind = f < cudaChannelFormatKindSignedNormalized8X1 ? TK_UNORM : TK_SNORM;
	} else if (f == cudaChannelFormatKindSigned || f == cudaChannelFormatKindUnsigned) {
		kind = f == cudaChannelFormatKindSigned ? TK_SIGNED : TK_UNSIGNED;
	} else {
		ok = ok && f == cudaChannelFormatKindFloat && b[0] != 8;
	}
	if (!ok) {
		rt_report_api(call, "the channel format {%d, %d, %d, %d, kind %d} is not one a "
			      "texture can hold (1, 2 or 4 channels of 8, 16 or 32 bits, floats "
			      "of 16 or 32; block-compressed and NV12 formats are not emulated)",
			      b[0], b[1], b[2], b[3], f);
		return cudaErrorInvalidChannelDescriptor;
	}
	img->nch = n;
	img->bits = (unsigned)b[0];
	img->kind = kind;
	return cudaSuccess;
}

/* Lays out the levels of an image of w x h x d texels (h, d at least 1) at mem. */
static size_t layout(struct tex_image *im, size_t w, size_t h, size_t d, devaddr_t mem)
{
	size_t off = 0, ts = texture_texel_size(im);
	for (unsigned l = 0; l < im->nlevels; l++) {
		struct tex_level *lv = &im->lv[l];
		lv->w = (unsigned)(w >> l ? w >> l : 1);
		lv->h = (unsigned)(im->dims > 1 && h >> l ? h >> l : im->dims > 1 ? 1 : h);
		lv->d = (unsigned)(im->dims > 2 && d >> l ? d >> l : im->dims > 2 ? 1 : d);
		lv->pitch = lv->w * ts;
		lv->slice = lv->pitch * lv->h;
		lv->addr = mem + off;
		off += (lv->slice * lv->d + 255) & ~(size_t)255;
	}
	return off;
}

/* The shape an extent and flags give: dims, layers; 0 or an error reported. */
static cudaError_t shape(const char *call, struct cudaExtent e, unsigned flags,
			 unsigned levels, struct tex_image *im)
{
	const size_t max = 1u << 16;
	int layered = flags & cudaArrayLayered, cube = flags & cudaArrayCubemap;
	im->dims = !e.height ? 1 : !e.depth || layered || cube ? 2 : 3;
	if (layered && !e.height)
		im->dims = 1;
	im->layers = layered || cube ? (unsigned)e.depth : 0;
	im->cubemap = cube != 0;
	im->nlevels = levels;
	const char *bad = NULL;
	if (!e.width || e.width > max || e.height > max || e.depth > max)
		bad = "each dimension must be between 1 and 65536 (width at least 1)";
	else if (flags & ~(unsigned)(cudaArrayLayered | cudaArraySurfaceLoadStore |
				     cudaArrayCubemap | cudaArrayTextureGather))
		bad = "unknown flags";
	else if (cube && (e.width != e.height || !e.depth || e.depth % 6 ||
			  (!layered && e.depth != 6)))
		bad = "a cube map needs width == height and depth 6 (a multiple of 6 when "
		      "layered)";
	else if (layered && !e.depth)
		bad = "a layered array needs its layer count in depth";
	else if (levels < 1 || levels > TEX_MAX_LEVELS)
		bad = "between 1 and 16 mipmap levels";
	if (bad) {
		rt_report_api(call, "extent %zu x %zu x %zu, flags 0x%x: %s", e.width, e.height,
			      e.depth, flags, bad);
		return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

/* Allocates an array (levels == 0: a plain one) or a mipmapped one. */
static cudaError_t rt_array_alloc(const char *call, void **out,
				  const struct cudaChannelFormatDesc *desc,
				  struct cudaExtent ext, unsigned levels, unsigned flags)
{
	rt_report_init();
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!out || !desc) {
		rt_report_api(call, "%s is NULL", out ? "desc" : "the handle pointer");
		return rt_error_set(cudaErrorInvalidValue);
	}
	struct tex_image im = { 0 };
	e = rt_array_format(call, desc, &im);
	if (!e)
		e = shape(call, ext, flags, levels ? levels : 1, &im);
	if (e)
		return rt_error_set(e);
	size_t h = ext.height ? ext.height : 1, d = ext.depth ? ext.depth : 1;
	size_t bytes = layout(&im, ext.width, h, d, 0);
	devaddr_t mem;
	if (devmem_alloc(bytes, DEVMEM_GLOBAL, call, &mem))
		return rt_error_set(cudaErrorMemoryAllocation);
	layout(&im, ext.width, h, d, mem);
	struct cudaArray base = { ARRAY_MAGIC, 0, *desc, ext, flags, im, mem };
	void *handle;
	if (levels) {
		struct cudaMipmappedArray *mm = calloc(1, sizeof *mm);
		if (mm) {
			mm->magic = MIP_MAGIC;
			mm->base = base;
			for (unsigned l = 0; l < levels; l++) {
				struct cudaArray *a = &mm->level[l];
				*a = base;
				a->mem = 0;
				a->img.nlevels = 1;
				a->img.lv[0] = im.lv[l];
				a->ext.width = im.lv[l].w;
				a->ext.height = ext.height ? (im.dims > 1 ? im.lv[l].h : 0) : 0;
				a->ext.depth = im.dims > 2 ? im.lv[l].d : ext.depth;
			}
		}
		handle = mm;
	} else {
		struct cudaArray *a = malloc(sizeof *a);
		if (a)
			*a = base;
		handle = a;
	}
	if (!handle || arr_remember(handle, levels != 0)) {
		free(handle);
		devmem_free(mem);
		return rt_error_set(cudaErrorMemoryAllocation);
	}
	*out = handle;
	return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
			    size_t width, size_t height, unsigned int flags)
{
	if (flags & (cudaArrayLayered | cudaArrayCubemap)) {
		rt_report_api("cudaMallocArray", "layered and cube map arrays come from "
			      "cudaMalloc3DArray");
		return rt_error_set(cudaErrorInvalidValue);
	}
	struct cudaExtent e = { width, height, 0 };
	return rt_array_alloc("cudaMallocArray", (void **)array, desc, e, 0, flags);
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
			      struct cudaExtent extent, unsigned int flags)
{
	return rt_array_alloc("cudaMalloc3DArray", (void **)array, desc, extent, 0, flags);
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
				     const struct cudaChannelFormatDesc *desc,
				     struct cudaExtent extent, unsigned int numLevels,
				     unsigned int flags)
{
	return rt_array_alloc("cudaMallocMipmappedArray", (void **)mipmappedArray, desc, extent,
			      numLevels ? numLevels : 1, flags);
}

/* A live array (a plain one, or a level of a live mipmapped array), or NULL with the
 * misuse reported and *err set. */
static struct cudaArray *live_array(const char *call, const char *arg, const void *p,
				    cudaError_t *err)
{
	*err = cudaSuccess;
	if (!p) {
		rt_report_api(call, "%s is NULL", arg);
		*err = cudaErrorInvalidValue;
		return NULL;
	}
	struct cudaArray *a = (struct cudaArray *)(uintptr_t)p;
	if (arr_is_known(p)) {
		if (a->magic == ARRAY_MAGIC && !a->freed)
			return a;
		*err = cudaErrorInvalidResourceHandle;
		rt_report_api(call, "%s %p %s", arg, p, a->magic == MIP_MAGIC
			      ? "is a mipmapped array: take a level with cudaGetMipmappedArrayLevel"
			      : "was already freed");
		return NULL;
	}
	/* a level of a mipmapped array lies inside the mipmapped array */
	pthread_mutex_lock(&arr_lock);
	struct cudaMipmappedArray *owner = NULL;
	for (size_t i = 0; i < arr_n && !owner; i++) {
		struct cudaMipmappedArray *m = (struct cudaMipmappedArray *)(uintptr_t)arr_known[i].p;
		if (arr_known[i].mip) {
			uintptr_t lo = (uintptr_t)m->level, hi = (uintptr_t)(m->level + TEX_MAX_LEVELS);
			if ((uintptr_t)p >= lo && (uintptr_t)p < hi)
				owner = m;
		}
	}
	pthread_mutex_unlock(&arr_lock);
	if (owner && !owner->freed)
		return a;
	*err = cudaErrorInvalidResourceHandle;
	rt_report_api(call, "%s %p is %s", arg, p, owner ? "a level of a mipmapped array "
		      "that was already freed" : "not a CUDA array from cudaMallocArray or "
		      "cudaMalloc3DArray");
	return NULL;
}

static struct cudaMipmappedArray *live_mip(const char *call, const void *p, cudaError_t *err)
{
	struct cudaMipmappedArray *m = (struct cudaMipmappedArray *)(uintptr_t)p;
	*err = cudaErrorInvalidResourceHandle;
	if (p && arr_is_known(p) && m->magic == MIP_MAGIC && !m->freed)
		return m;
	rt_report_api(call, "%p is not a live mipmapped array from cudaMallocMipmappedArray", p);
	if (!p)
		*err = cudaErrorInvalidValue;
	return NULL;
}

cudaError_t rt_array_image(const char *call, const void *array, int mip,
			   struct tex_image *img, unsigned *flags)
{
	cudaError_t e;
	const struct cudaArray *a = NULL;
	if (mip) {
		const struct cudaMipmappedArray *m = live_mip(call, array, &e);
		a = m ? &m->base : NULL;
	} else {
		a = live_array(call, "the array", array, &e);
	}
	if (!a)
		return e;
	*img = a->img;
	*flags = a->flags;
	return cudaSuccess;
}

cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
				       cudaMipmappedArray_const_t mipmappedArray,
				       unsigned int level)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	struct cudaMipmappedArray *m = live_mip("cudaGetMipmappedArrayLevel", mipmappedArray, &e);
	if (!m)
		return rt_error_set(e);
	if (!levelArray || level >= m->base.img.nlevels) {
		rt_report_api("cudaGetMipmappedArrayLevel", "level %u of a %u-level array", level,
			      m->base.img.nlevels);
		return rt_error_set(cudaErrorInvalidValue);
	}
	*levelArray = &m->level[level];
	return cudaSuccess;
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
	cudaError_t e = rt_error_enter();
	if (e || !array)
		return e;
	struct cudaArray *a = live_array("cudaFreeArray", "array", array, &e);
	if (!a || !a->mem) {
		if (a)
			rt_report_api("cudaFreeArray", "%p is a level of a mipmapped array: free "
				      "that with cudaFreeMipmappedArray", (void *)array);
		return rt_error_set(a ? cudaErrorInvalidValue : e);
	}
	a->freed = 1;
	a->magic = 0;
	devmem_free(a->mem);
	return cudaSuccess;
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray)
{
	cudaError_t e = rt_error_enter();
	if (e || !mipmappedArray)
		return e;
	struct cudaMipmappedArray *m = live_mip("cudaFreeMipmappedArray", mipmappedArray, &e);
	if (!m)
		return rt_error_set(e);
	m->freed = 1;
	m->magic = 0;
	devmem_free(m->base.mem);
	return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
			     unsigned int *flags, cudaArray_t array)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	struct cudaArray *a = live_array("cudaArrayGetInfo", "array", array, &e);
	if (!a)
		return rt_error_set(e);
	if (desc)
		*desc = a->desc;
	if (extent)
		*extent = a->ext;
	if (flags)
		*flags = a->flags;
	return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
	return cudaArrayGetInfo(desc, NULL, NULL, (cudaArray_t)(uintptr_t)array);
}

/* ---- copies ---------------------------------------------------------------------- */

/* One end of a copy, resolved: rows of `width` bytes at p, pitch and slice apart; at
 * user in the program's addresses (the device's, for an array). */
struct rt_end {
	unsigned char *p;
	uintptr_t user;
	size_t pitch, slice;
};

/* An array end: the box at (x bytes, y, z) of wb bytes x h x d inside array a. */
static cudaError_t end_array(const char *call, const char *arg, const void *array, size_t x,
			     size_t y, size_t z, size_t wb, size_t h, size_t d, struct rt_end *e)
{
	cudaError_t err;
	const struct cudaArray *a = live_array(call, arg, array, &err);
	if (!a)
		return err;
	const struct tex_level *lv = &a->img.lv[0];
	size_t rowb = lv->pitch;
	if (x + wb > rowb || y + h > lv->h || z + d > lv->d) {
		rt_report_api(call, "the %zu x %zu x %zu box at (%zu bytes, %zu, %zu) does not fit "
			      "in %s (%zu bytes x %u x %u)", wb, h, d, x, y, z, arg, rowb, lv->h,
			      lv->d);
		return cudaErrorInvalidValue;
	}
	unsigned char *host = devmem_host(lv->addr, lv->slice * lv->d);
	if (!host) {
		rt_report_api(call, "the memory of %s was freed", arg);
		return cudaErrorInvalidValue;
	}
	size_t off = z * lv->slice + y * lv->pitch + x;
	e->p = host + off;
	e->user = (uintptr_t)(lv->addr + off);
	e->pitch = lv->pitch;
	e->slice = lv->slice;
	return cudaSuccess;
}

/* A linear end: pitch and slice given, the box resolved on the side kind says. */
static cudaError_t end_linear(const char *call, const char *arg, const void *p, size_t pitch,
			      size_t slice, size_t wb, size_t h, size_t d,
			      enum cudaMemcpyKind kind, int is_src, struct rt_end *e)
{
	if (wb > pitch && h > 1) {
		rt_report_api(call, "%s: a row of %zu bytes does not fit its pitch of %zu", arg, wb,
			      pitch);
		return cudaErrorInvalidPitchValue;
	}
	size_t n = slice * (d - 1) + pitch * (h - 1) + wb;
	void *q;
	cudaError_t err = rt_memory_resolve(call, arg, p, n, kind, is_src, &q);
	if (err)
		return err;
	e->p = q;
	e->user = (uintptr_t)p;
	e->pitch = pitch;
	e->slice = slice;
	return cudaSuccess;
}

struct box {
	const struct rt_end *dst, *src;
	size_t wb, h, d;
};

static void box_run(void *arg)
{
	const struct box *b = arg;
	const struct rt_end *dst = b->dst, *src = b->src;
	for (size_t z = 0; z < b->d; z++)
		for (size_t y = 0; y < b->h; y++) {
			size_t od = z * dst->slice + y * dst->pitch, os = z * src->slice + y * src->pitch;
			memmove(dst->p + od, src->p + os, b->wb);
			/* the written flags go along (cudart_provenance.h) */
			rt_prov_copy((const void *)(dst->user + od), (const void *)(src->user + os), b->wb);
		}
}

/* Every copy to, from or between arrays, the asynchronous ones too, is done at once,
 * after the queued work, on the device thread (rt_async_run). */
static void copy_box(const struct rt_end *dst, const struct rt_end *src, size_t wb, size_t h,
		     size_t d)
{
	struct box b = {dst, src, wb, h, d};
	rt_async_run(box_run, &b);
}

/* The common entry of the copies: sticky error, the stream (0 for the synchronous ones). */
static cudaError_t copy_enter(cudaStream_t stream)
{
	cudaError_t e = rt_error_enter();
	if (!e && !rt_stream_valid(stream))
		e = cudaErrorInvalidResourceHandle;
	return e;
}

/* A 2-D copy between an array's box at (x bytes, y) and linear memory with its pitch;
 * to: the array is the destination. */
static cudaError_t array_2d(const char *call, int to, const void *array, size_t x, size_t y,
			    const void *lin, size_t pitch, size_t wb, size_t h,
			    enum cudaMemcpyKind kind, cudaStream_t stream)
{
	cudaError_t e = copy_enter(stream);
	if (e)
		return rt_error_set(e);
	if (!wb || !h)
		return cudaSuccess;
	struct rt_end a, l;
	e = end_array(call, to ? "dst" : "src", array, x, y, 0, wb, h, 1, &a);
	if (!e)
		e = end_linear(call, to ? "src" : "dst", lin, pitch, 0, wb, h, 1, kind, to, &l);
	if (!e)
		copy_box(to ? &a : &l, to ? &l : &a, wb, h, 1);
	return rt_error_set(e);
}

static cudaError_t to_array(const char *call, cudaArray_t dst, size_t x, size_t y,
			    const void *src, size_t spitch, size_t wb, size_t h,
			    enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return array_2d(call, 1, dst, x, y, src, spitch, wb, h, kind, stream);
}

static cudaError_t from_array(const char *call, void *dst, size_t dpitch, cudaArray_const_t src,
			      size_t x, size_t y, size_t wb, size_t h, enum cudaMemcpyKind kind,
			      cudaStream_t stream)
{
	return array_2d(call, 0, src, x, y, dst, dpitch, wb, h, kind, stream);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
				const void *src, size_t spitch, size_t width, size_t height,
				enum cudaMemcpyKind kind)
{
	return to_array("cudaMemcpy2DToArray", dst, wOffset, hOffset, src, spitch, width, height,
			kind, 0);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
				     const void *src, size_t spitch, size_t width,
				     size_t height, enum cudaMemcpyKind kind,
				     cudaStream_t stream)
{
	return to_array("cudaMemcpy2DToArrayAsync", dst, wOffset, hOffset, src, spitch, width,
			height, kind, stream);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
				  size_t wOffset, size_t hOffset, size_t width, size_t height,
				  enum cudaMemcpyKind kind)
{
	return from_array("cudaMemcpy2DFromArray", dst, dpitch, src, wOffset, hOffset, width,
			  height, kind, 0);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
				       size_t wOffset, size_t hOffset, size_t width,
				       size_t height, enum cudaMemcpyKind kind,
				       cudaStream_t stream)
{
	return from_array("cudaMemcpy2DFromArrayAsync", dst, dpitch, src, wOffset, hOffset,
			  width, height, kind, stream);
}

/* The deprecated 1-D forms copy count bytes from (wOffset, hOffset) on, row after row:
 * a whole number of rows from the start of one, or a part of one row. */
static void rows_of(const void *array, size_t x, size_t count, size_t *wb, size_t *h)
{
	const struct cudaArray *a = array;
	*wb = count;
	*h = 1;
	if (!array || !arr_is_known(array) || a->magic != ARRAY_MAGIC)
		return; /* the copy reports it */
	size_t rowb = a->img.lv[0].pitch;
	if (x == 0 && count > rowb && count % rowb == 0) {
		*wb = rowb;
		*h = count / rowb;
	}
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
			      const void *src, size_t count, enum cudaMemcpyKind kind)
{
	size_t wb, h;
	rows_of(dst, wOffset, count, &wb, &h);
	return to_array("cudaMemcpyToArray", dst, wOffset, hOffset, src, wb, wb, h, kind, 0);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
				size_t hOffset, size_t count, enum cudaMemcpyKind kind)
{
	size_t wb, h;
	rows_of(src, wOffset, count, &wb, &h);
	return from_array("cudaMemcpyFromArray", dst, wb, src, wOffset, hOffset, wb, h, kind, 0);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
				     cudaArray_const_t src, size_t wOffsetSrc,
				     size_t hOffsetSrc, size_t width, size_t height,
				     enum cudaMemcpyKind kind)
{
	(void)kind; /* arrays are device memory whatever the kind says */
	const char *call = "cudaMemcpy2DArrayToArray";
	cudaError_t e = copy_enter(0);
	if (e || !width || !height)
		return rt_error_set(e);
	struct rt_end d, s;
	e = end_array(call, "dst", dst, wOffsetDst, hOffsetDst, 0, width, height, 1, &d);
	if (!e)
		e = end_array(call, "src", src, wOffsetSrc, hOffsetSrc, 0, width, height, 1, &s);
	if (!e)
		copy_box(&d, &s, width, height, 1);
	return rt_error_set(e);
}

/* cudaMemcpy3D: either end an array (positions and extent in its elements) or a pitched
 * pointer (x in bytes; with no array at all, the extent is in bytes too). */
static cudaError_t copy3d(const char *call, const struct cudaMemcpy3DParms *p,
			  cudaStream_t stream)
{
	cudaError_t e = copy_enter(stream);
	if (e)
		return rt_error_set(e);
	if (!p || !p->srcArray == !p->srcPtr.ptr || !p->dstArray == !p->dstPtr.ptr) {
		rt_report_api(call, p ? "each end needs exactly one of an array and a pitched "
			      "pointer" : "the parameters are NULL");
		return rt_error_set(cudaErrorInvalidValue);
	}
	const struct cudaArray *arr = NULL;
	if (p->srcArray || p->dstArray) {
		arr = live_array(call, p->srcArray ? "srcArray" : "dstArray",
				 p->srcArray ? (const void *)p->srcArray : (const void *)p->dstArray,
				 &e);
		if (!arr)
			return rt_error_set(e);
	}
	size_t es = arr ? texture_texel_size(&arr->img) : 1;
	size_t wb = p->extent.width * es, h = p->extent.height, d = p->extent.depth;
	if (!wb || !h || !d)
		return cudaSuccess;
	struct rt_end ends[2];
	for (int k = 0; k < 2 && !e; k++) { /* 0: dst, 1: src */
		const void *a = k ? p->srcArray : p->dstArray;
		const struct cudaPos *pos = k ? &p->srcPos : &p->dstPos;
		const struct cudaPitchedPtr *pp = k ? &p->srcPtr : &p->dstPtr;
		const char *what = k ? (a ? "srcArray" : "srcPtr") : (a ? "dstArray" : "dstPtr");
		if (a) {
			e = end_array(call, what, a, pos->x * es, pos->y, pos->z, wb, h, d, &ends[k]);
			continue;
		}
		size_t slice = pp->pitch * pp->ysize;
		const unsigned char *base = (const unsigned char *)pp->ptr + pos->z * slice +
					    pos->y * pp->pitch + pos->x;
		if (d > 1 && pp->ysize < h) {
			rt_report_api(call, "%s.ysize %zu is smaller than the extent's height %zu",
				      what, pp->ysize, h);
			e = cudaErrorInvalidValue;
			break;
		}
		e = end_linear(call, what, base, pp->pitch, slice, wb, h, d, p->kind, k, &ends[k]);
	}
	if (!e)
		copy_box(&ends[0], &ends[1], wb, h, d);
	return rt_error_set(e);
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
	return copy3d("cudaMemcpy3D", p, 0);
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
	return copy3d("cudaMemcpy3DAsync", p, stream);
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
	if (!pitchedDevPtr)
		return rt_error_set(cudaErrorInvalidValue);
	size_t pitch = 0, rows = extent.height * (extent.depth ? extent.depth : 1);
	void *p = NULL;
	cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, rows);
	if (e)
		return e;
	pitchedDevPtr->ptr = p;
	pitchedDevPtr->pitch = pitch;
	pitchedDevPtr->xsize = extent.width;
	pitchedDevPtr->ysize = extent.height;
	return cudaSuccess;
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
			 struct cudaExtent extent)
{
	size_t slice = pitchedDevPtr.pitch * pitchedDevPtr.ysize;
	for (size_t z = 0; z < extent.depth; z++) {
		cudaError_t e = cudaMemset2D((char *)pitchedDevPtr.ptr + z * slice,
					     pitchedDevPtr.pitch, value, extent.width,
					     extent.height);
		if (e)
			return e;
	}
	return cudaSuccess;
}

/* Programs built with --default-stream per-thread call these names. */
cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
				   const void *src, size_t count, enum cudaMemcpyKind kind)
	__attribute__((alias("cudaMemcpyToArray")));
cudaError_t cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset,
				     size_t hOffset, size_t count, enum cudaMemcpyKind kind)
	__attribute__((alias("cudaMemcpyFromArray")));
cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
				     const void *src, size_t spitch, size_t width,
				     size_t height, enum cudaMemcpyKind kind)
	__attribute__((alias("cudaMemcpy2DToArray")));
cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src,
				       size_t wOffset, size_t hOffset, size_t width,
				       size_t height, enum cudaMemcpyKind kind)
	__attribute__((alias("cudaMemcpy2DFromArray")));
cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p)
	__attribute__((alias("cudaMemcpy3D")));
cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
	__attribute__((alias("cudaMemcpy3DAsync")));
cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
					  const void *src, size_t spitch, size_t width,
					  size_t height, enum cudaMemcpyKind kind,
					  cudaStream_t stream)
	__attribute__((alias("cudaMemcpy2DToArrayAsync")));
