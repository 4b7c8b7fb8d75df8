/* devinfo: a GPU's peak rates from its attributes, which the timed lab program reports
 * (pl_timing's dev_* metrics): the grader itself never loads CUDA. Used by the
 * performance checks (perf.h) to say "40% of peak". */
#ifndef PMPPLAB_DEVINFO_H
#define PMPPLAB_DEVINFO_H

#include "harness/pl_io.h"

struct devinfo {
	unsigned sm_count;
	unsigned clock_khz;      /* peak SM clock */
	unsigned mem_clock_khz;  /* peak memory clock */
	unsigned bus_width_bits; /* global memory bus */
	unsigned l2_bytes;
	unsigned cc_major, cc_minor;
};

/* Fills D from the dev_* metrics of a result file. Returns 0, or -ENOENT when one is
 * missing or zero (an older program, or a device that does not report it). */
int devinfo_from_result(const struct pl_file *result, struct devinfo *d);

/* Peak DRAM bandwidth in bytes/s: two transfers per memory clock (DDR/HBM) times the bus
 * width. H100 SXM: 2 * 2619 MHz * 5120 bit / 8 = 3.35 TB/s. */
double devinfo_peak_bandwidth(const struct devinfo *d);

/* FP32 lanes per SM for a compute capability (the CUDA C Programming Guide's throughput
 * table); 0 when unknown. */
unsigned devinfo_fp32_lanes(unsigned cc_major, unsigned cc_minor);

/* Peak FP32 rate in FLOP/s, counting a fused multiply-add as two: SMs * lanes * 2 *
 * clock. H100 SXM: 132 * 128 * 2 * 1980 MHz = 66.9 TFLOP/s. 0 when the lanes are unknown. */
double devinfo_peak_flops(const struct devinfo *d);

#endif
