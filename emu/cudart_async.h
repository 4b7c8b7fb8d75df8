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

/* Queues run(arg) behind everything issued before; returns its sequence number. run
 * owns arg. device_work: skipped (but still freed by run, called with skip set through
 * rt_async_skipping) once a kernel fault made the context's error sticky, as a GPU runs
 * nothing after one. When the device thread cannot be started, runs it at once. */
uint64_t rt_async_submit(rt_async_fn run, void *arg, int device_work);

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
