/* Unit tests of cudart_errors: the name/message table and the three kinds of error
 * state (last, pending, sticky) with the semantics measured on an H200 (CUDA 13). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cudart_errors.h"

static int reset(void **state)
{
	(void)state;
	rt_error_reset();
	return 0;
}

static void test_names_and_messages(void **state)
{
	(void)state;
	assert_string_equal(cudaGetErrorName(cudaSuccess), "cudaSuccess");
	assert_string_equal(cudaGetErrorString(cudaSuccess), "no error");
	assert_string_equal(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
	assert_string_equal(cudaGetErrorString(cudaErrorIllegalAddress),
			    "an illegal memory access was encountered");
	assert_string_equal(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
	assert_string_equal(cudaGetErrorString(cudaErrorInvalidConfiguration),
			    "invalid configuration argument");
	assert_int_equal(cudaErrorIllegalAddress, 700);
	assert_int_equal(cudaErrorMisalignedAddress, 716);
	/* what the real runtime answers for a value outside the enum */
	assert_string_equal(cudaGetErrorName((cudaError_t)12345), "unrecognized error code");
	assert_string_equal(cudaGetErrorString((cudaError_t)12345), "unrecognized error code");
	assert_false(rt_error_known(12345));
	assert_true(rt_error_known(999));
}

static void test_every_code_has_a_cuda_name(void **state)
{
	(void)state;
	int n = 0;
	for (int v = 0; v < 11000; v++) {
		if (!rt_error_known(v))
			continue;
		const char *name = rt_error_name((cudaError_t)v);
		assert_true(strncmp(name, "cuda", 4) == 0);
		assert_true(strlen(rt_error_string((cudaError_t)v)) > 0);
		n++;
	}
	assert_true(n > 120); /* CUDA 13.0 has 135 */
}

static void test_last_error_cleared_by_get(void **state)
{
	(void)state;
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	rt_error_set(cudaErrorInvalidValue);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidValue);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	/* success does not overwrite a recorded error */
	rt_error_set(cudaErrorInvalidDevice);
	rt_error_set(cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidDevice);
}

static void test_fault_is_pending_until_next_call(void **state)
{
	(void)state;
	rt_error_set_pending(cudaErrorIllegalAddress);
	/* kernel<<<>>>(); cudaGetLastError() reads success on a GPU too */
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(rt_error_sticky(), cudaSuccess);
	assert_int_equal(rt_error_enter(), cudaErrorIllegalAddress); /* cudaDeviceSynchronize */
	assert_int_equal(rt_error_sticky(), cudaErrorIllegalAddress);
}

static void test_sticky_error(void **state)
{
	(void)state;
	rt_error_set_pending(cudaErrorIllegalAddress);
	assert_int_equal(rt_error_enter(), cudaErrorIllegalAddress);
	/* H200, CUDA 13: getlast returns it once, then success; calls keep failing */
	assert_int_equal(cudaGetLastError(), cudaErrorIllegalAddress);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaPeekAtLastError(), cudaSuccess);
	assert_int_equal(rt_error_enter(), cudaErrorIllegalAddress);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorIllegalAddress);
	/* a second fault does not replace the first */
	rt_error_set_pending(cudaErrorMisalignedAddress);
	assert_int_equal(rt_error_enter(), cudaErrorIllegalAddress);
	rt_error_reset(); /* cudaDeviceReset */
	assert_int_equal(rt_error_enter(), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_names_and_messages, reset),
		cmocka_unit_test_setup(test_every_code_has_a_cuda_name, reset),
		cmocka_unit_test_setup(test_last_error_cleared_by_get, reset),
		cmocka_unit_test_setup(test_fault_is_pending_until_next_call, reset),
		cmocka_unit_test_setup(test_sticky_error, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
