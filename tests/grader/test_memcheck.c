/* memcheck findings: compute-sanitizer's report (GPU) and the emulator's fault events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "memcheck.h"

/* The shape compute-sanitizer 2025 prints (addresses shortened). */
static const char sanitizer[] =
	"========= COMPUTE-SANITIZER\n"
	"========= Invalid __global__ read of size 4 bytes\n"
	"=========     at vecAddKernel(const float *, const float *, float *, int)+0x90 in /tmp/x/no-bounds-guard.cu:11\n"
	"=========     by thread (113,0,0) in block (273,0,0)\n"
	"=========     Access at 0x7f0a1c044704 is out of bounds\n"
	"=========     and is 1 bytes after the nearest allocation at 0x7f0a1c000000 of size 280004 bytes\n"
	"=========     Saved host backtrace up to driver entry point at kernel launch time\n"
	"=========         Host Frame: [0x2a3c] in libcuda.so.1\n"
	"=========\n"
	"========= ERROR SUMMARY: 16 errors\n";

static void test_sanitizer(void **state)
{
	(void)state;
	struct memcheck_finding f;
	assert_true(memcheck_scan(sanitizer, NULL, &f));
	assert_int_equal(f.errors, 16);
	assert_non_null(strstr(f.text, "no-bounds-guard.cu:11: Invalid __global__ read of size 4 bytes"));
	assert_non_null(strstr(f.text, "by thread (113,0,0) in block (273,0,0)"));
	assert_non_null(strstr(f.text, "1 bytes after the nearest allocation"));
	assert_null(strstr(f.text, "Host Frame"));
	assert_non_null(strstr(f.text, "if (i < n)"));
	assert_false(memcheck_scan("========= ERROR SUMMARY: 0 errors\n", NULL, &f));
}

/* memcheck_scan of an events file holding TEXT. */
static bool scan_events_text(const char *text, struct memcheck_finding *f)
{
	char path[] = "/tmp/pmpplab-test-events-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	bool found = memcheck_scan(NULL, path, f);
	unlink(path);
	return found;
}

static void test_events(void **state)
{
	(void)state;
	struct memcheck_finding f;
	assert_true(scan_events_text(
		"{\"event\":\"launch\",\"kernel\":\"k\",\"status\":\"ok\"}\n"
		"{\"event\":\"fault\",\"kind\":\"out-of-bounds\",\"kernel\":\"k\",\"file\":\"/a/b/v.cu\",\"line\":12,"
		"\"message\":\"thread (3,0,0) of block (1,0,0) wrote 4 bytes past the end\"}\n", &f));
	assert_non_null(strstr(f.text, "v.cu:12: thread (3,0,0) of block (1,0,0) wrote 4 bytes past the end"));
	assert_non_null(strstr(f.text, "if (i < n)"));
	assert_false(memcheck_scan(NULL, "/nonexistent", &f));
}

/* Past a __shared__ array (the emulator checks each array on its own): the advice is
 * about the block's loop bounds and tile indices, not extra threads of the grid. */
static void test_shared_advice(void **state)
{
	(void)state;
	struct memcheck_finding f;
	assert_true(scan_events_text(
		"{\"event\":\"fault\",\"kind\":\"out-of-bounds\",\"kernel\":\"k\",\"file\":\"/a/m.cu\",\"line\":63,"
		"\"message\":\"wrote 4 bytes of shared memory at 0xd480, which is 0 bytes past the end of shared array As[20480 bytes]\"}\n",
		&f));
	assert_non_null(strstr(f.text, "m.cu:63: wrote 4 bytes of shared memory"));
	assert_non_null(strstr(f.text, "i < SIZE, not i <= SIZE"));
	assert_null(strstr(f.text, "if (i < n)"));
	static const char shared_sanitizer[] =
		"========= Invalid __shared__ write of size 4 bytes\n"
		"=========     at k()+0x90 in /tmp/x/t.cu:9\n"
		"=========     by thread (0,0,0) in block (0,0,0)\n"
		"=========     Address 0x4000 is out of bounds\n"
		"=========\n"
		"========= ERROR SUMMARY: 1 error\n";
	assert_true(memcheck_scan(shared_sanitizer, NULL, &f));
	assert_non_null(strstr(f.text, "i < SIZE, not i <= SIZE"));
}

/* A misaligned address (a wmma fragment's start, a float4 at an odd offset) is not out of
 * bounds: the advice is about the address arithmetic, not a bounds guard. */
static void test_misaligned_advice(void **state)
{
	(void)state;
	struct memcheck_finding f;
	assert_true(scan_events_text(
		"{\"event\":\"fault\",\"kind\":\"misaligned\",\"kernel\":\"k\",\"file\":\"/a/t.cu\",\"line\":75,"
		"\"message\":\"wmma::load_matrix_sync: the matrix at 0x10 with a leading dimension of 40 "
		"elements: the pointer must be 32-byte aligned (the size of this fragment)\"}\n", &f));
	assert_non_null(strstr(f.text, "t.cu:75: wmma::load_matrix_sync"));
	assert_non_null(strstr(f.text, "not a multiple of what it accessed"));
	assert_null(strstr(f.text, "if (i < n)"));
	static const char misaligned_sanitizer[] =
		"========= Invalid __global__ read of size 16 bytes\n"
		"=========     at k()+0x90 in /tmp/x/t.cu:9\n"
		"=========     by thread (1,0,0) in block (0,0,0)\n"
		"=========     Address 0x7f0a1c000004 is misaligned\n"
		"=========\n"
		"========= ERROR SUMMARY: 32 errors\n";
	assert_true(memcheck_scan(misaligned_sanitizer, NULL, &f));
	assert_non_null(strstr(f.text, "ldm a multiple of 16 bytes"));
	assert_null(strstr(f.text, "if (i < n)"));
}

/* The emulator's initcheck finding (emu/initcheck.h: a read of memory nothing wrote)
 * fails memcheck with its sentence and advice about clearing; a race finding does not. */
static void test_unwritten(void **state)
{
	(void)state;
	struct memcheck_finding f;
	assert_true(scan_events_text(
		"{\"event\":\"finding\",\"check\":\"race\",\"kind\":\"raw\",\"file\":\"r.cu\",\"line\":3}\n"
		"{\"event\":\"finding\",\"check\":\"initcheck\",\"kind\":\"uninitialized\",\"kernel\":\"total\","
		"\"file\":\"p.cu\",\"line\":41,\"message\":\"thread (0,0,0) of block (3,0,0) of total read 4 "
		"bytes of device memory that nothing had written\"}\n", &f));
	assert_non_null(strstr(f.text, "p.cu:41: thread (0,0,0) of block (3,0,0) of total read 4 bytes"));
	assert_non_null(strstr(f.text, "cudaMemset"));
	assert_null(strstr(f.text, "if (i < n)"));
	assert_false(scan_events_text(
		"{\"event\":\"finding\",\"check\":\"race\",\"kind\":\"raw\",\"file\":\"r.cu\",\"line\":3}\n", &f));
	/* an out-of-bounds fault after it (the kernel went on) is what memcheck names */
	assert_true(scan_events_text(
		"{\"event\":\"finding\",\"check\":\"initcheck\",\"kind\":\"uninitialized\",\"kernel\":\"k\","
		"\"file\":\"p.cu\",\"line\":7,\"message\":\"read 4 bytes that nothing had written\"}\n"
		"{\"event\":\"fault\",\"kind\":\"out-of-bounds\",\"kernel\":\"k\",\"file\":\"p.cu\",\"line\":9,"
		"\"message\":\"read 4 bytes past the end\"}\n", &f));
	assert_non_null(strstr(f.text, "p.cu:9: read 4 bytes past the end"));
	assert_non_null(strstr(f.text, "if (i < n)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sanitizer),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_shared_advice),
		cmocka_unit_test(test_misaligned_advice),
		cmocka_unit_test(test_unwritten),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
