/* The replacement runtime declares CUDA's types itself (emu/cudart_abi.h); a wrong
 * offset would silently corrupt what a student program reads from
 * cudaGetDeviceProperties. Compares every field offset and size with the toolkit's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "cudart_abi.h"
#include "test_rt_abi.h"

#define MAX_FIELDS 256

#define OFFSET(type, name, dims) ours[n++] = offsetof(struct cudaDeviceProp, name);
static void test_device_prop(void **state)
{
	(void)state;
	size_t ours[MAX_FIELDS], theirs[MAX_FIELDS], size, n = 0;
	RT_DEVPROP_FIELDS(OFFSET)
	assert_int_equal(abi_cuda_devprop(theirs, &size), n);
	assert_int_equal(sizeof(struct cudaDeviceProp), size);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ours[i], theirs[i]);
}
#undef OFFSET

#define OFFSET(type, name, dims) ours[n++] = offsetof(struct cudaFuncAttributes, name);
static void test_func_attributes(void **state)
{
	(void)state;
	size_t ours[MAX_FIELDS], theirs[MAX_FIELDS], size, n = 0;
	RT_FUNCATTR_FIELDS(OFFSET)
	assert_int_equal(abi_cuda_funcattr(theirs, &size), n);
	assert_int_equal(sizeof(struct cudaFuncAttributes), size);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ours[i], theirs[i]);
}
#undef OFFSET

#define OFFSET(type, name, dims) ours[n++] = offsetof(struct cudaPointerAttributes, name);
static void test_pointer_attributes(void **state)
{
	(void)state;
	size_t ours[MAX_FIELDS], theirs[MAX_FIELDS], size, n = 0;
	RT_PTRATTR_FIELDS(OFFSET)
	assert_int_equal(abi_cuda_ptrattr(theirs, &size), n);
	assert_int_equal(sizeof(struct cudaPointerAttributes), size);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ours[i], theirs[i]);
}
#undef OFFSET

#define OFFSET(type, name, dims) ours[n++] = offsetof(cudaLaunchConfig_t, name);
static void test_launch_config(void **state)
{
	(void)state;
	size_t ours[MAX_FIELDS], theirs[MAX_FIELDS], size, n = 0;
	RT_LAUNCHCFG_FIELDS(OFFSET)
	assert_int_equal(abi_cuda_launchcfg(theirs, &size), n);
	assert_int_equal(sizeof(cudaLaunchConfig_t), size);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ours[i], theirs[i]);
	size_t asize, aval, avalsize;
	abi_cuda_launchattr(&asize, &aval, &avalsize);
	assert_int_equal(sizeof(cudaLaunchAttribute), asize);
	assert_int_equal(offsetof(cudaLaunchAttribute, val), aval);
	assert_int_equal(sizeof(((cudaLaunchAttribute *)0)->val), avalsize);
}
#undef OFFSET

static void test_texture_types(void **state)
{
	(void)state;
	size_t ours[MAX_FIELDS], theirs[MAX_FIELDS], n = 0;
#define VALUE(expr) ours[n++] = (expr);
	ABI_TEXTURE_LAYOUT(VALUE)
#undef VALUE
	assert_int_equal(abi_cuda_texture(theirs), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ours[i], theirs[i]);
}

static void test_graph_types(void **state)
{
	(void)state;
	size_t ours[MAX_FIELDS], theirs[MAX_FIELDS], n = 0;
#define VALUE(expr) ours[n++] = (expr);
	ABI_GRAPH_LAYOUT(VALUE)
#undef VALUE
	assert_int_equal(abi_cuda_graph(theirs), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ours[i], theirs[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_prop),
		cmocka_unit_test(test_func_attributes),
		cmocka_unit_test(test_pointer_attributes),
		cmocka_unit_test(test_launch_config),
		cmocka_unit_test(test_texture_types),
		cmocka_unit_test(test_graph_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
