/* cudart_capture — see cudart_capture.h. */
#include "cudart_capture.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_errors.h"
#include "cudart_graph_internal.h"
#include "cudart_graph_memory.h"
#include "cudart_report.h"
#include "cudart_stream.h"

/* A stream a capture follows, and the nodes its next operation depends on. */
struct rt_capture {
	struct rt_capture *next;
	cudaStream_t stream;
	cudaGraph_t graph;
	int origin;    /* cudaStreamBeginCapture was called on it */
	int own_graph; /* the graph is the capture's (not cudaStreamBeginCaptureToGraph's) */
	int invalid;   /* a node could not be added: cudaStreamEndCapture fails */
	unsigned long long id;
	cudaGraphNode_t *deps;
	size_t ndeps;
};

/* An event recorded in a capture: a point other streams can join the capture at. */
struct rt_capture_event {
	struct rt_capture_event *next;
	cudaEvent_t event;
	cudaGraph_t graph;
	cudaGraphNode_t *deps;
	size_t ndeps;
};

static pthread_mutex_t rt_capture_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_capture *rt_captures;
static struct rt_capture_event *rt_capture_events;
static unsigned long long rt_capture_ids;
static _Thread_local enum cudaStreamCaptureMode rt_capture_mode;

/* The capture following s (locked), or NULL. The legacy stream is never captured. */
static struct rt_capture *rt_capture_of(cudaStream_t s)
{
	for (struct rt_capture *c = rt_captures; c; c = c->next)
		if (c->stream == s)
			return c;
	return NULL;
}

static int rt_deps_set(cudaGraphNode_t **deps, size_t *ndeps, const cudaGraphNode_t *from,
		       size_t n, int add)
{
	size_t keep = add ? *ndeps : 0;
	cudaGraphNode_t *grown = realloc(*deps, (keep + n + 1) * sizeof *grown);
	if (!grown)
		return -1;
	if (n)
		memcpy(grown + keep, from, n * sizeof *from);
	*deps = grown;
	*ndeps = keep + n;
	return 0;
}

int rt_graph_capturing(cudaStream_t s)
{
	pthread_mutex_lock(&rt_capture_lock);
	int yes = rt_capture_of(s) != NULL;
	pthread_mutex_unlock(&rt_capture_lock);
	return yes;
}

/* Adds payload p (taken over) as the next node of the capture following s (locked). */
static cudaError_t rt_capture_add(struct rt_capture *c, struct rt_payload *p,
				  cudaGraphNode_t *out)
{
	cudaGraphNode_t n;
	cudaError_t e = rt_node_add(c->graph, c->deps, c->ndeps, p, &n);
	if (!e && rt_deps_set(&c->deps, &c->ndeps, &n, 1, 0))
		e = cudaErrorMemoryAllocation;
	if (e)
		c->invalid = 1;
	else if (out)
		*out = n;
	return e;
}

int rt_graph_capture_work(cudaStream_t s, struct rt_work w, enum cudaGraphNodeType type)
{
	pthread_mutex_lock(&rt_capture_lock);
	struct rt_capture *c = rt_capture_of(s);
	if (c) {
		struct rt_payload *p = rt_payload_new(type);
		if (p)
			p->work = w;
		else if (w.flags & RT_WORK_OWNED)
			free(w.arg);
		rt_capture_add(c, p, NULL);
	}
	pthread_mutex_unlock(&rt_capture_lock);
	return c != NULL;
}

int rt_graph_capture_event(cudaStream_t s, cudaEvent_t e)
{
	pthread_mutex_lock(&rt_capture_lock);
	struct rt_capture *c = rt_capture_of(s);
	if (c) {
		struct rt_capture_event *ce = rt_capture_events;
		while (ce && ce->event != e)
			ce = ce->next;
		if (!ce && (ce = calloc(1, sizeof *ce))) {
			ce->event = e;
			ce->next = rt_capture_events;
			rt_capture_events = ce;
		}
		if (ce) {
			ce->graph = c->graph;
			if (rt_deps_set(&ce->deps, &ce->ndeps, c->deps, c->ndeps, 0))
				c->invalid = 1;
		} else {
			c->invalid = 1;
		}
	}
	pthread_mutex_unlock(&rt_capture_lock);
	return c != NULL;
}

void rt_graph_capture_join(cudaStream_t s, cudaEvent_t e)
{
	pthread_mutex_lock(&rt_capture_lock);
	struct rt_capture_event *ce = rt_capture_events;
	while (ce && (ce->event != e || !ce->graph))
		ce = ce->next;
	struct rt_capture *c = ce ? rt_capture_of(s) : NULL;
	if (ce && !c && (c = calloc(1, sizeof *c))) { /* s joins the capture */
		*c = (struct rt_capture){rt_captures, s, ce->graph, 0, 0, 0, 0, NULL, 0};
		for (struct rt_capture *o = rt_captures; o; o = o->next)
			if (o->graph == ce->graph)
				c->id = o->id;
		rt_captures = c;
	}
	if (ce && c && c->graph == ce->graph &&
	    rt_deps_set(&c->deps, &c->ndeps, ce->deps, ce->ndeps, 1))
		c->invalid = 1;
	pthread_mutex_unlock(&rt_capture_lock);
}

cudaError_t rt_graph_capture_alloc(cudaStream_t s, void **ptr, size_t size)
{
	if (!ptr || !size)
		return cudaErrorInvalidValue;
	pthread_mutex_lock(&rt_capture_lock);
	struct rt_capture *c = rt_capture_of(s);
	struct rt_payload *p = c ? rt_payload_new(cudaGraphNodeTypeMemAlloc) : NULL;
	cudaError_t e = p ? rt_memory_graph_reserve(size, &p->dptr) : cudaErrorMemoryAllocation;
	if (!e) {
		p->bytes = size;
		*ptr = p->dptr;
		e = rt_capture_add(c, p, NULL);
	} else {
		free(p);
	}
	pthread_mutex_unlock(&rt_capture_lock);
	return e;
}

cudaError_t rt_graph_capture_free(cudaStream_t s, void *ptr)
{
	if (!ptr)
		return cudaErrorInvalidValue;
	pthread_mutex_lock(&rt_capture_lock);
	struct rt_capture *c = rt_capture_of(s);
	struct rt_payload *p = c ? rt_payload_new(cudaGraphNodeTypeMemFree) : NULL;
	cudaError_t e = p ? cudaSuccess : cudaErrorMemoryAllocation;
	if (p) {
		p->dptr = ptr;
		e = rt_capture_add(c, p, NULL);
	}
	pthread_mutex_unlock(&rt_capture_lock);
	return e;
}

static cudaError_t rt_begin_capture(cudaStream_t stream, cudaGraph_t graph, int own,
				    const cudaGraphNode_t *deps, size_t ndeps,
				    enum cudaStreamCaptureMode mode)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_stream_valid(stream) || (unsigned)mode > cudaStreamCaptureModeRelaxed)
		return cudaErrorInvalidValue;
	if (!stream || stream == (cudaStream_t)0x1) {
		rt_report_error("cudaStreamBeginCapture: the legacy default stream cannot be "
				"captured (it synchronises with every other stream): capture a "
				"stream from cudaStreamCreate");
		return cudaErrorStreamCaptureUnsupported;
	}
	struct rt_capture *c = calloc(1, sizeof *c);
	if (!c)
		return cudaErrorMemoryAllocation;
	pthread_mutex_lock(&rt_capture_lock);
	if (rt_capture_of(stream)) {
		pthread_mutex_unlock(&rt_capture_lock);
		free(c);
		return cudaErrorIllegalState;
	}
	*c = (struct rt_capture){rt_captures, stream, graph, 1, own, 0, ++rt_capture_ids, NULL, 0};
	if (rt_deps_set(&c->deps, &c->ndeps, deps, ndeps, 0)) {
		pthread_mutex_unlock(&rt_capture_lock);
		free(c);
		return cudaErrorMemoryAllocation;
	}
	rt_captures = c;
	pthread_mutex_unlock(&rt_capture_lock);
	return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
	cudaGraph_t g = rt_graph_new();
	if (!g)
		return rt_error_set(cudaErrorMemoryAllocation);
	cudaError_t e = rt_begin_capture(stream, g, 1, NULL, 0, mode);
	if (e)
		rt_graph_free(g);
	return rt_error_set(e);
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
					  const cudaGraphNode_t *dependencies,
					  const cudaGraphEdgeData *dependencyData,
					  size_t numDependencies, enum cudaStreamCaptureMode mode)
{
	(void)dependencyData;
	if (!rt_graph_ok(graph) || (numDependencies && !dependencies))
		return rt_error_set(cudaErrorInvalidValue);
	return rt_error_set(rt_begin_capture(stream, graph, 0, dependencies, numDependencies, mode));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&rt_capture_lock);
	struct rt_capture *c = rt_capture_of(stream);
	if (!c || !c->origin) {
		pthread_mutex_unlock(&rt_capture_lock);
		return rt_error_set(c ? cudaErrorStreamCaptureUnmatched : cudaErrorIllegalState);
	}
	cudaGraph_t g = c->graph;
	int own = c->own_graph, invalid = 0;
	for (struct rt_capture **pp = &rt_captures; *pp;) { /* every stream that joined */
		struct rt_capture *o = *pp;
		if (o->graph != g) {
			pp = &o->next;
			continue;
		}
		invalid |= o->invalid;
		*pp = o->next;
		free(o->deps);
		free(o);
	}
	for (struct rt_capture_event *ce = rt_capture_events; ce; ce = ce->next)
		if (ce->graph == g)
			ce->graph = NULL;
	pthread_mutex_unlock(&rt_capture_lock);
	if (invalid) {
		if (own)
			rt_graph_free(g);
		return rt_error_set(cudaErrorStreamCaptureInvalidated);
	}
	if (pGraph)
		*pGraph = g;
	else if (own)
		rt_graph_free(g);
	return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
	if (!pCaptureStatus)
		return rt_error_set(cudaErrorInvalidValue);
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	*pCaptureStatus = rt_graph_capturing(stream) ? cudaStreamCaptureStatusActive
						     : cudaStreamCaptureStatusNone;
	return cudaSuccess;
}

/* The dependencies handed out stay valid until the stream's next captured operation. */
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
				     enum cudaStreamCaptureStatus *captureStatus_out,
				     unsigned long long *id_out, cudaGraph_t *graph_out,
				     const cudaGraphNode_t **dependencies_out,
				     const cudaGraphEdgeData **edgeData_out,
				     size_t *numDependencies_out)
{
	static const cudaGraphEdgeData plain[64];
	if (!captureStatus_out)
		return rt_error_set(cudaErrorInvalidValue);
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&rt_capture_lock);
	struct rt_capture *c = rt_capture_of(stream);
	*captureStatus_out = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
	if (c && id_out)
		*id_out = c->id;
	if (c && graph_out)
		*graph_out = c->graph;
	if (c && dependencies_out)
		*dependencies_out = c->deps;
	if (c && edgeData_out)
		*edgeData_out = c->ndeps <= 64 ? plain : NULL;
	if (c && numDependencies_out)
		*numDependencies_out = c->ndeps;
	pthread_mutex_unlock(&rt_capture_lock);
	return cudaSuccess;
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
						cudaGraphNode_t *dependencies,
						const cudaGraphEdgeData *dependencyData,
						size_t numDependencies, unsigned int flags)
{
	(void)dependencyData;
	if (flags > cudaStreamSetCaptureDependencies || (numDependencies && !dependencies))
		return rt_error_set(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_capture_lock);
	struct rt_capture *c = rt_capture_of(stream);
	cudaError_t e = c ? cudaSuccess : cudaErrorIllegalState;
	for (size_t i = 0; c && i < numDependencies; i++)
		if (!rt_node_ok(dependencies[i]) || dependencies[i]->graph != c->graph)
			e = cudaErrorInvalidValue;
	if (!e && rt_deps_set(&c->deps, &c->ndeps, dependencies, numDependencies,
			      flags == cudaStreamAddCaptureDependencies))
		e = cudaErrorMemoryAllocation;
	pthread_mutex_unlock(&rt_capture_lock);
	return rt_error_set(e);
}

/* The mode only decides which calls a capture forbids elsewhere: remembered per thread. */
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
	if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed)
		return rt_error_set(cudaErrorInvalidValue);
	enum cudaStreamCaptureMode old = rt_capture_mode;
	rt_capture_mode = *mode;
	*mode = old;
	return cudaSuccess;
}

/* Programs built with --default-stream per-thread call these names. */
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode)
	__attribute__((alias("cudaStreamBeginCapture")));
cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
					       const cudaGraphNode_t *dependencies,
					       const cudaGraphEdgeData *dependencyData,
					       size_t numDependencies,
					       enum cudaStreamCaptureMode mode)
	__attribute__((alias("cudaStreamBeginCaptureToGraph")));
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
	__attribute__((alias("cudaStreamEndCapture")));
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
				       enum cudaStreamCaptureStatus *pCaptureStatus)
	__attribute__((alias("cudaStreamIsCapturing")));
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
					  enum cudaStreamCaptureStatus *captureStatus_out,
					  unsigned long long *id_out, cudaGraph_t *graph_out,
					  const cudaGraphNode_t **dependencies_out,
					  const cudaGraphEdgeData **edgeData_out,
					  size_t *numDependencies_out)
	__attribute__((alias("cudaStreamGetCaptureInfo")));
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
						     cudaGraphNode_t *dependencies,
						     const cudaGraphEdgeData *dependencyData,
						     size_t numDependencies, unsigned int flags)
	__attribute__((alias("cudaStreamUpdateCaptureDependencies")));
