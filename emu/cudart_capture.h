/* cudart_capture — stream capture: CUDA graphs (cudart_graph.h) built from the
 * operations issued to streams.
 *
 * While a capture follows a stream, the operations issued to it (rt_stream_submit:
 * launches, copies, sets, host functions) become nodes of the capture's graph, each
 * depending on the stream's last; an event recorded there marks a point that a
 * cudaStreamWaitEvent of another stream joins to the capture, and
 * cudaMallocAsync/cudaFreeAsync become allocation and free nodes. The nodes are the ones
 * the cudaGraphAdd*Node calls make (cudart_graph_internal.h).
 */
#ifndef PMPPLAB_EMU_CUDART_CAPTURE_H
#define PMPPLAB_EMU_CUDART_CAPTURE_H

#include <stddef.h>

#include "cudart_abi.h"
#include "cudart_async.h"

#pragma GCC visibility push(hidden)

/* Nonzero while a capture follows stream s. */
int rt_graph_capturing(cudaStream_t s);

/* When a capture follows s: w becomes a node of TYPE of its graph (which then owns w's
 * arg) and 1 is returned; otherwise 0 and nothing happens. */
int rt_graph_capture_work(cudaStream_t s, struct rt_work w, enum cudaGraphNodeType type);

/* cudaEventRecord on s: when a capture follows s, remembers e as a point of it (other
 * streams that wait for e join the capture) and returns 1. */
int rt_graph_capture_event(cudaStream_t s, cudaEvent_t e);

/* cudaStreamWaitEvent(s, e): when e is a point of a capture, s joins it (its next
 * operations depend on what e followed). */
void rt_graph_capture_join(cudaStream_t s, cudaEvent_t e);

/* cudaMallocAsync / cudaFreeAsync on a stream a capture follows: an allocation node,
 * whose address is known now, and a free node. */
cudaError_t rt_graph_capture_alloc(cudaStream_t s, void **ptr, size_t size);
cudaError_t rt_graph_capture_free(cudaStream_t s, void *ptr);

#pragma GCC visibility pop

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
					  const cudaGraphNode_t *dependencies,
					  const cudaGraphEdgeData *dependencyData,
					  size_t numDependencies, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
				  enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
				     enum cudaStreamCaptureStatus *captureStatus_out,
				     unsigned long long *id_out, cudaGraph_t *graph_out,
				     const cudaGraphNode_t **dependencies_out,
				     const cudaGraphEdgeData **edgeData_out,
				     size_t *numDependencies_out);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
						cudaGraphNode_t *dependencies,
						const cudaGraphEdgeData *dependencyData,
						size_t numDependencies, unsigned int flags);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);

#endif
