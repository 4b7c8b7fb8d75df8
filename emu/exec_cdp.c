/* exec_cdp — dynamic parallelism: kernels that launch kernels (CUDA 12's CDP2 device runtime).
 *
 * A device-side launch is two calls of the device runtime (libcudadevrt), which the decoder
 * turns into OP_CDP: __cudaCDP2GetParameterBufferV2 hands out a buffer for the child's
 * parameters, __cudaCDP2LaunchDeviceV2 queues the child on its parent grid's queue.
 * exec.c runs a grid's queue after the grid ends, in launch order, each child's own
 * descendants before the next child. That is one of the orders a GPU may pick: under
 * CDP2 a parent cannot wait for its children (device-side cudaDeviceSynchronize is gone),
 * a child may start any time after its launch, a grid is complete only when its
 * descendants are, and work in one stream starts after the previous work's completion.
 * Streams created on the device are names only: everything runs in that one order.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "exec_internal.h"

/* cudaError_t values the device runtime returns (driver_types.h) */
enum {
	CDP_SUCCESS = 0,
	CDP_INVALID_VALUE = 1,
	CDP_MEMORY_ALLOCATION = 2,
	CDP_INVALID_CONFIGURATION = 9,
	CDP_PENDING_COUNT_EXCEEDED = 69,
};

#define CDP_MAX_PREPARED (1u << 20) /* parameter buffers handed out by one grid */

/* Launches from kernels not complete yet (a grid is complete when its descendants
 * are), and how many may be (cudaLimitDevRuntimePendingLaunchCount). One host launch
 * runs at a time. A chain of grids each launching the next fails at the launch past the
 * limit, as on an H200 (no depth limit under CDP2). */
static _Atomic size_t cdp_pending, cdp_pending_limit = 2048;

void emu_set_launch_pending_limit(size_t n)
{
	atomic_store(&cdp_pending_limit, n);
}

size_t emu_launch_pending_limit(void)
{
	return atomic_load(&cdp_pending_limit);
}

struct cdp_entry {
	const struct ptx_module *m;
	const struct ptx_func *k;
	struct emu_dim3 grid, block;
	size_t shmem;
	devaddr_t buf;
	int launched;
};

struct cdp_queue {
	pthread_mutex_t lock;
	struct cdp_entry *e;
	size_t n, cap;
	size_t head;            /* entries before it have run or been dropped */
	uint64_t next_stream;   /* handles of device-created streams */
};

static struct cdp_queue *queue_of(struct launch_ctx *L)
{
	pthread_mutex_lock(&L->lock);
	if (!*L->cdp) {
		struct cdp_queue *q = calloc(1, sizeof(*q));
		if (q) {
			pthread_mutex_init(&q->lock, NULL);
			q->next_stream = 0x5eed0000;
		}
		*L->cdp = q;
	}
	pthread_mutex_unlock(&L->lock);
	return *L->cdp;
}

/* The kernel a function value names (mov.u64 %rd, kernel: its address, ptx_func_at),
 * or NULL. */
static const struct ptx_func *kernel_of(const struct ptx_module *m, uint64_t v)
{
	const struct ptx_func *f = ptx_func_at(m, v);
	return f && f->is_entry ? f : NULL;
}

static uint64_t param_buffer(struct launch_ctx *L, uint64_t func, const uint32_t grid[3],
			     const uint32_t block[3], uint32_t shmem)
{
	const struct ptx_func *k = kernel_of(L->m, func);
	struct cdp_queue *q = queue_of(L);
	if (!k || !q)
		return 0; /* NULL, as the device runtime returns on failure */
	devaddr_t a = 0;
	if (devmem_alloc(k->param_size ? k->param_size : 1, DEVMEM_GLOBAL,
			 "the parameter buffer of a launch from a kernel", &a) != 0)
		return 0;
	pthread_mutex_lock(&q->lock);
	if (q->n == q->cap && q->n - q->head < CDP_MAX_PREPARED) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct cdp_entry *ne = realloc(q->e, cap * sizeof(*ne));
		if (ne) {
			q->e = ne;
			q->cap = cap;
		}
	}
	if (q->n == q->cap || q->n - q->head >= CDP_MAX_PREPARED) {
		pthread_mutex_unlock(&q->lock);
		devmem_free(a);
		return 0;
	}
	q->e[q->n++] = (struct cdp_entry){
		.m = L->m, .k = k, .grid = { grid[0], grid[1], grid[2] }, .block = { block[0], block[1], block[2] },
		.shmem = shmem, .buf = a,
	};
	pthread_mutex_unlock(&q->lock);
	return a;
}

static int launch(struct launch_ctx *L, uint64_t buf)
{
	struct cdp_queue *q = queue_of(L);
	if (!q)
		return CDP_MEMORY_ALLOCATION;
	int rc = CDP_INVALID_VALUE;
	pthread_mutex_lock(&q->lock);
	for (size_t i = q->n; i-- > q->head;) {
		struct cdp_entry *e = &q->e[i];
		if (e->buf != buf || e->launched)
			continue;
		uint64_t threads = (uint64_t)e->block.x * e->block.y * e->block.z;
		if (!threads || threads > 1024 || !e->grid.x || !e->grid.y || !e->grid.z)
			rc = CDP_INVALID_CONFIGURATION;
		else if (atomic_fetch_add(&cdp_pending, 1) >= atomic_load(&cdp_pending_limit)) {
			atomic_fetch_sub(&cdp_pending, 1);
			rc = CDP_PENDING_COUNT_EXCEEDED;
		} else
			rc = CDP_SUCCESS;
		e->launched = rc == CDP_SUCCESS;
		break;
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

/* Stores N bytes at the generic address ADDR for lane L (the runtime's out-parameters). */
static int store_out(struct block *b, struct warp *w, unsigned l, const struct ptx_insn *in,
		     uint64_t addr, const void *v, unsigned n)
{
	void *h = mem_at(b, w, l, in, SP_GENERIC, addr, n, 1);
	if (!h)
		return -EFAULT;
	memcpy(h, v, n);
	mem_mark_written(w, h, n);
	return 0;
}

int cdp_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t mask,
	     struct frame *fr)
{
	static const unsigned nargs[CDP_NCALLS] = {
		[CDP_PARAM_BUFFER] = 4, [CDP_LAUNCH] = 2, [CDP_STREAM_CREATE] = 2,
		[CDP_STREAM_DESTROY] = 1, [CDP_MALLOC] = 2, [CDP_FREE] = 1, [CDP_GET_DEVICE] = 1,
	};
	struct launch_ctx *L = b->L;
	const uint32_t *ca = &L->m->callargs[in->off];
	size_t fs = fr->f->fparam_size;
	if (in->ns < nargs[in->target])
		return fault_set(b, w, (unsigned)__builtin_ctz(mask), in, EMU_FAULT_UNSUPPORTED,
				 -ENOTSUP, "a device runtime call with %u arguments where %u were expected",
				 in->ns, nargs[in->target]);
	for (uint32_t mm = mask; mm; mm &= mm - 1) {
		unsigned l = (unsigned)__builtin_ctz(mm);
		unsigned char *p = fr->fparam + l * fs;
		uint64_t a0 = 0, a1 = 0, ret = CDP_SUCCESS;
		if (nargs[in->target])
			memcpy(&a0, p + ca[0], 8);
		switch (in->target) {
		case CDP_PARAM_BUFFER: {
			uint32_t grid[3], block[3], shmem;
			memcpy(grid, p + ca[1], 12);
			memcpy(block, p + ca[2], 12);
			memcpy(&shmem, p + ca[3], 4);
			ret = param_buffer(L, a0, grid, block, shmem);
			break;
		}
		case CDP_LAUNCH: /* its error is also the thread's last (cudaGetLastError) */
			ret = (uint64_t)launch(L, a0);
			if (ret)
				w->cdp_err[l] = (unsigned char)ret;
			break;
		case CDP_STREAM_CREATE: { /* one queue: a stream only names itself */
			struct cdp_queue *q = queue_of(L);
			uint64_t s = 0;
			if (q) {
				pthread_mutex_lock(&q->lock);
				s = q->next_stream++;
				pthread_mutex_unlock(&q->lock);
			}
			if (store_out(b, w, l, in, a0, &s, 8))
				return -EFAULT;
			ret = q ? CDP_SUCCESS : CDP_MEMORY_ALLOCATION;
			break;
		}
		case CDP_MALLOC: {
			memcpy(&a1, p + ca[1], 8);
			uint64_t x = heap_malloc(a1);
			if (store_out(b, w, l, in, a0, &x, 8))
				return -EFAULT;
			ret = x || !a1 ? CDP_SUCCESS : CDP_MEMORY_ALLOCATION;
			break;
		}
		case CDP_FREE:
			ret = !a0 || heap_free(w, a0) == 0 ? CDP_SUCCESS : CDP_INVALID_VALUE;
			break;
		case CDP_GET_DEVICE: {
			int32_t dev = 0;
			if (store_out(b, w, l, in, a0, &dev, 4))
				return -EFAULT;
			break;
		}
		case CDP_GET_LAST_ERROR:
		case CDP_PEEK_AT_LAST_ERROR:
			ret = w->cdp_err[l];
			if (in->target == CDP_GET_LAST_ERROR)
				w->cdp_err[l] = 0;
			break;
		default: /* StreamDestroy */
			break;
		}
		if (ret && in->target != CDP_PARAM_BUFFER && in->target != CDP_LAUNCH &&
		    in->target != CDP_GET_LAST_ERROR && in->target != CDP_PEEK_AT_LAST_ERROR)
			w->cdp_err[l] = (unsigned char)ret;
		if (in->d[0] != PTX_NOPC)
			memcpy(p + in->d[0], &ret, in->target == CDP_PARAM_BUFFER ? 8 : 4);
	}
	return 0;
}

int cdp_next(struct cdp_queue *q, struct cdp_child *c)
{
	pthread_mutex_lock(&q->lock);
	int found = 0;
	while (q->head < q->n && !found) {
		struct cdp_entry *e = &q->e[q->head++];
		if (!e->launched) { /* a buffer never launched with: nothing to run */
			devmem_free(e->buf);
			continue;
		}
		const struct ptx_kernel *k = (const struct ptx_kernel *)e->k;
		unsigned np = ptx_kernel_nparams(k);
		c->args = calloc(np ? np : 1, sizeof(void *));
		unsigned char *h = devmem_host(e->buf, e->k->param_size ? e->k->param_size : 1);
		for (unsigned i = 0; c->args && h && i < np; i++)
			c->args[i] = h + ptx_kernel_param_offset(k, i);
		c->launch = (struct emu_launch){ .module = e->m, .kernel = k, .grid = e->grid, .block = e->block,
						 .dyn_shmem = e->shmem, .args = c->args };
		c->buf = e->buf;
		found = 1;
	}
	pthread_mutex_unlock(&q->lock);
	return found;
}

void cdp_child_done(struct cdp_child *c)
{
	atomic_fetch_sub(&cdp_pending, 1);
	devmem_free(c->buf);
	free(c->args);
	c->args = NULL;
}

void cdp_queue_free(struct cdp_queue *q)
{
	if (!q)
		return;
	for (size_t i = q->head; i < q->n; i++)
		devmem_free(q->e[i].buf);
	pthread_mutex_destroy(&q->lock);
	free(q->e);
	free(q);
}
