/* pl_provenance: where a lab program's outputs came from (issue 14), for the grader's
 * correctness tests. The harness calls pl_provenance_begin() just before the correctness
 * call of the entry point and pl_provenance_finish() just after it, and adds metrics:
 *
 *   launches                 kernels that ran during the call (absent when unknown)
 *   prov_counted             1: the prov:* metrics below are there (emulator builds)
 *   prov_kernel_bytes        bytes kernels wrote that reached host-visible memory
 *   prov:NAME:kernel         elements of output NAME whose value came from memory a
 *                            kernel wrote (directly, or through a host staging copy)
 *   prov:NAME:staged         of those, the ones copied through a staging buffer
 *   prov:NAME:filled         delivered unchanged from bytes cudaMemset set and no
 *                            kernel changed (a histogram's empty bins)
 *   prov:NAME:changed        delivered from the device, then changed by the host
 *   prov:NAME:unwritten      delivered from device memory no kernel wrote
 *   prov:NAME:host           never delivered from the device: the host computed them
 *   prov:NAME:first_bad      index of the first element neither "kernel" nor "filled"
 *   prov:NAME:overflow       1: too much was copied back to keep track of
 *
 * On the emulator the replacement runtime tracks every byte (emu/cudart_provenance.h);
 * on a GPU only the launches are known (CUPTI activity records, pl_timing.h), and the
 * grader runs the emulator build of the same file for the rest. Elsewhere (the CPU
 * reference) nothing is added. Written in C that also compiles as C++. */
#ifndef PMPPLAB_PL_PROVENANCE_H
#define PMPPLAB_PL_PROVENANCE_H

#include "pl_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The indices of emu_provenance_query()'s counts (emu/cudart_provenance.h's enum
 * emu_prov_count; tests/perf checks that the two agree). */
enum {
	PL_PROV_ELEMENTS, PL_PROV_KERNEL, PL_PROV_STAGED, PL_PROV_CHANGED, PL_PROV_UNWRITTEN,
	PL_PROV_HOST, PL_PROV_FIRST_BAD, PL_PROV_OVERFLOW, PL_PROV_FILLED, PL_PROV_COUNT
};

void pl_provenance_begin(void);
/* Adds the metrics of the outputs in REQUEST (their data: the call's results) to RESULT. */
void pl_provenance_finish(const struct pl_file *request, struct pl_file *result);

#ifdef __cplusplus
}
#endif

#endif
