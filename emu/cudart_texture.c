/* cudart_texture — texture and surface objects (see cudart_texture.h). */
#include "cudart_texture.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_array.h"
#include "cudart_errors.h"
#include "cudart_report.h"
#include "devmem.h"
#include "texture.h"

/* The descriptors as the program gave them, by handle (handles are dense from 1). */
struct kept {
	struct cudaResourceDesc res;
	struct cudaTextureDesc tex;
};
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept *kept;
static size_t kept_cap;

static void keep(uint64_t h, const struct cudaResourceDesc *r, const struct cudaTextureDesc *t)
{
	pthread_mutex_lock(&kept_lock);
	if (h >= kept_cap) {
		size_t nc = kept_cap ? kept_cap : 64;
		while (nc <= h)
			nc *= 2;
		struct kept *nk = realloc(kept, nc * sizeof *nk);
		if (nk) {
			memset(nk + kept_cap, 0, (nc - kept_cap) * sizeof *nk);
			kept = nk;
			kept_cap = nc;
		}
	}
	if (h < kept_cap) {
		kept[h].res = *r;
		if (t)
			kept[h].tex = *t;
	}
	pthread_mutex_unlock(&kept_lock);
}

/* The image a resource descriptor names; reports misuse naming call. */
static cudaError_t image_of(const char *call, const struct cudaResourceDesc *r, int surface,
			    struct tex_object *o)
{
	unsigned flags = 0;
	cudaError_t e;
	o->res = (unsigned)r->resType;
	switch (r->resType) {
	case cudaResourceTypeArray:
		e = rt_array_image(call, r->res.array.array, 0, &o->img, &flags);
		if (!e && surface && !(flags & cudaArraySurfaceLoadStore)) {
			rt_report_api(call, "the array was allocated without "
				      "cudaArraySurfaceLoadStore, which surfaces need");
			e = cudaErrorInvalidValue;
		}
		return e;
	case cudaResourceTypeMipmappedArray:
		if (surface)
			break;
		return rt_array_image(call, r->res.mipmap.mipmap, 1, &o->img, &flags);
	case cudaResourceTypeLinear:
	case cudaResourceTypePitch2D: {
		if (surface)
			break;
		int lin = r->resType == cudaResourceTypeLinear;
		const void *p = lin ? r->res.linear.devPtr : r->res.pitch2D.devPtr;
		e = rt_array_format(call, lin ? &r->res.linear.desc : &r->res.pitch2D.desc,
				    &o->img);
		if (e)
			return e;
		size_t ts = texture_texel_size(&o->img);
		struct tex_level *lv = &o->img.lv[0];
		lv->addr = (devaddr_t)(uintptr_t)p;
		lv->w = (unsigned)(lin ? r->res.linear.sizeInBytes / ts : r->res.pitch2D.width);
		lv->h = lin ? 1 : (unsigned)r->res.pitch2D.height;
		lv->d = 1;
		lv->pitch = lin ? lv->w * ts : r->res.pitch2D.pitchInBytes;
		lv->slice = lv->pitch * lv->h;
		o->img.dims = lin ? 1 : 2;
		o->img.nlevels = 1;
		size_t bytes = lv->pitch * (lv->h - 1) + (size_t)lv->w * ts;
		if (!lv->w || !lv->h || (!lin && lv->pitch < (size_t)lv->w * ts) ||
		    (!lin && lv->pitch % 32)) {
			rt_report_api(call, "%zu x %u texels with a pitch of %zu bytes: the size "
				      "must not be 0, and the pitch must hold a row and be a "
				      "multiple of 32 (texturePitchAlignment; cudaMallocPitch's "
				      "pitch is)", (size_t)lv->w, lv->h, lv->pitch);
			return cudaErrorInvalidValue;
		}
		struct devmem_info info;
		if (devmem_find(lv->addr, &info) || info.kind == DEVMEM_HOST ||
		    !devmem_host(lv->addr, bytes)) {
			rt_report_api(call, "devPtr %p with %zu bytes is not inside one live device "
				      "allocation (cudaMalloc or cudaMallocPitch)", p, bytes);
			return cudaErrorInvalidValue;
		}
		return cudaSuccess;
	}
	default:
		rt_report_api(call, "%d is not a cudaResourceType", (int)r->resType);
		return cudaErrorInvalidValue;
	}
	rt_report_api(call, "a surface object needs a CUDA array (resType cudaResourceTypeArray)");
	return cudaErrorInvalidValue;
}

static cudaError_t create(const char *call, uint64_t *out, const struct cudaResourceDesc *r,
			  const struct cudaTextureDesc *t, int surface)
{
	rt_report_init();
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!out || !r || (!surface && !t)) {
		rt_report_api(call, "%s is NULL", !out ? "the object pointer" : !r ? "pResDesc"
			      : "pTexDesc");
		return rt_error_set(cudaErrorInvalidValue);
	}
	struct tex_object o = { .surface = surface };
	e = image_of(call, r, surface, &o);
	if (e)
		return rt_error_set(e);
	if (t) {
		for (unsigned k = 0; k < 3; k++) {
			if ((unsigned)t->addressMode[k] > cudaAddressModeBorder) {
				rt_report_api(call, "addressMode[%u] = %d is not a "
					      "cudaTextureAddressMode", k, (int)t->addressMode[k]);
				return rt_error_set(cudaErrorInvalidValue);
			}
			o.addr[k] = (unsigned)t->addressMode[k];
		}
		o.linear = t->filterMode == cudaFilterModeLinear;
		o.mip_linear = t->mipmapFilterMode == cudaFilterModeLinear;
		o.read_norm = t->readMode == cudaReadModeNormalizedFloat;
		o.norm_coords = t->normalizedCoords != 0;
		o.srgb = t->sRGB != 0;
		memcpy(o.border, t->borderColor, sizeof o.border);
		o.lod_bias = t->mipmapLevelBias;
		o.min_lod = t->minMipmapLevelClamp;
		o.max_lod = t->maxMipmapLevelClamp;
		if (o.linear && o.img.kind != TK_FLOAT && !o.read_norm && o.img.kind != TK_UNORM &&
		    o.img.kind != TK_SNORM) {
			rt_report_api(call, "linear filtering of integer texels needs readMode "
				      "cudaReadModeNormalizedFloat (integers cannot be "
				      "interpolated)");
			return rt_error_set(cudaErrorInvalidFilterSetting); /* the H100's answer */
		}
	}
	uint64_t h;
	if (texture_register(&o, &h))
		return rt_error_set(cudaErrorMemoryAllocation);
	keep(h, r, t);
	*out = h;
	return cudaSuccess;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
				    const struct cudaResourceDesc *pResDesc,
				    const struct cudaTextureDesc *pTexDesc,
				    const struct cudaResourceViewDesc *pResViewDesc)
{
	if (pResViewDesc && pResViewDesc->format) {
		rt_report_api("cudaCreateTextureObject", "resource views are not emulated; run "
			      "with --backend gpu");
		return rt_error_set(cudaErrorNotSupported);
	}
	return create("cudaCreateTextureObject", (uint64_t *)pTexObject, pResDesc, pTexDesc, 0);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
				    const struct cudaResourceDesc *pResDesc)
{
	return create("cudaCreateSurfaceObject", (uint64_t *)pSurfObject, pResDesc, NULL, 1);
}

static cudaError_t destroy(const char *call, uint64_t h, int surface)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!h)
		return cudaSuccess; /* like a free of NULL */
	if (texture_unregister(h, surface)) {
		int destroyed = 0;
		texture_get(h, &destroyed);
		rt_report_api(call, "%llu is %s", (unsigned long long)h,
			      destroyed ? "already destroyed"
			      : surface ? "not a surface object" : "not a texture object");
		return rt_error_set(cudaErrorInvalidValue);
	}
	return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
	return destroy("cudaDestroyTextureObject", texObject, 0);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
	return destroy("cudaDestroySurfaceObject", surfObject, 1);
}

/* The kept descriptors of a live object of that kind. */
static cudaError_t lookup(const char *call, uint64_t h, int surface, struct kept *out)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	const struct tex_object *o = texture_get(h, NULL);
	if (!o || !o->surface != !surface) {
		rt_report_api(call, "%llu is not a live %s object", (unsigned long long)h,
			      surface ? "surface" : "texture");
		return rt_error_set(cudaErrorInvalidValue);
	}
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&kept_lock);
	if (h < kept_cap)
		*out = kept[h];
	pthread_mutex_unlock(&kept_lock);
	return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
					     cudaTextureObject_t texObject)
{
	struct kept k;
	cudaError_t e = lookup("cudaGetTextureObjectResourceDesc", texObject, 0, &k);
	if (!e && pResDesc)
		*pResDesc = k.res;
	return e;
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
					    cudaTextureObject_t texObject)
{
	struct kept k;
	cudaError_t e = lookup("cudaGetTextureObjectTextureDesc", texObject, 0, &k);
	if (!e && pTexDesc)
		*pTexDesc = k.tex;
	return e;
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
					     cudaSurfaceObject_t surfObject)
{
	struct kept k;
	cudaError_t e = lookup("cudaGetSurfaceObjectResourceDesc", surfObject, 1, &k);
	if (!e && pResDesc)
		*pResDesc = k.res;
	return e;
}
