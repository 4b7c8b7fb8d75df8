/* hostview: what the host half of a CUDA program is built from (issue 16, the emulator's
 * fast build path). nvcc's host compile replaces the bodies of device-only functions
 * (__global__, and __device__ without __host__) with launch stubs, so two files that
 * differ only inside such bodies (and in comments) give the same host object: a build
 * can reuse the program of an earlier one and compile only the new PTX.
 *
 * The host view of a file is its tokens (grader/clex.h) outside those bodies, each with
 * its line and whether space comes before it, plus every preprocessor line inside them
 * (a #define there counts for the host code below). Lines are kept because __LINE__ in
 * host code has them; spaces because # in a macro turns them into text. It is a key to
 * hash, never compiled.
 *
 * The reading is lexical, not a compiler's. Where the file does something it cannot
 * follow (a macro that stands for __global__, code under #if at file scope, #else, a
 * header of its own, a raw string, __COUNTER__...) it says so in `doubt`, and the
 * caller builds the slow way.
 *
 * The device view is the other half, for NVRTC, which compiles device code only: the
 * file with every host-only function definition blanked (spaces, so lines and columns
 * stay) and the #include of the C library's stdio.h, stdlib.h, string.h, math.h and
 * limits.h too (NVRTC has no such headers; it declares what device code may call of
 * them itself). Trusted only where the host
 * view is: it is what a compiler must then accept exactly as nvcc's device pass does,
 * or the caller compiles with nvcc. */
#ifndef PMPPLAB_HOSTVIEW_H
#define PMPPLAB_HOSTVIEW_H

#include <stddef.h>

struct hostview {
	char *text;        /* the host view, NUL-terminated */
	size_t len;
	const char *doubt; /* NULL when the view can be trusted; else why not (static) */
	unsigned n_device; /* device-only function bodies left out */
	char *device;      /* the device view, NUL-terminated, as long as the source; NULL
			    * where the file names __NVCC__ or __CUDACC_RTC__ (what tells nvcc
			    * and NVRTC apart) */
};

/* The host view of SRC (LEN bytes). Returns 0 (doubt set or not) or -ENOMEM. Release
 * with hostview_release in both cases. */
int hostview_make(const char *src, size_t len, struct hostview *out);
void hostview_release(struct hostview *v);

#endif
