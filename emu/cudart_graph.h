/* cudart_graph — CUDA graphs.
 *
 * A graph is a list of nodes in the order they were added, each with the nodes it
 * depends on; a node's payload (what it does: a queued operation of cudart_async.h, an
 * event, an allocation, a child graph, a conditional's bodies) is shared by the graph,
 * its clones and the executable graphs made from them, and never changes (setting a
 * node's parameters gives it a new payload). Executable graphs (instantiation, launches)
 * are cudart_graph_exec.h; stream capture, which builds a graph from the operations
 * issued to streams, is cudart_capture.h.
 *
 * Conditional nodes (if, while, switch) read their handle, 4 bytes of device memory
 * that a kernel sets through cudaGraphSetConditional (the interpreter's
 * OP_SETCONDITIONAL), when the device thread reaches them.
 */
#ifndef PMPPLAB_EMU_CUDART_GRAPH_H
#define PMPPLAB_EMU_CUDART_GRAPH_H

#include <stddef.h>

#include "cudart_abi.h"

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaMemcpy3DParms *pCopyParams);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				     const cudaGraphNode_t *pDependencies, size_t numDependencies,
				     void *dst, const void *src, size_t count,
				     enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaMemsetParams *pMemsetParams);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				 const cudaGraphNode_t *pDependencies, size_t numDependencies,
				 const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				  const cudaGraphNode_t *pDependencies, size_t numDependencies);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				       const cudaGraphNode_t *pDependencies,
				       size_t numDependencies, cudaGraph_t childGraph);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					const cudaGraphNode_t *pDependencies,
					size_t numDependencies, cudaEvent_t event);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				      const cudaGraphNode_t *pDependencies,
				      size_t numDependencies, cudaEvent_t event);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				     const cudaGraphNode_t *pDependencies, size_t numDependencies,
				     struct cudaMemAllocNodeParams *nodeParams);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				    const cudaGraphNode_t *pDependencies, size_t numDependencies,
				    void *dptr);
cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
			     const cudaGraphNode_t *pDependencies,
			     const cudaGraphEdgeData *dependencyData, size_t numDependencies,
			     struct cudaGraphNodeParams *nodeParams);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
				     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
				     size_t numDependencies);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
					 const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
					     cudaGraph_t graph, unsigned int defaultLaunchValue,
					     unsigned int flags);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
				  size_t *pNumRootNodes);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
					 cudaGraphEdgeData *edgeData, size_t *pNumDependencies);

#endif
