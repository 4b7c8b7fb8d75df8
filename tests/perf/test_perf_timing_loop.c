/* pl_timing's GPU loop (the PMPPLAB_HARNESS_GPU branch) on a machine without a GPU: this
 * file stands in for the CUDA runtime (events read the host clock, device memory is host
 * memory on a 1 GiB budget) and for the lab's entry point, so the loop's stop rules, the
 * events fallback, the leak guard and the metrics it writes are tested here; CUPTI kernel
 * records need the real GPU (scripts/device-check perf). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "pl_harness.h"
#include "pl_io.h"
#include "pl_timing.h"

/* ---- the stand-in runtime ---------------------------------------------------------- */

#define FAKE_TOTAL (1024ull << 20)
static size_t fake_allocated;

struct CUevent_st {
	double ms;
};

static double host_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const char *cudaGetErrorString(cudaError_t e) { return e ? "fake error" : "no error"; }
const char *cudaGetErrorName(cudaError_t e) { return e ? "cudaErrorFake" : "cudaSuccess"; }
cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }

cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
	(void)d;
	switch (a) {
	case cudaDevAttrMultiProcessorCount: *v = 132; break;
	case cudaDevAttrClockRate: *v = 1980000; break;
	case cudaDevAttrMemoryClockRate: *v = 2619000; break;
	case cudaDevAttrGlobalMemoryBusWidth: *v = 5120; break;
	case cudaDevAttrL2CacheSize: *v = 1 << 20; break;
	case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
	default: *v = 0; break;
	}
	return cudaSuccess;
}

/* Sizes live in a header word so cudaFree can give the budget back. */
cudaError_t cudaMalloc(void **p, size_t n)
{
	if (fake_allocated + n > FAKE_TOTAL)
		return cudaErrorMemoryAllocation;
	size_t *b = malloc(n + sizeof(size_t));
	if (!b)
		return cudaErrorMemoryAllocation;
	b[0] = n;
	fake_allocated += n;
	*p = b + 1;
	return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
	if (p) {
		size_t *b = (size_t *)p - 1;
		fake_allocated -= b[0];
		free(b);
	}
	return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int v, size_t n) { memset(p, v, n); return cudaSuccess; }
/* Memory other processes on the device hold (parallel grading), for the leak guard. */
static size_t other_processes;

cudaError_t cudaMemGetInfo(size_t *f, size_t *t)
{
	*f = FAKE_TOTAL - fake_allocated - other_processes;
	*t = FAKE_TOTAL;
	return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = calloc(1, sizeof(**e)); return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { (void)s; e->ms = host_ms(); return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float)(b->ms - a->ms); return cudaSuccess; }

/* ---- the stand-in entry point ---------------------------------------------------- */

static unsigned calls;
static double entry_ms[2];  /* alternating durations */
static size_t leak_bytes;   /* allocated and never freed per call */
static unsigned other_at;   /* at this call, another process takes 200 MiB */

void pl_entry(void)
{
	if (other_at && calls == other_at)
		other_processes = 200u << 20;
	double until = host_ms() + entry_ms[calls++ % 2];
	while (host_ms() < until)
		;
	void *p;
	if (leak_bytes)
		cudaMalloc(&p, leak_bytes);
}

static double metric(const struct pl_file *f, const char *name)
{
	const struct pl_item *m = pl_find(f, PL_METRIC, name);
	return m ? m->dval : -1;
}

static void run(const char *opts, double a, double b, size_t leak, struct pl_file *out)
{
	calls = 0;
	entry_ms[0] = a;
	entry_ms[1] = b;
	leak_bytes = leak;
	other_processes = 0;
	fake_allocated = 0; /* a leak of an earlier test stays lost, not counted again */
	memset(out, 0, sizeof(*out));
	setenv("PMPPLAB_TIMING", opts, 1);
	pl_timing_run(out);
}

static void test_stable(void **state)
{
	(void)state;
	struct pl_file f;
	run("cupti=0,min=5,max=100,cap_ms=3000,rel=0.01,warmup=2", 0.5, 0.5, 0, &f);
	assert_true(metric(&f, "timing_source") == PL_TIMING_EVENTS);
	double ms = metric(&f, "kernel_ms"), reps = metric(&f, "timing_reps");
	assert_true(ms > 0.45 && ms < 1.5);
	assert_true(reps >= 5 && reps <= 100);
	assert_int_equal(calls, 2 + (unsigned)reps); /* warm-ups are not timed */
	assert_true(metric(&f, "kernel_rel_err") < 0.01 || reps == 100);
	assert_true(metric(&f, "kernel_ms_min") <= ms && ms <= metric(&f, "kernel_ms_max"));
	assert_true(metric(&f, "l2_flush_bytes") == 2 << 20);
	assert_true(metric(&f, "dev_sm_count") == 132);
	assert_true(metric(&f, "dev_bus_width_bits") == 5120);
	assert_true(metric(&f, "timing_leaked_bytes_per_call") < 0);
	assert_int_equal(fake_allocated, 0);
	pl_release(&f);
}

/* A spread the median never settles within: the cap stops it. */
static void test_cap(void **state)
{
	(void)state;
	struct pl_file f;
	run("cupti=0,min=3,max=100000,cap_ms=60,rel=0.00001,warmup=0", 0.1, 2, 0, &f);
	double wall = metric(&f, "timing_wall_ms");
	assert_true(wall >= 60 && wall < 200);
	/* the calls alternate 0.1 and 2 ms: the spread shows both; the MAD is 0 or 1.9
	 * (or between) depending on the parity of the count, so only its presence is checked */
	assert_true(metric(&f, "kernel_ms_min") < 0.5 && metric(&f, "kernel_ms_max") > 1.9);
	assert_true(metric(&f, "kernel_ms_mad") >= 0);
	pl_release(&f);
}

/* An entry point that never frees: the loop stops before the memory runs out. */
static void test_leak(void **state)
{
	(void)state;
	struct pl_file f;
	run("cupti=0,min=5,max=100,cap_ms=3000,warmup=0", 0.1, 0.1, 300u << 20, &f);
	assert_true(metric(&f, "timing_reps") == 3);
	assert_true(metric(&f, "timing_leaked_bytes_per_call") == 300u << 20);
	pl_release(&f);
}

/* A small leak the memory never runs out of is still reported, per call. */
static void test_steady_leak(void **state)
{
	(void)state;
	struct pl_file f;
	run("cupti=0,min=6,max=6,cap_ms=3000,warmup=0", 0.1, 0.1, 8u << 20, &f);
	assert_true(metric(&f, "timing_reps") == 6);
	assert_true(metric(&f, "timing_leaked_bytes_per_call") == 8u << 20);
	pl_release(&f);
}

/* Another process allocating while the loop runs is not this entry point's leak. */
static void test_other_process_allocates(void **state)
{
	(void)state;
	struct pl_file f;
	other_at = 4;
	run("cupti=0,min=8,max=8,cap_ms=3000,warmup=0", 0.1, 0.1, 0, &f);
	other_at = 0;
	assert_true(metric(&f, "timing_reps") == 8);
	assert_true(metric(&f, "timing_leaked_bytes_per_call") < 0);
	pl_release(&f);
}

/* CUPTI that loads but records nothing here (no driver), or does not load: events. */
static void test_cupti_fallback(void **state)
{
	(void)state;
	struct pl_file f;
	run("min=3,max=3,warmup=0", 0.2, 0.2, 0, &f);
	assert_true(metric(&f, "timing_source") == PL_TIMING_EVENTS);
	assert_true(metric(&f, "kernel_ms") >= 0.2);
	pl_release(&f);
}

static void test_not_asked(void **state)
{
	(void)state;
	struct pl_file f = { 0 };
	unsetenv("PMPPLAB_TIMING");
	calls = 0;
	pl_timing_run(&f);
	assert_int_equal(f.n, 0);
	assert_int_equal(calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_leak),
		cmocka_unit_test(test_steady_leak),
		cmocka_unit_test(test_other_process_allocates),
		cmocka_unit_test(test_cupti_fallback),
		cmocka_unit_test(test_not_asked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
