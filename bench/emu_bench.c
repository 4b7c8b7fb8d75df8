/* emu_bench — the emulator's speed: thread-instructions per second on vector add (2^24),
 * tiled matmul (512x512), the same product on the tensor cores (wmma, f16) and a
 * shared-memory reduction (2^24), each against the same computation in plain C on one
 * core. Usage: emu_bench emu_bench.ptx [KERNEL]
 * KERNEL (vecAdd, matmulTiled, wmmaGemm or reduceShared) runs that one only, for
 * profiling. PMPPLAB_EMU_THREADS caps the emulator's worker threads (default: all
 * cores); PMPPLAB_EMU_RACECHECK=1 runs the launches under the race checker (race.h) and
 * PMPPLAB_TRACE=FILE with the panels' trace (trace.h), PMPPLAB_EMU_INITCHECK=1 with the
 * check of reads of memory nothing wrote (initcheck.h; the inputs here are put in place
 * without the runtime, so every launch reports one), to measure what they cost. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "initcheck.h"
#include "ptx.h"
#include "race.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process (all worker threads): the per-core figures use it, so
 * they hold on a machine shared with other work. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static devaddr_t dalloc(size_t n)
{
	devaddr_t a;
	if (devmem_alloc(n, DEVMEM_GLOBAL, "bench", &a)) {
		fprintf(stderr, "emu_bench: out of device memory\n");
		exit(1);
	}
	return a;
}

static unsigned g_workers;
static const char *g_only; /* run this kernel only, or NULL */

static int wanted(const char *kname)
{
	return !g_only || strcmp(g_only, kname) == 0;
}

/* emu_run, under the race checker when the environment asks for it. */
static int run_launch(const struct emu_launch *l, struct emu_fault *f)
{
	struct initcheck_finding unwritten;
	initcheck_launch_begin();
	if (!race_enabled_by_env()) {
		int rc = emu_run(l, f);
		initcheck_launch_end(&unwritten);
		return rc;
	}
	struct race_tracker *t = race_new(l);
	if (!t)
		return -1;
	int rc = race_run(t, f);
	race_free(t);
	initcheck_launch_end(&unwritten);
	return rc;
}

/* A small integer as an f16's bits. */
static uint16_t half_of(int v)
{
	if (v == 0)
		return 0;
	unsigned a = (unsigned)(v < 0 ? -v : v), e = 31 - (unsigned)__builtin_clz(a);
	return (uint16_t)((v < 0 ? 0x8000u : 0) | (e + 15) << 10 | ((a << (10 - e)) & 0x3ff));
}

/* Runs one launch and prints its line. Returns 0 or 1. */
static int bench(const struct ptx_module *m, const char *kname, struct emu_dim3 g,
		 struct emu_dim3 b, void **args, const char *label, double c_seconds)
{
	if (!wanted(kname))
		return 0;
	const struct ptx_kernel *k = NULL;
	for (unsigned i = 0; i < ptx_module_nkernels(m); i++)
		if (strstr(ptx_kernel_name(ptx_module_kernel_at(m, i)), kname))
			k = ptx_module_kernel_at(m, i);
	if (!k) {
		fprintf(stderr, "emu_bench: no kernel %s\n", kname);
		return 1;
	}
	struct emu_launch l = { m, k, g, b, 0, args };
	struct emu_fault f;
	uint64_t i0 = emu_thread_instructions();
	double t0 = now(), c0 = cpu_now();
	int rc = run_launch(&l, &f);
	double t = now() - t0, cpu = cpu_now() - c0;
	uint64_t n = emu_thread_instructions() - i0;
	if (rc) {
		fprintf(stderr, "emu_bench: %s failed: %s\n", label, f.message);
		return 1;
	}
	printf("%-22s emu %7.3f s wall, %7.3f s cpu (%u workers) | %6.4f G thread-insn | "
	       "%6.1f M thread-insn/s wall, %6.1f M/s per core (cpu) | plain C 1 core %7.4f s cpu "
	       "| emu cpu / C %6.1fx\n",
	       label, t, cpu, g_workers, (double)n / 1e9, (double)n / t / 1e6, (double)n / cpu / 1e6,
	       c_seconds, cpu / c_seconds);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: emu_bench emu_bench.ptx [vecAdd|matmulTiled|reduceShared]\n");
		return 2;
	}
	size_t len;
	char *text = slurp(argv[1], &len), err[512];
	struct ptx_module *m;
	if (!text || ptx_module_load(text, len, argv[1], &m, err, sizeof err)) {
		fprintf(stderr, "emu_bench: cannot load %s: %s\n", argv[1], text ? err : "unreadable");
		return 1;
	}
	g_only = argc > 2 ? argv[2] : NULL;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	const char *cap = getenv("PMPPLAB_EMU_THREADS");
	g_workers = (unsigned)(cap && atoi(cap) > 0 && atoi(cap) < cores ? atoi(cap) : cores);
	int fails = 0;

	/* vector add, 2^24 */
	int n = 1 << 24;
	devaddr_t a = dalloc((size_t)n * 4), b = dalloc((size_t)n * 4), c = dalloc((size_t)n * 4);
	float *ha = devmem_host(a, (size_t)n * 4), *hb = devmem_host(b, (size_t)n * 4);
	float *hc = devmem_host(c, (size_t)n * 4), *ref = malloc((size_t)n * 4);
	for (int i = 0; i < n; i++) {
		ha[i] = (float)(i % 1000);
		hb[i] = (float)(i % 777);
	}
	double t0 = cpu_now();
	for (int i = 0; i < n; i++)
		ref[i] = ha[i] + hb[i];
	double tc = cpu_now() - t0;
	void *va[] = { &a, &b, &c, &n };
	fails += bench(m, "vecAdd", (struct emu_dim3){ (unsigned)(n / 256), 1, 1 },
		       (struct emu_dim3){ 256, 1, 1 }, va, "vector add 2^24", tc);
	fails += wanted("vecAdd") && memcmp(hc, ref, (size_t)n * 4) != 0;

	/* tiled matmul 512x512 */
	int mn = 512;
	size_t mb = (size_t)mn * mn * 4;
	devaddr_t ma = dalloc(mb), mbb = dalloc(mb), mc = dalloc(mb);
	float *hma = devmem_host(ma, mb), *hmb = devmem_host(mbb, mb), *hmc = devmem_host(mc, mb);
	float *mref = malloc(mb);
	for (int i = 0; i < mn * mn; i++) {
		hma[i] = (float)(i % 7) - 3;
		hmb[i] = (float)(i % 5) - 2;
	}
	t0 = cpu_now();
	for (int r = 0; r < mn; r++)
		for (int col = 0; col < mn; col++) {
			float s = 0;
			for (int k = 0; k < mn; k++)
				s += hma[r * mn + k] * hmb[k * mn + col];
			mref[r * mn + col] = s;
		}
	tc = cpu_now() - t0;
	void *ma_args[] = { &ma, &mbb, &mc, &mn };
	fails += bench(m, "matmulTiled", (struct emu_dim3){ 32, 32, 1 }, (struct emu_dim3){ 16, 16, 1 },
		       ma_args, "tiled matmul 512x512", tc);
	fails += wanted("matmulTiled") && memcmp(hmc, mref, mb) != 0; /* small integers: exact in any order */

	/* the same product on the tensor cores: wmma, f16 inputs, f32 accumulator */
	size_t wbytes = (size_t)mn * mn * 2;
	devaddr_t wa = dalloc(wbytes), wb = dalloc(wbytes), wc = dalloc(mb);
	uint16_t *hwa = devmem_host(wa, wbytes), *hwb = devmem_host(wb, wbytes);
	float *hwc = devmem_host(wc, mb);
	for (int i = 0; i < mn * mn; i++) {
		hwa[i] = half_of((int)hma[i]);
		hwb[i] = half_of((int)hmb[i]);
	}
	void *wargs[] = { &wa, &wb, &wc, &mn };
	fails += bench(m, "wmmaGemm", (struct emu_dim3){ 16, 16, 1 }, (struct emu_dim3){ 128, 1, 1 },
		       wargs, "wmma gemm 512x512", tc);
	fails += wanted("wmmaGemm") && memcmp(hwc, mref, mb) != 0; /* exact on tensor cores too */

	/* shared-memory reduction, 2^24 */
	int nb = n / 256;
	devaddr_t ro = dalloc((size_t)nb * 4);
	float *hro = devmem_host(ro, (size_t)nb * 4);
	t0 = cpu_now();
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += ha[i];
	tc = cpu_now() - t0;
	void *ra[] = { &a, &ro, &n };
	fails += bench(m, "reduceShared", (struct emu_dim3){ (unsigned)nb, 1, 1 },
		       (struct emu_dim3){ 256, 1, 1 }, ra, "shared reduction 2^24", tc);
	double esum = 0;
	for (int i = 0; i < nb; i++)
		esum += hro[i];
	fails += wanted("reduceShared") && esum != sum;
	if (fails)
		fprintf(stderr, "emu_bench: %d wrong results\n", fails);
	free(ref);
	free(mref);
	free(text);
	ptx_module_free(m);
	return fails ? 1 : 0;
}
