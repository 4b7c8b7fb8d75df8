/* cudart_graph — see cudart_graph.h. */
#include "cudart_graph.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_errors.h"
#include "cudart_graph_internal.h"
#include "cudart_graph_memory.h"
#include "cudart_launch.h"
#include "cudart_memory.h"
#include "cudart_report.h"
#include "cudart_stream.h"
#include "devmem.h"

/* ---- payloads, nodes, graphs ----------------------------------------------------- */

struct rt_payload *rt_payload_new(enum cudaGraphNodeType type)
{
	struct rt_payload *p = calloc(1, sizeof *p);
	if (p) {
		atomic_init(&p->refs, 1);
		p->type = type;
	}
	return p;
}

void rt_payload_put(struct rt_payload *p)
{
	if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	if (p->work.flags & RT_WORK_OWNED)
		free(p->work.arg);
	unsigned ngraphs = p->type == cudaGraphNodeTypeConditional ? p->size
			   : p->type == cudaGraphNodeTypeGraph	      ? 1
									      : 0;
	for (unsigned i = 0; p->graphs && i < ngraphs; i++)
		rt_graph_free(p->graphs[i]);
	free(p->graphs);
	free(p);
}

cudaGraph_t rt_graph_new(void)
{
	cudaGraph_t g = calloc(1, sizeof *g);
	if (g)
		g->tag = RT_GRAPH_TAG;
	return g;
}

void rt_graph_free(cudaGraph_t g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		rt_payload_put(g->nodes[i]->p);
		free(g->nodes[i]->deps);
		g->nodes[i]->tag = 0;
		free(g->nodes[i]);
	}
	free(g->nodes);
	free(g->handles);
	g->tag = 0;
	free(g);
}

/* Adds a node doing p (taken over, also on failure) to g after deps. */
cudaError_t rt_node_add(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
			       struct rt_payload *p, cudaGraphNode_t *out)
{
	if (!p)
		return cudaErrorMemoryAllocation;
	for (size_t i = 0; i < ndeps; i++)
		if (!rt_node_ok(deps[i]) || deps[i]->graph != g) {
			rt_payload_put(p);
			return cudaErrorInvalidValue;
		}
	cudaGraphNode_t n = calloc(1, sizeof *n);
	if (n && ndeps)
		n->deps = malloc(ndeps * sizeof *n->deps);
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		cudaGraphNode_t *grown = realloc(g->nodes, cap * sizeof *grown);
		if (grown) {
			g->nodes = grown;
			g->cap = cap;
		}
	}
	if (!n || (ndeps && !n->deps) || g->n == g->cap) {
		if (n)
			free(n->deps);
		free(n);
		rt_payload_put(p);
		return cudaErrorMemoryAllocation;
	}
	*n = (struct CUgraphNode_st){RT_NODE_TAG, g, p, n->deps, ndeps, g->n};
	if (ndeps)
		memcpy(n->deps, deps, ndeps * sizeof *deps);
	g->nodes[g->n++] = n;
	if (out)
		*out = n;
	return cudaSuccess;
}

/* The common checks of the cudaGraphAdd*Node calls. */
static cudaError_t rt_add_check(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
				size_t ndeps)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	return !out || !rt_graph_ok(g) || (ndeps && !deps) ? cudaErrorInvalidValue : cudaSuccess;
}

/* Adds a node whose payload holds the operation w (taken over). */
static cudaError_t rt_add_work(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
			       size_t ndeps, enum cudaGraphNodeType type, struct rt_work w)
{
	struct rt_payload *p = rt_payload_new(type);
	if (!p) {
		if (w.flags & RT_WORK_OWNED)
			free(w.arg);
		return cudaErrorMemoryAllocation;
	}
	p->work = w;
	return rt_node_add(g, deps, ndeps, p, out);
}

/* ---- node parameters to payloads --------------------------------------------------- */

cudaError_t rt_graph_kernel_work(const struct cudaKernelNodeParams *k, struct rt_work *w)
{
	if (!k)
		return cudaErrorInvalidValue;
	if (k->extra) {
		rt_report_error("cudaGraphAddKernelNode: arguments in the 'extra' form "
				"(CU_LAUNCH_PARAM_BUFFER_POINTER) are not emulated; pass them in "
				"kernelParams, or run with --backend gpu");
		return cudaErrorNotSupported;
	}
	return rt_launch_work(k->func, k->gridDim, k->blockDim, k->kernelParams, k->sharedMemBytes,
			      w);
}

cudaError_t rt_graph_kernel_payload(const struct cudaKernelNodeParams *k, struct rt_payload **out)
{
	struct rt_work w = {0};
	cudaError_t e = rt_graph_kernel_work(k, &w);
	if (e)
		return e;
	if (!(*out = rt_payload_new(cudaGraphNodeTypeKernel))) {
		free(w.arg);
		return cudaErrorMemoryAllocation;
	}
	(*out)->work = w;
	return cudaSuccess;
}

/* A 3-D copy between pitched pointers, as rows of extent.width bytes. */
static cudaError_t rt_memcpy_work(const struct cudaMemcpy3DParms *c, struct rt_work *w)
{
	static const char call[] = "cudaGraphAddMemcpyNode";
	if (!c)
		return cudaErrorInvalidValue;
	if (c->srcArray || c->dstArray) {
		rt_report_error("%s: copies to or from CUDA arrays in a graph are not emulated; "
				"run with --backend gpu", call);
		return cudaErrorNotSupported;
	}
	size_t width = c->extent.width, height = c->extent.height ? c->extent.height : 1;
	size_t depth = c->extent.depth ? c->extent.depth : 1;
	const struct cudaPitchedPtr *sp = &c->srcPtr, *dp = &c->dstPtr;
	size_t spitch = sp->pitch ? sp->pitch : width, dpitch = dp->pitch ? dp->pitch : width;
	if (depth > 1 && (sp->ysize != height || dp->ysize != height)) {
		rt_report_error("%s: a 3-D copy whose slices are not %zu rows apart (ysize %zu "
				"and %zu) is not emulated; run with --backend gpu", call, height,
				sp->ysize, dp->ysize);
		return cudaErrorNotSupported;
	}
	if (width > spitch || width > dpitch || !width)
		return cudaErrorInvalidValue;
	size_t rows = height * depth;
	const char *src = (const char *)sp->ptr + (c->srcPos.z * sp->ysize + c->srcPos.y) * spitch +
			  c->srcPos.x;
	char *dst = (char *)dp->ptr + (c->dstPos.z * dp->ysize + c->dstPos.y) * dpitch +
		    c->dstPos.x;
	struct rt_mem_req r = {.n = width, .rows = rows, .dpitch = dpitch, .spitch = spitch,
			       .dst = dst, .src = src};
	void *d, *s;
	cudaError_t e = rt_memory_resolve(call, "src", src, (rows - 1) * spitch + width, c->kind,
					  1, &s);
	if (!e)
		e = rt_memory_resolve(call, "dst", dst, (rows - 1) * dpitch + width, c->kind, 0,
				      &d);
	if (e)
		return e;
	r.d = d;
	r.s = s;
	return rt_stream_memory_work(&r, w);
}

static cudaError_t rt_memset_work(const struct cudaMemsetParams *m, struct rt_work *w)
{
	if (!m || (m->elementSize != 1 && m->elementSize != 2 && m->elementSize != 4) ||
	    !m->width)
		return cudaErrorInvalidValue;
	size_t rows = m->height ? m->height : 1, n = m->width * m->elementSize;
	size_t pitch = rows > 1 ? m->pitch : n;
	if (rows > 1 && pitch < n)
		return cudaErrorInvalidValue;
	void *d;
	cudaError_t e = rt_memory_resolve("cudaGraphAddMemsetNode", "dst", m->dst,
					  (rows - 1) * pitch + n, cudaMemcpyHostToDevice, 0, &d);
	if (e)
		return e;
	struct rt_mem_req r = {.d = d, .n = n, .value = m->value, .elem = m->elementSize,
			       .rows = rows, .dpitch = pitch, .dst = m->dst};
	return rt_stream_memory_work(&r, w);
}

/* ---- the cudaGraphAdd*Node calls --------------------------------------------------- */

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!pGraph || flags)
		return rt_error_set(cudaErrorInvalidValue);
	*pGraph = rt_graph_new();
	return *pGraph ? cudaSuccess : rt_error_set(cudaErrorMemoryAllocation);
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaKernelNodeParams *pNodeParams)
{
	struct rt_work w = {0};
	cudaError_t e = rt_add_check(pGraphNode, graph, pDependencies, numDependencies);
	if (!e)
		e = rt_graph_kernel_work(pNodeParams, &w);
	if (!e)
		e = rt_add_work(pGraphNode, graph, pDependencies, numDependencies,
				cudaGraphNodeTypeKernel, w);
	return rt_error_set(e);
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaMemcpy3DParms *pCopyParams)
{
	struct rt_work w = {0};
	cudaError_t e = rt_add_check(pGraphNode, graph, pDependencies, numDependencies);
	if (!e)
		e = rt_memcpy_work(pCopyParams, &w);
	if (!e)
		e = rt_add_work(pGraphNode, graph, pDependencies, numDependencies,
				cudaGraphNodeTypeMemcpy, w);
	return rt_error_set(e);
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				     const cudaGraphNode_t *pDependencies, size_t numDependencies,
				     void *dst, const void *src, size_t count,
				     enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms c = {
		.srcPtr = {(void *)src, count, count, 1},
		.dstPtr = {dst, count, count, 1},
		.extent = {count, 1, 1},
		.kind = kind,
	};
	return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &c);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaMemsetParams *pMemsetParams)
{
	struct rt_work w = {0};
	cudaError_t e = rt_add_check(pGraphNode, graph, pDependencies, numDependencies);
	if (!e)
		e = rt_memset_work(pMemsetParams, &w);
	if (!e)
		e = rt_add_work(pGraphNode, graph, pDependencies, numDependencies,
				cudaGraphNodeTypeMemset, w);
	return rt_error_set(e);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				 const cudaGraphNode_t *pDependencies, size_t numDependencies,
				 const struct cudaHostNodeParams *pNodeParams)
{
	struct rt_work w = {0};
	cudaError_t e = rt_add_check(pGraphNode, graph, pDependencies, numDependencies);
	if (!e && (!pNodeParams || !pNodeParams->fn))
		e = cudaErrorInvalidValue;
	if (!e)
		e = rt_stream_host_work(pNodeParams->fn, pNodeParams->userData, &w);
	if (!e)
		e = rt_add_work(pGraphNode, graph, pDependencies, numDependencies,
				cudaGraphNodeTypeHost, w);
	return rt_error_set(e);
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				  const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
	cudaError_t e = rt_add_check(pGraphNode, graph, pDependencies, numDependencies);
	if (!e)
		e = rt_node_add(graph, pDependencies, numDependencies,
				rt_payload_new(cudaGraphNodeTypeEmpty), pGraphNode);
	return rt_error_set(e);
}

static cudaError_t rt_graph_copy(cudaGraph_t from, cudaGraph_t *out);

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				       const cudaGraphNode_t *pDependencies,
				       size_t numDependencies, cudaGraph_t childGraph)
{
	cudaError_t e = rt_add_check(pGraphNode, graph, pDependencies, numDependencies);
	if (!e && (!rt_graph_ok(childGraph) || childGraph == graph))
		e = cudaErrorInvalidValue;
	struct rt_payload *p = e ? NULL : rt_payload_new(cudaGraphNodeTypeGraph);
	if (!e && (!p || !(p->graphs = calloc(1, sizeof *p->graphs))))
		e = cudaErrorMemoryAllocation;
	if (!e)
		e = rt_graph_copy(childGraph, &p->graphs[0]); /* the node holds a clone */
	if (!e)
		return rt_error_set(rt_node_add(graph, pDependencies, numDependencies, p, pGraphNode));
	rt_payload_put(p);
	return rt_error_set(e);
}

static cudaError_t rt_add_event(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
				size_t ndeps, enum cudaGraphNodeType type, cudaEvent_t ev)
{
	cudaError_t e = rt_add_check(out, g, deps, ndeps);
	if (!e && !ev)
		e = cudaErrorInvalidResourceHandle;
	struct rt_payload *p = e ? NULL : rt_payload_new(type);
	if (p)
		p->event = ev;
	return rt_error_set(e ? e : rt_node_add(g, deps, ndeps, p, out));
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					const cudaGraphNode_t *pDependencies,
					size_t numDependencies, cudaEvent_t event)
{
	return rt_add_event(pGraphNode, graph, pDependencies, numDependencies,
			    cudaGraphNodeTypeEventRecord, event);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				      const cudaGraphNode_t *pDependencies,
				      size_t numDependencies, cudaEvent_t event)
{
	return rt_add_event(pGraphNode, graph, pDependencies, numDependencies,
			    cudaGraphNodeTypeWaitEvent, event);
}

/* Memory nodes: the address is reserved now, mapped whenever the node runs. */
static cudaError_t rt_add_memory(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
				 size_t ndeps, enum cudaGraphNodeType type, void **dptr,
				 size_t bytes)
{
	cudaError_t e = rt_add_check(out, g, deps, ndeps);
	if (e)
		return e;
	struct rt_payload *p = rt_payload_new(type);
	if (!p)
		return cudaErrorMemoryAllocation;
	p->bytes = bytes;
	p->dptr = *dptr;
	if (type == cudaGraphNodeTypeMemAlloc && (e = rt_memory_graph_reserve(bytes, &p->dptr))) {
		rt_payload_put(p);
		return e;
	}
	*dptr = p->dptr;
	return rt_node_add(g, deps, ndeps, p, out);
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				     const cudaGraphNode_t *pDependencies, size_t numDependencies,
				     struct cudaMemAllocNodeParams *nodeParams)
{
	if (!nodeParams || nodeParams->poolProps.allocType != cudaMemAllocationTypePinned ||
	    nodeParams->poolProps.location.id != 0)
		return rt_error_set(cudaErrorInvalidValue);
	return rt_error_set(rt_add_memory(pGraphNode, graph, pDependencies, numDependencies,
					  cudaGraphNodeTypeMemAlloc, &nodeParams->dptr,
					  nodeParams->bytesize));
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				    const cudaGraphNode_t *pDependencies, size_t numDependencies,
				    void *dptr)
{
	if (!dptr)
		return rt_error_set(cudaErrorInvalidValue);
	return rt_error_set(rt_add_memory(pGraphNode, graph, pDependencies, numDependencies,
					  cudaGraphNodeTypeMemFree, &dptr, 0));
}

/* The handles a conditional node uses: a handle drives one node only (a GPU refuses a
 * second node on it with cudaErrorInvalidValue, measured on an H200). Handles are never
 * freed (see cudaGraphConditionalHandleCreate), so neither is this list. */
static pthread_mutex_t rt_taken_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaGraphConditionalHandle *rt_taken;
static size_t rt_ntaken;

/* Marks h as used by a node; cudaErrorInvalidValue when a node uses it already. */
static cudaError_t rt_handle_take(cudaGraphConditionalHandle h)
{
	cudaError_t e = cudaSuccess;
	pthread_mutex_lock(&rt_taken_lock);
	for (size_t i = 0; i < rt_ntaken && !e; i++)
		if (rt_taken[i] == h)
			e = cudaErrorInvalidValue;
	cudaGraphConditionalHandle *grown =
		e ? NULL : realloc(rt_taken, (rt_ntaken + 1) * sizeof *grown);
	if (grown) {
		rt_taken = grown;
		rt_taken[rt_ntaken++] = h;
	} else if (!e) {
		e = cudaErrorMemoryAllocation;
	}
	pthread_mutex_unlock(&rt_taken_lock);
	if (e == cudaErrorInvalidValue)
		rt_report_error("cudaGraphAddNode: conditional handle %#llx already drives another "
				"conditional node; a handle belongs to one node: create one "
				"handle per node with cudaGraphConditionalHandleCreate",
				(unsigned long long)h);
	return e;
}

/* A conditional node: its bodies are empty graphs the caller fills (phGraph_out). */
static cudaError_t rt_add_conditional(cudaGraphNode_t *out, cudaGraph_t g,
				      const cudaGraphNode_t *deps, size_t ndeps,
				      struct cudaConditionalNodeParams *c)
{
	unsigned max = c->type == cudaGraphCondTypeIf ? 2 : c->type == cudaGraphCondTypeWhile ? 1
		     : c->type == cudaGraphCondTypeSwitch ? ~0u : 0;
	if (!c->size || c->size > max)
		return cudaErrorInvalidValue;
	cudaError_t e = rt_handle_take(c->handle);
	if (e)
		return e;
	struct rt_payload *p = rt_payload_new(cudaGraphNodeTypeConditional);
	if (!p)
		return cudaErrorMemoryAllocation;
	p->handle = c->handle;
	p->cond = c->type;
	p->size = c->size;
	p->graphs = calloc(c->size, sizeof *p->graphs);
	for (unsigned i = 0; p->graphs && i < c->size; i++)
		if (!(p->graphs[i] = rt_graph_new())) {
			rt_payload_put(p);
			return cudaErrorMemoryAllocation;
		}
	if (!p->graphs) {
		rt_payload_put(p);
		return cudaErrorMemoryAllocation;
	}
	c->phGraph_out = p->graphs;
	return rt_node_add(g, deps, ndeps, p, out);
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
			     const cudaGraphNode_t *pDependencies,
			     const cudaGraphEdgeData *dependencyData, size_t numDependencies,
			     struct cudaGraphNodeParams *np)
{
	(void)dependencyData; /* ports and programmatic edges: every edge is a full one here */
	if (!np)
		return rt_error_set(cudaErrorInvalidValue);
	const cudaGraphNode_t *d = pDependencies;
	size_t n = numDependencies;
	switch (np->type) {
	case cudaGraphNodeTypeKernel:
		return cudaGraphAddKernelNode(pGraphNode, graph, d, n, &np->kernel);
	case cudaGraphNodeTypeMemcpy:
		return cudaGraphAddMemcpyNode(pGraphNode, graph, d, n, &np->memcpy.copyParams);
	case cudaGraphNodeTypeMemset:
		return cudaGraphAddMemsetNode(pGraphNode, graph, d, n, &np->memset);
	case cudaGraphNodeTypeHost:
		return cudaGraphAddHostNode(pGraphNode, graph, d, n, &np->host);
	case cudaGraphNodeTypeGraph:
		return cudaGraphAddChildGraphNode(pGraphNode, graph, d, n, np->graph.graph);
	case cudaGraphNodeTypeEmpty:
		return cudaGraphAddEmptyNode(pGraphNode, graph, d, n);
	case cudaGraphNodeTypeWaitEvent:
		return cudaGraphAddEventWaitNode(pGraphNode, graph, d, n, np->eventWait.event);
	case cudaGraphNodeTypeEventRecord:
		return cudaGraphAddEventRecordNode(pGraphNode, graph, d, n, np->eventRecord.event);
	case cudaGraphNodeTypeMemAlloc:
		return cudaGraphAddMemAllocNode(pGraphNode, graph, d, n, &np->alloc);
	case cudaGraphNodeTypeMemFree:
		return cudaGraphAddMemFreeNode(pGraphNode, graph, d, n, np->free.dptr);
	case cudaGraphNodeTypeConditional: {
		cudaError_t e = rt_add_check(pGraphNode, graph, d, n);
		if (!e)
			e = rt_add_conditional(pGraphNode, graph, d, n, &np->conditional);
		return rt_error_set(e);
	}
	default:
		rt_report_error("cudaGraphAddNode: nodes of type %d (external semaphores) are not "
				"emulated; run with --backend gpu", (int)np->type);
		return rt_error_set(cudaErrorNotSupported);
	}
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
				     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
				     size_t numDependencies)
{
	(void)edgeData;
	if (!rt_graph_ok(graph) || (numDependencies && (!from || !to)))
		return rt_error_set(cudaErrorInvalidValue);
	for (size_t i = 0; i < numDependencies; i++) {
		cudaGraphNode_t t = to[i];
		if (!rt_node_ok(from[i]) || !rt_node_ok(t) || from[i]->graph != graph ||
		    t->graph != graph || from[i] == t)
			return rt_error_set(cudaErrorInvalidValue);
		cudaGraphNode_t *grown = realloc(t->deps, (t->ndeps + 1) * sizeof *grown);
		if (!grown)
			return rt_error_set(cudaErrorMemoryAllocation);
		t->deps = grown;
		t->deps[t->ndeps++] = from[i];
		graph->reordered = 1;
	}
	return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
					 const struct cudaKernelNodeParams *pNodeParams)
{
	if (!rt_node_ok(node) || node->p->type != cudaGraphNodeTypeKernel)
		return rt_error_set(cudaErrorInvalidValue);
	struct rt_payload *p;
	cudaError_t e = rt_graph_kernel_payload(pNodeParams, &p);
	if (e)
		return rt_error_set(e);
	rt_payload_put(node->p);
	node->p = p;
	return cudaSuccess;
}

/* A handle is 4 bytes of device memory, never freed (executable graphs outlive their
 * graphs, and kernels hold the handle). */
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
					     cudaGraph_t graph, unsigned int defaultLaunchValue,
					     unsigned int flags)
{
	if (!pHandle_out || !rt_graph_ok(graph) || flags > cudaGraphCondAssignDefault)
		return rt_error_set(cudaErrorInvalidValue);
	devaddr_t a;
	struct rt_handle *grown = realloc(graph->handles, (graph->nhandles + 1) * sizeof *grown);
	if (!grown)
		return rt_error_set(cudaErrorMemoryAllocation);
	graph->handles = grown;
	if (devmem_alloc(4, DEVMEM_GLOBAL, "a conditional node's handle", &a) != 0)
		return rt_error_set(cudaErrorMemoryAllocation);
	memcpy(devmem_host(a, 4), &defaultLaunchValue, 4);
	graph->handles[graph->nhandles++] = (struct rt_handle){a, defaultLaunchValue, flags};
	*pHandle_out = a;
	return cudaSuccess;
}

/* ---- queries, clones, destruction -------------------------------------------------- */

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
	/* an array with room for no node: cudaErrorInvalidValue, as an H200 answers */
	if (!rt_graph_ok(graph) || !numNodes || (nodes && !*numNodes))
		return rt_error_set(cudaErrorInvalidValue);
	for (size_t i = 0; nodes && i < *numNodes; i++)
		nodes[i] = i < graph->n ? graph->nodes[i] : NULL;
	*numNodes = graph->n;
	return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
				  size_t *pNumRootNodes)
{
	if (!rt_graph_ok(graph) || !pNumRootNodes)
		return rt_error_set(cudaErrorInvalidValue);
	size_t k = 0;
	for (size_t i = 0; i < graph->n; i++)
		if (!graph->nodes[i]->ndeps) {
			if (pRootNodes && k < *pNumRootNodes)
				pRootNodes[k] = graph->nodes[i];
			k++;
		}
	for (size_t i = k; pRootNodes && i < *pNumRootNodes; i++)
		pRootNodes[i] = NULL;
	*pNumRootNodes = k;
	return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
	if (!rt_node_ok(node) || !pType)
		return rt_error_set(cudaErrorInvalidValue);
	*pType = node->p->type;
	return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
					 cudaGraphEdgeData *edgeData, size_t *pNumDependencies)
{
	if (!rt_node_ok(node) || !pNumDependencies)
		return rt_error_set(cudaErrorInvalidValue);
	for (size_t i = 0; pDependencies && i < *pNumDependencies; i++) {
		pDependencies[i] = i < node->ndeps ? node->deps[i] : NULL;
		if (edgeData)
			memset(&edgeData[i], 0, sizeof edgeData[i]);
	}
	*pNumDependencies = node->ndeps;
	return cudaSuccess;
}

/* A copy of from: its nodes share from's payloads; the edges follow the copies. */
static cudaError_t rt_graph_copy(cudaGraph_t from, cudaGraph_t *out)
{
	cudaGraph_t g = rt_graph_new();
	if (!g)
		return cudaErrorMemoryAllocation;
	g->reordered = from->reordered;
	cudaGraphNode_t deps[64], *d = deps;
	for (size_t i = 0; i < from->n; i++) {
		cudaGraphNode_t n = from->nodes[i];
		if (n->ndeps > 64 && !(d = malloc(n->ndeps * sizeof *d))) {
			rt_graph_free(g);
			return cudaErrorMemoryAllocation;
		}
		for (size_t k = 0; k < n->ndeps; k++)
			d[k] = g->nodes[n->deps[k]->index];
		atomic_fetch_add(&n->p->refs, 1);
		cudaError_t e = rt_node_add(g, d, n->ndeps, n->p, NULL);
		if (d != deps)
			free(d);
		d = deps;
		if (e) {
			rt_graph_free(g);
			return e;
		}
	}
	if (from->nhandles) {
		g->handles = malloc(from->nhandles * sizeof *g->handles);
		if (!g->handles) {
			rt_graph_free(g);
			return cudaErrorMemoryAllocation;
		}
		memcpy(g->handles, from->handles, from->nhandles * sizeof *g->handles);
		g->nhandles = from->nhandles;
	}
	*out = g;
	return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
	if (!pGraphClone || !rt_graph_ok(originalGraph))
		return rt_error_set(cudaErrorInvalidValue);
	return rt_error_set(rt_graph_copy(originalGraph, pGraphClone));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	if (!rt_graph_ok(graph))
		return rt_error_set(cudaErrorInvalidValue);
	rt_graph_free(graph);
	return cudaSuccess;
}
