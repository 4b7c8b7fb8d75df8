/* provenance_judge (issue 14): each way an output can fail to be the kernels' work is
 * named, with its element count; host-computed outputs a lab declares pass; a result
 * without the metrics is not judged. The metrics are made here as the harness writes
 * them (grader/harness/pl_provenance.h); the emulator's side is tests/emu's provenance
 * program, and whole gradings are the labs suite (kernels/01-vecadd/wrong/host-*.cu). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "provenance.h"

static void put(struct pl_file *f, const char *name, double v)
{
	struct pl_item *m = pl_add(f, PL_METRIC, PL_F64, name, 1, NULL);
	assert_non_null(m);
	m->dval = v;
}

/* Output C of N elements: KERNEL of them a kernel's, the rest split as given. */
static void counts(struct pl_file *f, unsigned long long kernel, unsigned long long filled,
		   unsigned long long changed, unsigned long long unwritten,
		   unsigned long long host, unsigned long long first)
{
	put(f, "prov_counted", 1);
	put(f, "prov:C:kernel", (double)kernel);
	put(f, "prov:C:filled", (double)filled);
	put(f, "prov:C:changed", (double)changed);
	put(f, "prov:C:unwritten", (double)unwritten);
	put(f, "prov:C:host", (double)host);
	put(f, "prov:C:first_bad", (double)first);
	put(f, "prov:C:overflow", 0);
}

static struct spec_buffer outputs[1] = { { .name = "C", .type = SPEC_F32, .size = "n" } };
static struct lab_spec spec = { .outputs = outputs, .outputs_count = 1 };

/* Judges F; returns the verdict and checks that TEXT (if any) is in the message. */
static enum provenance_verdict judge(struct pl_file *f, const char *text)
{
	char *why = NULL;
	enum provenance_verdict v = provenance_judge(&spec, f, &why);
	if (text) {
		assert_non_null(why);
		if (!strstr(why, text))
			fail_msg("'%s' not in: %s", text, why);
	} else {
		assert_null(why);
	}
	free(why);
	pl_release(f);
	return v;
}

static void test_device(void **state)
{
	(void)state;
	outputs[0].provenance = SPEC_PROV_DEVICE;
	struct pl_file f = { 0 };
	put(&f, "launches", 1);
	counts(&f, 70001, 0, 0, 0, 0, 70001);
	assert_int_equal(judge(&f, NULL), PROVENANCE_OK);

	put(&f, "launches", 0);
	counts(&f, 0, 0, 0, 0, 70001, 0);
	assert_int_equal(judge(&f, "C was computed on the host: no kernel wrote it (no kernel ran"), PROVENANCE_BAD);

	put(&f, "launches", 2);
	counts(&f, 0, 0, 0, 0, 5, 0);
	assert_int_equal(judge(&f, "nothing a kernel wrote was copied into it"), PROVENANCE_BAD);

	put(&f, "launches", 0);
	counts(&f, 0, 0, 0, 5, 0, 0);
	assert_int_equal(judge(&f, "copied back from device memory that no kernel wrote"), PROVENANCE_BAD);

	put(&f, "launches", 1);
	counts(&f, 35001, 0, 0, 0, 35000, 35001);
	assert_int_equal(judge(&f, "35000 of 70001 elements of C were computed on the host: no kernel wrote them"), PROVENANCE_BAD);

	put(&f, "launches", 1);
	counts(&f, 69999, 0, 2, 0, 0, 5);
	assert_int_equal(judge(&f, "2 of 70001 elements of C were changed by the host after they were copied back"), PROVENANCE_BAD);

	put(&f, "launches", 1);
	counts(&f, 69999, 0, 2, 0, 0, 5);
	assert_int_equal(judge(&f, "The first such element: C[5]"), PROVENANCE_BAD);

	/* a histogram whose device buffer was never cleared (lab 08): its empty bins are
	 * what cudaMalloc left, which the student must be told is not zero by promise */
	put(&f, "launches", 1);
	counts(&f, 1, 0, 0, 255, 0, 1);
	assert_int_equal(judge(&f, "cudaMalloc does not clear it: a buffer the kernels add to"), PROVENANCE_BAD);

	/* cudaMemset's bytes no kernel needed to change (empty bins) */
	put(&f, "launches", 1);
	counts(&f, 1, 255, 0, 0, 0, 256);
	assert_int_equal(judge(&f, NULL), PROVENANCE_OK);
	put(&f, "launches", 0);
	counts(&f, 0, 256, 0, 0, 0, 256);
	assert_int_equal(judge(&f, "no kernel ran during the call"), PROVENANCE_BAD);
}

static void test_gpu_launches_only(void **state)
{
	(void)state;
	outputs[0].provenance = SPEC_PROV_DEVICE;
	struct pl_file f = { 0 };
	put(&f, "launches", 0);
	assert_int_equal(judge(&f, "C was computed on the host: no kernel wrote it"), PROVENANCE_BAD);
	put(&f, "launches", 3);
	assert_int_equal(judge(&f, NULL), PROVENANCE_OK);
	assert_int_equal(judge(&f, NULL), PROVENANCE_UNKNOWN); /* nothing in it */
}

static void test_declared(void **state)
{
	(void)state;
	struct pl_file f = { 0 };
	outputs[0].provenance = SPEC_PROV_HOST;
	put(&f, "launches", 0);
	counts(&f, 0, 0, 0, 0, 10, 0);
	assert_int_equal(judge(&f, NULL), PROVENANCE_OK);

	outputs[0].provenance = SPEC_PROV_HOST_COMBINES;
	put(&f, "launches", 1);
	put(&f, "prov_kernel_bytes", 2048);
	counts(&f, 0, 0, 0, 0, 1, 0);
	assert_int_equal(judge(&f, NULL), PROVENANCE_OK);
	put(&f, "launches", 1);
	put(&f, "prov_kernel_bytes", 0);
	counts(&f, 0, 0, 0, 0, 1, 0);
	assert_int_equal(judge(&f, "none of what they wrote was copied back"), PROVENANCE_BAD);
	put(&f, "launches", 0);
	assert_int_equal(judge(&f, "no kernel ran during the call"), PROVENANCE_BAD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_gpu_launches_only),
		cmocka_unit_test(test_declared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
