/* paths: where pmpplab finds its own files and tools, both when run from the build tree
 * (the source tree's data, the build tree's emulator runtime) and when installed
 * (datadir, libdir). Environment variables override each: PMPPLAB_NVCC,
 * PMPPLAB_HARNESS, PMPPLAB_EMU_LIBDIR, PMPPLAB_CACHE. All results are malloc'd. */
#ifndef PMPPLAB_PATHS_H
#define PMPPLAB_PATHS_H

#include <stdbool.h>

/* True when the running binary lives under the build tree it was built in. */
bool paths_in_build_tree(void);
/* pmpplab's data root: the source tree when in the build tree, else datadir/pmpplab. */
char *paths_data_root(void);
/* NAME's full path if it is on PATH, else NULL. */
char *paths_which(const char *name);
/* nvcc: $PMPPLAB_NVCC, else on PATH, else /usr/local/cuda/bin/nvcc; NULL if none. */
char *paths_nvcc(void);
/* A tool of the CUDA toolkit beside nvcc (compute-sanitizer, cuobjdump...) or on PATH. */
char *paths_cuda_tool(const char *name);
char *paths_harness_dir(void);
/* Folder holding libpmpplab_cudart.so. */
char *paths_emu_libdir(void);
/* pmpplab-nvrtc-ptx (grader/nvrtc_ptx.c), the emulator's fast PTX compiler; NULL when
 * it is not there. */
char *paths_nvrtc_ptx(void);
/* Build cache: $PMPPLAB_CACHE, else $XDG_CACHE_HOME/pmpplab, else ~/.cache/pmpplab
 * (created). */
char *paths_cache_dir(void);
/* mkdir -p. Returns 0 or -errno. */
int paths_mkdirs(const char *path);

#endif
