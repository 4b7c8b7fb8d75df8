/* cudart_errors — cudaError_t names and messages, and the runtime's error state.
 *
 * Three kinds of state, as in the real runtime:
 *   - the last error of the calling thread (cudaGetLastError returns and clears it,
 *     cudaPeekAtLastError only returns it);
 *   - a sticky error of the (single, emulated) context, set when a kernel faults: from
 *     then on every context call returns it (and records it as the last error again);
 *     cudaGetLastError clears only the last error, so a second cudaGetLastError reads
 *     cudaSuccess while cudaMalloc still fails, as measured on an H200 with CUDA 13;
 *     only cudaDeviceReset clears the sticky error;
 *   - a pending fault: kernels run synchronously here, but on a GPU a launch returns
 *     before the kernel runs, so `kernel<<<...>>>(); cudaGetLastError()` still reads
 *     cudaSuccess there. A fault therefore stays pending until the next context call
 *     (anything but the error queries), which turns it sticky and returns it.
 */
#ifndef PMPPLAB_EMU_CUDART_ERRORS_H
#define PMPPLAB_EMU_CUDART_ERRORS_H

#include "cudart_abi.h"

#pragma GCC visibility push(hidden)

/* Name / message of a code; "unrecognized error code" (as the real runtime) otherwise. */
const char *rt_error_name(cudaError_t e);
const char *rt_error_string(cudaError_t e);
/* Nonzero if e is a value of cudaError_t in CUDA 13.0. */
int rt_error_known(int e);

/* Records e as the calling thread's last error (unless cudaSuccess) and returns it. */
cudaError_t rt_error_set(cudaError_t e);

/* Entry check of every call that uses the context: turns a pending fault sticky and
 * returns the sticky error (also recorded as last error), or cudaSuccess. */
cudaError_t rt_error_enter(void);

/* A kernel faulted with e: pending until the next context call. */
void rt_error_set_pending(cudaError_t e);

/* The sticky error, or cudaSuccess (does not look at a pending fault). */
cudaError_t rt_error_sticky(void);

/* The device's state for the device thread: the pending fault, else the sticky error. */
cudaError_t rt_error_device(void);

/* cudaDeviceReset: forget sticky, pending and this thread's last error. */
void rt_error_reset(void);

#pragma GCC visibility pop

cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);

#endif
