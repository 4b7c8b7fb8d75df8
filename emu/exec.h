/* exec — running a grid of a decoded PTX kernel.
 *
 * Blocks are spread over a pool of worker threads (all cores; PMPPLAB_EMU_THREADS caps
 * it). Each block runs as warps of 32 lanes with active masks and a reconvergence
 * stack; warps of a block run in turn until they reach a barrier. A cooperative
 * launch's blocks are all resident: each worker takes turns among its blocks, parking
 * those that wait at the grid barrier.
 */
#ifndef PMPPLAB_EMU_EXEC_H
#define PMPPLAB_EMU_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include "ptx.h"

struct emu_dim3 {
	unsigned x, y, z;
};

struct emu_launch {
	const struct ptx_module *module;
	const struct ptx_kernel *kernel;
	struct emu_dim3 grid, block;
	size_t dyn_shmem;
	void **args; /* as cudaLaunchKernel gets them: args[i] points at param i */
};

enum emu_fault_kind {
	EMU_OK = 0,
	EMU_FAULT_OOB,
	EMU_FAULT_MISALIGNED,
	EMU_FAULT_UNSUPPORTED,
	EMU_FAULT_BARRIER,
	EMU_FAULT_TRAP,
	EMU_FAULT_LIMIT,
	EMU_FAULT_PC, /* a call through a pointer that is not a device function */
};

struct emu_fault {
	enum emu_fault_kind kind;
	struct emu_dim3 block, thread;
	const char *file; /* from .loc/.file; NULL when unknown; owned by the module */
	unsigned line;
	uint64_t addr;
	unsigned size;
	int is_write;
	char message[512]; /* one sentence, no file:line prefix */
};

/* Runs the whole grid to completion. Returns 0, or a negative code with *fault filled
 * for the first fault (the kernel stops):
 *   -EFAULT  memory fault (OOB, misaligned)     -ENOTSUP unsupported feature
 *   -EDEADLK barrier misuse                      -ECANCELED trap
 *   -E2BIG   resource limit (stack/recursion)    -EINVAL bad launch (fault.kind EMU_OK)
 * fault may be NULL. */
int emu_run(const struct emu_launch *l, struct emu_fault *fault);

/* The same for a cooperative launch (cudaLaunchCooperativeKernel): every block is
 * resident at once, so this_grid().sync() works (exec_grid.c); the caller has checked
 * that the grid fits on the device. In emu_run's launches grid_group is not valid and
 * its sync() traps, as on a GPU. A grid whose barrier can never open (a block ended
 * without reaching it) stops with -EDEADLK, a barrier fault. Hooks are ignored. */
int emu_run_cooperative(const struct emu_launch *l, struct emu_fault *fault);

/* The device heap that malloc/free and new/delete in kernels allocate from
 * (cudaLimitMallocHeapSize: 8 MiB unless set). Each block is a device allocation of its
 * own, so its overruns and uses after free are caught as cudaMalloc'd memory's are.
 * Its size is fixed once a kernel has called malloc or free (a GPU fixes it when such a
 * kernel launches): then returns -EBUSY and changes nothing. */
int emu_set_heap_size(size_t bytes);

/* Launches from kernels that may be pending (not complete) at once
 * (cudaLimitDevRuntimePendingLaunchCount, 2048 unless set): the one past it answers
 * cudaErrorLaunchPendingCountExceeded (exec_cdp.c). */
void emu_set_launch_pending_limit(size_t n);
size_t emu_launch_pending_limit(void);

/* Device printf output goes here (default stdout); the runtime may redirect it. Output
 * of one launch is written in block order, then thread order, at the end of each block. */
void emu_set_printf_stream(void *file /* FILE* */);

/* Hooks for tracing and race analysis (issues 6, 7). NULL = off: the interpreter then
 * tests one likely-NULL pointer per warp instruction; building exec*.c with
 * -DEMU_HOOKS=0 removes even that. A launch reads the hooks once, at its start. With
 * hooks on, every memory access goes through on_access (the warp-wide fast path of
 * loads and stores is skipped). Callbacks run on worker threads, concurrently for
 * different blocks; they must not call emu_run. */
struct emu_hooks {
	void *ctx;
	/* called before each decoded instruction a warp executes */
	void (*on_insn)(void *ctx, unsigned block_linear, unsigned warp, uint32_t active,
			unsigned pc, unsigned line);
	/* called for each lane's memory access: space is the instruction's enum ptx_space
	 * (ptx_internal.h: SP_GENERIC, SP_GLOBAL, SP_SHARED...) and addr the address it
	 * computed; generic addresses of shared memory are 0xfe00000000000000 + offset,
	 * of local memory 0xff00000000000000 + offset. is_write: 0 read, 1 write,
	 * 2 atomic read-modify-write. */
	void (*on_access)(void *ctx, unsigned block_linear, unsigned warp, unsigned lane,
			  int space, uint64_t addr, unsigned size, int is_write, unsigned line);
	/* called when a warp reaches a barrier */
	void (*on_barrier)(void *ctx, unsigned block_linear, unsigned warp, uint32_t active,
			   unsigned line);
	/* What lanes that branch to the kernel's end (an early `return`) do. 0: they exit
	 * at the branch, as on Volta and later GPUs, where threads that exited no longer
	 * count at __syncthreads(), so `if (i >= n) return; ... __syncthreads();` runs as on
	 * a GPU (also the behaviour without hooks). 1: they wait at the branch's
	 * reconvergence point instead, so a barrier the return splits a warp at stops the
	 * launch (-EDEADLK): the race checker's view (race.h), for which a barrier after an
	 * early return is a finding. */
	int strict_exits;
	/* called after on_insn of a call through a function pointer, with the lanes that
	 * make it (the others call theirs later, again through on_insn then on_icall) and
	 * the index of the function they reach in the module */
	void (*on_icall)(void *ctx, unsigned block_linear, unsigned warp, uint32_t active,
			 unsigned func);
	/* called for each lane's mbarrier operation (exec_async.c; NULL: not wanted) on the
	 * object at shared offset off: EMU_MBAR_INIT (mbarrier.init or inval), EMU_MBAR_ARRIVE
	 * (the lane arrives on the current phase; also cp.async.mbarrier.arrive, whose copies
	 * have landed by then), EMU_MBAR_COMPLETE (the lane's operation completed the phase),
	 * EMU_MBAR_WAITED (the lane's wait saw the phase it waits for complete) */
	void (*on_mbarrier)(void *ctx, unsigned block_linear, unsigned warp, unsigned lane,
			    uint32_t off, int what);
};
enum { EMU_MBAR_INIT, EMU_MBAR_ARRIVE, EMU_MBAR_COMPLETE, EMU_MBAR_WAITED };
void emu_set_hooks(const struct emu_hooks *hooks); /* process-wide; NULL turns off */

/* Cumulative thread-instruction count (for the benchmark). */
uint64_t emu_thread_instructions(void);
/* Cumulative CPU time of the threads that ran blocks (ns): the kernels' own, without the
 * host program's threads meanwhile (PMPPLAB_EMU_STATS). */
uint64_t emu_worker_cpu_ns(void);

#endif
