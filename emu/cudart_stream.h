/* cudart_stream — streams and events. Their work runs on the device thread
 * (cudart_async.h) in issue order; a stream remembers its last operation, an event its
 * last record, whose time is the host clock when the device thread reached it: the
 * elapsed time between two events is the wall time of the emulated work between them.
 */
#ifndef PMPPLAB_EMU_CUDART_STREAM_H
#define PMPPLAB_EMU_CUDART_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "cudart_abi.h"
#include "cudart_async.h"

#pragma GCC visibility push(hidden)

/* Nonzero when s is 0, cudaStreamLegacy, cudaStreamPerThread or a live stream. */
int rt_stream_valid(cudaStream_t s);

/* Queues run(arg) on stream s (a valid handle), behind the work issued before it (see
 * rt_async_submit); returns its sequence number. On a stream that a capture follows
 * (cudart_capture.h) the operation becomes a node of TYPE in the graph instead, and 0 is
 * returned. */
uint64_t rt_stream_submit(cudaStream_t s, rt_async_fn run, void *arg, unsigned flags,
			  enum cudaGraphNodeType type);

/* A copy of rows rows of n bytes from s to d (resolved, host-addressable pointers), or a
 * set of them to value when s is NULL (in elements of elem bytes: 1, 2 or 4; a row is n
 * bytes); dst and src are the caller's pointers (for provenance). rows 0 is one row;
 * dpitch and spitch step from row to row. */
struct rt_mem_req {
	void *d;
	const void *s;
	size_t n;
	unsigned value, elem;
	size_t rows, dpitch, spitch;
	const void *dst, *src;
};

/* Does r. async: queued on stream; otherwise at once, after the queued work, returning
 * the error a kernel in it left. */
cudaError_t rt_stream_memory(cudaStream_t stream, int async, const struct rt_mem_req *r);

/* The operation that does r, for a graph's memcpy or memset node (arg is a copy of r:
 * RT_WORK_OWNED). */
cudaError_t rt_stream_memory_work(const struct rt_mem_req *r, struct rt_work *out);

/* The operation that calls fn(data), for a graph's host node. */
cudaError_t rt_stream_host_work(cudaHostFn_t fn, void *data, struct rt_work *out);

/* cudaDeviceReset: waits for the queued work, then destroys every stream and event. */
void rt_stream_reset(void);

#pragma GCC visibility pop

cudaError_t cudaStreamCreate(cudaStream_t *pStream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
				  void *userData, unsigned int flags);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

#endif
