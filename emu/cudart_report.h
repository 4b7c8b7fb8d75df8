/* cudart_report — what the replacement runtime tells the student: messages on stderr
 * (compute-sanitizer style, but worded for students) and, when $PMPPLAB_EVENTS names a
 * file, one JSON object per line for the grader and the TUI (format in emu/README.md,
 * "Running it"). Also catches host code that dereferences a device pointer
 * (SIGSEGV inside the device range) and says so before the process dies.
 */
#ifndef PMPPLAB_EMU_CUDART_REPORT_H
#define PMPPLAB_EMU_CUDART_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cudart_abi.h"
#include "exec.h"

#pragma GCC visibility push(hidden)

/* Opens $PMPPLAB_EVENTS and installs the SIGSEGV handler; idempotent. Called by the
 * library constructor and lazily by the calls that need it. */
void rt_report_init(void);

/* A misused API call: "pmpplab-emu: CALL: MESSAGE" on stderr plus an "api" fault event.
 * MESSAGE is printf-style. */
void rt_report_api(const char *call, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Something suspicious the real runtime accepts: "pmpplab-emu: CALL: warning: MESSAGE"
 * on stderr, no event. */
void rt_report_warning(const char *call, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A problem that is not the student's API misuse (missing PTX, unsupported build):
 * "pmpplab-emu: error: MESSAGE" on stderr, no event. */
void rt_report_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A kernel fault: the stderr diagnostic and the "fault" event. err is what the host
 * will see; note (may be NULL or empty) is one more sentence of explanation. */
void rt_report_kernel_fault(const char *kernel, const struct emu_fault *f, cudaError_t err,
			    const char *note);

/* A read of device memory nothing wrote (initcheck.h): "FILE:LINE: error: MESSAGE" on
 * stderr and a "finding" event of check "initcheck"; the kernel went on. */
struct initcheck_finding;
void rt_report_initcheck(const struct initcheck_finding *f);

/* What a launch cost: wall and process CPU milliseconds, thread-instructions. */
struct rt_launch_cost {
	double ms, cpu_ms;
	uint64_t insns;
};

/* One "launch" event (no stderr output). status cudaSuccess prints "ok"; cost is NULL
 * for a launch that did not run. Also counted for rt_report_stats. kernel is the source
 * name shown to the student; entry the PTX entry (mangled) name, which alone tells two
 * instantiations of a template kernel apart (the optimisations check). */
void rt_report_launch(const char *kernel, const char *entry, dim3 grid, dim3 block,
		      size_t shmem, cudaError_t status, const struct rt_launch_cost *cost);

/* At exit, when $PMPPLAB_EMU_STATS is set: what the kernels cost on stderr, the total
 * ("pmpplab emu: N thread-instructions in L launches, S s in kernels, C s CPU") and the kernels
 * that took the most time with their rates, so a slow program shows where its time
 * goes (bench/cuda_samples.sh reads the total). */
void rt_report_stats(void);

/* The JSON "kind" of a fault. */
const char *rt_report_fault_kind(enum emu_fault_kind k);

/* The kernel's source name from its mangled name: "_Z6vecAddPfS_i" -> "vecAdd",
 * "_Z6reduceILi256EEvPf" -> "reduce<256>". Writes at most len bytes, a name too long
 * for them cut and ending in "..."; returns out. */
char *rt_report_kernel_name(const char *mangled, char *out, size_t len);

/* Allocation bookkeeping for the SIGSEGV handler, which may not take locks. */
void rt_report_track_alloc(uint64_t base, size_t size);
void rt_report_untrack_alloc(uint64_t base);

/* Formats the host-dereference message for address addr into buf (async-signal-safe;
 * used by the handler, exposed for tests). Returns the length. */
size_t rt_report_hostderef_message(uint64_t addr, char *buf, size_t len);

#pragma GCC visibility pop

#endif
