/* cudart_attr — see cudart_attr.h. */
#include "cudart_attr.h"

#include <pthread.h>
#include <stdlib.h>

#include "cudart_device.h"
#include "cudart_errors.h"
#include "cudart_stream.h"
#include "emu_device.h"

/* What a GPU's largest access policy window is where it has persisting L2 (sm_80 and
 * later: accessPolicyMaxWindowSize, 128 MiB less 4 KiB), 0 where it has none. */
#define RT_ATTR_MAX_WINDOW 134213632u

/* The attributes set on one stream, by id (the stream attributes are ids 1 to 10); a
 * stream never set has the defaults. */
#define RT_ATTR_IDS (cudaLaunchAttributeMemSyncDomain + 1)
struct rt_attr_stream {
	cudaStream_t stream;
	cudaStreamAttrValue val[RT_ATTR_IDS];
	struct rt_attr_stream *next;
};

static pthread_mutex_t rt_attr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_attr_stream *rt_attr_streams;
static size_t rt_attr_persisting;

/* A stream's defaults, as a new stream has them. */
static struct rt_attr_stream rt_attr_defaults(cudaStream_t s)
{
	struct rt_attr_stream d = { .stream = s };
	/* a new stream on an H200 (CUDA 13.0) answers -1: no policy set, not cudaSyncPolicyAuto */
	d.val[cudaLaunchAttributeSynchronizationPolicy].syncPolicy = -1;
	d.val[cudaLaunchAttributeMemSyncDomainMap].memSyncDomainMap.remote = 1;
	return d;
}

/* The entry of S (created with the defaults when MAKE), or NULL. Under the lock. */
static struct rt_attr_stream *rt_attr_find(cudaStream_t s, int make)
{
	for (struct rt_attr_stream *p = rt_attr_streams; p; p = p->next)
		if (p->stream == s)
			return p;
	struct rt_attr_stream *p = make ? malloc(sizeof *p) : NULL;
	if (p) {
		*p = rt_attr_defaults(s);
		p->next = rt_attr_streams;
		rt_attr_streams = p;
	}
	return p;
}

void rt_attr_stream_forget(cudaStream_t stream)
{
	pthread_mutex_lock(&rt_attr_lock);
	for (struct rt_attr_stream **pp = &rt_attr_streams; *pp;) {
		struct rt_attr_stream *p = *pp;
		if (!stream || p->stream == stream) {
			*pp = p->next;
			free(p);
		} else {
			pp = &p->next;
		}
	}
	pthread_mutex_unlock(&rt_attr_lock);
}

static unsigned rt_attr_max_window(void)
{
	return rt_device_model()->persisting_l2_max ? RT_ATTR_MAX_WINDOW : 0;
}

cudaError_t rt_attr_check_window(const struct cudaAccessPolicyWindow *w)
{
	if (w->num_bytes > rt_attr_max_window() || !(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f) ||
	    (unsigned)w->hitProp > cudaAccessPropertyPersisting ||
	    (unsigned)w->missProp > cudaAccessPropertyStreaming)
		return cudaErrorInvalidValue;
	return cudaSuccess;
}

cudaError_t rt_attr_set_persisting_l2(size_t value)
{
	size_t max = (size_t)rt_device_model()->persisting_l2_max;
	if (!max)
		return rt_error_set(cudaErrorUnsupportedLimit);
	pthread_mutex_lock(&rt_attr_lock);
	rt_attr_persisting = value < max ? value : max; /* the set-aside is at most the max */
	pthread_mutex_unlock(&rt_attr_lock);
	return cudaSuccess;
}

size_t rt_attr_persisting_l2(void)
{
	pthread_mutex_lock(&rt_attr_lock);
	size_t v = rt_attr_persisting;
	pthread_mutex_unlock(&rt_attr_lock);
	return v;
}

/* The stream attributes: the launch attributes a stream takes. */
static int rt_attr_of_stream(cudaStreamAttrID attr)
{
	return attr == cudaLaunchAttributeAccessPolicyWindow ||
	       attr == cudaLaunchAttributeSynchronizationPolicy ||
	       attr == cudaLaunchAttributePriority || attr == cudaLaunchAttributeMemSyncDomainMap ||
	       attr == cudaLaunchAttributeMemSyncDomain;
}

/* The checks every stream attribute call starts with. */
static cudaError_t rt_attr_enter(cudaStream_t stream, cudaStreamAttrID attr, const void *value)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (!value || !rt_attr_of_stream(attr))
		return rt_error_set(cudaErrorInvalidValue);
	return cudaSuccess;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
				   const cudaStreamAttrValue *value)
{
	cudaError_t e = rt_attr_enter(stream, attr, value);
	if (e)
		return e;
	if (attr == cudaLaunchAttributeAccessPolicyWindow &&
	    rt_attr_check_window(&value->accessPolicyWindow))
		return rt_error_set(cudaErrorInvalidValue);
	if ((attr == cudaLaunchAttributeSynchronizationPolicy &&
	     (value->syncPolicy < 1 || value->syncPolicy > 4)) ||
	    (attr == cudaLaunchAttributeMemSyncDomain && (unsigned)value->memSyncDomain > 1))
		return rt_error_set(cudaErrorInvalidValue);
	if (attr == cudaLaunchAttributePriority) /* one queue: every priority is the same */
		return cudaSuccess;
	pthread_mutex_lock(&rt_attr_lock);
	struct rt_attr_stream *p = rt_attr_find(stream, 1);
	if (p)
		p->val[attr] = *value;
	pthread_mutex_unlock(&rt_attr_lock);
	return p ? cudaSuccess : rt_error_set(cudaErrorMemoryAllocation);
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
				   cudaStreamAttrValue *value_out)
{
	cudaError_t e = rt_attr_enter(stream, attr, value_out);
	if (e)
		return e;
	if (attr == cudaLaunchAttributePriority)
		return cudaStreamGetPriority(stream, &value_out->priority);
	pthread_mutex_lock(&rt_attr_lock);
	struct rt_attr_stream *p = rt_attr_find(stream, 0), d = rt_attr_defaults(stream);
	*value_out = (p ? p : &d)->val[attr];
	pthread_mutex_unlock(&rt_attr_lock);
	return cudaSuccess;
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(dst) || !rt_stream_valid(src))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&rt_attr_lock);
	struct rt_attr_stream *s = rt_attr_find(src, 0), d = rt_attr_defaults(src);
	if (!s)
		s = &d;
	struct rt_attr_stream from = *s, *t = rt_attr_find(dst, 1);
	if (t) {
		from.stream = dst;
		from.next = t->next;
		*t = from;
	}
	pthread_mutex_unlock(&rt_attr_lock);
	return t ? cudaSuccess : rt_error_set(cudaErrorMemoryAllocation);
}

/* Persisting lines become normal ones: there are none to reset here. */
cudaError_t cudaCtxResetPersistingL2Cache(void)
{
	return rt_error_enter();
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t stream, cudaStreamAttrID attr,
					const cudaStreamAttrValue *value)
	__attribute__((alias("cudaStreamSetAttribute")));
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t stream, cudaStreamAttrID attr,
					cudaStreamAttrValue *value_out)
	__attribute__((alias("cudaStreamGetAttribute")));
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src)
	__attribute__((alias("cudaStreamCopyAttributes")));
