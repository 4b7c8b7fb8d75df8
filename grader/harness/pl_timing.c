/* pl_timing: see pl_timing.h. The statistics are plain C; the timing loop exists only in
 * GPU builds (build.c defines PMPPLAB_HARNESS_GPU there), because on the emulator a
 * kernel's duration says nothing about a GPU. */
#include "pl_timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl_harness.h"

void pl_timing_parse_opts(const char *text, struct pl_timing_opts *o)
{
	o->cap_ms = 2000;
	o->rel = 0.01;
	o->min_reps = 5;
	o->max_reps = 500;
	o->warmup = 1;
	o->use_cupti = 1;
	for (const char *p = text; p && *p;) {
		char key[32];
		double v;
		int used = 0;
		if (sscanf(p, "%31[a-z_]=%lf%n", key, &v, &used) == 2 && v >= 0) {
			if (strcmp(key, "cap_ms") == 0)
				o->cap_ms = v;
			else if (strcmp(key, "rel") == 0)
				o->rel = v;
			else if (strcmp(key, "min") == 0)
				o->min_reps = v < 1 ? 1 : (unsigned)v;
			else if (strcmp(key, "max") == 0)
				o->max_reps = v < 1 ? 1 : (unsigned)v;
			else if (strcmp(key, "warmup") == 0)
				o->warmup = (unsigned)v;
			else if (strcmp(key, "cupti") == 0)
				o->use_cupti = v != 0;
		}
		const char *comma = strchr(p, ',');
		p = comma ? comma + 1 : NULL;
	}
	if (o->max_reps < o->min_reps)
		o->max_reps = o->min_reps;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double pl_timing_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double pl_timing_mad(const double *v, size_t n, double median, double *scratch)
{
	for (size_t i = 0; i < n; i++)
		scratch[i] = fabs(v[i] - median);
	return pl_timing_median(scratch, n);
}

double pl_timing_rel_err(const double *v, size_t n)
{
	if (n < 2)
		return INFINITY;
	double mean = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		mean += v[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	double sd = sqrt(ss / (double)(n - 1));
	double *copy = (double *)malloc(n * sizeof(*copy));
	if (!copy)
		return INFINITY;
	memcpy(copy, v, n * sizeof(*copy));
	double med = pl_timing_median(copy, n);
	free(copy);
	if (med <= 0)
		return INFINITY;
	return 1.2533 * sd / sqrt((double)n) / med;
}

int pl_timing_done(const struct pl_timing_opts *o, const double *v, size_t n, double wall_ms)
{
	if (n >= o->max_reps)
		return 1;
	if (n < o->min_reps)
		return 0;
	return wall_ms >= o->cap_ms || pl_timing_rel_err(v, n) < o->rel;
}

static void add_metric(struct pl_file *result, const char *name, double value)
{
	struct pl_item *m = pl_add(result, PL_METRIC, PL_F64, name, 1, NULL);
	if (m)
		m->dval = value;
}

#ifndef PMPPLAB_HARNESS_GPU

/* Not a GPU build (the CPU reference, or the emulator): nothing to time. Say so, so the
 * grader never mistakes a missing measurement for a fast one. */
void pl_timing_run(struct pl_file *result)
{
	if (getenv("PMPPLAB_TIMING"))
		add_metric(result, "timing_source", PL_TIMING_NONE);
}

void pl_timing_count_begin(void)
{
}

long pl_timing_count_end(void)
{
	return -1;
}

#else /* PMPPLAB_HARNESS_GPU */

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>

/* CUPTI's header is in the toolkit's include folder (packages, wheels) or in
 * extras/CUPTI/include (runfile installs: the build adds -I for it); without it the
 * timing falls back to CUDA events rather than failing every GPU build. */
#if defined(__has_include)
#if __has_include(<cupti.h>)
#include <cupti.h>
#define PL_HAVE_CUPTI 1
#endif
#endif

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void fail_cuda(const char *what, cudaError_t err)
{
	fprintf(stderr, "pmpplab harness: CUDA error while timing (%s): %s (%s)\n", what,
		cudaGetErrorString(err), cudaGetErrorName(err));
	exit(PL_EXIT_CUDA);
}

/* ---- CUPTI, loaded at run time ------------------------------------------------ */
#ifdef PL_HAVE_CUPTI

typedef CUptiResult(CUPTIAPI *register_fn)(CUpti_BuffersCallbackRequestFunc,
					   CUpti_BuffersCallbackCompleteFunc);
typedef CUptiResult(CUPTIAPI *kind_fn)(CUpti_ActivityKind);
typedef CUptiResult(CUPTIAPI *flush_fn)(uint32_t);
typedef CUptiResult(CUPTIAPI *next_fn)(uint8_t *, size_t, CUpti_Activity **);

static struct {
	register_fn reg;
	kind_fn enable, disable;
	flush_fn flush;
	next_fn next;
} cupti;

#define PL_MAX_LAUNCHED 32
#define PL_MAX_STREAMS 32

/* What the activity records of one call of the entry point add up to, and which
 * kernels it launched on which streams (the optimisations check, labs/README.md). */
static struct {
	pthread_mutex_t lock;
	double kernel_ms, copy_ms;
	double h2d_bytes, d2h_bytes;
	unsigned kernels;
	struct {
		char *name; /* mangled, as in the PTX */
		unsigned count;
	} launched[PL_MAX_LAUNCHED];
	unsigned n_launched;
	uint32_t streams[PL_MAX_STREAMS];
	unsigned n_streams;
} acc = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, { { NULL, 0 } }, 0, { 0 }, 0 };

/* Counts one launch of NAME on STREAM (under acc.lock). */
static void note_launch(const char *name, uint32_t stream)
{
	unsigned i = 0;
	while (i < acc.n_launched && strcmp(acc.launched[i].name, name) != 0)
		i++;
	if (i == acc.n_launched && i < PL_MAX_LAUNCHED && (acc.launched[i].name = strdup(name)))
		acc.n_launched++;
	if (i < acc.n_launched)
		acc.launched[i].count++;
	unsigned k = 0;
	while (k < acc.n_streams && acc.streams[k] != stream)
		k++;
	if (k == acc.n_streams && k < PL_MAX_STREAMS)
		acc.streams[acc.n_streams++] = stream;
}

#define CUPTI_BUF (1u << 20)

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	/* CUPTI wants 8-byte aligned buffers. */
	*buffer = (uint8_t *)aligned_alloc(8, CUPTI_BUF);
	*size = *buffer ? CUPTI_BUF : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
				      size_t size, size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	CUpti_Activity *rec = NULL;
	pthread_mutex_lock(&acc.lock);
	while (valid && cupti.next(buffer, valid, &rec) == CUPTI_SUCCESS) {
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
		    rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
			const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
			acc.kernel_ms += (double)(k->end - k->start) / 1e6;
			acc.kernels++;
			if (k->name)
				note_launch(k->name, k->streamId);
		} else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
			const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
			acc.copy_ms += (double)(m->end - m->start) / 1e6;
			if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD)
				acc.h2d_bytes += (double)m->bytes;
			else if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
				acc.d2h_bytes += (double)m->bytes;
		}
	}
	pthread_mutex_unlock(&acc.lock);
	free(buffer);
}

#ifndef PL_CUPTI_LIB
#define PL_CUPTI_LIB "/usr/local/cuda/lib64/libcupti.so"
#endif

static int cupti_state; /* 0: not started, 1: recording, -1: unavailable */

/* Loads libcupti and starts kernel and copy records (once: later calls say whether that
 * worked). Returns 0, or -1 (then the caller falls back to CUDA events). */
static int cupti_start(void)
{
	if (cupti_state)
		return cupti_state > 0 ? 0 : -1;
	cupti_state = -1;
	static const char *names[] = { PL_CUPTI_LIB, "libcupti.so", "libcupti.so.13",
				       "libcupti.so.12" };
	void *lib = NULL;
	for (unsigned i = 0; !lib && i < sizeof(names) / sizeof(names[0]); i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	cupti.reg = (register_fn)dlsym(lib, "cuptiActivityRegisterCallbacks");
	cupti.enable = (kind_fn)dlsym(lib, "cuptiActivityEnable");
	cupti.disable = (kind_fn)dlsym(lib, "cuptiActivityDisable");
	cupti.flush = (flush_fn)dlsym(lib, "cuptiActivityFlushAll");
	cupti.next = (next_fn)dlsym(lib, "cuptiActivityGetNextRecord");
	if (!cupti.reg || !cupti.enable || !cupti.disable || !cupti.flush || !cupti.next)
		return -1;
	if (cupti.reg(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
	    cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
		return -1;
	if (cupti.enable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS) {
		cupti.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
		return -1;
	}
	cupti_state = 1;
	return 0;
}

static void cupti_stop(void)
{
	if (cupti_state <= 0)
		return;
	cupti_state = -1; /* the records stay off */
	cupti.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cupti.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	cupti.disable(CUPTI_ACTIVITY_KIND_MEMCPY);
}

/* Before a timed call: what came before (the L2 flush's memset) is not counted. */
static void cupti_reset(void)
{
	cupti.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&acc.lock);
	acc.kernel_ms = acc.copy_ms = acc.h2d_bytes = acc.d2h_bytes = 0;
	acc.kernels = 0;
	for (unsigned i = 0; i < acc.n_launched; i++)
		free(acc.launched[i].name);
	acc.n_launched = acc.n_streams = 0;
	pthread_mutex_unlock(&acc.lock);
}

/* The last timed call's kernels: "launched NAME" = its launches, and streams_per_call. */
static void cupti_write_launches(struct pl_file *result)
{
	pthread_mutex_lock(&acc.lock);
	for (unsigned i = 0; i < acc.n_launched; i++) {
		char key[512];
		snprintf(key, sizeof(key), "launched %s", acc.launched[i].name);
		add_metric(result, key, acc.launched[i].count);
	}
	add_metric(result, "streams_per_call", acc.n_streams);
	pthread_mutex_unlock(&acc.lock);
}

/* After a timed call: its kernel and copy times and bytes. */
static void cupti_collect(double *kernel_ms, double *copy_ms, double *h2d, double *d2h,
			  double *kernels)
{
	cupti.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&acc.lock);
	*kernel_ms = acc.kernel_ms;
	*copy_ms = acc.copy_ms;
	*h2d = acc.h2d_bytes;
	*d2h = acc.d2h_bytes;
	*kernels = acc.kernels;
	pthread_mutex_unlock(&acc.lock);
}

#else /* no cupti.h: CUDA events only */

static int cupti_start(void) { return -1; }
static void cupti_stop(void) {}
static void cupti_reset(void) {}
static void cupti_collect(double *kernel_ms, double *copy_ms, double *h2d, double *d2h,
			  double *kernels)
{
	*kernel_ms = *copy_ms = *h2d = *d2h = *kernels = 0;
}
static void cupti_write_launches(struct pl_file *result) { (void)result; }

#endif /* PL_HAVE_CUPTI */

/* ---- launches of the correctness call (pl_provenance.h) --------------------------- */

static int counting;

void pl_timing_count_begin(void)
{
	/* compute-sanitizer and ncu inject themselves through this variable; CUPTI's
	 * records beside them are not to be relied on: the launches stay unknown there */
	const char *tool = getenv("CUDA_INJECTION64_PATH");
	if (tool && *tool)
		return;
	counting = cupti_start() == 0;
	if (counting)
		cupti_reset();
}

long pl_timing_count_end(void)
{
	if (!counting)
		return -1;
	counting = 0;
	cudaDeviceSynchronize();
	double kernel_ms, copy_ms, h2d, d2h, kernels;
	cupti_collect(&kernel_ms, &copy_ms, &h2d, &d2h, &kernels);
	return (long)kernels;
}

/* ---- the timed loop ------------------------------------------------------------- */

struct device_attrs {
	int sm_count, clock_khz, mem_clock_khz, bus_width, l2_bytes, cc_major, cc_minor;
};

static void query_device(struct device_attrs *d)
{
	int dev = 0;
	memset(d, 0, sizeof(*d));
	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&d->sm_count, cudaDevAttrMultiProcessorCount, dev);
	cudaDeviceGetAttribute(&d->clock_khz, cudaDevAttrClockRate, dev);
	cudaDeviceGetAttribute(&d->mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
	cudaDeviceGetAttribute(&d->bus_width, cudaDevAttrGlobalMemoryBusWidth, dev);
	cudaDeviceGetAttribute(&d->l2_bytes, cudaDevAttrL2CacheSize, dev);
	cudaDeviceGetAttribute(&d->cc_major, cudaDevAttrComputeCapabilityMajor, dev);
	cudaDeviceGetAttribute(&d->cc_minor, cudaDevAttrComputeCapabilityMinor, dev);
}

/* One sample per timed call. */
struct samples {
	double *kernel, *copy, *entry, *scratch;
	double h2d, d2h, kernels;
	size_t n;
};

/* Calls the entry point once with a cold L2 and records its times. */
static void timed_call(int use_cupti, void *flush, size_t flush_bytes, cudaEvent_t ev[2],
		       struct samples *s)
{
	cudaError_t err = cudaMemset(flush, (int)(s->n & 0xff), flush_bytes);
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	if (err != cudaSuccess)
		fail_cuda("flushing the L2 cache", err);
	if (use_cupti)
		cupti_reset();
	cudaEventRecord(ev[0], 0);
	pl_entry();
	cudaEventRecord(ev[1], 0);
	err = cudaDeviceSynchronize();
	if (err == cudaSuccess)
		err = cudaGetLastError();
	if (err != cudaSuccess)
		fail_cuda("a timed call of the entry point", err);
	float entry = 0;
	cudaEventElapsedTime(&entry, ev[0], ev[1]);
	s->entry[s->n] = entry;
	if (use_cupti) {
		cupti_collect(&s->kernel[s->n], &s->copy[s->n], &s->h2d, &s->d2h, &s->kernels);
	} else {
		s->kernel[s->n] = entry;
		s->copy[s->n] = 0;
	}
	s->n++;
}

static void write_metrics(struct pl_file *result, int source, const struct samples *s,
			  double wall, size_t flush_bytes)
{
	size_t n = s->n;
	double rel = pl_timing_rel_err(s->kernel, n);
	memcpy(s->scratch, s->kernel, n * sizeof(double));
	double med = pl_timing_median(s->scratch, n); /* scratch is now sorted */
	add_metric(result, "timing_source", source);
	add_metric(result, "kernel_ms", med);
	add_metric(result, "kernel_ms_min", s->scratch[0]);
	add_metric(result, "kernel_ms_max", s->scratch[n - 1]);
	add_metric(result, "kernel_ms_mad", pl_timing_mad(s->kernel, n, med, s->scratch));
	add_metric(result, "kernel_rel_err", isfinite(rel) ? rel : 1.0);
	add_metric(result, "timing_reps", (double)n);
	add_metric(result, "timing_wall_ms", wall);
	add_metric(result, "l2_flush_bytes", (double)flush_bytes);
	memcpy(s->scratch, s->entry, n * sizeof(double));
	add_metric(result, "entry_ms_median", pl_timing_median(s->scratch, n));
	if (source == PL_TIMING_CUPTI) {
		memcpy(s->scratch, s->copy, n * sizeof(double));
		add_metric(result, "transfer_ms", pl_timing_median(s->scratch, n));
		add_metric(result, "kernels_per_call", s->kernels);
		cupti_write_launches(result);
		add_metric(result, "h2d_bytes", s->h2d);
		add_metric(result, "d2h_bytes", s->d2h);
	}
}

static void write_device(struct pl_file *result, const struct device_attrs *d)
{
	add_metric(result, "dev_sm_count", d->sm_count);
	add_metric(result, "dev_clock_khz", d->clock_khz);
	add_metric(result, "dev_mem_clock_khz", d->mem_clock_khz);
	add_metric(result, "dev_bus_width_bits", d->bus_width);
	add_metric(result, "dev_l2_bytes", d->l2_bytes);
	add_metric(result, "dev_cc_major", d->cc_major);
	add_metric(result, "dev_cc_minor", d->cc_minor);
}

void pl_timing_run(struct pl_file *result)
{
	const char *env = getenv("PMPPLAB_TIMING");
	if (!env)
		return;
	struct pl_timing_opts o;
	pl_timing_parse_opts(env, &o);
	struct device_attrs dev;
	query_device(&dev);
	write_device(result, &dev);

	/* Twice the L2 (at least 8 MiB): every line the last call left is evicted. */
	size_t flush_bytes = 2 * (size_t)(dev.l2_bytes > 0 ? dev.l2_bytes : 4 << 20);
	void *flush = NULL;
	cudaEvent_t ev[2];
	struct samples s = { 0 };
	size_t cap = o.max_reps;
	s.kernel = (double *)calloc(cap, sizeof(double));
	s.copy = (double *)calloc(cap, sizeof(double));
	s.entry = (double *)calloc(cap, sizeof(double));
	s.scratch = (double *)calloc(cap, sizeof(double));
	if (!s.kernel || !s.copy || !s.entry || !s.scratch ||
	    cudaMalloc(&flush, flush_bytes) != cudaSuccess || cudaEventCreate(&ev[0]) != cudaSuccess ||
	    cudaEventCreate(&ev[1]) != cudaSuccess) {
		add_metric(result, "timing_source", PL_TIMING_NONE);
		add_metric(result, "timing_error", -12 /* ENOMEM */);
		return;
	}
	int use_cupti = o.use_cupti && cupti_start() == 0;
	for (unsigned i = 0; i < o.warmup; i++) {
		pl_entry();
		cudaError_t err = cudaDeviceSynchronize();
		if (err != cudaSuccess)
			fail_cuda("a warm-up call of the entry point", err);
	}
	/* An entry point that never calls cudaFree loses its buffers on every call: stop
	 * repeating before the device runs out (and say so) rather than fail the run.
	 * cudaMemGetInfo sees the whole device, where other processes (parallel grading)
	 * allocate and free too: only the same drop after every call is this one's leak. */
	size_t free0 = 0, free_prev = 0, free_now = 0, total = 0;
	cudaMemGetInfo(&free0, &total);
	free_prev = free_now = free0;
	double t0 = now_ms();
	int leaking = 0;
	size_t drop_min = SIZE_MAX, drop_max = 0;
	while (!leaking && !pl_timing_done(&o, s.kernel, s.n, now_ms() - t0)) {
		timed_call(use_cupti, flush, flush_bytes, ev, &s);
		if (cudaMemGetInfo(&free_now, &total) != cudaSuccess)
			continue;
		size_t drop = free_now < free_prev ? free_prev - free_now : 0;
		drop_min = drop < drop_min ? drop : drop_min;
		drop_max = drop > drop_max ? drop : drop_max;
		free_prev = free_now;
		if (free_now < total / 4 && free_now < free0)
			leaking = 1;
	}
	double wall = now_ms() - t0;
	int steady = s.n >= 3 && drop_min >= (1u << 20) && drop_max - drop_min <= drop_max / 10;
	if (free_now < free0 && s.n && (leaking || steady))
		add_metric(result, "timing_leaked_bytes_per_call", (double)(free0 - free_now) / (double)s.n);
	if (use_cupti)
		cupti_stop();
	/* A kernel-less entry point under CUPTI would time nothing: use the events, and say
	 * that no kernel ran (issue 14: the grader must not judge a speed of nothing). */
	if (use_cupti && s.kernels == 0)
		add_metric(result, "timing_no_kernel", 1);
	if (use_cupti && s.kernels == 0) {
		memcpy(s.kernel, s.entry, s.n * sizeof(double));
		use_cupti = 0;
	}
	write_metrics(result, use_cupti ? PL_TIMING_CUPTI : PL_TIMING_EVENTS, &s, wall, flush_bytes);
	cudaFree(flush);
	cudaEventDestroy(ev[0]);
	cudaEventDestroy(ev[1]);
	free(s.kernel);
	free(s.copy);
	free(s.entry);
	free(s.scratch);
}

#endif /* PMPPLAB_HARNESS_GPU */
