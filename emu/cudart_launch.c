/* cudart_launch — see cudart_launch.h. */
#include "cudart_launch.h"
#include "cudart_provenance.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudart_attr.h" /* the access policy window */
#include "cudart_device.h"
#include "cudart_errors.h"
#include "cudart_race.h" /* issue 6: PMPPLAB_EMU_RACECHECK */
#include "cudart_registry.h"
#include "cudart_report.h"
#include "cudart_stream.h"
#include "devmem.h"
#include "initcheck.h"
#include "ptx.h"
#include "race.h" /* race_enabled_by_env */

/* What the real runtime returns for each bad configuration. Measured with
 * tests/emu/programs/api_errors.cu on an H200 with CUDA 13.0 (driver 580): every one
 * is cudaErrorInvalidValue (older CUDA said cudaErrorInvalidConfiguration). */
static const cudaError_t rt_cfg_codes[RT_CFG_COUNT] = {
	[RT_CFG_OK] = cudaSuccess,
	[RT_CFG_ZERO_DIM] = cudaErrorInvalidValue,
	[RT_CFG_BLOCK_DIM] = cudaErrorInvalidValue,
	[RT_CFG_BLOCK_THREADS] = cudaErrorInvalidValue,
	[RT_CFG_GRID_DIM] = cudaErrorInvalidValue,
	[RT_CFG_SHMEM] = cudaErrorInvalidValue,
};

/* What each kind of kernel fault becomes on the host. */
static const cudaError_t rt_fault_codes[] = {
	[EMU_OK] = cudaSuccess,
	[EMU_FAULT_OOB] = cudaErrorIllegalAddress,
	[EMU_FAULT_MISALIGNED] = cudaErrorMisalignedAddress,
	[EMU_FAULT_UNSUPPORTED] = cudaErrorNotSupported,   /* no GPU analogue: say so */
	[EMU_FAULT_BARRIER] = cudaErrorLaunchFailure,
	[EMU_FAULT_TRAP] = cudaErrorLaunchFailure,         /* asm("trap;") */
	[EMU_FAULT_LIMIT] = cudaErrorLaunchFailure,        /* stack overflow, runaway recursion */
	[EMU_FAULT_PC] = cudaErrorInvalidPc,
};

cudaError_t rt_launch_cfg_code(enum rt_cfg_problem p)
{
	return p < RT_CFG_COUNT ? rt_cfg_codes[p] : cudaErrorUnknown;
}

cudaError_t rt_launch_fault_code(const struct emu_fault *f)
{
	/* assert() is a trap after __assertfail: a GPU reports it separately */
	if (f->kind == EMU_FAULT_TRAP && strstr(f->message, "assert"))
		return cudaErrorAssert;
	if ((unsigned)f->kind < sizeof rt_fault_codes / sizeof rt_fault_codes[0])
		return rt_fault_codes[f->kind];
	return cudaErrorUnknown;
}

enum rt_cfg_problem rt_launch_check(dim3 grid, dim3 block, size_t static_shmem,
				    size_t dyn_shmem, size_t max_dyn)
{
	const struct cudaDeviceProp *p = rt_device_props();
	if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
		return RT_CFG_ZERO_DIM;
	if (block.x > (unsigned)p->maxThreadsDim[0] || block.y > (unsigned)p->maxThreadsDim[1] ||
	    block.z > (unsigned)p->maxThreadsDim[2])
		return RT_CFG_BLOCK_DIM;
	if ((unsigned long long)block.x * block.y * block.z > (unsigned)p->maxThreadsPerBlock)
		return RT_CFG_BLOCK_THREADS;
	if (grid.x > (unsigned)p->maxGridSize[0] || grid.y > (unsigned)p->maxGridSize[1] ||
	    grid.z > (unsigned)p->maxGridSize[2])
		return RT_CFG_GRID_DIM;
	size_t limit = max_dyn ? p->sharedMemPerBlockOptin : p->sharedMemPerBlock;
	if ((max_dyn && dyn_shmem > max_dyn) || static_shmem + dyn_shmem > limit)
		return RT_CFG_SHMEM;
	return RT_CFG_OK;
}

int rt_launch_occupancy(unsigned nregs, size_t static_shmem, int block_size, size_t dyn_shmem)
{
	const struct cudaDeviceProp *p = rt_device_props();
	if (block_size <= 0 || block_size > p->maxThreadsPerBlock)
		return 0;
	int warps = (block_size + 31) / 32;
	int blocks = p->maxThreadsPerMultiProcessor / 32 / warps;
	if (blocks > p->maxBlocksPerMultiProcessor)
		blocks = p->maxBlocksPerMultiProcessor;
	if (nregs) {
		/* registers are allocated per warp in units of 256 */
		unsigned per_warp = (nregs * 32 + 255) / 256 * 256;
		int by_regs = (int)(p->regsPerMultiprocessor / (per_warp * (unsigned)warps));
		if (by_regs < blocks)
			blocks = by_regs;
	}
	size_t shm = static_shmem + dyn_shmem;
	if (shm > p->sharedMemPerBlockOptin)
		return 0;
	/* sm_80 and later reserve 1 KiB of every block's share for the system and allocate
	 * in 128-byte units; older GPUs in 256-byte units */
	shm += p->reservedSharedMemPerBlock;
	if (shm) {
		size_t unit = p->major >= 8 ? 128 : 256;
		shm = (shm + unit - 1) / unit * unit;
		int by_shm = (int)(p->sharedMemPerMultiprocessor / shm);
		if (by_shm < blocks)
			blocks = by_shm;
	}
	return blocks;
}

/* ---- the <<<>>> configuration stack -------------------------------------------- */

#define RT_CONFIG_DEPTH 16
struct rt_config {
	dim3 grid, block;
	size_t shmem;
	cudaStream_t stream;
};
static _Thread_local struct rt_config rt_configs[RT_CONFIG_DEPTH];
static _Thread_local unsigned rt_nconfigs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
				     cudaStream_t stream)
{
	if (rt_nconfigs == RT_CONFIG_DEPTH)
		return 1;
	rt_configs[rt_nconfigs++] = (struct rt_config){gridDim, blockDim, sharedMem, stream};
	return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
				       void *stream)
{
	if (rt_nconfigs == 0)
		return cudaErrorMissingConfiguration;
	struct rt_config c = rt_configs[--rt_nconfigs];
	*gridDim = c.grid;
	*blockDim = c.block;
	*sharedMem = c.shmem;
	*(cudaStream_t *)stream = c.stream;
	return cudaSuccess;
}

/* ---- launching ------------------------------------------------------------------ */

static double rt_clock_ms(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Explains a configuration the device refuses (the real runtime only returns a code). */
static void rt_explain_cfg(const struct rt_function *f, enum rt_cfg_problem p, dim3 g, dim3 b,
			   size_t static_shmem, size_t dyn)
{
	const struct cudaDeviceProp *d = rt_device_props();
	char call[300];
	snprintf(call, sizeof call, "launch of %s<<<(%u,%u,%u), (%u,%u,%u)>>>", f->name, g.x, g.y,
		 g.z, b.x, b.y, b.z);
	cudaError_t e = rt_cfg_codes[p];
	switch (p) {
	case RT_CFG_ZERO_DIM:
		rt_report_api(call, "a grid or block dimension is 0 (returns %s)", rt_error_name(e));
		break;
	case RT_CFG_BLOCK_DIM:
		rt_report_api(call, "block dimensions may be at most (%d,%d,%d) (returns %s)",
			      d->maxThreadsDim[0], d->maxThreadsDim[1], d->maxThreadsDim[2],
			      rt_error_name(e));
		break;
	case RT_CFG_BLOCK_THREADS:
		rt_report_api(call, "a block has %llu threads; at most %d are allowed (returns %s)",
			      (unsigned long long)b.x * b.y * b.z, d->maxThreadsPerBlock,
			      rt_error_name(e));
		break;
	case RT_CFG_GRID_DIM:
		rt_report_api(call, "grid dimensions may be at most (%d,%d,%d) (returns %s)",
			      d->maxGridSize[0], d->maxGridSize[1], d->maxGridSize[2],
			      rt_error_name(e));
		break;
	case RT_CFG_SHMEM:
		rt_report_api(call, "%zu bytes of static + %zu of dynamic shared memory exceed the "
			      "%zu bytes a block may use (returns %s)", static_shmem, dyn,
			      f->max_dyn_shmem ? d->sharedMemPerBlockOptin : d->sharedMemPerBlock,
			      rt_error_name(e));
		break;
	default:
		break;
	}
}

/* The commonest beginner's fault: a host pointer (or NULL) passed as a kernel argument.
 * When a bad address lies just past a pointer-sized argument that is not device memory,
 * says which argument it was, into note (empty otherwise). */
static void rt_explain_fault_args(const struct rt_function *f, void **args,
				  const struct emu_fault *fault, char *note, size_t len)
{
	note[0] = '\0';
	if (fault->kind != EMU_FAULT_OOB || !args || devmem_in_device_range(fault->addr))
		return;
	unsigned n = ptx_kernel_nparams(f->kernel);
	for (unsigned i = 0; i < n; i++) {
		if (ptx_kernel_param_size(f->kernel, i) != 8 || !args[i])
			continue;
		uint64_t v;
		memcpy(&v, args[i], sizeof v);
		struct devmem_info info;
		if (devmem_in_device_range(v) || devmem_find(v, &info) == 0)
			continue;
		if (fault->addr < v || fault->addr - v >= (1ull << 30))
			continue;
		if (v == 0)
			snprintf(note, len, "argument %u of %s is a NULL pointer: allocate it with "
				 "cudaMalloc before the launch", i + 1, f->name);
		else
			snprintf(note, len, "argument %u of %s (0x%llx) is a host pointer: kernels "
				 "can only use device memory; cudaMalloc a device buffer, "
				 "cudaMemcpy the data into it, and pass that",
				 i + 1, f->name, (unsigned long long)v);
		return;
	}
}

/* A launch queued on a stream: the configuration and a copy of the arguments (the
 * caller's are gone when the device thread gets to it). */
struct rt_launch_op {
	struct rt_function *f;
	dim3 grid, block;
	size_t shmem;
	int cooperative;  /* every block resident: this_grid().sync() works */
	void **args;      /* nparams pointers into data */
	unsigned char *data;
};

static struct rt_launch_op *rt_launch_op_new(struct rt_function *f, dim3 grid, dim3 block,
					     size_t shmem, int cooperative, void **args)
{
	unsigned n = ptx_kernel_nparams(f->kernel);
	size_t bytes = 0;
	for (unsigned i = 0; i < n; i++)
		bytes += (ptx_kernel_param_size(f->kernel, i) + 15) / 16 * 16;
	struct rt_launch_op *op = malloc(sizeof *op + n * sizeof(void *) + bytes);
	if (!op)
		return NULL;
	*op = (struct rt_launch_op){f, grid, block, shmem, cooperative, (void **)(op + 1), NULL};
	op->data = (unsigned char *)(op->args + n);
	size_t at = 0;
	for (unsigned i = 0; i < n; i++) {
		size_t sz = ptx_kernel_param_size(f->kernel, i);
		/* a missing argument stays missing: the interpreter refuses the launch */
		op->args[i] = args && args[i] ? memcpy(op->data + at, args[i], sz) : NULL;
		at += (sz + 15) / 16 * 16;
	}
	return op;
}

/* A cooperative launch: all blocks resident (exec_grid.c). The race checker and the
 * counters follow one block at a time per worker, so they skip it, and say so. */
static int rt_launch_cooperative(const struct emu_launch *l, struct emu_fault *fault,
				 const char *kernel)
{
	static _Atomic int warned;
	if (race_enabled_by_env() && !atomic_exchange(&warned, 1)) {
		char name[256];
		rt_report_kernel_name(kernel, name, sizeof name);
		rt_report_warning("cudaLaunchCooperativeKernel", "the race checker does not follow "
				  "the blocks of a cooperative launch, which take turns at every "
				  "this_grid().sync(): %s runs unchecked", name);
	}
	return emu_run_cooperative(l, fault);
}

/* Runs a queued launch on the device thread. A fault makes the next call fail. */
static void rt_launch_run(void *arg)
{
	struct rt_launch_op *op = arg;
	struct rt_function *f = op->f;
	if (rt_async_skipping()) { /* a fault before it: a GPU runs nothing more */
		rt_report_launch(f->name, f->mangled, op->grid, op->block, op->shmem,
				 rt_error_device(), NULL);
		return;
	}
	struct emu_launch l = {
		.module = f->module,
		.kernel = f->kernel,
		.grid = {op->grid.x, op->grid.y, op->grid.z},
		.block = {op->block.x, op->block.y, op->block.z},
		.dyn_shmem = op->shmem,
		.args = op->args,
	};
	struct emu_fault fault;
	memset(&fault, 0, sizeof fault);
	/* launches run one at a time, here; the CPU time is the workers' only, not that of
	 * the host's threads, which may run their own loops meanwhile (systemWideAtomics) */
	struct rt_launch_cost cost = {-rt_clock_ms(CLOCK_MONOTONIC),
				      -(double)emu_worker_cpu_ns() / 1e6,
				      emu_thread_instructions()};
	rt_prov_launch_begin(); /* issue 14: whose work the results are */
	initcheck_launch_begin(); /* PMPPLAB_EMU_INITCHECK: reads of memory nothing wrote */
	int rc = op->cooperative ? rt_launch_cooperative(&l, &fault, f->name)
				 : rt_race_run(&l, &fault, f->name); /* issue 6: PMPPLAB_EMU_RACECHECK */
	rt_prov_launch_end();
	struct initcheck_finding unwritten;
	if (initcheck_launch_end(&unwritten))
		rt_report_initcheck(&unwritten);
	cost.ms += rt_clock_ms(CLOCK_MONOTONIC);
	cost.cpu_ms += (double)emu_worker_cpu_ns() / 1e6;
	cost.insns = emu_thread_instructions() - cost.insns;
	cudaError_t e = cudaSuccess;
	if (rc != 0 && fault.kind == EMU_OK) {
		/* refused before running (the interpreter's own limits): a GPU would have
		 * refused the launch; the error can only come at the next call here */
		e = rc == -ENOMEM ? cudaErrorMemoryAllocation : cudaErrorInvalidValue;
		rt_report_error("kernel %s cannot be launched: %s", f->name,
				fault.message[0] ? fault.message : strerror(-rc));
	} else if (rc != 0) {
		e = rt_launch_fault_code(&fault);
		char note[512];
		rt_explain_fault_args(f, op->args, &fault, note, sizeof note);
		rt_report_kernel_fault(f->name, &fault, e, note);
	}
	rt_report_launch(f->name, f->mangled, op->grid, op->block, op->shmem, e, &cost);
	if (e)
		rt_error_set_pending(e);
}

/* Validates a launch of f and makes the operation that runs it (the error is not
 * recorded: the callers do that). */
static cudaError_t rt_launch_prepare(struct rt_function *f, dim3 grid, dim3 block, void **args,
				     size_t shmem, int cooperative, struct rt_work *out)
{
	if (!f) /* not a kernel: CUDA 13 says "invalid resource handle" (measured) */
		return cudaErrorInvalidResourceHandle;
	cudaError_t e = rt_registry_resolve(f);
	if (e) {
		rt_report_launch(f->name, f->mangled, grid, block, shmem, e, NULL);
		return e;
	}
	size_t static_shmem = ptx_kernel_static_shared(f->kernel);
	enum rt_cfg_problem p = rt_launch_check(grid, block, static_shmem, shmem, f->max_dyn_shmem);
	if (p != RT_CFG_OK) {
		rt_explain_cfg(f, p, grid, block, static_shmem, shmem);
		rt_report_launch(f->name, f->mangled, grid, block, shmem, rt_cfg_codes[p], NULL);
		return rt_cfg_codes[p];
	}
	struct rt_launch_op *op = rt_launch_op_new(f, grid, block, shmem, cooperative, args);
	if (!op)
		return cudaErrorMemoryAllocation;
	*out = (struct rt_work){rt_launch_run, op, RT_WORK_DEVICE | RT_WORK_OWNED};
	return cudaSuccess;
}

cudaError_t rt_launch_work(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
			   struct rt_work *out)
{
	return rt_launch_prepare(rt_registry_function(func), grid, block, args, shmem, 0, out);
}

static cudaError_t rt_launch(struct rt_function *f, dim3 grid, dim3 block, void **args,
			     size_t shmem, cudaStream_t stream, int cooperative)
{
	cudaError_t e = rt_error_enter();
	if (e) {
		if (f)
			rt_report_launch(f->name, f->mangled, grid, block, shmem, e, NULL);
		return e;
	}
	if (f && !rt_stream_valid(stream))
		return rt_error_set(cudaErrorInvalidResourceHandle);
	struct rt_work w;
	e = rt_launch_prepare(f, grid, block, args, shmem, cooperative, &w);
	if (e)
		return rt_error_set(e);
	rt_async_flush(); /* a launch writes the finished kernels' printf output, as on a GPU */
	/* The launch itself succeeds, as on a GPU; the kernel runs on the device thread and
	 * a fault surfaces at a later call. */
	rt_stream_submit(stream, w.run, w.arg, w.flags, cudaGraphNodeTypeKernel);
	return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
			       size_t sharedMem, cudaStream_t stream)
{
	return rt_launch(rt_registry_function(kernel), gridDim, blockDim, args, sharedMem, stream,
			 0);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
				    void **args, size_t sharedMem, cudaStream_t stream)
{
	return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
			     size_t sharedMem, cudaStream_t stream)
{
	return rt_launch(rt_registry_function(func), gridDim, blockDim, args, sharedMem, stream, 0);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
				  size_t sharedMem, cudaStream_t stream)
{
	return cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream);
}

/* The registers a thread of K gets: its PTX count, at most 255 (PTX registers are
 * virtual). */
static unsigned rt_numregs(const struct ptx_kernel *k)
{
	unsigned n = ptx_kernel_nregs(k);
	return n > 255 ? 255 : n; /* PTX registers are virtual; a thread gets 255 at most */
}

/* Does a cooperative grid of a valid configuration exceed what the device runs at
 * once? (That is what lets grid.sync() work; the interpreter then keeps all its blocks
 * resident: exec_grid.c.) */
static int rt_cooperative_too_large(struct rt_function *f, dim3 grid, dim3 block, size_t shmem)
{
	if (!f || rt_registry_resolve(f) != cudaSuccess ||
	    rt_launch_check(grid, block, ptx_kernel_static_shared(f->kernel), shmem,
			    f->max_dyn_shmem) != RT_CFG_OK)
		return 0; /* rt_launch reports those */
	unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
	int per_sm = rt_launch_occupancy(rt_numregs(f->kernel),
					 ptx_kernel_static_shared(f->kernel),
					 (int)(block.x * block.y * block.z), shmem);
	const struct cudaDeviceProp *p = rt_device_props();
	if (blocks <= (unsigned long long)per_sm * (unsigned)p->multiProcessorCount)
		return 0;
	char call[300];
	snprintf(call, sizeof call, "cooperative launch of %s<<<(%u,%u,%u), (%u,%u,%u)>>>",
		 f->name, grid.x, grid.y, grid.z, block.x, block.y, block.z);
	rt_report_api(call, "%llu blocks, but only %d x %d SMs = %llu of them fit on the %s at "
		      "once, and a grid-wide sync needs them all resident (returns "
		      "cudaErrorCooperativeLaunchTooLarge); size the grid with "
		      "cudaOccupancyMaxActiveBlocksPerMultiprocessor times "
		      "cudaDevAttrMultiProcessorCount", blocks, per_sm, p->multiProcessorCount,
		      (unsigned long long)per_sm * (unsigned)p->multiProcessorCount, p->name);
	return 1;
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
					void **args, size_t sharedMem, cudaStream_t stream)
{
	struct rt_function *f = rt_registry_function(func);
	if (rt_cooperative_too_large(f, gridDim, blockDim, sharedMem))
		return rt_error_set(cudaErrorCooperativeLaunchTooLarge);
	return rt_launch(f, gridDim, blockDim, args, sharedMem, stream, 1);
}

/* What cudaLaunchKernelExC makes of its attributes. Launches run at once and in order,
 * so the scheduling and caching hints change nothing and are ignored; the programmatic
 * event fires when the launch is done; clusters are refused. */
struct rt_exc_attrs {
	int cooperative;
	cudaEvent_t event; /* the programmatic event to record after the launch */
};

/* Reads cfg's attributes into out. Returns cudaSuccess or the error to return. */
static cudaError_t rt_exc_attributes(const cudaLaunchConfig_t *cfg, struct rt_exc_attrs *out)
{
	static _Atomic int warned;
	memset(out, 0, sizeof *out);
	if (cfg->numAttrs && !cfg->attrs)
		return cudaErrorInvalidValue;
	for (unsigned i = 0; i < cfg->numAttrs; i++) {
		const cudaLaunchAttribute *a = &cfg->attrs[i];
		switch (a->id) {
		case cudaLaunchAttributeCooperative:
			out->cooperative = a->val.cooperative != 0;
			break;
		case cudaLaunchAttributeClusterDimension:
			if ((unsigned long long)a->val.clusterDim.x * a->val.clusterDim.y *
			    a->val.clusterDim.z <= 1)
				break; /* clusters of one block: an ordinary grid */
			rt_report_error("cudaLaunchKernelExC: thread block clusters (%ux%ux%u blocks) "
					"are not emulated; run with --backend gpu",
					a->val.clusterDim.x, a->val.clusterDim.y, a->val.clusterDim.z);
			return cudaErrorNotSupported;
		case cudaLaunchAttributeProgrammaticEvent:
			out->event = a->val.programmaticEvent.event;
			break;
		case cudaLaunchAttributeLaunchCompletionEvent:
			/* what CUDA 13.0 answered on an H100 (programs/launch_attributes.cu) */
			return cudaErrorNotSupported;
		case cudaLaunchAttributeAccessPolicyWindow: /* no L2 here: checked, no effect */
			if (rt_attr_check_window(&a->val.accessPolicyWindow))
				return cudaErrorInvalidValue;
			break;
		case cudaLaunchAttributeIgnore:
		case cudaLaunchAttributeSynchronizationPolicy:
		case cudaLaunchAttributeClusterSchedulingPolicyPreference:
		case cudaLaunchAttributeProgrammaticStreamSerialization:
		case cudaLaunchAttributePriority: case cudaLaunchAttributeMemSyncDomainMap:
		case cudaLaunchAttributeMemSyncDomain: case cudaLaunchAttributePreferredClusterDimension:
		case cudaLaunchAttributeDeviceUpdatableKernelNode:
		case cudaLaunchAttributePreferredSharedMemoryCarveout:
		case cudaLaunchAttributeNvlinkUtilCentricScheduling:
			break;
		default:
			if (!atomic_exchange(&warned, 1))
				rt_report_warning("cudaLaunchKernelExC", "launch attribute %d is not "
						  "known to the emulator and is ignored", (int)a->id);
			break;
		}
	}
	return cudaSuccess;
}

/* The extensible launch (cudaLaunchKernelEx in C++; thrust and cub use it). */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
	if (!config)
		return rt_error_set(cudaErrorInvalidValue);
	struct rt_exc_attrs at;
	cudaError_t e = rt_exc_attributes(config, &at);
	if (e)
		return rt_error_set(e);
	struct rt_function *f = rt_registry_function(func);
	if (at.cooperative && rt_cooperative_too_large(f, config->gridDim, config->blockDim,
						       config->dynamicSmemBytes))
		return rt_error_set(cudaErrorCooperativeLaunchTooLarge);
	e = rt_launch(f, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
		      config->stream, at.cooperative);
	if (!e && at.event)
		e = cudaEventRecord(at.event, config->stream);
	return e;
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
				     void **args) __attribute__((alias("cudaLaunchKernelExC")));

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
					     void **args, size_t sharedMem, cudaStream_t stream)
	__attribute__((alias("cudaLaunchCooperativeKernel")));

/* ---- per-kernel queries ---------------------------------------------------------- */

/* The resolved kernel behind a host stub or cudaKernel_t, for the query calls. */
static cudaError_t rt_query_function(const void *func, struct rt_function **out)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	struct rt_function *f = rt_registry_function(func);
	if (!f)
		return rt_error_set(cudaErrorInvalidResourceHandle);
	e = rt_registry_resolve(f);
	if (e)
		return rt_error_set(e);
	*out = f;
	return cudaSuccess;
}


cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	if (!attr)
		return rt_error_set(cudaErrorInvalidValue);
	struct rt_function *f;
	cudaError_t e = rt_query_function(func, &f);
	if (e)
		return e;
	const struct cudaDeviceProp *p = rt_device_props();
	memset(attr, 0, sizeof *attr);
	attr->sharedSizeBytes = ptx_kernel_static_shared(f->kernel);
	attr->localSizeBytes = ptx_kernel_local_size(f->kernel);
	attr->maxThreadsPerBlock = p->maxThreadsPerBlock;
	attr->numRegs = (int)rt_numregs(f->kernel);
	attr->ptxVersion = p->major * 10 + p->minor;
	attr->binaryVersion = p->major * 10 + p->minor;
	attr->maxDynamicSharedSizeBytes =
		(int)(f->max_dyn_shmem ? f->max_dyn_shmem
				       : p->sharedMemPerBlock - attr->sharedSizeBytes);
	attr->preferredShmemCarveout = -1;
	return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value)
{
	struct rt_function *f;
	cudaError_t e = rt_query_function(func, &f);
	if (e)
		return e;
	const struct cudaDeviceProp *p = rt_device_props();
	switch (attr) {
	case 8: /* cudaFuncAttributeMaxDynamicSharedMemorySize */
		if (value < 0 || (size_t)value + ptx_kernel_static_shared(f->kernel) >
					 p->sharedMemPerBlockOptin)
			return rt_error_set(cudaErrorInvalidValue);
		f->max_dyn_shmem = (size_t)value;
		return cudaSuccess;
	case 9: /* cudaFuncAttributePreferredSharedMemoryCarveout: no L1 to split */
		return value >= -1 && value <= 100 ? cudaSuccess
						   : rt_error_set(cudaErrorInvalidValue);
	case 11: case 12: case 13: /* cudaFuncAttributeRequiredCluster{Width,Height,Depth} */
	case 14: /* cudaFuncAttributeNonPortableClusterSizeAllowed */
	case 15: /* cudaFuncAttributeClusterSchedulingPolicyPreference */
		/* cluster hints of sm_90 on: accepted; a launch with clusters is refused */
		return p->major >= 9 && value >= 0 && (attr < 14 || value <= (attr == 14 ? 1 : 2))
			       ? cudaSuccess : rt_error_set(cudaErrorInvalidValue);
	default:
		return rt_error_set(cudaErrorInvalidValue);
	}
}

cudaError_t cudaFuncSetCacheConfig(const void *func, int cacheConfig)
{
	struct rt_function *f;
	cudaError_t e = rt_query_function(func, &f);
	if (e)
		return e;
	return cacheConfig >= 0 && cacheConfig <= 3 ? cudaSuccess
						    : rt_error_set(cudaErrorInvalidValue);
}

/* Bank size is fixed at four bytes on current GPUs; the call is deprecated. */
cudaError_t cudaFuncSetSharedMemConfig(const void *func, int config)
{
	struct rt_function *f;
	cudaError_t e = rt_query_function(func, &f);
	if (e)
		return e;
	return config >= 0 && config <= 2 ? cudaSuccess : rt_error_set(cudaErrorInvalidValue);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
								   const void *func,
								   int blockSize,
								   size_t dynamicSMemSize,
								   unsigned int flags)
{
	if (!numBlocks || flags > 1)
		return rt_error_set(cudaErrorInvalidValue);
	struct rt_function *f;
	cudaError_t e = rt_query_function(func, &f);
	if (e)
		return e;
	if (blockSize <= 0)
		return rt_error_set(cudaErrorInvalidValue);
	*numBlocks = rt_launch_occupancy(rt_numregs(f->kernel), ptx_kernel_static_shared(f->kernel),
					 blockSize, dynamicSMemSize);
	return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
							  int blockSize, size_t dynamicSMemSize)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
								      dynamicSMemSize, 0);
}
