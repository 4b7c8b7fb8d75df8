/* The arithmetic of performance checks: peak rates from device attributes, a program's
 * timing metrics, the verdict against the solution and the peak, and its text. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "devinfo.h"
#include "harness/pl_timing.h"
#include "perf.h"
#include "report.h"
#include "spec.h"

static void put(struct pl_file *f, const char *name, double v)
{
	pl_add(f, PL_METRIC, PL_F64, name, 1, NULL)->dval = v;
}

/* An H100 SXM as its attributes describe it. */
static void h100(struct pl_file *f)
{
	put(f, "dev_sm_count", 132);
	put(f, "dev_clock_khz", 1980000);
	put(f, "dev_mem_clock_khz", 2619000);
	put(f, "dev_bus_width_bits", 5120);
	put(f, "dev_l2_bytes", 50331648);
	put(f, "dev_cc_major", 9);
	put(f, "dev_cc_minor", 0);
}

static void test_devinfo(void **state)
{
	(void)state;
	struct pl_file f = { 0 };
	struct devinfo d;
	assert_int_equal(devinfo_from_result(&f, &d), -ENOENT);
	h100(&f);
	assert_int_equal(devinfo_from_result(&f, &d), 0);
	assert_true(fabs(devinfo_peak_bandwidth(&d) - 3.35232e12) < 1e7);
	assert_true(fabs(devinfo_peak_flops(&d) - 66.9e12) < 0.1e12);
	assert_int_equal(devinfo_fp32_lanes(8, 0), 64);  /* A100 */
	assert_int_equal(devinfo_fp32_lanes(8, 6), 128); /* RTX 30xx */
	assert_int_equal(devinfo_fp32_lanes(3, 0), 0);
	pl_release(&f);
}

static void timing(struct pl_file *f, int source, double ms, double rel)
{
	put(f, "timing_source", source);
	put(f, "kernel_ms", ms);
	put(f, "kernel_rel_err", rel);
	put(f, "kernel_ms_min", 0.9 * ms);
	put(f, "kernel_ms_max", 1.2 * ms);
	put(f, "timing_reps", 40);
	put(f, "transfer_ms", 25);
}

static void measure(struct perf_measure *m, int source, double a, double b)
{
	struct pl_file f = { 0 };
	timing(&f, source, a, 0.004);
	assert_int_equal(perf_measure_add(m, &f), 0);
	pl_release(&f);
	f = (struct pl_file){ 0 };
	timing(&f, source, b, 0.002);
	assert_int_equal(perf_measure_add(m, &f), 0);
	pl_release(&f);
}

static void test_measure(void **state)
{
	(void)state;
	struct perf_measure m = { 0 };
	struct pl_file none = { 0 };
	put(&none, "timing_source", PL_TIMING_NONE);
	assert_int_equal(perf_measure_add(&m, &none), -ENOENT);
	pl_release(&none);
	measure(&m, PL_TIMING_CUPTI, 0.07, 0.08);
	assert_int_equal(m.n, 2);
	assert_true(fabs(m.kernel_ms - 0.075) < 1e-12);
	assert_true(m.rel_err == 0.004);
	assert_int_equal(m.reps, 80);
	assert_int_equal(m.source, PL_TIMING_CUPTI);
	/* the spread: the fastest and slowest call of both runs */
	assert_true(fabs(m.min_ms - 0.063) < 1e-12 && fabs(m.max_ms - 0.096) < 1e-12);
}

static const struct spec_check bandwidth_check = {
	.kind = SPEC_CHECK_PERFORMANCE, .points = 2, .metric = SPEC_PERF_BANDWIDTH,
	.bytes = "3 * n * 4", .max_ratio = 3, .min_peak = 0.3,
};

static void dev_h100(struct devinfo *d)
{
	struct pl_file f = { 0 };
	h100(&f);
	devinfo_from_result(&f, d);
	pl_release(&f);
}

static void test_pass_and_text(void **state)
{
	(void)state;
	struct devinfo d;
	dev_h100(&d);
	struct perf_measure stu = { 0 }, sol = { 0 };
	measure(&stu, PL_TIMING_CUPTI, 0.070, 0.070);
	measure(&sol, PL_TIMING_CUPTI, 0.0686, 0.0686);
	struct perf_verdict v;
	double bytes = 3.0 * 16777216 * 4;
	perf_evaluate(&bandwidth_check, bytes, &stu, &sol, &d, &v);
	assert_true(v.passed && v.peak_judged);
	assert_true(fabs(v.fraction - bytes / 70e-6 / 3.35232e12) < 1e-9);
	char *text = perf_describe(&bandwidth_check, &stu, &sol, &d, &v);
	assert_non_null(text);
	assert_non_null(strstr(text, "2.88 TB/s, 86% of peak, 0.98x the reference's speed"));
	assert_non_null(strstr(text, "timed calls from "));
	assert_non_null(strstr(text, "peak of this GPU: 3.35 TB/s"));
	assert_non_null(strstr(text, "copies 25 ms per call"));
	assert_null(strstr(text, "cudaFree"));
	free(text);
	stu.leaked_bytes = 192 << 20; /* never freed its three buffers */
	text = perf_describe(&bandwidth_check, &stu, &sol, &d, &v);
	assert_non_null(strstr(text, "left 192 MB of device memory allocated: cudaFree"));
	free(text);
}

static void test_too_slow(void **state)
{
	(void)state;
	struct devinfo d;
	dev_h100(&d);
	struct perf_measure stu = { 0 }, sol = { 0 };
	measure(&stu, PL_TIMING_CUPTI, 0.25, 0.25); /* 3.6x the solution, 24% of peak */
	measure(&sol, PL_TIMING_CUPTI, 0.07, 0.07);
	struct perf_verdict v;
	perf_evaluate(&bandwidth_check, 3.0 * 16777216 * 4, &stu, &sol, &d, &v);
	assert_false(v.passed);
	assert_false(v.ratio_ok);
	assert_false(v.peak_ok);
	char *text = perf_describe(&bandwidth_check, &stu, &sol, &d, &v);
	assert_non_null(strstr(text, "TOO SLOW: at most 3x passes"));
	assert_non_null(strstr(text, "0.28x the reference's speed"));
	free(text);
	/* only the ratio counts without min_peak */
	struct spec_check ratio_only = bandwidth_check;
	ratio_only.min_peak = 0;
	ratio_only.max_ratio = 4;
	perf_evaluate(&ratio_only, 3.0 * 16777216 * 4, &stu, &sol, &d, &v);
	assert_true(v.passed);
	assert_false(v.peak_judged);
}

/* Events time the copies too: the fraction of peak is never judged, and the headline
 * gives no rate (bytes over a time that includes the copies would mislead). */
static void test_events_not_judged(void **state)
{
	(void)state;
	struct devinfo d;
	dev_h100(&d);
	struct perf_measure stu = { 0 }, sol = { 0 };
	measure(&stu, PL_TIMING_EVENTS, 30, 30);
	measure(&sol, PL_TIMING_EVENTS, 29, 29);
	struct perf_verdict v;
	perf_evaluate(&bandwidth_check, 3.0 * 16777216 * 4, &stu, &sol, &d, &v);
	assert_true(v.passed);
	assert_false(v.peak_judged);
	char *text = perf_describe(&bandwidth_check, &stu, &sol, &d, &v);
	assert_non_null(strstr(text, "not judged"));
	assert_non_null(strstr(text, "CUPTI unavailable"));
	assert_true(strncmp(text, "0.97x the reference's speed\n", 28) == 0);
	free(text);
}

/* Issue 14: a timed entry point in which CUPTI saw no kernel (host code only) has no
 * kernel time: it fails, whatever its time against the solution's. And a ratio at the
 * threshold is printed with the digits that show which side it is on. */
static void test_no_kernel_and_digits(void **state)
{
	(void)state;
	struct devinfo d;
	dev_h100(&d);
	struct perf_measure stu = { 0 }, sol = { 0 };
	struct pl_file f = { 0 };
	timing(&f, PL_TIMING_EVENTS, 0.01, 0.001);
	put(&f, "timing_no_kernel", 1);
	assert_int_equal(perf_measure_add(&stu, &f), 0);
	pl_release(&f);
	measure(&sol, PL_TIMING_CUPTI, 0.07, 0.07);
	struct perf_verdict v;
	perf_evaluate(&bandwidth_check, 3.0 * 16777216 * 4, &stu, &sol, &d, &v);
	assert_true(v.no_kernel);
	assert_false(v.passed);
	char *text = perf_describe(&bandwidth_check, &stu, &sol, &d, &v);
	assert_non_null(strstr(text, "NOT MEASURED: CUPTI saw no kernel"));
	assert_null(strstr(text, "ok"));
	free(text);
	struct perf_measure slow = { 0 };
	measure(&slow, PL_TIMING_CUPTI, 0.07 * 3.004, 0.07 * 3.004);
	perf_evaluate(&bandwidth_check, 3.0 * 16777216 * 4, &slow, &sol, &d, &v);
	assert_false(v.ratio_ok);
	text = perf_describe(&bandwidth_check, &slow, &sol, &d, &v);
	assert_non_null(strstr(text, "3.004x its time (TOO SLOW: at most 3x passes)"));
	free(text);
}

static void test_flops_rate(void **state)
{
	(void)state;
	char buf[32];
	perf_format_rate(870e9, false, buf, sizeof(buf));
	assert_string_equal(buf, "870 GB/s");
	perf_format_rate(41.23e12, true, buf, sizeof(buf));
	assert_string_equal(buf, "41.2 TFLOP/s");
	struct devinfo d;
	dev_h100(&d);
	struct spec_check c = { .kind = SPEC_CHECK_PERFORMANCE, .metric = SPEC_PERF_FLOPS,
				.flops = "2*n*n*n", .min_peak = 0.2 };
	struct perf_measure stu = { 0 }, sol = { 0 };
	measure(&stu, PL_TIMING_CUPTI, 5.0, 5.0);
	measure(&sol, PL_TIMING_CUPTI, 2.5, 2.5);
	struct perf_verdict v;
	perf_evaluate(&c, 2.0 * 4096 * 4096 * 4096, &stu, &sol, &d, &v);
	/* 27.5 TFLOP/s of 66.9: 41% */
	assert_true(fabs(v.fraction - 0.4108) < 0.001);
	assert_true(v.passed);
	assert_true(v.ratio == 2);
	char *text = perf_describe(&c, &stu, &sol, &d, &v);
	assert_non_null(strstr(text, "27.5 TFLOP/s, 41% of FP32 peak, 0.50x the reference's speed"));
	assert_non_null(strstr(text, "FP32 peak of this GPU's CUDA cores: 66.9 TFLOP/s"));
	assert_null(strstr(text, "tensor cores"));
	free(text);
	/* tensor cores pass the CUDA cores' peak: said, not a "250% of peak" puzzle */
	stu = (struct perf_measure){ 0 };
	measure(&stu, PL_TIMING_CUPTI, 0.8, 0.8);
	perf_evaluate(&c, 2.0 * 4096 * 4096 * 4096, &stu, &sol, &d, &v);
	text = perf_describe(&c, &stu, &sol, &d, &v);
	assert_non_null(strstr(text, "% of FP32 peak"));
	assert_non_null(strstr(text, "the tensor cores are not counted in it"));
	free(text);
}

/* The vendor line: rates when the work is known, a time ratio otherwise; never a verdict. */
static void test_vendor_line(void **state)
{
	(void)state;
	struct spec_vendor cublas = { .name = "cuBLAS SGEMM" };
	struct spec_check c = { .kind = SPEC_CHECK_PERFORMANCE, .metric = SPEC_PERF_FLOPS,
				.max_ratio = 1.8, .vendor = &cublas };
	struct perf_measure stu = { .n = 2, .kernel_ms = 4.0, .source = PL_TIMING_CUPTI };
	struct perf_measure ven = { .n = 1, .kernel_ms = 1.0, .source = PL_TIMING_CUPTI };
	double work = 2.0 * 2048 * 2048 * 2048;
	char *text = perf_vendor_describe(&c, work, &stu, &ven, work, true);
	assert_non_null(strstr(text, "vs the vendor library on this GPU (no points): cuBLAS SGEMM 1 ms, 17.2 TFLOP/s"));
	assert_non_null(strstr(text, "your kernels 4 ms, 4.29 TFLOP/s: 25% of its FLOP rate"));
	free(text);
	/* a copy moving less than the lab's bytes: the rates compare, not the times */
	struct spec_vendor copy = { .name = "a copy kernel" };
	struct spec_check b = { .kind = SPEC_CHECK_PERFORMANCE, .metric = SPEC_PERF_BANDWIDTH,
				.max_ratio = 3, .vendor = &copy };
	stu.kernel_ms = 1.5;
	text = perf_vendor_describe(&b, 3e9, &stu, &ven, 2e9, false);
	assert_non_null(strstr(text, "2.00 TB/s; your kernels 1.5 ms, 2.00 TB/s: 100% of its bandwidth"));
	free(text);
	/* a copy beside a FLOP-rated check: its bandwidth, and the times */
	c.vendor = &copy;
	text = perf_vendor_describe(&c, work, &stu, &ven, 2e9, false);
	assert_non_null(strstr(text, "a copy kernel"));
	assert_non_null(strstr(text, "1 ms, 2.00 TB/s; your kernels 1.5 ms: 1.50x its time"));
	free(text);
	/* metric time, no work: only the times */
	struct spec_check t = { .kind = SPEC_CHECK_PERFORMANCE, .max_ratio = 3, .vendor = &copy };
	ven.source = PL_TIMING_EVENTS;
	text = perf_vendor_describe(&t, 0, &stu, &ven, 0, false);
	assert_non_null(strstr(text, "a copy kernel 1 ms; your kernels 1.5 ms: 1.50x its time (its time from CUDA events, copies included)"));
	free(text);
}

/* Speed counts only for correct results: a performance dataset skipped by a quick run
 * is "not measured" only while no other dataset's correctness test failed (on a GPU the
 * performance dataset is the large one a quick run skips: a wrong program said PASS). */
static void test_dataset_correct(void **state)
{
	(void)state;
	struct spec_dataset large = { .name = "large", .perf = true }, tiny = { .name = "tiny" };
	char wrong[64];
	struct report *r = report_new("05-tiled-matmul", "x.cu", "gpu", 1);
	assert_non_null(r);
	report_add(r, "correctness: tiny (n=1)", 1, true, NULL);
	assert_int_equal(perf_dataset_correct(r, &tiny, wrong, sizeof(wrong)), 1);
	assert_int_equal(perf_dataset_correct(r, &large, wrong, sizeof(wrong)), -1);
	report_add(r, "correctness: not-a-multiple (m=67, k=45, n=83)", 3, false, "wrong");
	assert_int_equal(perf_dataset_correct(r, &large, wrong, sizeof(wrong)), 0);
	assert_string_equal(wrong, "not-a-multiple");
	report_add(r, "correctness: large (n=4096)", 1, true, NULL);
	assert_int_equal(perf_dataset_correct(r, &large, wrong, sizeof(wrong)), 1);
	report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vendor_line),
		cmocka_unit_test(test_dataset_correct),
		cmocka_unit_test(test_devinfo),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_pass_and_text),
		cmocka_unit_test(test_too_slow),
		cmocka_unit_test(test_events_not_judged),
		cmocka_unit_test(test_no_kernel_and_digits),
		cmocka_unit_test(test_flops_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
