/* cudart_stream — see cudart_stream.h. */
#include "cudart_stream.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "cudart_errors.h"

/* Handles are kept in lists so a destroyed or made-up handle is an error, not a crash. */
struct CUstream_st {
	struct CUstream_st *next;
	unsigned flags;
};

struct CUevent_st {
	struct CUevent_st *next;
	unsigned flags;
	int recorded;
	double ms; /* host monotonic clock at record time */
};

#define RT_STREAM_LEGACY ((cudaStream_t)0x1)
#define RT_STREAM_PER_THREAD ((cudaStream_t)0x2)

static pthread_mutex_t rt_stream_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUstream_st *rt_streams;
static struct CUevent_st *rt_events;

static double rt_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int rt_stream_valid(cudaStream_t s)
{
	if (!s || s == RT_STREAM_LEGACY || s == RT_STREAM_PER_THREAD)
		return 1;
	int found = 0;
	pthread_mutex_lock(&rt_stream_lock);
	for (struct CUstream_st *p = rt_streams; p && !found; p = p->next)
		found = p == s;
	pthread_mutex_unlock(&rt_stream_lock);
	return found;
}

static int rt_event_valid(cudaEvent_t e)
{
	int found = 0;
	pthread_mutex_lock(&rt_stream_lock);
	for (struct CUevent_st *p = rt_events; p && !found; p = p->next)
		found = p == e;
	pthread_mutex_unlock(&rt_stream_lock);
	return found;
}

void rt_stream_reset(void)
{
	pthread_mutex_lock(&rt_stream_lock);
	while (rt_streams) {
		struct CUstream_st *n = rt_streams->next;
		free(rt_streams);
		rt_streams = n;
	}
	while (rt_events) {
		struct CUevent_st *n = rt_events->next;
		free(rt_events);
		rt_events = n;
	}
	pthread_mutex_unlock(&rt_stream_lock);
}

/* ---- streams ------------------------------------------------------------------- */

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
	(void)priority; /* one queue: priorities cannot reorder synchronous work */
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!pStream || flags > 1)
		return rt_error_set(cudaErrorInvalidValue);
	struct CUstream_st *s = calloc(1, sizeof *s);
	if (!s)
		return rt_error_set(cudaErrorMemoryAllocation);
	s->flags = flags;
	pthread_mutex_lock(&rt_stream_lock);
	s->next = rt_streams;
	rt_streams = s;
	pthread_mutex_unlock(&rt_stream_lock);
	*pStream = s;
	return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
	return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	return cudaStreamCreateWithPriority(pStream, 0, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!stream || stream == RT_STREAM_LEGACY || stream == RT_STREAM_PER_THREAD)
		return rt_error_set(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&rt_stream_lock);
	struct CUstream_st **pp = &rt_streams;
	while (*pp && *pp != stream)
		pp = &(*pp)->next;
	struct CUstream_st *found = *pp;
	if (found)
		*pp = found->next;
	pthread_mutex_unlock(&rt_stream_lock);
	if (!found)
		return rt_error_set(cudaErrorInvalidResourceHandle);
	free(found);
	return cudaSuccess;
}

/* Work already ran when it was issued: synchronising only reports errors. */
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	return rt_stream_valid(stream) ? cudaSuccess : rt_error_set(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	return cudaStreamSynchronize(stream);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream) || !rt_event_valid(event))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	return flags ? rt_error_set(cudaErrorInvalidValue) : cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority)
{
	if (!priority)
		return rt_error_set(cudaErrorInvalidValue);
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	*priority = 0;
	return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags)
{
	if (!flags)
		return rt_error_set(cudaErrorInvalidValue);
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	*flags = stream && stream != RT_STREAM_LEGACY && stream != RT_STREAM_PER_THREAD
			 ? stream->flags : 0;
	return cudaSuccess;
}

/* Everything issued before the call on the stream has run: call back at once. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!fn)
		return rt_error_set(cudaErrorInvalidValue);
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	fn(userData);
	return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
				  void *userData, unsigned int flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!callback || flags)
		return rt_error_set(cudaErrorInvalidValue);
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	callback(stream, cudaSuccess, userData);
	return cudaSuccess;
}

/* ---- events -------------------------------------------------------------------- */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!event || flags > 0xf)
		return rt_error_set(cudaErrorInvalidValue);
	struct CUevent_st *ev = calloc(1, sizeof *ev);
	if (!ev)
		return rt_error_set(cudaErrorMemoryAllocation);
	ev->flags = flags;
	pthread_mutex_lock(&rt_stream_lock);
	ev->next = rt_events;
	rt_events = ev;
	pthread_mutex_unlock(&rt_stream_lock);
	*event = ev;
	return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return cudaEventCreateWithFlags(event, 0);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_event_valid(event) || !rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (flags > 1)
		return rt_error_set(cudaErrorInvalidValue);
	event->ms = rt_now_ms();
	event->recorded = 1;
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	return cudaEventRecordWithFlags(event, stream, 0);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	return rt_event_valid(event) ? cudaSuccess : rt_error_set(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
	return cudaEventSynchronize(event);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!ms)
		return rt_error_set(cudaErrorInvalidValue);
	if (!rt_event_valid(start) || !rt_event_valid(end))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if ((start->flags | end->flags) & cudaEventDisableTiming)
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (!start->recorded || !end->recorded)
		return rt_error_set(cudaErrorInvalidResourceHandle);
	*ms = (float)(end->ms - start->ms);
	return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	pthread_mutex_lock(&rt_stream_lock);
	struct CUevent_st **pp = &rt_events;
	while (*pp && *pp != event)
		pp = &(*pp)->next;
	struct CUevent_st *found = *pp;
	if (found)
		*pp = found->next;
	pthread_mutex_unlock(&rt_stream_lock);
	if (!found)
		return rt_error_set(cudaErrorInvalidResourceHandle);
	free(found);
	return cudaSuccess;
}

/* Programs built with --default-stream per-thread call these names. */
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
	__attribute__((alias("cudaStreamSynchronize")));
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) __attribute__((alias("cudaStreamQuery")));
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
	__attribute__((alias("cudaStreamWaitEvent")));
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t stream, int *priority)
	__attribute__((alias("cudaStreamGetPriority")));
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t stream, unsigned int *flags)
	__attribute__((alias("cudaStreamGetFlags")));
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData)
	__attribute__((alias("cudaLaunchHostFunc")));
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
				       void *userData, unsigned int flags)
	__attribute__((alias("cudaStreamAddCallback")));
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
	__attribute__((alias("cudaEventRecord")));
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
					  unsigned int flags)
	__attribute__((alias("cudaEventRecordWithFlags")));
