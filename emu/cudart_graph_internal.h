/* cudart_graph_internal — what cudart_graph.c shares with cudart_capture.c and
 * cudart_graph_exec.c: the graph structures and the calls that build a graph (a capture
 * adds its nodes as the cudaGraphAdd*Node calls do; an executable graph holds references
 * to the nodes' payloads). Private to those three files. */
#ifndef PMPPLAB_EMU_CUDART_GRAPH_INTERNAL_H
#define PMPPLAB_EMU_CUDART_GRAPH_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>

#include "cudart_abi.h"
#include "cudart_async.h"

#pragma GCC visibility push(hidden)

/* Handles carry a tag, cleared when they are destroyed, so a made-up or destroyed one
 * is an error rather than a crash (most of the time: freed memory may keep it). */
#define RT_GRAPH_TAG 0x47524150u
#define RT_NODE_TAG 0x4e4f4445u
#define RT_EXEC_TAG 0x45584543u

/* What a node does (see cudart_graph.h): shared, counted, never changed. */
struct rt_payload {
	atomic_int refs;
	enum cudaGraphNodeType type;
	struct rt_work work;   /* kernel, memcpy, memset, host */
	cudaEvent_t event;     /* event record and wait */
	void *dptr;            /* memory allocation and free */
	size_t bytes;          /* memory allocation */
	cudaGraph_t *graphs;   /* child graph (1), a conditional's bodies (size) */
	cudaGraphConditionalHandle handle;
	enum cudaGraphConditionalNodeType cond;
	unsigned size;
};

/* A conditional handle of a graph: 4 bytes of device memory a kernel sets. */
struct rt_handle {
	cudaGraphConditionalHandle h;
	unsigned value; /* the default */
	unsigned flags; /* cudaGraphCondAssignDefault: written at every launch */
};

struct CUgraphNode_st {
	unsigned tag;
	cudaGraph_t graph;
	struct rt_payload *p;
	cudaGraphNode_t *deps;
	size_t ndeps, index; /* index: position in graph->nodes */
};

struct CUgraph_st {
	unsigned tag;
	cudaGraphNode_t *nodes;
	size_t n, cap;
	int reordered; /* an edge was added later: the add order is no longer topological */
	struct rt_handle *handles;
	size_t nhandles;
};

static inline int rt_graph_ok(cudaGraph_t g)
{
	return g && g->tag == RT_GRAPH_TAG;
}

static inline int rt_node_ok(cudaGraphNode_t n)
{
	return n && n->tag == RT_NODE_TAG;
}

/* A payload of TYPE holding one reference, or NULL when memory ran out. */
struct rt_payload *rt_payload_new(enum cudaGraphNodeType type);

/* Drops a reference to p (NULL is nothing); the last one frees it and its graphs. */
void rt_payload_put(struct rt_payload *p);

/* A kernel node's operation from its parameters (cudaGraphAddKernelNode's checks and
 * messages); cudaErrorNotSupported for arguments in the 'extra' form. */
cudaError_t rt_graph_kernel_work(const struct cudaKernelNodeParams *k, struct rt_work *w);
/* ... as a new kernel payload at *out (the SetParams calls' replacement). */
cudaError_t rt_graph_kernel_payload(const struct cudaKernelNodeParams *k, struct rt_payload **out);

/* An empty graph, or NULL when memory ran out. */
cudaGraph_t rt_graph_new(void);

/* Frees g, its nodes and their references to payloads; NULL is nothing. */
void rt_graph_free(cudaGraph_t g);

/* Adds a node doing p (taken over, also on failure) to g after deps; *out, when out is
 * not NULL, is the node. cudaErrorInvalidValue when a dependency is not a node of g. */
cudaError_t rt_node_add(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
			struct rt_payload *p, cudaGraphNode_t *out);

#pragma GCC visibility pop

#endif
