/* emu_device — the GPU models the emulator can present itself as: each one's limits
 * (SMs, thread and block slots, registers, shared memory), clocks and memory system as
 * the real card's cudaGetDeviceProperties reports them, and the architecture programs
 * for it are compiled for. The emulated device is one of them, named honestly
 * ("pmpplab emulated H100 (sm_90)"); the default is an H100, PMPPLAB_EMU_DEVICE picks
 * another (pmpplab --emu-device) for occupancy what-ifs. The grader's occupancy panel
 * takes its table of real GPUs from here too.
 */
#ifndef PMPPLAB_EMU_DEVICE_H
#define PMPPLAB_EMU_DEVICE_H

#include <stddef.h>

struct emu_device {
	const char *key;      /* "h100": what --emu-device and PMPPLAB_EMU_DEVICE take */
	const char *model;    /* "H100": the short name shown after "emulated" */
	const char *product;  /* "NVIDIA H100 80GB HBM3": the real card's name */
	const char *arch;     /* "sm_90": what nvcc compiles the emulator's PTX for */
	int cc_major, cc_minor;
	int sm_count;
	int max_threads_per_sm, max_blocks_per_sm;
	int regs_per_sm, regs_per_block;
	size_t smem_per_sm, smem_per_block, smem_per_block_optin, smem_reserved_per_block;
	int clock_khz, mem_clock_khz, bus_width_bits;
	int l2_bytes, persisting_l2_max;
	size_t global_bytes;  /* the card's memory (the emulator offers less, see cudart) */
	int async_engines;
};

/* What cudaMalloc'd memory holds before anything writes it (CUDA does not clear it; a
 * GPU's fresh memory often reads as zeros): the runtime fills each new allocation with
 * this byte so that a missing cudaMemset shows, and the grader names the pattern. */
#define EMU_FRESH_BYTE 0xCD

/* The table, *n set to its length; the default device first. */
const struct emu_device *emu_device_list(unsigned *n);
/* A device by key ("t4", "a100", "4090", "h100") or architecture ("sm_80"), ignoring
 * case; NULL when none. */
const struct emu_device *emu_device_find(const char *name);
/* The device PMPPLAB_EMU_DEVICE names, else the default (H100). When the variable names
 * no device, *bad (if not NULL) is set to its value and the default is returned. */
const struct emu_device *emu_device_current(const char **bad);
/* "pmpplab emulated H100 (sm_90)" into buf. Returns buf. */
char *emu_device_name(const struct emu_device *d, char *buf, size_t n);
/* The device keys, comma-separated ("h100, a100, 4090, t4"), for messages. */
const char *emu_device_keys(void);
/* nvcc's -arch value for the emulator's builds for D: "compute_90" (PTX only: the
 * emulator interprets PTX, and no SASS needs to be made). */
char *emu_device_nvcc_arch(const struct emu_device *d, char *buf, size_t n);

#endif
