/* occupancy: theoretical occupancy of a kernel on a GPU (issue 7), computed by NVIDIA's
 * own calculator (cuda_occupancy.h from the toolkit) through a small C++ shim
 * (occupancy_shim.cpp), so the numbers are the ones cudaOccupancyMaxActiveBlocksPer-
 * Multiprocessor gives on the device. A pure model: no CUDA runtime, no GPU needed.
 *
 * Devices come from the emulator's table of GPU models (emu_device.h: their
 * cudaDeviceProp fields), as the real cards or as the one the emulator emulates, or,
 * when a driver is present, from the detected GPU. */
#ifndef PMPPLAB_OCCUPANCY_H
#define PMPPLAB_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the calculator needs to know about a GPU: cudaDeviceProp's fields of the same
 * names. */
struct occ_device {
	char name[64];               /* "NVIDIA A100-SXM4-80GB" */
	char arch[12];               /* "sm_80": what ptxas compiles for */
	int cc_major, cc_minor;
	int max_threads_per_block;
	int max_threads_per_sm;      /* maxThreadsPerMultiProcessor */
	int regs_per_block;
	int regs_per_sm;             /* regsPerMultiprocessor */
	int warp_size;
	size_t smem_per_block;       /* sharedMemPerBlock (without opt-in) */
	size_t smem_per_sm;          /* sharedMemPerMultiprocessor */
	size_t smem_per_block_optin; /* sharedMemPerBlockOptin */
	size_t reserved_smem_per_block;
	int sm_count;                /* multiProcessorCount */
};

/* What the calculator needs to know about a kernel: ptxas's resource usage (resources.h)
 * and the launch's dynamic shared memory. */
struct occ_kernel {
	int regs;            /* registers per thread */
	size_t smem_static;  /* bytes of __shared__ declared in the kernel */
	size_t smem_dynamic; /* bytes asked for in <<<grid, block, bytes>>> */
	int barriers;        /* named barriers used (ptxas "used N barriers"); 0 counts as 1 */
};

/* Limiting resources, as bits (several can limit at once). Same values as
 * cudaOccLimitingFactor. */
enum occ_limit {
	OCC_LIM_WARPS = 0x01,     /* threads (warps) per SM */
	OCC_LIM_REGISTERS = 0x02, /* the register file */
	OCC_LIM_SHARED = 0x04,    /* shared memory */
	OCC_LIM_BLOCKS = 0x08,    /* resident blocks per SM */
	OCC_LIM_BARRIERS = 0x10,  /* hardware barriers */
};

struct occ_result {
	int blocks_per_sm;      /* resident blocks (0: the block cannot run at all) */
	int warps_per_sm;       /* blocks_per_sm * warps per block */
	int max_warps_per_sm;   /* the device's limit */
	double occupancy;       /* warps_per_sm / max_warps_per_sm, 0..1 */
	unsigned limits;        /* enum occ_limit bits of the resources that bind */
	/* blocks per SM each resource alone would allow (INT_MAX: no limit) */
	int limit_warps, limit_regs, limit_smem, limit_blocks, limit_barriers;
	int regs_per_block;     /* registers allocated per block (after granularity) */
	size_t smem_per_block;  /* shared memory allocated per block (after granularity) */
};

/* The built-in devices (H100, A100, RTX 4090, T4: emu_device.h), *n set to their
 * number. */
const struct occ_device *occ_devices(unsigned *n);
/* A built-in device by short name ("t4", "a100", "4090", "h100") or arch ("sm_80"), or
 * NULL. */
const struct occ_device *occ_device_find(const char *name);
/* Fills *d with the first GPU of the CUDA driver (dlopened: pmpplab does not link CUDA).
 * Returns 0, or -ENODEV when no driver or no device is present. */
int occ_device_detect(struct occ_device *d);
/* Fills *d with the GPU the emulator emulates (PMPPLAB_EMU_DEVICE, --emu-device), named
 * as the emulator names it: "pmpplab emulated H100" (arch says sm_90). */
void occ_device_emulated(struct occ_device *d);

/* Occupancy of K launched with BLOCK_SIZE threads a block on D. Returns 0 with *out set;
 * a block that cannot launch (more threads, registers or shared memory than the device
 * allows a block) gives 0 with blocks_per_sm 0 and the culprit in limits. -EINVAL for
 * bad arguments (block_size < 1, regs < 0), -ENOSYS when pmpplab was built without
 * cuda_occupancy.h. */
int occ_compute(const struct occ_device *d, const struct occ_kernel *k, int block_size,
		struct occ_result *out);

#define OCC_CURVE_POINTS 32 /* block sizes 32, 64, ... 1024 */
/* Occupancy at every multiple of 32 from 32 to 1024 (index i is block size 32 * (i + 1)).
 * Returns 0 or occ_compute's error. */
int occ_curve(const struct occ_device *d, const struct occ_kernel *k,
	      struct occ_result out[OCC_CURVE_POINTS]);

/* "registers", "shared memory", "warps per SM", "blocks per SM", "barriers" for the
 * most telling bit of LIMITS (registers and shared memory before the rest); "none". */
const char *occ_limit_name(unsigned limits);
/* Every bit of LIMITS by name, most telling first, joined by " + " ("registers + warps
 * per SM"), into BUF. Returns BUF. */
char *occ_limit_list(unsigned limits, char *buf, size_t n);
/* One sentence saying what to change to raise occupancy, for the panel and reports. */
const char *occ_limit_advice(unsigned limits);

/* The calculator proper, in occupancy_shim.cpp; occ_compute wraps it. */
int occ_shim_compute(const struct occ_device *d, const struct occ_kernel *k, int block_size,
		     struct occ_result *out);

#ifdef __cplusplus
}
#endif

#endif
