/* build: compiles programs with nvcc (or cc for CPU references) for a backend, into a
 * cache keyed by the hash of everything that goes into the build, so an unchanged
 * submission is never rebuilt. Compiler output is parsed into diagnostics. */
#ifndef PMPPLAB_BUILD_H
#define PMPPLAB_BUILD_H

#include <stdbool.h>

#include "backend.h"
#include "diag.h"
#include "spec.h"

struct build_result {
	char *program;          /* the executable (in the cache) */
	char *ptx;              /* emu: the PTX the emulator runs; else NULL */
	char *barriers_ptx;     /* gpu, lab builds: PTX (-lineinfo) for the static barrier
				 * analysis (issue 6), the optimisation recognisers (optim.h) and
				 * the registers read unwritten (uninitcheck.h); else NULL */
	struct diag_list diags; /* compiler errors and warnings */
	char *log;              /* raw compiler output */
	bool cached;            /* found in the cache, nothing compiled */
	bool host_reused;       /* emu: only the PTX compiled, the program of an earlier build
				 * with the same host code reused (the fast build, issue 16) */
	bool nvrtc;             /* emu: the PTX is NVRTC's (BUILD_PTX_NVRTC took), not nvcc's */
	double ms_host, ms_ptx; /* compile times (0 when cached) */
};

/* Which compiler makes an emulator lab build's PTX (issue 16). NVRTC (the toolkit's
 * compiler library, grader/nvrtc_ptx.c) takes about a tenth of nvcc's time; its PTX runs
 * to the same verdicts (tests/grader/e2e_nvrtc.sh) but is not the same text (64-bit
 * shared-memory pointers, other inlining of cuda_fp16.h), so counted figures may differ a
 * little. The two are cached apart. */
enum build_ptx {
	BUILD_PTX_NVCC,  /* nvcc -ptx: --grade, batch, lab check (the recorded results) */
	BUILD_PTX_NVRTC, /* NVRTC from the file's device view (hostview.h) where that can be
			  * trusted and NVRTC compiles it silently; else nvcc, whose messages
			  * the student gets: the TUI's quick runs (save -> verdict).
			  * PMPPLAB_NVRTC=0 makes every build nvcc's, =1 every one this. */
};

/* Builds the lab program for SOURCE (a student .cu, or the solution) calling the spec's
 * entry function, for BACKEND (GPU or EMU), its PTX (emu) made as PTX says. Returns 0; -ENOEXEC when the compiler
 * rejected the code (out->diags says why); another negative code for configuration
 * problems (no nvcc, no emulator runtime), explained in errs. Release out with
 * build_result_release in every case. */
int build_lab(const struct lab_spec *spec, const char *source, enum backend_kind backend,
	      enum build_ptx ptx, struct build_result *out, struct diag_list *errs);
/* Builds the lab's CPU reference (a C file) with cc. Same returns. */
int build_reference(const struct lab_spec *spec, struct build_result *out, struct diag_list *errs);
/* Builds a standalone CUDA program (its own main) for BACKEND, its PTX (emu) made as
 * PTX says. Same returns. */
int build_standalone(const char *source, enum backend_kind backend, enum build_ptx ptx,
		     struct build_result *out, struct diag_list *errs);
void build_result_release(struct build_result *r);

#endif
