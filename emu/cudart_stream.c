/* cudart_stream — see cudart_stream.h. */
#include "cudart_stream.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudart_attr.h" /* a stream's attributes */
#include "cudart_async.h"
#include "cudart_errors.h"
#include "cudart_capture.h"
#include "cudart_provenance.h"
#include "cudart_report.h"
#include "devmem.h"

/* Handles are kept in lists so a destroyed or made-up handle is an error, not a crash. */
struct CUstream_st {
	struct CUstream_st *next;
	unsigned flags;
	uint64_t last; /* the sequence number of its last operation (cudart_async.h) */
};

struct CUevent_st {
	struct CUevent_st *next;
	unsigned flags;
	int recorded;
	uint64_t seq; /* the sequence number of its last record */
	double ms;    /* host monotonic clock when the device thread reached the record */
};

#define RT_STREAM_LEGACY ((cudaStream_t)0x1)
#define RT_STREAM_PER_THREAD ((cudaStream_t)0x2)

static pthread_mutex_t rt_stream_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUstream_st *rt_streams;
static struct CUevent_st *rt_events;
/* The last operations of the legacy and the per-thread default stream (one for all
 * threads: with one queue, that only makes cudaStreamQuery(cudaStreamPerThread) look at
 * every thread's work). Under rt_stream_lock, as are the streams' fields. */
static uint64_t rt_legacy_last, rt_per_thread_last;

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

/* Where stream s keeps the number of its last operation (a valid handle; locked). */
static uint64_t *rt_stream_last(cudaStream_t s)
{
	if (!s || s == RT_STREAM_LEGACY)
		return &rt_legacy_last;
	return s == RT_STREAM_PER_THREAD ? &rt_per_thread_last : &s->last;
}

uint64_t rt_stream_submit(cudaStream_t s, rt_async_fn run, void *arg, unsigned flags,
			  enum cudaGraphNodeType type)
{
	if (rt_graph_capture_work(s, (struct rt_work){run, arg, flags}, type))
		return 0; /* a node of the graph being captured: it runs at the graph's launches */
	uint64_t seq = rt_async_submit(run, arg, flags);
	pthread_mutex_lock(&rt_stream_lock);
	*rt_stream_last(s) = seq;
	pthread_mutex_unlock(&rt_stream_lock);
	return seq;
}

static uint64_t rt_stream_pending(cudaStream_t s)
{
	pthread_mutex_lock(&rt_stream_lock);
	uint64_t seq = *rt_stream_last(s);
	pthread_mutex_unlock(&rt_stream_lock);
	return seq;
}

/* Fills n bytes at d with value in elements of elem bytes (little-endian, as a GPU). */
static void rt_mem_fill(char *d, unsigned value, unsigned elem, size_t n)
{
	if (elem <= 1) {
		memset(d, (int)value, n);
		return;
	}
	for (size_t i = 0; i + elem <= n; i += elem)
		memcpy(d + i, &value, elem);
}

/* Does a copy or set; with the provenance hooks (issue 14) that follow the data. */
static void rt_mem_do(const struct rt_mem_req *r)
{
	size_t rows = r->rows ? r->rows : 1;
	for (size_t i = 0; i < rows; i++) {
		char *d = (char *)r->d + i * r->dpitch;
		const char *dst = (const char *)r->dst + i * r->dpitch;
		if (r->s) {
			memmove(d, (const char *)r->s + i * r->spitch, r->n);
			rt_prov_copy(dst, (const char *)r->src + i * r->spitch, r->n);
		} else {
			rt_mem_fill(d, r->value, r->elem, r->n);
			rt_prov_set(dst, r->n);
		}
	}
}

/* Nonzero unless p is device memory that is not allocated now: a graph's copy may name
 * memory that its allocation node maps when it runs (cudart_graph_exec.c). */
static int rt_mem_mapped(const void *p, const struct rt_mem_req *r, size_t pitch)
{
	devaddr_t a = (devaddr_t)(uintptr_t)p;
	size_t span = (r->rows > 1 ? (r->rows - 1) * pitch : 0) + r->n;
	return !devmem_in_device_range(a) || devmem_host(a, span);
}

static void rt_mem_op_run(void *arg)
{
	const struct rt_mem_req *r = arg;
	if (rt_async_skipping()) /* nothing runs after a kernel's fault */
		return;
	const void *bad = !rt_mem_mapped(r->dst, r, r->dpitch) ? r->dst
			  : r->s && !rt_mem_mapped(r->src, r, r->spitch) ? r->src
									  : NULL;
	if (bad) {
		rt_report_error("a %s of %zu bytes reached %p when it was not allocated (a graph's "
				"allocation before its allocation node ran, or after its free)",
				r->s ? "copy" : "memset", r->n, bad);
		rt_error_set_pending(cudaErrorIllegalAddress);
		return;
	}
	rt_mem_do(r);
}

cudaError_t rt_stream_memory_work(const struct rt_mem_req *r, struct rt_work *out)
{
	struct rt_mem_req *op = malloc(sizeof *op);
	if (!op)
		return cudaErrorMemoryAllocation;
	*op = *r;
	out->run = rt_mem_op_run;
	out->arg = op;
	out->flags = RT_WORK_DEVICE | RT_WORK_OWNED;
	return cudaSuccess;
}

/* A synchronous copy or set, done on the device thread (rt_async_run) unless a fault
 * in the work before it made the context's error sticky. */
static void rt_mem_sync_run(void *arg)
{
	if (rt_error_device() == cudaSuccess)
		rt_mem_do(arg);
}

cudaError_t rt_stream_memory(cudaStream_t stream, int async, const struct rt_mem_req *r)
{
	if (async || rt_graph_capturing(stream)) { /* a capture takes every copy as a node */
		struct rt_work w;
		if (rt_stream_memory_work(r, &w))
			return cudaErrorMemoryAllocation;
		rt_stream_submit(stream, w.run, w.arg, w.flags,
				 r->s ? cudaGraphNodeTypeMemcpy : cudaGraphNodeTypeMemset);
		return cudaSuccess;
	}
	rt_async_run(rt_mem_sync_run, (void *)r);
	return rt_error_enter(); /* a fault in the work before it: nothing was done */
}

void rt_stream_reset(void)
{
	rt_async_idle();
	rt_attr_stream_forget(NULL);
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
	(void)priority; /* one queue in issue order: priorities cannot reorder it */
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
	/* CUDA lets the stream's work finish in the background; the emulator waits for it
	 * here, so that no queued operation outlives its stream's memory */
	rt_async_wait(found->last);
	rt_attr_stream_forget(found);
	free(found);
	return cudaSuccess;
}

/* Waits for the stream's work, then reports what went wrong in it (or before). */
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	rt_async_wait(rt_stream_pending(stream));
	return rt_error_enter();
}

/* cudaErrorNotReady is not an error: it is not recorded as the last error. */
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	return rt_async_done(rt_stream_pending(stream)) ? cudaSuccess : cudaErrorNotReady;
}

/* One queue runs everything in issue order: the record this waits for comes first. */
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream) || !rt_event_valid(event))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (flags)
		return rt_error_set(cudaErrorInvalidValue);
	rt_graph_capture_join(stream, event); /* waiting for a captured event joins the capture */
	return cudaSuccess;
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

/* A host function or stream callback, called on the device thread in stream order. */
struct rt_host_call {
	cudaHostFn_t fn;
	cudaStreamCallback_t callback;
	cudaStream_t stream;
	void *data;
};

static void rt_host_call_run(void *arg)
{
	struct rt_host_call *c = arg;
	if (c->fn)
		c->fn(c->data);
	else
		c->callback(c->stream, rt_error_device(), c->data);
}

cudaError_t rt_stream_host_work(cudaHostFn_t fn, void *data, struct rt_work *out)
{
	struct rt_host_call *q = malloc(sizeof *q);
	if (!q)
		return cudaErrorMemoryAllocation;
	*q = (struct rt_host_call){fn, NULL, NULL, data};
	out->run = rt_host_call_run;
	out->arg = q;
	out->flags = RT_WORK_OWNED;
	return cudaSuccess;
}

static cudaError_t rt_host_call(cudaStream_t stream, struct rt_host_call c)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	struct rt_host_call *q = malloc(sizeof *q);
	if (!q)
		return rt_error_set(cudaErrorMemoryAllocation);
	*q = c;
	rt_stream_submit(stream, rt_host_call_run, q, RT_WORK_OWNED, cudaGraphNodeTypeHost);
	return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
	if (!fn)
		return rt_error_set(cudaErrorInvalidValue);
	return rt_host_call(stream, (struct rt_host_call){fn, NULL, stream, userData});
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
				  void *userData, unsigned int flags)
{
	if (!callback || flags)
		return rt_error_set(cudaErrorInvalidValue);
	return rt_host_call(stream, (struct rt_host_call){NULL, callback, stream, userData});
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

/* The device thread reached the record: the event's time. */
static void rt_event_fire(void *arg)
{
	struct CUevent_st *ev = arg;
	ev->ms = rt_now_ms();
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
	if (rt_graph_capture_event(stream, event))
		return cudaSuccess; /* a point of the capture other streams may wait for */
	event->recorded = 1;
	event->seq = rt_stream_submit(stream, rt_event_fire, event, 0, cudaGraphNodeTypeEventRecord);
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	return cudaEventRecordWithFlags(event, stream, 0);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	if (!rt_event_valid(event))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	rt_async_wait(event->seq);
	return rt_error_enter();
}

/* An event never recorded counts as complete, as in CUDA. */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_event_valid(event))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	return rt_async_done(event->seq) ? cudaSuccess : cudaErrorNotReady;
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
	if (!rt_async_done(start->seq) || !rt_async_done(end->seq))
		return cudaErrorNotReady;
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
	rt_async_wait(found->seq); /* its record may still be queued */
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
