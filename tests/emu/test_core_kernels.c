/* End-to-end tests of the emulator core: .cu kernels compiled to PTX by nvcc at build
 * time (tests/emu/core/), run with emu_run on devmem buffers, compared with answers
 * computed here: the labs' kernels, control flow, calls, warp operations, atomics,
 * integer and float operations, printf. Faults and the rest are in test_core_faults.c.
 * Usage: test_core_kernels LABS.ptx FLOW.ptx UNSUPPORTED.ptx CORE_DIR */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "emu_device.h"
#include "exec.h"
#include "ptx.h"
#include "schedule.h"
#include "trace.h"

#include "core_fixture.h"

/* ---- lab kernels ---------------------------------------------------------------- */

static void test_vecadd(void **state)
{
	(void)state;
	int n = 10007;
	devaddr_t a = dalloc(n * 4), b = dalloc(n * 4), c = dalloc(n * 4);
	float *ha = H(a, n * 4), *hb = H(b, n * 4), *hc = H(c, n * 4);
	for (int i = 0; i < n; i++) {
		ha[i] = (float)i * 0.5f;
		hb[i] = (float)(n - i);
	}
	void *args[] = { &a, &b, &c, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "vecAdd", D3((n + 255) / 256, 1, 1), D3(256, 1, 1), 0, args, &f), 0);
	for (int i = 0; i < n; i++)
		assert_true(hc[i] == ha[i] + hb[i]);
	devmem_free(a); devmem_free(b); devmem_free(c);
}

static void test_grid2d(void **state)
{
	(void)state;
	int rows = 37, cols = 53;
	devaddr_t in = dalloc(rows * cols * 4), out = dalloc(rows * cols * 4);
	int *hi = H(in, rows * cols * 4), *ho = H(out, rows * cols * 4);
	for (int i = 0; i < rows * cols; i++)
		hi[i] = i * 7 - 100;
	void *args[] = { &in, &out, &rows, &cols };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "grid2d", D3(4, 3, 1), D3(16, 16, 1), 0, args, &f), 0);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			assert_int_equal(ho[r * cols + c], hi[r * cols + c] * 2 + r - c);
	devmem_free(in); devmem_free(out);
}

static void test_matmul_tiled(void **state)
{
	(void)state;
	int n = 70;
	size_t bytes = (size_t)n * n * 4;
	devaddr_t a = dalloc(bytes), b = dalloc(bytes), c = dalloc(bytes);
	float *ha = H(a, bytes), *hb = H(b, bytes), *hc = H(c, bytes);
	for (int i = 0; i < n * n; i++) {
		ha[i] = (float)((i * 13) % 17) - 8;
		hb[i] = (float)((i * 7) % 11) - 5;
	}
	void *args[] = { &a, &b, &c, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "matmulTiled", D3(5, 5, 1), D3(16, 16, 1), 0, args, &f), 0);
	for (int r = 0; r < n; r++)
		for (int col = 0; col < n; col++) {
			float s = 0;
			for (int k = 0; k < n; k++)
				s += ha[r * n + k] * hb[k * n + col];
			assert_float_equal(hc[r * n + col], s, 1e-3);
		}
	devmem_free(a); devmem_free(b); devmem_free(c);
}

static void test_conv_constant(void **state)
{
	(void)state;
	int n = 1000;
	devaddr_t in = dalloc(n * 4), out = dalloc(n * 4), mask;
	size_t msz;
	assert_int_equal(ptx_module_symbol(g_labs, "c_mask", &mask, &msz), 0);
	assert_int_equal(msz, 36);
	float *hm = H(mask, 36), *hi = H(in, n * 4), *ho = H(out, n * 4);
	for (int k = 0; k < 9; k++)
		hm[k] = (float)(k + 1) / 8;
	for (int i = 0; i < n; i++)
		hi[i] = (float)(i % 10);
	void *args[] = { &in, &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "conv1d", D3(4, 1, 1), D3(256, 1, 1), 0, args, &f), 0);
	for (int i = 0; i < n; i++) {
		float s = 0;
		for (int k = 0; k < 9; k++) {
			int j = i + k - 4;
			if (j >= 0 && j < n)
				s += hm[k] * hi[j];
		}
		assert_float_equal(ho[i], s, 1e-4);
	}
	devmem_free(in); devmem_free(out);
}

static void test_conv_shared_address_wrap(void **state)
{
	(void)state;
	int w = 70, h = 40;
	devaddr_t in = dalloc(w * h * 4), out = dalloc(w * h * 4), filt;
	assert_int_equal(ptx_module_symbol(g_unsup, "c_filter", &filt, NULL), 0);
	float *hf = H(filt, 100), *hi = H(in, w * h * 4), *ho = H(out, w * h * 4);
	for (int k = 0; k < 25; k++)
		hf[k] = (float)(k % 7) - 2;
	for (int i = 0; i < w * h; i++)
		hi[i] = (float)(i % 13);
	void *args[] = { &in, &out, &w, &h };
	struct emu_fault f;
	assert_int_equal(launch(g_unsup, "convCachedHalo", D3(3, 2, 1), D3(32, 32, 1), 0, args, &f), 0);
	for (int r = 0; r < h; r++)
		for (int c = 0; c < w; c++) {
			float s = 0;
			for (int fr = 0; fr < 5; fr++)
				for (int fc = 0; fc < 5; fc++) {
					int y = r - 2 + fr, x = c - 2 + fc;
					if (y >= 0 && y < h && x >= 0 && x < w)
						s += hf[fr * 5 + fc] * hi[y * w + x];
				}
			assert_float_equal(ho[r * w + c], s, 1e-3);
		}
	devmem_free(in); devmem_free(out);
}

static void test_histogram_atomics(void **state)
{
	(void)state;
	int n = 100000;
	devaddr_t d = dalloc(n), bins = dalloc(64 * 4);
	unsigned char *hd = H(d, n);
	unsigned *hb = H(bins, 256), want[64] = { 0 };
	for (int i = 0; i < n; i++) {
		hd[i] = (unsigned char)((i * 31 + i / 7) & 0xff);
		want[hd[i] % 64]++;
	}
	void *args[] = { &d, &bins, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "histogram", D3(20, 1, 1), D3(256, 1, 1), 0, args, &f), 0);
	for (int b = 0; b < 64; b++)
		assert_int_equal(hb[b], want[b]);
	devmem_free(d); devmem_free(bins);
}

static void test_reduce_shuffle(void **state)
{
	(void)state;
	int n = 100003;
	devaddr_t in = dalloc(n * 4), out = dalloc(4);
	float *hi = H(in, n * 4), *ho = H(out, 4);
	double want = 0;
	for (int i = 0; i < n; i++) {
		hi[i] = (float)(i % 9);
		want += hi[i];
	}
	void *args[] = { &in, &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "reduceShfl", D3(30, 1, 1), D3(256, 1, 1), 8 * 4, args, &f), 0);
	assert_float_equal(*ho, want, 0.5);
	devmem_free(in); devmem_free(out);
}

static void test_reduce_shared(void **state)
{
	(void)state;
	int n = 5000, nb = (n + 255) / 256;
	devaddr_t in = dalloc(n * 4), out = dalloc(nb * 4);
	int *hi = H(in, n * 4), *ho = H(out, nb * 4);
	for (int i = 0; i < n; i++)
		hi[i] = i % 100 - 30;
	void *args[] = { &in, &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "reduceShared", D3(nb, 1, 1), D3(256, 1, 1), 0, args, &f), 0);
	for (int b = 0; b < nb; b++) {
		int s = 0;
		for (int i = b * 256; i < n && i < (b + 1) * 256; i++)
			s += hi[i];
		assert_int_equal(ho[b], s);
	}
	devmem_free(in); devmem_free(out);
}

static void test_scan(void **state)
{
	(void)state;
	int n = 200;
	devaddr_t in = dalloc(n * 4), out = dalloc(n * 4);
	int *hi = H(in, n * 4), *ho = H(out, n * 4);
	for (int i = 0; i < n; i++)
		hi[i] = (i * 5) % 13 - 6;
	void *args[] = { &in, &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "scanBlock", D3(1, 1, 1), D3(256, 1, 1), 0, args, &f), 0);
	int s = 0;
	for (int i = 0; i < n; i++) {
		s += hi[i];
		assert_int_equal(ho[i], s);
	}
	devmem_free(in); devmem_free(out);
}

static void test_transpose(void **state)
{
	(void)state;
	int w = 70, h = 45;
	devaddr_t in = dalloc(w * h * 4), out = dalloc(w * h * 4);
	float *hi = H(in, w * h * 4), *ho = H(out, w * h * 4);
	for (int i = 0; i < w * h; i++)
		hi[i] = (float)i;
	void *args[] = { &in, &out, &w, &h };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "transposeTiled", D3(3, 2, 1), D3(32, 8, 1), 0, args, &f), 0);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			assert_true(ho[x * h + y] == hi[y * w + x]);
	devmem_free(in); devmem_free(out);
}

static void test_grid3d_global_symbol(void **state)
{
	(void)state;
	devaddr_t cnt;
	assert_int_equal(ptx_module_symbol(g_labs, "g_counter", &cnt, NULL), 0);
	*(int *)H(cnt, 4) = 0;
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "countBlocks", D3(4, 3, 2), D3(64, 1, 1), 0, NULL, &f), 0);
	assert_int_equal(*(int *)H(cnt, 4), 24);
}

/* ---- control flow, calls, warp operations --------------------------------------- */

static int collatz_steps(int k)
{
	int v = 0;
	while (k > 1) {
		k = (k % 2) ? 3 * k + 1 : k / 2;
		v++;
	}
	return v;
}

static void test_divergence(void **state)
{
	(void)state;
	int n = 1000;
	devaddr_t out = dalloc(n * 4);
	int *ho = H(out, n * 4);
	void *args[] = { &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "divergence", D3(8, 1, 1), D3(128, 1, 1), 0, args, &f), 0);
	for (int t = 0; t < n; t++) {
		int v = 0;
		if (t % 2 == 0)
			v += t % 4 == 0 ? 100 : 200;
		else if (t % 3 == 0)
			v += 300;
		for (int i = 0; i < t % 7; i++)
			v += i;
		for (int i = 0; i < 100; i++) {
			if (i == t % 13)
				break;
			if (i % 2)
				continue;
			v += 1000;
		}
		v += collatz_steps(t);
		if (t % 5 == 4) {
			assert_int_equal(ho[t], -v);
			continue;
		}
		/* the lanes of the warp that reconverged here: in range, not returned */
		int active = 0;
		for (int u = t / 32 * 32; u < t / 32 * 32 + 32; u++)
			active += u < n && u % 5 != 4;
		assert_int_equal(ho[t], v + active);
	}
	devmem_free(out);
}

/* issue 18: %clock64 counts cycles at the emulated device's clock rate, %globaltimer
 * nanoseconds (exec_loop.c), neither going back in a warp's reads; two warps a block,
 * two blocks. */
static void test_clocks(void **state)
{
	(void)state;
	int n = 128;
	devaddr_t cy = dalloc(n * 8), ns = dalloc(n * 8), back = dalloc(n * 4);
	long long *hc = H(cy, n * 8);
	unsigned long long *hn = H(ns, n * 8);
	int *hb = H(back, n * 4);
	void *args[] = { &cy, &ns, &back };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "clocks", D3(2, 1, 1), D3(64, 1, 1), 0, args, &f), 0);
	double ghz = emu_device_current(NULL)->clock_khz / 1e6;
	for (int t = 0; t < n; t++) {
		assert_int_equal(hb[t], 0);
		assert_true(hn[t] >= 100000); /* a close pair after 0.1 ms */
		double ratio = (double)hc[t] / (double)hn[t];
		if (fabs(ratio - ghz) > 0.02 * ghz)
			fail_msg("thread %d: %lld cycles in %llu ns, %.3f GHz; the device's clock is %.3f GHz",
				 t, hc[t], hn[t], ratio, ghz);
	}
	devmem_free(cy); devmem_free(ns); devmem_free(back);
}

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void test_calls_recursion(void **state)
{
	(void)state;
	int n = 100;
	devaddr_t a = dalloc(n * 4), out = dalloc(n * 4), fibs = dalloc(n * 4);
	float *ha = H(a, n * 4), *ho = H(out, n * 4);
	int *hf = H(fibs, n * 4);
	for (int i = 0; i < n; i++)
		ha[i] = (float)i / 4;
	void *args[] = { &a, &out, &fibs, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "calls", D3(2, 1, 1), D3(64, 1, 1), 0, args, &f), 0);
	for (int t = 0; t < n; t++) {
		float want = (t & 1) ? ha[t] * (float)t + 2.0f : ha[t] - 2.0f * (float)t;
		assert_float_equal(ho[t], want, 1e-5);
		assert_int_equal(hf[t], fib(t % 12));
	}
	devmem_free(a); devmem_free(out); devmem_free(fibs);
}

static void test_warp_ops(void **state)
{
	(void)state;
	int nt = 64;
	devaddr_t in = dalloc(nt * 4), out = dalloc(nt * 40);
	int *hi = H(in, nt * 4);
	unsigned *ho = H(out, nt * 40);
	for (int t = 0; t < nt; t++)
		hi[t] = (t * 37) % 101;
	hi[40] = 7;
	void *args[] = { &in, &out };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "warpOps", D3(1, 1, 1), D3(nt, 1, 1), 0, args, &f), 0);
	for (int t = 0; t < nt; t++) {
		int w0 = t / 32 * 32, lane = t % 32;
		unsigned ballot = 0, any7 = 0, match = 0;
		for (int k = 0; k < 32; k++) {
			ballot |= (unsigned)(hi[w0 + k] > 50) << k;
			any7 |= hi[w0 + k] == 7;
			match |= (unsigned)(hi[w0 + k] % 4 == hi[t] % 4) << k;
		}
		const unsigned *o = ho + t * 10;
		assert_int_equal(o[0], ballot);
		assert_int_equal(o[1], any7);
		assert_int_equal(o[2], 1);
		assert_int_equal(o[3], (unsigned)hi[w0 + 3]);
		assert_int_equal(o[4], (unsigned)hi[lane >= 2 ? t - 2 : t]);
		assert_int_equal(o[5], (unsigned)hi[lane + 5 < 32 ? t + 5 : t]);
		assert_int_equal(o[6], (unsigned)hi[w0 + (lane ^ 9)]);
		/* width 8: source lane (lane+1) within the lane's group of 8 */
		assert_int_equal(o[7], (unsigned)hi[w0 + (lane & ~7) + ((lane + 1) & 7)]);
		assert_int_equal(o[8], match);
		assert_int_equal(o[9], lane % 3 == 0 ? 0x49249249u : 0);
	}
	devmem_free(in); devmem_free(out);
}

static void test_atomics(void **state)
{
	(void)state;
	devaddr_t iv = dalloc(5 * 4), uv = dalloc(6 * 4), fv = dalloc(4), dv = dalloc(16);
	int *hi = H(iv, 20);
	unsigned *hu = H(uv, 24);
	float *hf = H(fv, 4);
	double *hd = H(dv, 16);
	hi[0] = 0; hi[1] = 0; hi[2] = 1 << 30; hi[3] = -5; hi[4] = 0;
	hu[0] = 0xffffffffu; hu[1] = 0; hu[2] = 0; hu[3] = 0; hu[4] = 0; hu[5] = 0;
	hf[0] = 1.0f;
	hd[0] = 0; hd[1] = 0;
	void *args[] = { &iv, &uv, &fv, &dv };
	struct emu_fault f;
	int nb = 4, nt = 128, total = nb * nt;
	assert_int_equal(launch(g_flow, "atomics", D3(nb, 1, 1), D3(nt, 1, 1), 0, args, &f), 0);
	assert_int_equal(hi[0], total * (total - 1) / 2);
	assert_int_equal(hi[1], -total);
	assert_int_equal(hi[2], 1000 - (total - 1));
	assert_int_equal(hi[3], (total - 1) * 3);
	assert_int_equal(hi[4], nb * nt * 2);
	assert_int_equal(hu[0], 0);
	assert_int_equal(hu[1], 0xffffffffu);
	unsigned x = 0;
	for (int t = 0; t < total; t++)
		x ^= (unsigned)t;
	assert_int_equal(hu[2], x);
	assert_int_equal(hu[3], total % 17); /* inc wraps at 16: values 0..16 */
	/* dec from 0: 0 -> 16 -> 15 ... -> 0 -> 16: after total steps */
	unsigned d = 0;
	for (int t = 0; t < total; t++)
		d = (d == 0 || d > 16) ? 16 : d - 1;
	assert_int_equal(hu[4], d);
	assert_int_equal(hu[5], 77);
	assert_float_equal(hf[0], 1.0f + 0.5f * total, 1e-6);
	assert_float_equal(hd[0], 0.25 * total, 1e-12);
	assert_float_equal(hd[1], (double)total, 1e-12);
	devmem_free(iv); devmem_free(uv); devmem_free(fv); devmem_free(dv);
}

/* issue 18: the lanes of a warp on one address (exec_arith.c's atom_warp, one update for
 * all of them): each lane's old value is the one lane order gives; a full warp and 21
 * lanes of one. */
static void test_atomic_olds(void **state)
{
	(void)state;
	for (int n = 32; n >= 21; n -= 11) {
		devaddr_t wv = dalloc(8 * 4), xv = dalloc(8), ov = dalloc(7 * 32 * 4);
		unsigned *hw = H(wv, 32), *ho = H(ov, 7 * 32 * 4);
		long long *hx = H(xv, 8);
		memset(hw, 0, 32);
		*hx = 5;
		void *args[] = { &wv, &xv, &ov, &n };
		struct emu_fault f;
		assert_int_equal(launch(g_flow, "atomicOlds", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f), 0);
		unsigned add = 0, inc = 0, cas = 0, exch = 0, mx = 0, or = 0;
		unsigned long long wide = 5;
		for (unsigned t = 0; t < (unsigned)n; t++) {
			assert_int_equal(ho[0 * 32 + t], add);
			add += t + 1;
			assert_int_equal(ho[1 * 32 + t], inc);
			inc = inc >= 5 ? 0 : inc + 1;
			assert_int_equal(ho[2 * 32 + t], cas);
			cas = cas == t ? t + 1 : cas;
			assert_int_equal(ho[3 * 32 + t], exch);
			exch = t * 7;
			assert_int_equal(ho[4 * 32 + t], mx);
			unsigned v = t % 3 == 0 ? 100 - t : t;
			mx = mx > v ? mx : v;
			assert_int_equal(ho[5 * 32 + t], or);
			or |= 1u << t;
			assert_int_equal(ho[6 * 32 + t], (unsigned)wide);
			wide += 1ull << 33;
		}
		assert_int_equal(hw[0], add);
		assert_int_equal(hw[1], inc);
		assert_int_equal(hw[2], cas);
		assert_int_equal(hw[3], exch);
		assert_int_equal(hw[4], mx);
		assert_int_equal(hw[5], or);
		assert_int_equal(hw[6], 2u * n);
		assert_true((unsigned long long)*hx == wide);
		devmem_free(wv); devmem_free(xv); devmem_free(ov);
	}
}

/* issue 18: a parameter's array indexed at run time, uniformly and per lane */
static void test_param_index(void **state)
{
	(void)state;
	struct { int v[300]; } t;
	int n = 300, sum = 0;
	for (int i = 0; i < 300; i++)
		sum += t.v[i] = i * i - 1000;
	devaddr_t out = dalloc(64 * 4);
	int *ho = H(out, 64 * 4);
	void *args[] = { &t, &n, &out };
	struct emu_fault f;
	/* the -O0 build (sm_75) reads it through its generic address (cvta.param) */
	assert_int_equal(launch(g_flow, "paramIndex", D3(1, 1, 1), D3(64, 1, 1), 0, args, &f), 0);
	for (int l = 0; l < 64; l++)
		assert_int_equal(ho[l], sum + t.v[(l * 7) % n]);
	devmem_free(out);
}

static void test_int_ops(void **state)
{
	(void)state;
	static const int av[] = { 7, -7, 100000, -2147483647 - 1, 0, 123456789, -1, 65535, 31, 1 << 20 };
	static const int bv[] = { 2, 2, -3, -1, 5, 0, 7, -65536, 33, 1 << 12 };
	int n = 10;
	devaddr_t a = dalloc(n * 4), b = dalloc(n * 4), out = dalloc(n * 64);
	memcpy(H(a, n * 4), av, sizeof av);
	memcpy(H(b, n * 4), bv, sizeof bv);
	int *ho = H(out, n * 64);
	void *args[] = { &a, &b, &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "intOps", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f), 0);
	for (int t = 0; t < n; t++) {
		int x = av[t], y = bv[t];
		unsigned ux = (unsigned)x, uy = (unsigned)y;
		const int *o = ho + t * 16;
		if (y && !(x == -2147483647 - 1 && y == -1)) {
			assert_int_equal(o[0], x / y);
			assert_int_equal(o[1], x % y);
		}
		if (uy) {
			assert_int_equal(o[2], (int)(ux / uy));
			assert_int_equal(o[3], (int)(ux % uy));
		}
		assert_int_equal(o[4], (int)(((long long)x * y) >> 32));
		assert_int_equal(o[5], (int)(((unsigned long long)ux * uy) >> 32));
		assert_int_equal(o[6], __builtin_popcount(ux));
		assert_int_equal(o[7], ux ? __builtin_clz(ux) : 32);
		unsigned r = 0;
		for (int i = 0; i < 32; i++)
			r |= (ux >> i & 1) << (31 - i);
		assert_int_equal((unsigned)o[8], r);
		unsigned long long xy = ((unsigned long long)uy << 32) | ux, bp = 0;
		for (int i = 0; i < 4; i++)
			bp |= ((xy >> (((0x3715 >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
		assert_int_equal((unsigned)o[9], (unsigned)bp);
		unsigned sh = (unsigned)y & 31;
		assert_int_equal((unsigned)o[10], (unsigned)((xy << sh) >> 32));
		assert_int_equal(o[11], x >> sh);
		assert_int_equal((unsigned)o[12], ux >> sh);
		assert_int_equal(o[13], (int)((unsigned)(x < y ? x : y) + (unsigned)(x > y ? x : y) * 3u));
		assert_int_equal(o[14], (int)((unsigned)(x < 0 ? -(unsigned)x : (unsigned)x) ^ (ux << 3)));
		assert_int_equal(o[15], (int)(((long long)x * y) >> 7));
	}
	devmem_free(a); devmem_free(b); devmem_free(out);
}

static int round_even(float x)
{
	return (int)nearbyintf(x);
}

static void test_float_ops(void **state)
{
	(void)state;
	static const float av[] = { 2.5f, -2.5f, 3.7f, -0.2f, 1.5f, 0.75f, 1e-3f, 100.25f };
	static const float bv[] = { 3.0f, 0.5f, -1.25f, 8.0f, 1.5f, -0.75f, 7.0f, 0.1f };
	int n = 8;
	devaddr_t a = dalloc(n * 4), b = dalloc(n * 4), out = dalloc(n * 32), iout = dalloc(n * 24),
		  dout = dalloc(n * 24);
	memcpy(H(a, n * 4), av, sizeof av);
	memcpy(H(b, n * 4), bv, sizeof bv);
	float *ho = H(out, n * 32);
	int *hi = H(iout, n * 24);
	double *hd = H(dout, n * 24);
	void *args[] = { &a, &b, &out, &iout, &dout, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "floatOps", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f), 0);
	for (int t = 0; t < n; t++) {
		float x = av[t], y = bv[t];
		const float *o = ho + t * 8;
		assert_float_equal(o[0], x * y + x, 1e-6);
		assert_float_equal(o[1], x / y, 1e-6);
		assert_float_equal(o[2], sqrtf(fabsf(x)), 1e-6);
		assert_float_equal(o[3], fminf(x, y) - fmaxf(x, y), 1e-6);
		assert_float_equal(o[4], x < 0 ? 0 : x > 1 ? 1 : x, 0);
		assert_float_equal(o[5], (float)(int)x, 0);
		assert_float_equal(o[6], x, fabsf(x) * 1e-3 + 1e-4); /* half precision */
		assert_float_equal(o[7], 1.0f / sqrtf(fabsf(y) + 1.0f), 1e-5);
		const int *io = hi + t * 6;
		assert_int_equal(io[0], round_even(x));
		assert_int_equal(io[1], (int)x);
		assert_int_equal(io[2], (int)floorf(x));
		assert_int_equal(io[3], (int)ceilf(x));
		assert_int_equal(io[4], x < 0 ? 0 : round_even(x));
		assert_int_equal(io[5], x < y);
		double dx = x, dy = y;
		assert_float_equal(hd[t * 3], dx / dy, 1e-15);
		assert_float_equal(hd[t * 3 + 1], sqrt(fabs(dx)) + dx * dy, 1e-12);
		assert_float_equal(hd[t * 3 + 2], (double)(long long)(dx * 1000.0), 0);
	}
	devmem_free(a); devmem_free(b); devmem_free(out); devmem_free(iout); devmem_free(dout);
}

static void test_printf(void **state)
{
	(void)state;
	FILE *cap = tmpfile();
	assert_non_null(cap);
	emu_set_printf_stream(cap);
	int n = 3;
	void *args[] = { &n };
	struct emu_fault f;
	int rc = launch(g_flow, "printer", D3(2, 1, 1), D3(32, 1, 1), 0, args, &f);
	emu_set_printf_stream(NULL);
	assert_int_equal(rc, 0);
	char got[2048] = { 0 }, want[2048] = { 0 };
	rewind(cap);
	size_t len = fread(got, 1, sizeof got - 1, cap);
	got[len] = 0;
	fclose(cap);
	size_t o = 0;
	for (int b = 0; b < 2; b++)
		for (int t = 0; t < n; t++)
			o += (size_t)snprintf(want + o, sizeof want - o,
					      "block %d thread %d: %d %5.2f %s %c %x %lld\n", b, t,
					      t * t, t * 0.5, "ok", 'A' + t, 255 + t, 1LL << (40 + t));
	assert_string_equal(got, want);
}

/* The warps' order in each round between barriers (exec.c block_step): forward and
 * reverse the same every round, random drawn again every round. */
static void test_warp_order_each_round(void **state)
{
	(void)state;
	enum { NW = 8, ROUNDS = 6 };
	devaddr_t tk = dalloc(NW * ROUNDS * 4), ctr = dalloc(ROUNDS * 4);
	unsigned *t = H(tk, NW * ROUNDS * 4), *c = H(ctr, ROUNDS * 4);
	int rounds = ROUNDS;
	void *args[] = { &tk, &ctr, &rounds };
	const char *orders[] = { "forward", "reverse", "random:7" };
	for (int o = 0; o < 3; o++) {
		struct emu_schedule s;
		assert_int_equal(emu_schedule_parse(orders[o], &s), 0);
		emu_set_schedule(&s);
		memset(c, 0, ROUNDS * 4);
		struct emu_fault f;
		int rc = launch(g_flow, "warpTickets", D3(1, 1, 1), D3(NW * 32, 1, 1), 0, args, &f);
		emu_set_schedule(NULL);
		assert_int_equal(rc, 0);
		int same_as_first = 1;
		for (int r = 0; r < ROUNDS; r++) {
			unsigned seen = 0;
			for (unsigned w = 0; w < NW; w++) {
				unsigned want = o == 0 ? w : NW - 1 - w, got = t[r * NW + w];
				if (o < 2 && got != want)
					fail_msg("%s, round %d: warp %u ran as number %u, not %u", orders[o], r, w, got, want);
				seen |= 1u << got;
				same_as_first &= got == t[w];
			}
			assert_int_equal(seen, (1u << NW) - 1); /* each warp once a round */
		}
		if (o == 2 && same_as_first)
			fail_msg("random: the same order in all %d rounds (drawn once, not every round)", ROUNDS);
	}
	devmem_free(tk);
	devmem_free(ctr);
}

int main(int argc, char **argv)
{
	if (!core_args(argc, argv))
		return 2;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vecadd),
		cmocka_unit_test(test_grid2d),
		cmocka_unit_test(test_matmul_tiled),
		cmocka_unit_test(test_conv_constant),
		cmocka_unit_test(test_conv_shared_address_wrap),
		cmocka_unit_test(test_histogram_atomics),
		cmocka_unit_test(test_reduce_shuffle),
		cmocka_unit_test(test_reduce_shared),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_transpose),
		cmocka_unit_test(test_grid3d_global_symbol),
		cmocka_unit_test(test_divergence),
		cmocka_unit_test(test_clocks),
		cmocka_unit_test(test_calls_recursion),
		cmocka_unit_test(test_warp_ops),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_atomic_olds),
		cmocka_unit_test(test_param_index),
		cmocka_unit_test(test_int_ops),
		cmocka_unit_test(test_float_ops),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_warp_order_each_round),
	};
	return cmocka_run_group_tests(tests, core_setup, core_teardown);
}
