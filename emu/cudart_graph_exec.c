/* cudart_graph_exec — see cudart_graph_exec.h. */
#include "cudart_graph_exec.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_async.h"
#include "cudart_capture.h"
#include "cudart_errors.h"
#include "cudart_graph_internal.h"
#include "cudart_graph_memory.h"
#include "cudart_report.h"
#include "cudart_stream.h"
#include "devmem.h"

/* An executable graph: payloads in a topological order; child graphs and conditional
 * bodies instantiated with it. */
struct rt_xnode {
	struct rt_payload *p;
	cudaGraphNode_t origin;
	struct CUgraphExec_st **sub;
};
struct CUgraphExec_st {
	unsigned tag;
	struct rt_xnode *x;
	size_t n;
	struct rt_handle *handles;
	size_t nhandles;
	unsigned long long flags;
	uint64_t last; /* the sequence number of its last launch */
};

/* ---- executable graphs ------------------------------------------------------------- */

static int rt_exec_ok(cudaGraphExec_t x)
{
	return x && x->tag == RT_EXEC_TAG;
}

static void rt_exec_free(cudaGraphExec_t x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++) {
		struct rt_xnode *xn = &x->x[i];
		unsigned nsub = xn->p->type == cudaGraphNodeTypeConditional ? xn->p->size
				: xn->p->type == cudaGraphNodeTypeGraph	       ? 1
										       : 0;
		for (unsigned k = 0; xn->sub && k < nsub; k++)
			rt_exec_free(xn->sub[k]);
		free(xn->sub);
		rt_payload_put(xn->p);
	}
	free(x->x);
	free(x->handles);
	x->tag = 0;
	free(x);
}

/* g's nodes in a topological order: the order they were added, unless an edge was
 * added later (then, at each step, the first node all of whose dependencies came). */
static cudaError_t rt_topo_order(cudaGraph_t g, cudaGraphNode_t *order)
{
	if (!g->reordered) {
		if (g->n)
			memcpy(order, g->nodes, g->n * sizeof *order);
		return cudaSuccess;
	}
	char *done = calloc(g->n ? g->n : 1, 1);
	if (!done)
		return cudaErrorMemoryAllocation;
	for (size_t k = 0; k < g->n; k++) {
		size_t pick = g->n;
		for (size_t i = 0; i < g->n && pick == g->n; i++) {
			int ready = !done[i];
			for (size_t d = 0; ready && d < g->nodes[i]->ndeps; d++)
				ready = done[g->nodes[i]->deps[d]->index];
			if (ready)
				pick = i;
		}
		if (pick == g->n) { /* a cycle */
			free(done);
			return cudaErrorInvalidValue;
		}
		done[pick] = 1;
		order[k] = g->nodes[pick];
	}
	free(done);
	return cudaSuccess;
}

static cudaError_t rt_exec_new(cudaGraph_t g, unsigned long long flags, cudaGraphExec_t *out)
{
	cudaGraphExec_t x = calloc(1, sizeof *x);
	cudaGraphNode_t *order = malloc((g->n ? g->n : 1) * sizeof *order);
	if (x)
		x->x = calloc(g->n ? g->n : 1, sizeof *x->x);
	cudaError_t e = x && x->x && order ? cudaSuccess : cudaErrorMemoryAllocation;
	if (!e) {
		x->tag = RT_EXEC_TAG;
		x->flags = flags;
		e = rt_topo_order(g, order);
	}
	if (!e && g->nhandles) {
		x->handles = malloc(g->nhandles * sizeof *x->handles);
		if (x->handles) {
			memcpy(x->handles, g->handles, g->nhandles * sizeof *x->handles);
			x->nhandles = g->nhandles;
		} else {
			e = cudaErrorMemoryAllocation;
		}
	}
	for (size_t i = 0; !e && i < g->n; i++) {
		struct rt_payload *p = order[i]->p;
		struct rt_xnode *xn = &x->x[x->n++];
		atomic_fetch_add(&p->refs, 1);
		*xn = (struct rt_xnode){p, order[i], NULL};
		unsigned nsub = p->type == cudaGraphNodeTypeConditional ? p->size
				: p->type == cudaGraphNodeTypeGraph	    ? 1
									    : 0;
		if (nsub && !(xn->sub = calloc(nsub, sizeof *xn->sub)))
			e = cudaErrorMemoryAllocation;
		for (unsigned k = 0; !e && k < nsub; k++)
			e = rt_exec_new(p->graphs[k], flags, &xn->sub[k]);
	}
	free(order);
	if (e) {
		if (x && x->x)
			rt_exec_free(x);
		else
			free(x);
		return e;
	}
	*out = x;
	return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
				 unsigned long long flags)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!pGraphExec || !rt_graph_ok(graph) || flags > 15)
		return rt_error_set(cudaErrorInvalidValue);
	return rt_error_set(rt_exec_new(graph, flags, pGraphExec));
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					  unsigned long long flags)
{
	return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					   cudaGraphInstantiateParams *instantiateParams)
{
	if (!instantiateParams)
		return rt_error_set(cudaErrorInvalidValue);
	cudaError_t e = cudaGraphInstantiate(pGraphExec, graph, instantiateParams->flags);
	instantiateParams->result_out = e ? 1 /* cudaGraphInstantiateError */ : 0;
	instantiateParams->errNode_out = NULL;
	return e;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
	if (!rt_exec_ok(graphExec) || !flags)
		return rt_error_set(cudaErrorInvalidValue);
	*flags = graphExec->flags;
	return cudaSuccess;
}

/* Replaces the payload of x's node made from origin with p (a new reference). */
static cudaError_t rt_exec_replace(cudaGraphExec_t x, cudaGraphNode_t origin,
				   struct rt_payload *p)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->x[i].origin == origin) {
			rt_async_wait(x->last); /* a launch queued before keeps its parameters */
			rt_payload_put(x->x[i].p);
			x->x[i].p = p;
			return cudaSuccess;
		}
	rt_payload_put(p);
	return cudaErrorInvalidValue;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
					     const struct cudaKernelNodeParams *pNodeParams)
{
	if (!rt_exec_ok(hGraphExec) || !rt_node_ok(node) ||
	    node->p->type != cudaGraphNodeTypeKernel)
		return rt_error_set(cudaErrorInvalidValue);
	struct rt_payload *p;
	cudaError_t e = rt_graph_kernel_payload(pNodeParams, &p);
	if (e)
		return rt_error_set(e);
	return rt_error_set(rt_exec_replace(hGraphExec, node, p));
}

/* The graph must have the executable graph's shape: as many nodes, of the same types,
 * in the same order; the nodes' parameters are then taken from it. */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
				cudaGraphExecUpdateResultInfo *resultInfo)
{
	if (!rt_exec_ok(hGraphExec) || !rt_graph_ok(hGraph) || !resultInfo)
		return rt_error_set(cudaErrorInvalidValue);
	cudaGraphExec_t x = hGraphExec;
	cudaGraphNode_t *order = malloc((hGraph->n ? hGraph->n : 1) * sizeof *order);
	if (!order || rt_topo_order(hGraph, order)) {
		free(order);
		return rt_error_set(cudaErrorMemoryAllocation);
	}
	*resultInfo = (cudaGraphExecUpdateResultInfo){0, NULL, NULL};
	if (hGraph->n != x->n)
		resultInfo->result = 2; /* cudaGraphExecUpdateErrorTopologyChanged */
	for (size_t i = 0; !resultInfo->result && i < x->n; i++)
		if (order[i]->p->type != x->x[i].p->type) {
			resultInfo->result = 3; /* cudaGraphExecUpdateErrorNodeTypeChanged */
			resultInfo->errorNode = order[i];
		} else if (order[i]->p->type == cudaGraphNodeTypeConditional ||
			   order[i]->p->type == cudaGraphNodeTypeGraph) {
			resultInfo->result = 6; /* cudaGraphExecUpdateErrorNotSupported */
			resultInfo->errorNode = order[i];
		}
	if (!resultInfo->result) {
		rt_async_wait(x->last);
		for (size_t i = 0; i < x->n; i++) {
			atomic_fetch_add(&order[i]->p->refs, 1);
			rt_payload_put(x->x[i].p);
			x->x[i] = (struct rt_xnode){order[i]->p, order[i], NULL};
		}
	}
	free(order);
	return resultInfo->result ? rt_error_set(cudaErrorGraphExecUpdateFailure) : cudaSuccess;
}

/* Runs x's nodes in order on the device thread; a fault stops it, as it stops a GPU. */
static void rt_exec_run(cudaGraphExec_t x)
{
	for (size_t i = 0; i < x->nhandles; i++)
		if (x->handles[i].flags & cudaGraphCondAssignDefault)
			memcpy(devmem_host(x->handles[i].h, 4), &x->handles[i].value, 4);
	for (size_t i = 0; i < x->n && rt_error_device() == cudaSuccess; i++) {
		struct rt_xnode *xn = &x->x[i];
		struct rt_payload *p = xn->p;
		cudaError_t e = cudaSuccess;
		switch (p->type) {
		case cudaGraphNodeTypeKernel:
		case cudaGraphNodeTypeMemcpy:
		case cudaGraphNodeTypeMemset:
		case cudaGraphNodeTypeHost:
			p->work.run(p->work.arg);
			break;
		case cudaGraphNodeTypeMemAlloc: {
			struct devmem_info info;
			if ((x->flags & 1 /* cudaGraphInstantiateFlagAutoFreeOnLaunch */) &&
			    devmem_find((devaddr_t)(uintptr_t)p->dptr, &info) == 0)
				rt_memory_graph_unmap(p->dptr);
			e = rt_memory_graph_map(p->dptr, p->bytes);
			break;
		}
		case cudaGraphNodeTypeMemFree:
			e = rt_memory_graph_unmap(p->dptr);
			break;
		case cudaGraphNodeTypeGraph:
			rt_exec_run(xn->sub[0]);
			break;
		case cudaGraphNodeTypeConditional: {
			const unsigned *v = devmem_host(p->handle, 4);
			if (!v)
				break;
			if (p->cond == cudaGraphCondTypeIf && (*v || p->size == 2))
				rt_exec_run(xn->sub[*v ? 0 : 1]);
			else if (p->cond == cudaGraphCondTypeSwitch && *v < p->size)
				rt_exec_run(xn->sub[*v]);
			while (p->cond == cudaGraphCondTypeWhile && *v &&
			       rt_error_device() == cudaSuccess)
				rt_exec_run(xn->sub[0]);
			break;
		}
		default: /* empty, event waits (one queue), event records (cudaGraphLaunch) */
			break;
		}
		if (e)
			rt_error_set_pending(e);
	}
}

/* What a launch of x does to the graph memory footprint (rt_memory_graph_launch): the
 * most bytes its own allocations hold at once, in the order it runs; the bytes it leaves
 * allocated (its allocations it does not free; with cudaGraphInstantiateFlagAutoFreeOnLaunch
 * only at the first launch), less the earlier launches' allocations it frees. */
static void rt_exec_memory(cudaGraphExec_t x, uint64_t *peak, int64_t *held)
{
	uint64_t live = 0;
	*peak = 0;
	*held = 0;
	int again = (x->flags & 1 /* cudaGraphInstantiateFlagAutoFreeOnLaunch */) && x->last;
	for (size_t i = 0; i < x->n; i++) {
		const struct rt_payload *p = x->x[i].p;
		if (p->type == cudaGraphNodeTypeMemAlloc) {
			live += p->bytes;
			*held += again ? 0 : (int64_t)p->bytes;
			*peak = live > *peak ? live : *peak;
		} else if (p->type == cudaGraphNodeTypeMemFree) {
			size_t size = rt_memory_graph_bytes(p->dptr);
			int own = 0;
			for (size_t k = 0; k < x->n && !own; k++)
				own = x->x[k].p->type == cudaGraphNodeTypeMemAlloc &&
				      x->x[k].p->dptr == p->dptr;
			live -= own && size <= live ? size : 0;
			*held -= own && again ? 0 : (int64_t)size;
		}
	}
}

static void rt_exec_op(void *arg)
{
	if (!rt_async_skipping())
		rt_exec_run(arg);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!rt_exec_ok(graphExec))
		return rt_error_set(cudaErrorInvalidValue);
	if (!rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	if (rt_graph_capturing(stream)) {
		rt_report_error("cudaGraphLaunch: launching a graph into a stream being captured "
				"(a child graph node) is not emulated; add the graph with "
				"cudaGraphAddChildGraphNode, or run with --backend gpu");
		return rt_error_set(cudaErrorStreamCaptureUnsupported);
	}
	rt_async_flush(); /* a launch writes the finished kernels' printf output */
	uint64_t peak;
	int64_t held;
	rt_exec_memory(graphExec, &peak, &held);
	graphExec->last = rt_stream_submit(stream, rt_exec_op, graphExec, RT_WORK_DEVICE,
					   cudaGraphNodeTypeGraph);
	if (peak || held)
		rt_memory_graph_launch(stream, graphExec->last, peak, held);
	/* event record nodes: recorded when the graph is done (its work is one operation) */
	for (size_t i = 0; i < graphExec->n; i++)
		if (graphExec->x[i].p->type == cudaGraphNodeTypeEventRecord &&
		    (e = cudaEventRecord(graphExec->x[i].p->event, stream)))
			return e;
	return cudaSuccess;
}

/* Nothing to upload: the graph is ready once instantiated. */
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	if (!rt_exec_ok(graphExec))
		return rt_error_set(cudaErrorInvalidValue);
	return rt_stream_valid(stream) ? cudaSuccess
				       : rt_error_set(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	if (!rt_exec_ok(graphExec))
		return rt_error_set(cudaErrorInvalidValue);
	rt_async_wait(graphExec->last); /* CUDA lets a queued launch finish */
	rt_exec_free(graphExec);
	return cudaSuccess;
}

/* ---- graph memory ------------------------------------------------------------------ */

cudaError_t cudaDeviceGraphMemTrim(int device)
{
	if (device != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	rt_async_idle();
	rt_memory_graph_trim();
	return cudaSuccess;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
					   void *value)
{
	if (device != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	return rt_error_set(rt_memory_graph_footprint((int)attr, value, 0));
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
					   void *value)
{
	if (device != 0)
		return rt_error_set(cudaErrorInvalidDevice);
	return rt_error_set(rt_memory_graph_footprint((int)attr, value, 1));
}

/* Programs built with --default-stream per-thread call these names. */
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
	__attribute__((alias("cudaGraphLaunch")));
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
	__attribute__((alias("cudaGraphUpload")));
cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
						cudaGraphInstantiateParams *instantiateParams)
	__attribute__((alias("cudaGraphInstantiateWithParams")));
