/* resources: what each kernel of a program takes from an SM, as ptxas reports it for a
 * target architecture (registers per thread, static shared memory per block, barriers,
 * stack and spills): the inputs of the occupancy calculator (occupancy.h, issue 7).
 *
 * The PTX comes from the emulator build of the lab (build.h: nvcc -ptx, cached), which
 * ptxas then compiles for the architecture asked for: a few tens of milliseconds per
 * architecture, so the TUI can switch devices at once. */
#ifndef PMPPLAB_RESOURCES_H
#define PMPPLAB_RESOURCES_H

#include "diag.h"
#include "spec.h"

struct kernel_resources {
	char *name;          /* the mangled entry name, as in PTX ("_Z6matmulPKfS0_Pfi") */
	char *pretty;        /* the function's name alone ("matmul") */
	unsigned regs;       /* registers per thread */
	unsigned smem;       /* static shared memory per block, bytes */
	unsigned barriers;   /* "used N barriers" */
	unsigned stack;      /* stack frame per thread, bytes */
	unsigned spill_stores, spill_loads; /* bytes */
	unsigned cmem;       /* constant bank 0 (parameters), bytes */
};

struct resources {
	char arch[16];                /* "sm_80" */
	struct kernel_resources *k;   /* in ptxas's order */
	unsigned n;
};

void resources_init(struct resources *r);
void resources_release(struct resources *r);
/* The kernel named NAME (mangled or pretty), or NULL. */
const struct kernel_resources *resources_find(const struct resources *r, const char *name);

/* Parses ptxas -v (or nvcc --resource-usage) output into *out (appending). Returns the
 * number of entry functions found (0 is not an error: a file without kernels), or
 * -ENOMEM. */
int resources_parse(const char *text, struct resources *out);

/* The function's name out of an Itanium-mangled name ("_Z6matmulPKfS0_Pfi" -> "matmul",
 * "_ZN2ns3fooEv" -> "ns::foo"); unmangled names are returned as they are. Malloc'd, or
 * NULL on ENOMEM. */
char *resources_pretty_name(const char *mangled);

/* Runs ptxas -v -arch=ARCH on PTX_PATH. Returns 0 with *out filled (release it in every
 * case), -ENOENT when ptxas cannot be found, -ENOEXEC when ptxas rejects the PTX or the
 * architecture (errs says why). */
int resources_from_ptx(const char *ptx_path, const char *arch, struct resources *out,
		       struct diag_list *errs);

/* Resources of the kernels of a lab submission SOURCE: builds it for the emulator
 * backend (cached, as grading does) and runs ptxas on its PTX for ARCH. Same returns as
 * build_lab (-ENOEXEC: it does not compile; out->... empty) and resources_from_ptx. */
int resources_from_lab(const struct lab_spec *spec, const char *source, const char *arch,
		       struct resources *out, struct diag_list *errs);

/* Resources of a standalone .cu file (nvcc -cubin --resource-usage -arch=ARCH). Same
 * returns. */
int resources_from_cu(const char *source, const char *arch, struct resources *out,
		      struct diag_list *errs);

#endif
