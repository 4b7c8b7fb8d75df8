/* cudart_async — the emulated GPU's front end: one device thread that runs the work the
 * streams queue (kernel launches, asynchronous copies and sets, event records, host
 * functions) behind the host's back, in the order it was issued.
 *
 * One queue for every stream is one of the orders CUDA allows (it never promises that
 * two streams overlap): stream order holds, the legacy default stream waits for the
 * others and they for it, and cudaStreamWaitEvent is satisfied by construction. Every
 * operation gets a sequence number and they complete in that order, so "is operation N
 * done?" is one comparison: a stream or an event only remembers the number of its last
 * operation.
 *
 * Device printf output is held back, as a GPU's printf buffer is, and written to stdout
 * at the next synchronising call or launch (rt_async_wait / rt_async_flush).
 */
#ifndef PMPPLAB_EMU_CUDART_ASYNC_H
#define PMPPLAB_EMU_CUDART_ASYNC_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

typedef void (*rt_async_fn)(void *arg);

/* What an operation is. RT_WORK_DEVICE: device work, which must not touch the device
 * (run is still called, with rt_async_skipping() set) once a kernel fault made the
 * context's error sticky, as a GPU runs nothing after one. RT_WORK_OWNED: arg is
 * malloc'd and freed after run; otherwise it is borrowed, and outlives the operation
 * (a graph's node, cudart_graph_exec.c, runs the same arg at every launch). */
enum { RT_WORK_DEVICE = 1, RT_WORK_OWNED = 2 };

/* An operation that is not queued yet: what a stream capture or a graph node keeps. */
struct rt_work {
	rt_async_fn run;
	void *arg;
	unsigned flags;
};

/* Queues run(arg) behind everything issued before; returns its sequence number. When
 * the device thread cannot be started, runs it at once. */
uint64_t rt_async_submit(rt_async_fn run, void *arg, unsigned flags);

/* Runs run(arg) after everything issued before, as the device's only work meanwhile,
 * and waits for it: the synchronous calls' work (cudaMemcpy, cudaMemset, cudaFree, array
 * copies). So the device's memory and its written flags (cudart_provenance.c's scans of
 * managed and pinned memory) are only ever touched by one thread at a time, however many
 * host threads call the runtime at once (an OpenMP program): a copy from one never runs
 * beside a kernel another launched. When nothing is queued it runs on the calling thread
 * while the device thread waits; else on the device thread, in the queue. From the
 * device thread itself (a host function calling the runtime) it runs at once. */
void rt_async_run(rt_async_fn run, void *arg);

/* Inside run: nonzero when the operation must not touch the device (see above). */
int rt_async_skipping(void);

/* Nonzero once operation seq (0: none) has completed. */
int rt_async_done(uint64_t seq);

/* Waits until operation seq has completed, then writes the held-back printf output.
 * From the device thread itself (a host function calling the runtime) it does not wait:
 * that would wait forever. */
void rt_async_wait(uint64_t seq);

/* Waits until everything issued has completed (cudaDeviceSynchronize, blocking calls). */
void rt_async_idle(void);

/* Writes the printf output of the kernels done so far (a launch flushes, as on a GPU). */
void rt_async_flush(void);

#pragma GCC visibility pop

#endif
