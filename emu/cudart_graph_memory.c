/* cudart_graph_memory — see cudart_graph_memory.h. */
#include "cudart_graph_memory.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "cudart_async.h"
#include "cudart_memory.h"
#include "cudart_report.h"

/* Graph memory (cudart_graph.c's allocation nodes): the address ranges reserved for
 * them and the footprint cudaDeviceGetGraphMemAttribute reports. A graph's allocation
 * is a freed devmem range until its node runs, which revives it at the same address;
 * any free (a free node, cudaFree, cudaFreeAsync) frees it again.
 *
 * The footprint is a GPU's graph pool: physical memory mapped for graphs, which a launch
 * grows (on the host, at cudaGraphLaunch, as a GPU reports it right after the call) to
 * what is held plus what the graphs in flight need, and only a trim shrinks (freeing an
 * allocation does not). Held: bytes of graph allocations that outlived their launch and
 * are not freed yet. A stream's graphs run one after another and reuse one another's
 * memory, so the graphs in flight need, per stream, the largest peak among them. Used
 * and reserved are the same here: the pool maps all it reserves. */
struct rt_graph_range {
	devaddr_t a;
	size_t size;
};
struct rt_graph_flight {
	const void *stream;
	uint64_t seq;  /* its last graph launch */
	uint64_t peak; /* the largest peak of its graphs in flight */
};
static pthread_mutex_t rt_graph_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_graph_range *rt_graph_mem;
static size_t rt_ngraph_mem;
static struct rt_graph_flight *rt_flights;
static size_t rt_nflights;
static uint64_t rt_graph_held;
static uint64_t rt_graph_fp[4]; /* indexed by cudaGraphMemAttributeType */

/* The size of the graph range starting at a (0 when none). Called with the lock held. */
static size_t rt_graph_size(devaddr_t a)
{
	for (size_t i = 0; i < rt_ngraph_mem; i++)
		if (rt_graph_mem[i].a == a)
			return rt_graph_mem[i].size;
	return 0;
}

/* Drops the streams whose graphs have all finished; returns what the rest need (held
 * memory included). Called with the lock held. */
static uint64_t rt_graph_need(void)
{
	uint64_t need = rt_graph_held;
	size_t k = 0;
	for (size_t i = 0; i < rt_nflights; i++)
		if (!rt_async_done(rt_flights[i].seq)) {
			need += rt_flights[i].peak;
			rt_flights[k++] = rt_flights[i];
		}
	rt_nflights = k;
	return need;
}

/* Sets the pool to size bytes, and the high-water marks. Called with the lock held. */
static void rt_graph_pool(uint64_t size)
{
	uint64_t *fp = rt_graph_fp;
	fp[cudaGraphMemAttrUsedMemCurrent] = fp[cudaGraphMemAttrReservedMemCurrent] = size;
	for (int i = 0; i < 4; i += 2)
		if (fp[i + 1] < fp[i])
			fp[i + 1] = fp[i];
}

size_t rt_memory_graph_bytes(const void *p)
{
	pthread_mutex_lock(&rt_graph_mem_lock);
	size_t size = rt_graph_size((devaddr_t)(uintptr_t)p);
	pthread_mutex_unlock(&rt_graph_mem_lock);
	return size;
}

cudaError_t rt_memory_graph_launch(const void *stream, uint64_t seq, uint64_t peak,
				   int64_t held)
{
	cudaError_t e = cudaSuccess;
	pthread_mutex_lock(&rt_graph_mem_lock);
	rt_graph_need(); /* forget finished streams first */
	size_t i = 0;
	while (i < rt_nflights && rt_flights[i].stream != stream)
		i++;
	if (i == rt_nflights) {
		struct rt_graph_flight *grown =
			realloc(rt_flights, (rt_nflights + 1) * sizeof *grown);
		if (grown) {
			rt_flights = grown;
			rt_flights[rt_nflights++] = (struct rt_graph_flight){stream, seq, 0};
		} else {
			e = cudaErrorMemoryAllocation;
		}
	}
	if (!e) {
		rt_flights[i].seq = seq;
		if (rt_flights[i].peak < peak)
			rt_flights[i].peak = peak;
		uint64_t need = rt_graph_need();
		if (need > rt_graph_fp[cudaGraphMemAttrUsedMemCurrent])
			rt_graph_pool(need);
		rt_graph_held = held < 0 && (uint64_t)-held > rt_graph_held
					? 0
					: rt_graph_held + (uint64_t)held;
	}
	pthread_mutex_unlock(&rt_graph_mem_lock);
	return e;
}

int rt_memory_graph_reserved(devaddr_t a, size_t n)
{
	int in = 0;
	pthread_mutex_lock(&rt_graph_mem_lock);
	for (size_t i = 0; i < rt_ngraph_mem && !in; i++)
		in = a >= rt_graph_mem[i].a && a + n <= rt_graph_mem[i].a + rt_graph_mem[i].size;
	pthread_mutex_unlock(&rt_graph_mem_lock);
	return in;
}

cudaError_t rt_memory_graph_reserve(size_t size, void **out)
{
	devaddr_t a;
	if (!size || !out)
		return cudaErrorInvalidValue;
	if (size > rt_memory_total())
		return cudaErrorMemoryAllocation;
	if (devmem_alloc(size, DEVMEM_GLOBAL, "a graph's allocation node", &a) != 0)
		return cudaErrorMemoryAllocation;
	devmem_free(a); /* not live until the node runs */
	pthread_mutex_lock(&rt_graph_mem_lock);
	struct rt_graph_range *grown =
		realloc(rt_graph_mem, (rt_ngraph_mem + 1) * sizeof *grown);
	if (grown) {
		rt_graph_mem = grown;
		rt_graph_mem[rt_ngraph_mem++] = (struct rt_graph_range){a, size};
	}
	pthread_mutex_unlock(&rt_graph_mem_lock);
	if (!grown)
		return cudaErrorMemoryAllocation;
	*out = (void *)(uintptr_t)a;
	return cudaSuccess;
}

cudaError_t rt_memory_graph_map(void *p, size_t size)
{
	devaddr_t a = (devaddr_t)(uintptr_t)p;
	if (devmem_revive(a) != 0) {
		rt_report_error("cudaGraphLaunch: the graph's allocation %p (%zu bytes) is still "
				"allocated from an earlier launch: free it (a free node, cudaFree or "
				"cudaFreeAsync) before the graph runs again", p, size);
		return cudaErrorInvalidValue;
	}
	rt_memory_track(a, size);
	return cudaSuccess;
}

cudaError_t rt_memory_graph_unmap(void *p)
{
	struct devmem_info info;
	devaddr_t a = (devaddr_t)(uintptr_t)p;
	if (devmem_find(a, &info) != 0 || info.base != a) {
		rt_report_error("cudaGraphLaunch: a free node frees %p, which is not allocated "
				"(freed already, or its allocation node has not run)", p);
		return cudaErrorInvalidValue;
	}
	return rt_memory_release(p, &info);
}

cudaError_t rt_memory_graph_footprint(int attr, uint64_t *value, int set)
{
	if (attr < 0 || attr > 3 || !value)
		return cudaErrorInvalidValue;
	pthread_mutex_lock(&rt_graph_mem_lock);
	cudaError_t e = cudaSuccess;
	if (!set)
		*value = rt_graph_fp[attr];
	else if ((attr & 1) && *value == 0) /* only the high-water marks reset, to 0 */
		rt_graph_fp[attr] = rt_graph_fp[attr - 1];
	else
		e = cudaErrorInvalidValue;
	pthread_mutex_unlock(&rt_graph_mem_lock);
	return e;
}

void rt_memory_graph_trim(void)
{
	pthread_mutex_lock(&rt_graph_mem_lock);
	rt_graph_pool(rt_graph_need());
	pthread_mutex_unlock(&rt_graph_mem_lock);
}

void rt_memory_graph_freed(devaddr_t a)
{
	pthread_mutex_lock(&rt_graph_mem_lock); /* a graph's allocation: no longer held */
	size_t held = rt_graph_size(a);
	rt_graph_held -= held < rt_graph_held ? held : rt_graph_held;
	pthread_mutex_unlock(&rt_graph_mem_lock);
}
