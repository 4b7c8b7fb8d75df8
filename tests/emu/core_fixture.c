/* core_fixture: see core_fixture.h. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "exec.h"
#include "ptx.h"
#include "trace.h"

#include "core_fixture.h"

const char *g_paths[3], *g_core_dir;
struct ptx_module *g_labs, *g_flow, *g_unsup;

static struct ptx_module *load(const char *path)
{
	struct ptx_module *m;
	char err[512];
	if (ptx_module_load_file(path, &m, err, sizeof err))
		fail_msg("%s", err);
	return m;
}

int core_setup(void **state)
{
	(void)state;
	g_labs = load(g_paths[0]);
	g_flow = load(g_paths[1]);
	g_unsup = load(g_paths[2]);
	return 0;
}

int core_teardown(void **state)
{
	(void)state;
	ptx_module_free(g_labs);
	ptx_module_free(g_flow);
	ptx_module_free(g_unsup);
	return 0;
}

const struct ptx_kernel *kernel(const struct ptx_module *m, const char *name)
{
	char want[128];
	snprintf(want, sizeof want, "%zu%s", strlen(name), name);
	for (unsigned i = 0; i < ptx_module_nkernels(m); i++) {
		const struct ptx_kernel *k = ptx_module_kernel_at(m, i);
		if (strstr(ptx_kernel_name(k), want))
			return k;
	}
	fail_msg("no kernel %s", name);
	return NULL;
}

devaddr_t dalloc(size_t n)
{
	devaddr_t a;
	assert_int_equal(devmem_alloc(n, DEVMEM_GLOBAL, "test buffer", &a), 0);
	return a;
}

int launch(const struct ptx_module *m, const char *name, struct emu_dim3 g,
	   struct emu_dim3 b, size_t shmem, void **args, struct emu_fault *f)
{
	struct emu_launch l = { m, kernel(m, name), g, b, shmem, args };
	int rc = emu_run(&l, f);
	if (rc) /* shown with the failure when a launch was expected to work */
		fprintf(stderr, "  %s: %d: %s:%u: %s\n", name, rc, f->file ? f->file : "?", f->line,
			f->message);
	return rc;
}

unsigned source_line(const char *file, const char *tag)
{
	char path[1024], line[512];
	snprintf(path, sizeof path, "%s/%s", g_core_dir, file);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	for (unsigned n = 1; fgets(line, sizeof line, f); n++)
		if (strstr(line, tag)) {
			fclose(f);
			return n;
		}
	fclose(f);
	fail_msg("tag %s not in %s", tag, file);
	return 0;
}

int core_args(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s LABS.ptx FLOW.ptx UNSUPPORTED.ptx CORE_DIR\n", argv[0]);
		return 0;
	}
	g_paths[0] = argv[1];
	g_paths[1] = argv[2];
	g_paths[2] = argv[3];
	g_core_dir = argv[4];
	return 1;
}
