/* build_internal: what build.c (the job: its tools, key, cache and reuse) and
 * build_compile.c (its compiles) share; not for the rest of the grader (build.h). */
#ifndef PMPPLAB_BUILD_INTERNAL_H
#define PMPPLAB_BUILD_INTERNAL_H

#include <stdbool.h>

#include "backend.h"
#include "build.h"

/* What the build needs, gathered before hashing. */
struct job {
	enum backend_kind backend;   /* BACKEND_AUTO here means: host C with cc */
	const char *main_source;     /* the file handed to the compiler */
	char *glue;                  /* generated text, or NULL for standalone builds */
	const char *user_source;     /* what the student wrote (hashed) */
	char *hidden[2];             /* the lab collection and the lab's kernels (realpaths),
				      * whose files it may not include */
	char *user_dir;              /* its folder (realpath): the build sees its sources
				      * and may include nothing else (incl.h); NULL: the lab's
				      * own code, built unsandboxed */
	char *tool, *harness, *emulib;
	char **flags;
	unsigned n_flags;
	bool lab;                    /* link the harness in */
	bool want_ptx;               /* gpu: emit prog.ptx too (the static analyses) */
	char *nvrtc_tool, *nvrtc_lib, *nvrtc_inc; /* emu, BUILD_PTX_NVRTC: pmpplab-nvrtc-ptx,
				      * libnvrtc.so and -I of the toolkit's headers, when
				      * both are there; else NULL */
	char *device;                /* with nvrtc_tool: the file's device view (hostview.h) */
	char arch[32];               /* emu: "-arch=compute_90", the emulated device's */
	bool rdc;                    /* relocatable device code: a program whose kernels
				      * launch kernels (dynamic parallelism) */
	bool openmp;                 /* its host code uses OpenMP (uses_openmp) */
};

/* Compiles into a private folder, then renames it into place (atomic for other graders
 * sharing the cache). Student code compiles in the sandbox and may include only what
 * incl.h allows. */
int build_compile(const struct job *j, const char *final_dir, struct build_result *out);

/* The fast build (issue 16): only the PTX compile, next to HOST_PROG, the program of an
 * earlier build with the same host view. Returns 0, or -EAGAIN when the compile did not
 * succeed silently: the full build then says what it says, exactly as without this. */
int build_compile_fast(const struct job *j, const char *final_dir, const char *host_prog,
		       struct build_result *out);

#endif
