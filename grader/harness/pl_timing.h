/* pl_timing: kernel timing inside a lab program, for the grader's performance checks
 * (issue 8). When $PMPPLAB_TIMING is set, the harness calls pl_timing_run() after the
 * first (correctness) call of the entry point: it calls the entry point again and again,
 * flushing the L2 cache before each call, until the median kernel time is stable, and
 * adds the results to the result file as PL_METRIC items.
 *
 * Kernel durations come from CUPTI activity records (libcupti, dlopen'ed at run time, so
 * a machine without it still runs the program); without CUPTI, from CUDA events around
 * the whole entry point (which then includes the host<->device copies; the metric
 * timing_source says which). Host<->device copies are measured apart (CUPTI only).
 *
 * $PMPPLAB_TIMING is a comma-separated list of key=value (all optional):
 *   cap_ms=2000   stop repeating after this much wall time (ms)
 *   rel=0.01      stop when the median's relative standard error is below this
 *   min=5         at least this many timed calls
 *   max=500       at most this many
 *   warmup=1      untimed calls before the timed ones (after the correctness call)
 *   cupti=0       do not use CUPTI (force CUDA events; for testing the fallback)
 *
 * Metrics written (all doubles; times in ms; "per call" = one call of the entry point):
 *   timing_source   1 = CUPTI kernel records, 2 = CUDA events around the entry point,
 *                   0 = not measured (see timing_error)
 *   timing_error    a negative code when timing failed (the run still succeeds)
 *   kernel_ms       median over the timed calls of the kernel time per call
 *   kernel_ms_min, kernel_ms_max, kernel_ms_mad (median absolute deviation)
 *   kernel_rel_err  relative standard error of the median at the end
 *   timing_reps     timed calls;   timing_wall_ms  wall time spent timing
 *   kernels_per_call, transfer_ms (median copy time per call), h2d_bytes, d2h_bytes
 *   timing_no_kernel 1 when CUPTI saw no kernel in the timed calls (the times are then
 *                   the events' and measure host code only)
 *   streams_per_call  distinct streams the last timed call launched kernels on (CUPTI)
 *   "launched NAME"   launches of kernel NAME (mangled) in the last timed call (CUPTI)
 *   entry_ms_median median wall time of a whole call (events)
 *   l2_flush_bytes  size of the buffer written between calls
 *   timing_leaked_bytes_per_call  device memory a call did not free (only when > 0; the
 *                   loop stops early when less than a quarter of the memory is left)
 *   dev_sm_count, dev_clock_khz, dev_mem_clock_khz, dev_bus_width_bits, dev_l2_bytes,
 *   dev_cc_major, dev_cc_minor   device attributes, for peak rates (grader/devinfo)
 *
 * Written in C that also compiles as C++ (nvcc). The statistics helpers below are plain
 * C and tested on any machine (tests/perf). */
#ifndef PMPPLAB_PL_TIMING_H
#define PMPPLAB_PL_TIMING_H

#include <stddef.h>

#include "pl_io.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PL_TIMING_NONE = 0, PL_TIMING_CUPTI = 1, PL_TIMING_EVENTS = 2 };

struct pl_timing_opts {
	double cap_ms, rel;
	unsigned min_reps, max_reps, warmup;
	int use_cupti;
};

/* Defaults, then the keys found in TEXT (may be NULL). Unknown keys are ignored so an
 * older program still runs under a newer grader. */
void pl_timing_parse_opts(const char *text, struct pl_timing_opts *o);

/* Median of V[0..n) (sorts V in place); 0 when n is 0. */
double pl_timing_median(double *v, size_t n);
/* Median absolute deviation of V around MEDIAN (uses SCRATCH, n doubles). */
double pl_timing_mad(const double *v, size_t n, double median, double *scratch);
/* The relative standard error of the median of V[0..n): 1.2533 * sd / sqrt(n) / median
 * (the large-sample error of a median of normal samples). Infinity when n < 2 or the
 * median is 0. */
double pl_timing_rel_err(const double *v, size_t n);
/* True when the timed loop may stop: at least min_reps and stable (rel_err < rel) or
 * past the cap, or max_reps reached. */
int pl_timing_done(const struct pl_timing_opts *o, const double *v, size_t n, double wall_ms);

/* Times the entry point as described above and appends the metrics to RESULT. Does
 * nothing when $PMPPLAB_TIMING is unset or the program was not built for a GPU.
 * Exits the program (PL_EXIT_CUDA) if the entry point leaves a CUDA error. */
void pl_timing_run(struct pl_file *result);

/* GPU builds: count the kernels that run between the two calls (CUPTI activity
 * records), for pl_provenance. End returns the count, or -1 when it is unknown (not a GPU
 * build, no CUPTI, or the program runs under compute-sanitizer or ncu). */
void pl_timing_count_begin(void);
long pl_timing_count_end(void);

#ifdef __cplusplus
}
#endif

#endif
