/* cudart_graph_memory — the device's graph memory: the address ranges of graphs'
 * allocation nodes, their mapping when a node runs, and the footprint
 * cudaDeviceGetGraphMemAttribute reports (the .c says how it grows and shrinks).
 */
#ifndef PMPPLAB_EMU_CUDART_GRAPH_MEMORY_H
#define PMPPLAB_EMU_CUDART_GRAPH_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "cudart_abi.h"
#include "devmem.h"

#pragma GCC visibility push(hidden)

/* Graph memory (cudart_graph_exec.c): reserve gives an allocation node its address (not
 * usable until map, which the node does when it runs, at every launch); unmap is a free
 * node. cudaFree and cudaFreeAsync free it too. The footprint: get or (set) reset one
 * of the cudaGraphMemAttributeType values; trim gives back reserved memory not in use. */
cudaError_t rt_memory_graph_reserve(size_t size, void **out);
cudaError_t rt_memory_graph_map(void *p, size_t size);
cudaError_t rt_memory_graph_unmap(void *p);
cudaError_t rt_memory_graph_footprint(int attr, uint64_t *value, int set);
/* The size of the graph allocation at p (0 when p starts none). */
size_t rt_memory_graph_bytes(const void *p);
/* cudaGraphLaunch (operation seq on stream) of a graph whose own allocations hold at most
 * peak bytes at once and which leaves held more bytes allocated (negative: it frees
 * earlier launches' allocations): grows the footprint to what the launch needs. */
cudaError_t rt_memory_graph_launch(const void *stream, uint64_t seq, uint64_t peak,
				   int64_t held);
void rt_memory_graph_trim(void);

/* For the copies (cudart_memory.c): nonzero when [a, a+n) lies in one graph allocation's
 * range, mapped or not. */
int rt_memory_graph_reserved(devaddr_t a, size_t n);
/* A free of the allocation at a (cudaFree, cudaFreeAsync): if it is a graph's, its bytes
 * are no longer held by the footprint. */
void rt_memory_graph_freed(devaddr_t a);

#pragma GCC visibility pop

#endif
