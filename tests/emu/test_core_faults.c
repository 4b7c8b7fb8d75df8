/* End-to-end tests of the emulator core, continued (see test_core_kernels.c): faults
 * (out of bounds, traps, asserts, barriers after an early return), bit operations,
 * half-warp votes, extern shared memory, the trace's active lanes, features it refuses
 * and bad launches. Usage: test_core_faults LABS.ptx FLOW.ptx UNSUPPORTED.ptx CORE_DIR */
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

#include "exec.h"
#include "ptx.h"
#include "trace.h"

#include "core_fixture.h"

/* ---- faults --------------------------------------------------------------------- */

static void test_out_of_bounds(void **state)
{
	(void)state;
	devaddr_t a = dalloc(100 * 4);
	int n = 100;
	void *args[] = { &a, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "oob", D3(1, 1, 1), D3(128, 1, 1), 0, args, &f), -EFAULT);
	assert_int_equal(f.kind, EMU_FAULT_OOB);
	assert_int_equal(f.thread.x, 100);
	assert_int_equal(f.block.x, 0);
	assert_int_equal(f.is_write, 1);
	assert_int_equal(f.size, 4);
	assert_int_equal(f.addr, a + 400);
	assert_int_equal(f.line, source_line("core_flow.cu", "OOB_LINE"));
	assert_non_null(f.file);
	assert_non_null(strstr(f.file, "core_flow.cu"));
	assert_non_null(strstr(f.message, "0 bytes past the end of a 400-byte allocation"));
	/* freed memory */
	devmem_free(a);
	assert_int_equal(launch(g_flow, "oob", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f), -EFAULT);
	assert_non_null(strstr(f.message, "freed"));
	/* a host pointer */
	float host[4];
	devaddr_t hp = (devaddr_t)(uintptr_t)host;
	void *args2[] = { &hp, &n };
	assert_int_equal(launch(g_flow, "oob", D3(1, 1, 1), D3(1, 1, 1), 0, args2, &f), -EFAULT);
	assert_non_null(strstr(f.message, "host pointer"));
}

static void test_shared_out_of_bounds(void **state)
{
	(void)state;
	devaddr_t out = dalloc(64 * 4);
	int k = 4000;
	void *args[] = { &out, &k };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "sharedOob", D3(1, 1, 1), D3(64, 1, 1), 0, args, &f), -EFAULT);
	assert_int_equal(f.kind, EMU_FAULT_OOB);
	assert_int_equal(f.is_write, 0);
	assert_non_null(strstr(f.message, "shared memory"));
	assert_non_null(strstr(f.message, "past the end of shared array s[256 bytes]"));
	/* just past its own array, where another kernel's array of the module lies: its
	 * shared memory is only what it names, as on a GPU */
	k = 64;
	assert_int_equal(launch(g_flow, "sharedOob", D3(1, 1, 1), D3(64, 1, 1), 0, args, &f), -EFAULT);
	assert_non_null(strstr(f.message, "0 bytes past the end of shared array s[256 bytes]"));
	k = 0;
	assert_int_equal(launch(g_flow, "sharedOob", D3(1, 1, 1), D3(64, 1, 1), 0, args, &f), 0);
	assert_int_equal(((int *)H(out, 256))[63], 63);
	devmem_free(out);
}

/* Each shared array is checked on its own: one element past the first of two arrays
 * (a loop bound `i <= 64`) faults, as compute-sanitizer cannot tell (the bytes are the
 * block's), instead of writing into the second; the dynamic shared memory is one
 * window, with nothing past it. */
static void test_shared_per_array(void **state)
{
	(void)state;
	devaddr_t out = dalloc(64 * 4);
	int last = 64, k = 0;
	void *args[] = { &out, &last, &k };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "sharedTwoArrays", D3(1, 1, 1), D3(64, 1, 1), 0, args, &f),
			 -EFAULT);
	assert_int_equal(f.kind, EMU_FAULT_OOB);
	assert_int_equal(f.is_write, 1);
	assert_int_equal(f.thread.x, 0);
	assert_int_equal(f.line, source_line("core_flow.cu", "SHARED_STAGE_LINE"));
	assert_non_null(strstr(f.message, "wrote 4 bytes of shared memory"));
	assert_non_null(strstr(f.message, "0 bytes past the end of shared array a[256 bytes]"));
	last = 63; /* right, but a read one before a[] */
	k = -1;
	assert_int_equal(launch(g_flow, "sharedTwoArrays", D3(1, 1, 1), D3(64, 1, 1), 0, args, &f),
			 -EFAULT);
	assert_int_equal(f.is_write, 0);
	assert_non_null(strstr(f.message, "4 bytes before the start of shared array a[256 bytes]"));
	k = 0;
	assert_int_equal(launch(g_flow, "sharedTwoArrays", D3(1, 1, 1), D3(64, 1, 1), 0, args, &f), 0);
	assert_int_equal(((int *)H(out, 256))[63], 64);
	/* dynamic: all of its 64 ints, then one past them */
	int n = 64;
	void *dargs[] = { &out, &n };
	assert_int_equal(launch(g_flow, "sharedDynamicEnd", D3(1, 1, 1), D3(64, 1, 1), 64 * 4,
				dargs, &f), 0);
	assert_int_equal(((int *)H(out, 256))[63], 63);
	n = 65;
	assert_int_equal(launch(g_flow, "sharedDynamicEnd", D3(1, 1, 1), D3(64, 1, 1), 64 * 4,
				dargs, &f), -EFAULT);
	assert_non_null(strstr(f.message, "0 bytes past the end of the dynamic shared memory "
					  "dyn2[256 bytes]"));
	devmem_free(out);
}

static void test_trap_assert_barrier(void **state)
{
	(void)state;
	devaddr_t p = dalloc(64 * 4);
	void *args[] = { &p };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "trapper", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f), -ECANCELED);
	assert_int_equal(f.kind, EMU_FAULT_TRAP);
	assert_int_equal(f.thread.x, 5);
	memset(H(p, 256), 0, 256);
	assert_int_equal(launch(g_flow, "asserter", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f), 0);
	((int *)H(p, 256))[9] = 1;
	assert_int_equal(launch(g_flow, "asserter", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f), -ECANCELED);
	assert_int_equal(f.kind, EMU_FAULT_TRAP);
	assert_int_equal(f.thread.x, 9);
	assert_non_null(strstr(f.message, "assert"));
	assert_int_equal(launch(g_flow, "barrierDivergent", D3(1, 1, 1), D3(64, 1, 1), 0, args, &f),
			 -EDEADLK);
	assert_int_equal(f.kind, EMU_FAULT_BARRIER);
	devmem_free(p);
}

/* `if (i >= n) return;` before __syncthreads(): the returning lanes exit, as on Volta
 * and later GPUs, also when the return splits a warp (n = 200: warp 6 of block 1);
 * under the race checker's strict view the same launch stops at the barrier. */
static void test_early_return_sync(void **state)
{
	(void)state;
	int n = 200;
	devaddr_t in = dalloc(256 * 4), out = dalloc(256 * 4);
	int *hi = H(in, 256 * 4), *ho = H(out, 256 * 4);
	for (int i = 0; i < 256; i++) {
		hi[i] = i * 3 + 1;
		ho[i] = -5;
	}
	void *args[] = { &in, &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "earlyReturnSync", D3(2, 1, 1), D3(128, 1, 1), 0, args, &f), 0);
	for (int i = 0; i < 256; i++) {
		int j = i ^ 1;
		assert_int_equal(ho[i], i >= n ? -5 : j < n ? hi[j] : -1);
	}
	static const struct emu_hooks strict = { .strict_exits = 1 };
	emu_set_hooks(&strict);
	int rc = launch(g_flow, "earlyReturnSync", D3(2, 1, 1), D3(128, 1, 1), 0, args, &f);
	emu_set_hooks(NULL);
	assert_int_equal(rc, -EDEADLK);
	assert_int_equal(f.kind, EMU_FAULT_BARRIER);
	assert_int_equal(f.block.x, 1);
	devmem_free(in);
	devmem_free(out);
}

/* bmsk as the PTX ISA defines it: b bits from bit a; .clamp caps a and b at 32,
 * .wrap takes them modulo 32. */
static unsigned bmsk_ref(unsigned a, unsigned b, int wrap)
{
	unsigned a1 = a & 31, b1 = b & 31, sum = a1 + b1;
	unsigned mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
	int overflow = sum >= 32 || (!wrap && (a >= 32 || b >= 32));
	if (!wrap && a >= 32)
		mask0 = 0;
	mask1 = overflow ? 0 : b1 == 0 ? ~0u : mask1;
	return mask0 & ~mask1;
}

/* __ffs (brev + bfind.shiftamt), __ffsll, bmsk.clamp/.wrap and warpSize (WARP_SZ). */
static void test_bit_ops(void **state)
{
	(void)state;
	int n = 200;
	devaddr_t in = dalloc(n * 4), out = dalloc(n * 24);
	unsigned *hi = H(in, n * 4), *ho = H(out, n * 24);
	for (int t = 0; t < n; t++)
		hi[t] = t < 8 ? (t ? 1u << (t * 4) : 0) : (unsigned)t * 2654435761u;
	hi[8] = 0x80000000u;
	hi[9] = 32 | (32 << 6); /* a = 32, b = 32 */
	hi[10] = 5 | (0 << 6);  /* b = 0 */
	hi[11] = 33 | (40 << 6);
	void *args[] = { &in, &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "bitOps", D3(1, 1, 1), D3(256, 1, 1), 0, args, &f), 0);
	for (int t = 0; t < n; t++) {
		unsigned x = hi[t], a = x & 63, b = (x >> 6) & 63;
		unsigned long long wide = (unsigned long long)x << (t % 40);
		const unsigned *o = ho + t * 6;
		assert_int_equal(o[0], (unsigned)__builtin_ffs((int)x));
		assert_int_equal(o[1], (unsigned)__builtin_ffsll((long long)wide));
		assert_int_equal(o[2], bmsk_ref(a, b, 0));
		assert_int_equal(o[3], bmsk_ref(a, b, 1));
		assert_int_equal(o[4], 32);
		assert_int_equal(o[5], (unsigned)t % 32);
	}
	devmem_free(in);
	devmem_free(out);
}

/* __ballot_sync & co. with a member mask per half warp: each half votes alone. */
static void test_half_warp_votes(void **state)
{
	(void)state;
	int nt = 64;
	devaddr_t in = dalloc(nt * 4), out = dalloc(nt * 20);
	int *hi = H(in, nt * 4);
	unsigned *ho = H(out, nt * 20);
	for (int t = 0; t < nt; t++)
		hi[t] = (t * 37) % 101;
	hi[3] = 7;     /* one 7 in the first half of warp 0 */
	hi[40] = -1;   /* one negative in the first half of warp 1 */
	hi[60] = 5000; /* match_all fails in the second half of warp 1 */
	void *args[] = { &in, &out };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "halfWarpVotes", D3(1, 1, 1), D3(nt, 1, 1), 0, args, &f), 0);
	for (int t = 0; t < nt; t++) {
		int h0 = t / 16 * 16;
		unsigned half = (t & 31) < 16 ? 0x0000ffffu : 0xffff0000u;
		unsigned ballot = 0, match = 0;
		int all = 1, any = 0, same = 1;
		for (int k = h0; k < h0 + 16; k++) {
			unsigned bit = 1u << (k & 31);
			ballot |= hi[k] > 50 ? bit : 0;
			match |= hi[k] % 3 == hi[t] % 3 ? bit : 0;
			all &= hi[k] >= 0;
			any |= hi[k] == 7;
			same &= (hi[k] < 1000) == (hi[h0] < 1000);
		}
		const unsigned *o = ho + t * 5;
		assert_int_equal(o[0], ballot);
		assert_int_equal(o[1], all);
		assert_int_equal(o[2], any);
		assert_int_equal(o[3], match);
		assert_int_equal(o[4], same ? half + 1 : 0);
	}
	devmem_free(in);
	devmem_free(out);
}

/* extern __shared__ next to static __shared__: a literal 0 stays 0. */
static void test_extern_shared_zero(void **state)
{
	(void)state;
	int n = 4;
	devaddr_t out = dalloc(n * 4);
	int *ho = H(out, n * 4);
	void *args[] = { &out, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "externZero", D3(1, 1, 1), D3(32, 1, 1), 32 * 4, args, &f), 0);
	assert_int_equal(ho[0], 100);
	for (int i = 1; i < n; i++)
		assert_int_equal(ho[i], 7);
	devmem_free(out);
}

/* A function pointer that is not one: data called as a function stops the kernel with
 * the GPU's invalid program counter at the call's line; a function read as data is an
 * out-of-bounds access that names it. */
static void test_bad_function_pointer(void **state)
{
	(void)state;
	devaddr_t data = dalloc(64), out = dalloc(32 * 4);
	void *args[] = { &data, &out };
	struct emu_fault f;
	assert_int_equal(launch(g_flow, "callData", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f),
			 -EFAULT);
	assert_int_equal(f.kind, EMU_FAULT_PC);
	assert_int_equal(f.line, source_line("core_flow.cu", "ICALL_LINE"));
	assert_non_null(strstr(f.message, "call through a pointer that is not a device function"));
	assert_non_null(strstr(f.message, ", data)"));
	void *args2[] = { &out };
	assert_int_equal(launch(g_flow, "readFunction", D3(1, 1, 1), D3(1, 1, 1), 0, args2, &f),
			 -EFAULT);
	assert_int_equal(f.kind, EMU_FAULT_OOB);
	assert_int_equal(f.line, source_line("core_flow.cu", "FNREAD_LINE"));
	assert_non_null(strstr(f.message, "the address of a device function (code, not data)"));
	devmem_free(data);
	devmem_free(out);
}

/* The warp panel's SIMT efficiency: `if (i < n)` with every lane in range is no
 * divergence, so the trace counts all 32 lanes of every instruction, the guarded
 * branch whose predicate is false everywhere included. */
static void test_trace_active_lanes(void **state)
{
	(void)state;
	char path[] = "/tmp/pmpplab-test-trace-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	int n = 1024;
	devaddr_t a = dalloc(n * 4), b = dalloc(n * 4), c = dalloc(n * 4);
	void *args[] = { &a, &b, &c, &n };
	struct emu_fault f;
	setenv("PMPPLAB_TRACE", path, 1);
	int rc = launch(g_labs, "vecAdd", D3(4, 1, 1), D3(256, 1, 1), 0, args, &f);
	unsetenv("PMPPLAB_TRACE");
	assert_int_equal(rc, 0);
	struct emu_trace_file *tf = malloc(sizeof *tf);
	FILE *fp = fopen(path, "rb");
	assert_non_null(tf);
	assert_non_null(fp);
	assert_int_equal(fread(tf, sizeof *tf, 1, fp), 1);
	fclose(fp);
	unlink(path);
	assert_int_equal(tf->magic, EMU_TRACE_MAGIC);
	assert_true(tf->warp_insns > 0);
	assert_int_equal(tf->lanes, tf->warp_insns * 32);
	free(tf);
	devmem_free(a); devmem_free(b); devmem_free(c);
}

static void test_unsupported_feature(void **state)
{
	(void)state;
	devaddr_t p = dalloc(1024 * 4);
	void *args[] = { &p, &p, &p };
	struct emu_fault f;
	assert_int_equal(launch(g_unsup, "plain", D3(1, 1, 1), D3(32, 1, 1), 0, args, &f), 0);
	uint64_t tex = 1;
	void *targs[] = { &tex, &p };
	assert_int_equal(launch(g_unsup, "surfReduce", D3(1, 1, 1), D3(32, 1, 1), 0, targs, &f),
			 -ENOTSUP);
	assert_int_equal(f.kind, EMU_FAULT_UNSUPPORTED);
	assert_non_null(strstr(f.message, "surface reductions"));
	assert_non_null(strstr(f.message, "--backend gpu"));
	assert_int_equal(f.line, source_line("core_unsupported.cu", "SURED_LINE"));
	/* a texture handle nobody created: the fetch stops at its line */
	assert_int_equal(launch(g_unsup, "texFetch", D3(1, 1, 1), D3(32, 1, 1), 0, targs, &f),
			 -EFAULT);
	assert_int_equal(f.kind, EMU_FAULT_OOB);
	assert_non_null(strstr(f.message, "texture object 1 was never created"));
	assert_int_equal(f.line, source_line("core_unsupported.cu", "TEX_LINE"));
	/* sm_90's tensor bulk copies: refused by name (cp.async and mbarrier run); an
	 * mbarrier used after mbarrier.inval stops at its line */
	void *cargs[] = { &p, &p };
	assert_int_equal(launch(g_unsup, "bulkCopy", D3(1, 1, 1), D3(32, 1, 1), 0, cargs, &f),
			 -ENOTSUP);
	assert_non_null(strstr(f.message, "tensor and reducing bulk copies (cp.async.bulk.tensor"));
	assert_int_equal(f.line, source_line("core_unsupported.cu", "BULK_LINE"));
	assert_int_equal(launch(g_unsup, "mbarrierInit", D3(1, 1, 1), D3(32, 1, 1), 0, cargs, &f),
			 -ECANCELED);
	assert_non_null(strstr(f.message, "is not initialised (mbarrier.init"));
	assert_int_equal(f.line, source_line("core_unsupported.cu", "MBARRIER_LINE"));
	devmem_free(p);
}

static void test_bad_launch(void **state)
{
	(void)state;
	int n = 0;
	devaddr_t a = 0;
	void *args[] = { &a, &a, &a, &n };
	struct emu_fault f;
	assert_int_equal(launch(g_labs, "vecAdd", D3(1, 1, 1), D3(1, 2048, 1), 0, args, &f), -EINVAL);
	assert_int_equal(launch(g_labs, "vecAdd", D3(0, 1, 1), D3(32, 1, 1), 0, args, &f), -EINVAL);
}

int main(int argc, char **argv)
{
	if (!core_args(argc, argv))
		return 2;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_of_bounds),
		cmocka_unit_test(test_shared_out_of_bounds),
		cmocka_unit_test(test_shared_per_array),
		cmocka_unit_test(test_trap_assert_barrier),
		cmocka_unit_test(test_early_return_sync),
		cmocka_unit_test(test_bit_ops),
		cmocka_unit_test(test_half_warp_votes),
		cmocka_unit_test(test_extern_shared_zero),
		cmocka_unit_test(test_bad_function_pointer),
		cmocka_unit_test(test_trace_active_lanes),
		cmocka_unit_test(test_unsupported_feature),
		cmocka_unit_test(test_bad_launch),
	};
	return cmocka_run_group_tests(tests, core_setup, core_teardown);
}
