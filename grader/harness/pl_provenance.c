/* pl_provenance: see pl_provenance.h. */
#include "pl_provenance.h"

#include <stdio.h>

#include "pl_timing.h"

static void add(struct pl_file *result, const char *name, double v)
{
	struct pl_item *m = pl_add(result, PL_METRIC, PL_F64, name, 1, NULL);
	if (m)
		m->dval = v;
}

#ifdef PMPPLAB_HARNESS_EMU

/* The emulator runtime's (libpmpplab_cudart.so; emu/cudart_provenance.h). */
extern void emu_provenance_begin(void);
extern int emu_provenance_query(const void *p, size_t bytes, size_t elem,
				unsigned long long *out);
extern unsigned long long emu_provenance_kernel_bytes(void);
extern unsigned long long emu_launch_count(void);

void pl_provenance_begin(void)
{
	emu_provenance_begin();
}

void pl_provenance_finish(const struct pl_file *request, struct pl_file *result)
{
	/* in the order of the PL_PROV_ indices */
	static const char *const what[PL_PROV_COUNT] = {
		"elements", "kernel", "staged", "changed", "unwritten", "host", "first_bad",
		"overflow", "filled",
	};
	add(result, "launches", (double)emu_launch_count());
	add(result, "prov_kernel_bytes", (double)emu_provenance_kernel_bytes());
	for (uint32_t i = 0; i < request->n; i++) {
		const struct pl_item *it = &request->items[i];
		size_t elem = pl_dtype_size(it->dtype);
		unsigned long long c[PL_PROV_COUNT];
		if (it->kind != PL_OUTPUT ||
		    emu_provenance_query(it->data, (size_t)it->count * elem, elem, c) < 0)
			continue;
		for (unsigned k = PL_PROV_KERNEL; k < PL_PROV_COUNT; k++) {
			char name[160];
			snprintf(name, sizeof(name), "prov:%s:%s", it->name, what[k]);
			add(result, name, (double)c[k]);
		}
	}
	add(result, "prov_counted", 1);
}

#else

void pl_provenance_begin(void)
{
	pl_timing_count_begin();
}

void pl_provenance_finish(const struct pl_file *request, struct pl_file *result)
{
	(void)request;
	long launches = pl_timing_count_end();
	if (launches >= 0)
		add(result, "launches", (double)launches);
}

#endif
