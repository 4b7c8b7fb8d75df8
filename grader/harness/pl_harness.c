/* pl_harness: main() of every lab program; see pl_harness.h.
 * Built with nvcc (student programs, PMPPLAB_HARNESS_CUDA defined) or cc (reference). */
#include "pl_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl_io.h"
#include "pl_counters.h" /* pmpplab perf (issue 8) */
#include "pl_provenance.h" /* issue 14 */
#include "pl_timing.h"   /* pmpplab perf (issue 8) */

#ifdef PMPPLAB_HARNESS_CUDA
#include <cuda_runtime_api.h>
#endif

static struct pl_file request;

static void die(const char *what, const char *name)
{
	fprintf(stderr, "pmpplab harness: %s%s%s\n", what, name ? " " : "", name ? name : "");
	exit(PL_EXIT_IO);
}

void *pl_buffer(const char *name)
{
	struct pl_item *it = pl_find(&request, PL_INPUT, name);
	if (!it)
		it = pl_find(&request, PL_OUTPUT, name);
	if (!it)
		die("no buffer named", name);
	return it->data;
}

long long pl_param(const char *name)
{
	struct pl_item *it = pl_find(&request, PL_PARAM, name);
	if (!it)
		die("no param named", name);
	return it->ival;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Bytes after each output, filled with GUARD_BYTE: a program that writes past the end of
 * an output (a cudaMemcpy of one element too many) changes them, where malloc's slack
 * would hide it on every backend. */
#define GUARD_LEN 256
#define GUARD_BYTE 0xA5

/* Outputs start as 0xFF bytes: NaN for floats, -1 or the maximum for integers. */
static void allocate_outputs(void)
{
	for (uint32_t i = 0; i < request.n; i++) {
		struct pl_item *it = &request.items[i];
		if (it->kind != PL_OUTPUT)
			continue;
		size_t bytes = (size_t)it->count * pl_dtype_size(it->dtype);
		it->data = malloc(bytes + GUARD_LEN);
		if (!it->data)
			die("out of memory for output", it->name);
		memset(it->data, 0xFF, bytes);
		memset((char *)it->data + bytes, GUARD_BYTE, GUARD_LEN);
	}
}

/* Exits with PL_EXIT_OVERRUN when the entry point wrote past the end of an output. */
static void check_guards(void)
{
	for (uint32_t i = 0; i < request.n; i++) {
		const struct pl_item *it = &request.items[i];
		if (it->kind != PL_OUTPUT)
			continue;
		size_t bytes = (size_t)it->count * pl_dtype_size(it->dtype);
		const unsigned char *g = (const unsigned char *)it->data + bytes;
		size_t k = 0;
		while (k < GUARD_LEN && g[k] == GUARD_BYTE)
			k++;
		if (k == GUARD_LEN)
			continue;
		fprintf(stderr,
			"pmpplab harness: the program wrote past the end of output '%s': it holds %llu element%s (%zu bytes), and byte %zu after its end was changed. "
			"Copy back, and write, only the elements the output holds (the lab's README gives its size).\n",
			it->name, (unsigned long long)it->count, it->count == 1 ? "" : "s", bytes, k + 1);
		exit(PL_EXIT_OVERRUN);
	}
}

#ifdef PMPPLAB_HARNESS_CUDA
/* A kernel that faulted, or a launch that failed, leaves an error the student's code may
 * never have looked at: report it rather than grade garbage. */
static void check_cuda(void)
{
	cudaError_t err = cudaDeviceSynchronize();
	if (err == cudaSuccess)
		err = cudaGetLastError();
	if (err != cudaSuccess) {
		fprintf(stderr, "pmpplab harness: CUDA error after the entry point returned: %s (%s)\n",
			cudaGetErrorString(err), cudaGetErrorName(err));
		exit(PL_EXIT_CUDA);
	}
}
#endif

int main(int argc, char **argv)
{
	char err[512];
	if (argc != 3)
		die("usage: PROGRAM REQUEST RESULT (run by the pmpplab grader)", NULL);
	if (pl_read(&request, argv[1], err, sizeof(err)) < 0)
		die(err, NULL);
	allocate_outputs();
	fflush(stdout);
	double t0 = now_ms();
	pl_counters_start(); /* pmpplab perf (issue 8): emulator counters when asked */
	pl_provenance_begin();
	pl_entry();
#ifdef PMPPLAB_HARNESS_CUDA
	check_cuda();
#endif
	double t1 = now_ms();
	check_guards();
	fflush(stdout);

	struct pl_file result = { 0 };
	/* issue 14: which kernels ran and where the outputs came from, before the timed
	 * calls below replace them */
	pl_provenance_finish(&request, &result);
	/* pmpplab perf (issue 8): the emulator's counters of the call above (pl_counters.h,
	 * when $PMPPLAB_COUNTERS is set); on a GPU, when the grader sets $PMPPLAB_TIMING, call
	 * the entry point again, timed, and add the metrics (pl_timing.h); outputs keep the
	 * last call's. */
	pl_counters_finish(&result);
	pl_timing_run(&result);
	for (uint32_t i = 0; i < request.n; i++) {
		struct pl_item *it = &request.items[i];
		if (it->kind != PL_OUTPUT)
			continue;
		pl_add(&result, PL_OUTPUT, it->dtype, it->name, it->count, it->data);
		it->data = NULL; /* now the result's */
	}
	struct pl_item *m = pl_add(&result, PL_METRIC, PL_F64, "entry_ms", 1, NULL);
	if (m)
		m->dval = t1 - t0;
	if (pl_write(&result, argv[2], err, sizeof(err)) < 0)
		die(err, NULL);
	pl_release(&result);
	pl_release(&request);
	return 0;
}
