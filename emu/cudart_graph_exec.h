/* cudart_graph_exec — executable graphs: instantiation, launches, updates, and the
 * device's graph memory.
 *
 * Instantiating puts a graph's nodes in a topological order (child graphs and
 * conditional bodies instantiated with it); a launch queues the whole executable graph as
 * one operation on the stream, which the device thread runs node after node: one queue
 * runs everything in issue order (cudart_async.h), so the branches of a graph never
 * overlap, which is one of the orders CUDA allows. A conditional node reads its handle
 * (cudart_graph.h) when the device thread reaches it; allocation and free nodes map and
 * unmap their memory (cudart_graph_memory.h) at every launch.
 */
#ifndef PMPPLAB_EMU_CUDART_GRAPH_EXEC_H
#define PMPPLAB_EMU_CUDART_GRAPH_EXEC_H

#include "cudart_abi.h"

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
				 unsigned long long flags);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					  unsigned long long flags);
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					   cudaGraphInstantiateParams *instantiateParams);
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
					     const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
				cudaGraphExecUpdateResultInfo *resultInfo);
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t cudaDeviceGraphMemTrim(int device);
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
					   void *value);
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
					   void *value);

#endif
