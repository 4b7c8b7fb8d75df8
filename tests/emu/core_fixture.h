/* core_fixture: what the emulator core's end-to-end tests share (test_core_kernels.c,
 * test_core_faults.c): the three PTX modules nvcc built from tests/emu/core/, loaded once
 * per test group, and helpers to find a kernel, allocate device memory, launch and find
 * a tagged source line. Both programs take LABS.ptx FLOW.ptx UNSUPPORTED.ptx CORE_DIR. */
#ifndef PMPPLAB_TESTS_CORE_FIXTURE_H
#define PMPPLAB_TESTS_CORE_FIXTURE_H

#include <stddef.h>

#include "exec.h"
#include "ptx.h"

extern const char *g_paths[3], *g_core_dir;
extern struct ptx_module *g_labs, *g_flow, *g_unsup;

/* cmocka group setup and teardown: load and free the three modules */
int core_setup(void **state);
int core_teardown(void **state);
/* Sets g_paths and g_core_dir from main's arguments; false (usage printed) when short. */
int core_args(int argc, char **argv);

/* The mangled kernel whose name contains `name` followed by a digit-free suffix. */
const struct ptx_kernel *kernel(const struct ptx_module *m, const char *name);
devaddr_t dalloc(size_t n);
int launch(const struct ptx_module *m, const char *name, struct emu_dim3 g,
	   struct emu_dim3 b, size_t shmem, void **args, struct emu_fault *f);
/* The line of the first line of core/FILE containing tag. */
unsigned source_line(const char *file, const char *tag);

#define H(a, n) devmem_host((a), (n))
#define D3(x, y, z) ((struct emu_dim3){ (x), (y), (z) })

#endif
