/* perf: checks of kind performance (issue 8; labs/README.md, "Performance checks").
 *
 * On a GPU, one grading run builds the lab's solution too and times both programs on
 * the check's dataset, alternating (solution, student, solution, student) so a clock
 * drift hits both; each run repeats the entry point until its median kernel time is
 * stable (grader/harness/pl_timing.h). The check compares the student's kernel time with
 * the solution's (max_ratio) and the achieved bandwidth or FLOP rate with the device's
 * peak from its attributes (min_peak, grader/devinfo.h), and says so in one line:
 * "2.9 TB/s, 86% of peak, 0.98x the reference".
 *
 * On the emulator, kernel time means nothing. Both programs run once more with the
 * interpreter's counters (grader/harness/pl_counters.h) on emu_dataset: global sectors
 * per request and per output element, coalescing, shared-memory bank conflicts and lane
 * efficiency, against the solution and the check's emulator thresholds. These counts are
 * deterministic. Without emulator thresholds the check says "NOT MEASURED on the
 * emulator", shows the counters and gives its points: a correct student never fails for
 * speed there, and never passes without being told. */
#ifndef PMPPLAB_PERF_H
#define PMPPLAB_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "build.h"
#include "devinfo.h"
#include "diag.h"
#include "harness/pl_io.h"
#include "report.h"
#include "spec.h"
#include "subrun.h"

#define PERF_MAX_RUNS 4

/* One program's timed runs. */
struct perf_measure {
	unsigned n;                          /* runs */
	double run_ms[PERF_MAX_RUNS];        /* each run's median kernel time */
	double kernel_ms;                    /* mean of the runs' medians */
	double rel_err;                      /* largest relative error of a run's median */
	double min_ms, max_ms;               /* the fastest and slowest timed call, all runs */
	double transfer_ms;                  /* host<->device copies per call (CUPTI) */
	unsigned reps;                       /* timed calls, all runs */
	int source;                          /* PL_TIMING_*: the worst of the runs */
	double leaked_bytes;                 /* device memory a call never freed (max) */
	int kernels;                         /* kernels a call launched (CUPTI), the most of
					      * the runs; 0 also when not counted: see counted */
	bool kernels_counted;                /* a run counted them (CUPTI), even a run with
					      * no kernel time to report */
	bool no_kernel;                      /* CUPTI saw no kernel in some run (issue 14) */
};

/* Adds one run's metrics (a result file written under $PMPPLAB_TIMING) to M. Returns 0,
 * or -ENOENT when the run carried no timing (timing_source 0 or missing). */
int perf_measure_add(struct perf_measure *m, const struct pl_file *result);

struct perf_verdict {
	bool passed;
	double ratio;     /* student time / solution time */
	double rate;      /* bytes/s or FLOP/s achieved (0 for metric time) */
	double peak;      /* the device's peak of the same (0 when unknown) */
	double fraction;  /* rate / peak */
	bool ratio_ok, peak_ok;
	bool peak_judged; /* false when min_peak is unset, the peak unknown, or the time
			   * includes copies (CUDA events): the fraction is only reported */
	bool no_kernel;   /* the student's timed calls ran no kernel: nothing was measured */
};

/* Judges the student against the solution and the peak. WORK is the check's bytes or
 * flops in the dataset (ignored for metric time). */
void perf_evaluate(const struct spec_check *c, double work, const struct perf_measure *stu,
		   const struct perf_measure *sol, const struct devinfo *dev,
		   struct perf_verdict *v);

/* The report text for a verdict (malloc'd; NULL on ENOMEM). */
char *perf_describe(const struct spec_check *c, const struct perf_measure *stu,
		    const struct perf_measure *sol, const struct devinfo *dev,
		    const struct perf_verdict *v);

/* The vendor line (no points): the student's kernels against the vendor library's on
 * the same dataset. WORK is the check's bytes or flops (0 for metric time); VENDOR_WORK
 * the vendor's (its own expression, else WORK), in flops when VENDOR_FLOPS, else bytes.
 * Rates are compared when both are in the check's unit, else the times. Malloc'd text;
 * NULL on ENOMEM. */
char *perf_vendor_describe(const struct spec_check *c, double work, const struct perf_measure *stu,
			   const struct perf_measure *ven, double vendor_work, bool vendor_flops);

/* "2.93 TB/s", "870 GB/s", "41.2 TFLOP/s" into BUF. */
void perf_format_rate(double rate, bool flops, char *buf, size_t len);

/* A program's modelled counters from one emulator run (pl_counters.h's emu_* metrics). */
struct perf_model {
	double warp_insns, thread_insns;
	double gld_req, gst_req, gld_sectors, gst_sectors, gld_bytes, gst_bytes;
	double shd_req, shd_wavefronts, shd_ideal;
	double gat_req, gat_lanes; /* global atomics: warp requests, lanes */
};

/* Reads the emu_* metrics. Returns 0, or -ENOENT when the run was not counted. */
int perf_model_from_result(const struct pl_file *result, struct perf_model *m);

struct perf_model_verdict {
	bool passed;
	bool judged;               /* the check sets at least one emulator threshold */
	double traffic_ratio;      /* global sectors / the solution's */
	double coalescing;         /* bytes asked / bytes of sectors moved (1 = perfect) */
	double sectors_per_request;
	double bytes_per_element;  /* bytes of sectors moved per element of the first output */
	double bank_conflicts;     /* shared passes / conflict-free passes (1 = none) */
	double lane_efficiency;    /* active lanes per warp instruction / 32 */
	double insn_ratio;         /* warp instructions / the solution's */
	double store_ratio;        /* global bytes stored / the solution's */
	double atomics_per_element; /* global atomic lane operations per element */
	bool traffic_ok, coalescing_ok, bank_ok, lane_ok, insn_ok, atomics_ok, store_ok;
	/* issue 14: what was there to measure; a threshold on an empty figure fails */
	bool ran;              /* the student's kernels executed at least one instruction */
	bool traffic_measured; /* they made a global request of the kind the check counts */
	bool bank_measured;    /* a shared-memory request (else bank conflicts are not judged) */
};

/* Judges the student's counters against the solution's and the check's emulator
 * thresholds; ELEMENTS is the check's `elements` in the counted dataset (default: the
 * first output's size). */
void perf_model_evaluate(const struct spec_check *c, const struct perf_model *stu,
			 const struct perf_model *sol, double elements,
			 struct perf_model_verdict *v);

/* VALUE with DIGITS decimals, or more (up to 6 more) where fewer would print it on the
 * wrong side of LIMIT ("2.004x" against "at most 2x", never "2.00x"); LIMIT 0: none. */
void perf_figure(char *buf, size_t len, double value, unsigned digits, double limit);

/* The report text (malloc'd; NULL on ENOMEM). */
char *perf_model_describe(const struct spec_check *c, const struct perf_model_verdict *v,
			  const struct perf_model *stu, const char *dataset);

/* What grade_checks.c hands over for one check. */
struct perf_context {
	const struct lab_spec *spec;
	enum backend_kind backend;          /* resolved: GPU or EMU */
	const struct build_result *student; /* built */
	const char *student_source;         /* the submission (optim.h: the leaderboard) */
	const char *tmp;                    /* the grading run's private folder */
	uint64_t seed;                      /* the run's seed: dataset i is generated with seed + i */
	unsigned timeout_ms;                /* one run of the student program */
	bool quick;                         /* a quick run: perf datasets were skipped */
	bool seed_given;                    /* the same inputs come again (a class, a lab
					     * check, the TUI's quick runs): the solution's
					     * counted results are kept (perf_kept_path) */
	const struct spec_dataset *counted; /* emu: the dataset whose run counted
					     * (grade_datasets.c: PMPPLAB_COUNTERS=1),
					     * or NULL */
	const char *counted_result;         /* its result: the student's counted run */
	struct subrun *runs;                /* how the programs run (sandbox, fail fast) */
};

/* One measured run of program B on REQUEST, with MODE (e.g. "PMPPLAB_COUNTERS=1") and
 * EXTRA (NULL or one more NAME=VALUE) in its environment; reads its result into *out.
 * Returns 0, or -1 with the reason in WHY. For the optimisations check too (optim.h). */
int perf_run(const struct perf_context *ctx, const struct build_result *b, const char *mode,
	     const char *extra, const char *request, struct pl_file *out, char *why, size_t whylen);
/* Where the emulator's counted result of the lab's solution SOL (built) on REQUEST with
 * MODE is kept between gradings, in the cache (issue 16: the same inputs come again, so
 * its run is made once, not once a save or once a student): it depends on the solution's
 * build (its program's and PTX's paths hold their hashes), the inputs' content, MODE,
 * the emulated GPU ($PMPPLAB_EMU_DEVICE) and the emulator's runtime (its file's identity:
 * a rebuilt emulator may count differently). False when there is no cache folder. */
bool perf_kept_path(const struct build_result *sol, const char *mode, const char *request,
		    char *path, size_t len);
/* The request file of dataset D in the grading folder into REQUEST, or why not (WHY). */
int perf_request(const struct perf_context *ctx, const struct spec_dataset *d, char *request,
		 size_t len, char *why, size_t whylen);
/* Timed GPU runs take turns: parallel graders on one machine (lab check with
 * $PMPPLAB_LABCHECK_JOBS, several pmpplab processes) never time kernels while another's
 * run, which would slow them. An exclusive flock on <cache>/gpu-timing.lock; returns its
 * descriptor (-1: not locked, timing goes on) for perf_gpu_unlock. */
int perf_gpu_lock(void);
void perf_gpu_unlock(int fd);
/* "PMPPLAB_TIMING=..." for a timed run ($PMPPLAB_PERF_TIMING, else the default). */
void perf_timing_env(char *buf, size_t len);
/* Whether dataset D's correctness test ran and passed: speed counts only for correct
 * results. 1 passed; 0 failed, or was skipped (a quick run) while another dataset's
 * correctness test failed: a wrong program is not "not measured", on either backend;
 * -1 skipped and nothing failed. On 0, the failed dataset's name goes to WRONG. */
int perf_dataset_correct(const struct report *r, const struct spec_dataset *d, char *wrong,
			 size_t len);

/* Runs check C and adds its test to R. Returns 0 (failures are in the report), or a
 * negative code for a configuration error (no nvcc...) explained in diags. */
int perf_grade(const struct perf_context *ctx, const struct spec_check *c, struct report *r,
	       struct diag_list *diags);

#endif
