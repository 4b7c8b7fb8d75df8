/* Unit tests of cudart_launch and cudart_registry without the interpreter running a
 * real kernel: configuration checks and their codes (measured on an H200), occupancy,
 * the <<<>>> configuration stack, kernel names, registration, PTX from a fat binary. */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cudart_device.h"
#include "cudart_errors.h"
#include "cudart_launch.h"
#include "cudart_registry.h"
#include "cudart_report.h"

static dim3 d3(unsigned x, unsigned y, unsigned z)
{
	return (dim3){x, y, z};
}

static void test_config_checks(void **state)
{
	(void)state;
	assert_int_equal(rt_launch_check(d3(1, 1, 1), d3(1024, 1, 1), 0, 0, 0), RT_CFG_OK);
	assert_int_equal(rt_launch_check(d3(1, 1, 1), d3(2048, 1, 1), 0, 0, 0), RT_CFG_BLOCK_DIM);
	assert_int_equal(rt_launch_check(d3(1, 1, 1), d3(32, 64, 1), 0, 0, 0), RT_CFG_BLOCK_THREADS);
	assert_int_equal(rt_launch_check(d3(1, 1, 1), d3(1, 1, 128), 0, 0, 0), RT_CFG_BLOCK_DIM);
	assert_int_equal(rt_launch_check(d3(0, 1, 1), d3(32, 1, 1), 0, 0, 0), RT_CFG_ZERO_DIM);
	assert_int_equal(rt_launch_check(d3(1, 70000, 1), d3(32, 1, 1), 0, 0, 0), RT_CFG_GRID_DIM);
	assert_int_equal(rt_launch_check(d3(2147483647u, 1, 1), d3(32, 1, 1), 0, 0, 0), RT_CFG_OK);
	assert_int_equal(rt_launch_check(d3(1, 1, 1), d3(32, 1, 1), 0, 48 * 1024, 0), RT_CFG_OK);
	assert_int_equal(rt_launch_check(d3(1, 1, 1), d3(32, 1, 1), 1024, 48 * 1024, 0), RT_CFG_SHMEM);
	assert_int_equal(rt_launch_check(d3(1, 1, 1), d3(32, 1, 1), 0, 64 * 1024, 0), RT_CFG_SHMEM);
	/* opted in with cudaFuncSetAttribute */
	assert_int_equal(rt_launch_check(d3(1, 1, 1), d3(32, 1, 1), 0, 60 * 1024, 60 * 1024), RT_CFG_OK);
	/* CUDA 13 on an H200 answers every one with cudaErrorInvalidValue */
	for (int p = RT_CFG_ZERO_DIM; p < RT_CFG_COUNT; p++)
		assert_int_equal(rt_launch_cfg_code((enum rt_cfg_problem)p), cudaErrorInvalidValue);
}

static void test_fault_codes(void **state)
{
	(void)state;
	struct emu_fault f;
	memset(&f, 0, sizeof f);
	f.kind = EMU_FAULT_OOB;
	assert_int_equal(rt_launch_fault_code(&f), cudaErrorIllegalAddress);
	f.kind = EMU_FAULT_MISALIGNED;
	assert_int_equal(rt_launch_fault_code(&f), cudaErrorMisalignedAddress);
	f.kind = EMU_FAULT_TRAP;
	assert_int_equal(rt_launch_fault_code(&f), cudaErrorLaunchFailure);
	snprintf(f.message, sizeof f.message, "assert(i < n) failed");
	assert_int_equal(rt_launch_fault_code(&f), cudaErrorAssert);
}

static void test_occupancy(void **state)
{
	(void)state;
	if (rt_device_model()->cc_major == 9) {
		/* H100: 2048 threads, 32 blocks, 64K registers, 228 KiB shared per SM, 1 KiB
		 * of it reserved per block, allocated in 128-byte units */
		assert_int_equal(rt_launch_occupancy(0, 0, 256, 0), 8);
		assert_int_equal(rt_launch_occupancy(0, 0, 32, 0), 32);
		assert_int_equal(rt_launch_occupancy(0, 0, 1024, 0), 2);
		assert_int_equal(rt_launch_occupancy(0, 0, 100, 0), 16); /* 4 warps a block */
		assert_int_equal(rt_launch_occupancy(64, 0, 256, 0), 4);
		assert_int_equal(rt_launch_occupancy(128, 0, 256, 0), 2);
		assert_int_equal(rt_launch_occupancy(0, 16 * 1024, 128, 0), 13);
		assert_int_equal(rt_launch_occupancy(0, 16 * 1024, 128, 16 * 1024), 6);
		assert_int_equal(rt_launch_occupancy(0, 100, 32, 0), 32);
		assert_int_equal(rt_launch_occupancy(0, 227 * 1024, 32, 0), 1);
		assert_int_equal(rt_launch_occupancy(0, 227 * 1024 + 1, 32, 0), 0);
		assert_int_equal(rt_launch_occupancy(0, 0, 2048, 0), 0);
		return;
	}
	/* T4 (meson's rt_launch_t4): 1024 threads, 16 blocks, 64K registers, 64 KiB shared
	 * per SM, nothing reserved, 256-byte units */
	assert_string_equal(rt_device_model()->key, "t4");
	assert_int_equal(rt_launch_occupancy(0, 0, 256, 0), 4);
	assert_int_equal(rt_launch_occupancy(0, 0, 32, 0), 16);
	assert_int_equal(rt_launch_occupancy(0, 0, 1024, 0), 1);
	assert_int_equal(rt_launch_occupancy(0, 0, 100, 0), 8); /* 4 warps a block */
	assert_int_equal(rt_launch_occupancy(64, 0, 256, 0), 4);
	assert_int_equal(rt_launch_occupancy(128, 0, 256, 0), 2);
	assert_int_equal(rt_launch_occupancy(0, 16 * 1024, 128, 0), 4);
	assert_int_equal(rt_launch_occupancy(0, 16 * 1024, 128, 16 * 1024), 2);
	assert_int_equal(rt_launch_occupancy(0, 0, 2048, 0), 0);
}

static void test_config_stack(void **state)
{
	(void)state;
	dim3 g, b;
	size_t shm = 1;
	cudaStream_t s = (cudaStream_t)1;
	assert_int_equal(__cudaPopCallConfiguration(&g, &b, &shm, &s), cudaErrorMissingConfiguration);
	assert_int_equal(__cudaPushCallConfiguration(d3(4, 2, 1), d3(128, 1, 1), 256, NULL), 0);
	assert_int_equal(__cudaPopCallConfiguration(&g, &b, &shm, &s), cudaSuccess);
	assert_int_equal(g.x, 4);
	assert_int_equal(g.y, 2);
	assert_int_equal(b.x, 128);
	assert_int_equal(shm, 256);
	assert_null(s);
}

static void test_kernel_names(void **state)
{
	(void)state;
	char name[64];
	assert_string_equal(rt_report_kernel_name("_Z6vecAddPfS_i", name, sizeof name), "vecAdd");
	assert_string_equal(rt_report_kernel_name("plain_c_kernel", name, sizeof name), "plain_c_kernel");
	/* with a demangler (C++ programs always have one) templates keep their arguments
	 * and lose their return type; without, the plain name is left */
	rt_report_kernel_name("_Z6reduceILi256EEvPf", name, sizeof name);
	if (dlsym(RTLD_DEFAULT, "__cxa_demangle"))
		assert_string_equal(name, "reduce<256>");
	else
		assert_string_equal(name, "reduce");
	rt_report_kernel_name("_ZN2ns4tileIfLi16EEEvPT_S2_", name, sizeof name);
	if (dlsym(RTLD_DEFAULT, "__cxa_demangle"))
		assert_string_equal(name, "ns::tile<float, 16>");
}

/* A name longer than the buffer is cut visibly ("..."), whichever way it was found. */
static void test_long_kernel_names(void **state)
{
	(void)state;
	char longname[300], mangled[320], name[64];
	memset(longname, 'k', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	rt_report_kernel_name(longname, name, sizeof name);
	assert_int_equal(strlen(name), sizeof name - 1);
	assert_string_equal(name + sizeof name - 4, "...");
	snprintf(mangled, sizeof mangled, "_Z299%sv", longname);
	rt_report_kernel_name(mangled, name, sizeof name);
	assert_int_equal(strncmp(name, "kkkk", 4), 0);
	assert_string_equal(name + sizeof name - 4, "...");
}

/* The fault diagnostic of a kernel with a long (template) name: the whole name, then
 * ": " and the interpreter's sentence, never glued together. */
static void test_fault_report_long_kernel(void **state)
{
	(void)state;
	char kernel[400], got[2048];
	memset(kernel, 'k', sizeof kernel - 1);
	kernel[sizeof kernel - 1] = '\0';
	memcpy(kernel + 200, "<cub::detail::policy, 4>", 24);
	struct emu_fault f;
	memset(&f, 0, sizeof f);
	f.kind = EMU_FAULT_OOB;
	f.file = "/home/s/prog.cu";
	f.line = 9;
	snprintf(f.message, sizeof f.message, "read 4 bytes of global memory at 0x0, which is "
		 "a null pointer (address 0x0)");
	FILE *cap = tmpfile();
	assert_non_null(cap);
	fflush(stderr);
	int saved = dup(2);
	dup2(fileno(cap), 2);
	rt_report_kernel_fault(kernel, &f, cudaErrorIllegalAddress, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(cap);
	size_t n = fread(got, 1, sizeof got - 1, cap);
	got[n] = '\0';
	fclose(cap);
	char want[1024];
	snprintf(want, sizeof want, "prog.cu:9: error: thread (0,0,0) of block (0,0,0) of %s: %s\n",
		 kernel, f.message);
	assert_non_null(strstr(got, want));
}

/* A fat binary wrapper as nvcc emits it, holding one PTX entry given as bytes. */
struct fake_fatbin {
	uint32_t magic;
	uint16_t version, hsize;
	uint64_t fsize;
	uint16_t kind, ever;
	uint32_t ehsize;
	uint64_t psize;
	uint32_t csize, pad[15];
	unsigned char payload[4096];
};
struct fake_wrapper {
	int magic, version;
	const void *data;
	void *unused;
};

static void fake_init(struct fake_fatbin *fb, struct fake_wrapper *w, const void *payload,
		      size_t n, size_t padded)
{
	memset(fb, 0, sizeof *fb);
	fb->magic = 0xba55ed50u;
	fb->version = 1;
	fb->hsize = 16;
	fb->kind = 1;
	fb->ever = 0x101;
	fb->ehsize = 80;
	fb->psize = padded;
	fb->csize = (uint32_t)n;
	fb->fsize = 80 + padded;
	memcpy(fb->payload, payload, n);
	*w = (struct fake_wrapper){0x466243b1, 1, fb, NULL};
}

static const char ptx_text[] = "\n.version 8.0\n.target sm_75\n.address_size 64\n\n"
			       ".visible .entry _Z4noopv()\n{\n\tret;\n}\n";

static void test_fatbin_plain_ptx(void **state)
{
	(void)state;
	static struct fake_fatbin fb;
	struct fake_wrapper w;
	fake_init(&fb, &w, ptx_text, sizeof ptx_text - 1, (sizeof ptx_text + 7) & ~7u);
	char *out = NULL;
	size_t len = 0;
	assert_int_equal(rt_registry_fatbin_ptx(&w, &out, &len), 0);
	assert_int_equal(len, sizeof ptx_text - 1);
	assert_string_equal(out, ptx_text);
	free(out);
	w.magic = 0;
	assert_int_equal(rt_registry_fatbin_ptx(&w, &out, &len), -EINVAL);
}

static void test_fatbin_zstd_ptx(void **state)
{
	(void)state;
	void *z = dlopen("libzstd.so.1", RTLD_NOW);
	if (!z)
		skip();
	size_t (*compress)(void *, size_t, const void *, size_t, int) =
		(size_t(*)(void *, size_t, const void *, size_t, int))(uintptr_t)dlsym(z, "ZSTD_compress");
	assert_non_null(compress);
	unsigned char packed[2048];
	size_t n = compress(packed, sizeof packed, ptx_text, sizeof ptx_text - 1, 3);
	assert_true(n > 0 && n < sizeof packed);
	static struct fake_fatbin fb;
	struct fake_wrapper w;
	fake_init(&fb, &w, packed, n, (n + 7) & ~(size_t)7); /* padded, as nvcc does */
	char *out = NULL;
	size_t len = 0;
	assert_int_equal(rt_registry_fatbin_ptx(&w, &out, &len), 0);
	assert_string_equal(out, ptx_text);
	free(out);
	dlclose(z);
}

static void host_stub(void) {}
static void other_stub(void) {}

static void test_registration(void **state)
{
	(void)state;
	static struct fake_fatbin fb;
	static struct fake_wrapper w;
	fake_init(&fb, &w, ptx_text, sizeof ptx_text - 1, (sizeof ptx_text + 7) & ~7u);
	unsetenv("PMPPLAB_EMU_PTX"); /* the PTX comes from the fat binary */
	void **h = __cudaRegisterFatBinary(&w);
	assert_non_null(h);
	static char mangled[] = "_Z4noopv", missing[] = "_Z7missingv";
	__cudaRegisterFunction(h, (const char *)(uintptr_t)host_stub, mangled, mangled, -1,
			       NULL, NULL, NULL, NULL, NULL);
	__cudaRegisterFunction(h, (const char *)(uintptr_t)other_stub, missing, missing, -1,
			       NULL, NULL, NULL, NULL, NULL);
	__cudaRegisterFatBinaryEnd(h);

	cudaKernel_t k = NULL;
	assert_int_equal(__cudaGetKernel(&k, (const void *)(uintptr_t)host_stub), cudaSuccess);
	struct rt_function *f = rt_registry_function((const void *)(uintptr_t)host_stub);
	assert_non_null(f);
	assert_ptr_equal((void *)k, (void *)f);
	assert_string_equal(f->name, "noop");
	assert_int_equal(rt_registry_resolve(f), cudaSuccess);
	assert_non_null(f->kernel);

	struct rt_function *g = rt_registry_function((const void *)(uintptr_t)other_stub);
	assert_non_null(g);
	assert_int_equal(rt_registry_resolve(g), cudaErrorInvalidDeviceFunction);
	/* a host pointer that is no kernel */
	assert_int_equal(cudaLaunchKernel((const void *)&w, d3(1, 1, 1), d3(1, 1, 1), NULL, 0, 0),
			 cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidResourceHandle);
	/* a bad configuration is refused before anything runs */
	assert_int_equal(cudaLaunchKernel((const void *)(uintptr_t)host_stub, d3(1, 1, 1),
					  d3(2048, 1, 1), NULL, 0, 0),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
	struct cudaFuncAttributes fa;
	assert_int_equal(cudaFuncGetAttributes(&fa, (const void *)(uintptr_t)host_stub), cudaSuccess);
	assert_int_equal(fa.sharedSizeBytes, 0);
	assert_int_equal(fa.maxThreadsPerBlock, 1024);
	int blocks = -1;
	assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				 &blocks, (const void *)(uintptr_t)host_stub, 256, 0),
			 cudaSuccess);
	assert_true(blocks >= 1 && blocks <= rt_device_props()->maxThreadsPerMultiProcessor / 256);
	__cudaUnregisterFatBinary(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_checks),
		cmocka_unit_test(test_fault_codes),
		cmocka_unit_test(test_occupancy),
		cmocka_unit_test(test_config_stack),
		cmocka_unit_test(test_kernel_names),
		cmocka_unit_test(test_long_kernel_names),
		cmocka_unit_test(test_fault_report_long_kernel),
		cmocka_unit_test(test_fatbin_plain_ptx),
		cmocka_unit_test(test_fatbin_zstd_ptx),
		cmocka_unit_test(test_registration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
