/* spec: a lab's lab.yaml, loaded with libcyaml against a schema and then checked
 * for meaning (names that resolve, sizes that parse, files that exist).
 *
 * The structs below are filled by libcyaml directly, so every sequence is a pointer
 * plus a count. Paths are as written in the YAML (relative to the lab folder);
 * spec_path() makes them absolute. */
#ifndef PMPPLAB_SPEC_H
#define PMPPLAB_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum spec_dtype { SPEC_F32, SPEC_F64, SPEC_I32, SPEC_U32, SPEC_U8 };

/* How the grader fills an input buffer (with the dataset's seed). */
enum spec_gen_kind {
	SPEC_GEN_UNIFORM, /* uniform in [min, max]; integers inclusive */
	SPEC_GEN_CONST,   /* every element = value */
	SPEC_GEN_IOTA,    /* element i = min + i (wrapping at max when max > min) */
	SPEC_GEN_BITS,    /* uniform random 0/1 values (masks, images in black and white) */
};

struct spec_generator {
	enum spec_gen_kind kind;
	double min, max, value;
};

/* |actual - expected| <= abs + rel * |expected|, or bit-for-bit when exact. */
struct spec_tolerance {
	bool exact;
	double abs, rel;
};

/* A scalar argument of the entry point; its value comes from the dataset. */
struct spec_param {
	char *name;
	enum spec_dtype type;
	char *doc;
};

/* Who may compute an output (issue 14; labs/README.md, "Provenance"). */
enum spec_provenance {
	SPEC_PROV_DEVICE,        /* every element comes from memory a kernel wrote (default) */
	SPEC_PROV_HOST_COMBINES, /* the host may finish it from kernel results it copied back */
	SPEC_PROV_HOST,          /* host code computes it (e.g. from runtime queries) */
};

/* An input or output buffer; size is an expression over the params ("n", "rows*cols*3"). */
struct spec_buffer {
	char *name;
	enum spec_dtype type;
	char *size;
	char **shape;     /* outputs only, optional: its dimensions, outermost first ("height",
	                     "width"), whose product is size: mismatches are then described by
	                     row and column (an edge band, columns from c on, a transpose) */
	unsigned shape_count;
	struct spec_generator *generate; /* inputs only */
	struct spec_tolerance *tolerance; /* outputs only; NULL = spec default */
	enum spec_provenance provenance;  /* outputs only */
	char *doc;
};

struct spec_value {
	char *name;
	int64_t value;
};

/* A dataset's own generator for one input (datasets[].generate): the input is filled
 * this way in that dataset only, e.g. all ones, where any element lost or counted twice
 * shows in a sum. */
struct spec_dataset_gen {
	char *input;
	struct spec_generator gen;
};

struct spec_dataset {
	char *name;
	char **values;          /* "n = 70001": one param each, as written */
	unsigned values_count;
	unsigned points;  /* correctness points for this dataset */
	bool perf;        /* large: used by performance checks, skipped by quick runs */
	unsigned min_launches; /* kernels the call must launch (lab 15's version 2: unroll + product) */
	struct spec_dataset_gen *gens; /* optional: inputs filled otherwise in this dataset */
	unsigned gens_count;
	char *doc;

	/* Filled by spec_load from values. */
	struct spec_value *vals;
	unsigned n_vals;
};

enum spec_check_kind {
	SPEC_CHECK_MEMCHECK,
	SPEC_CHECK_PERFORMANCE, /* pmpplab perf (issue 8): grader/perf.h */
	SPEC_CHECK_BARRIERS,    /* barrier and race analysis (issue 6): grader/barriers.h */
	SPEC_CHECK_OPTIMISATIONS, /* which optimisations a run used, a leaderboard: optim.h */
};

/* One optimisation an optimisations check recognises (labs/README.md, "Optimisation
 * checks"): every condition it states must hold. */
struct spec_recogniser {
	char *name;           /* "weights in constant memory" */
	char *ptx;            /* extended regex over the PTX of the kernels the run launched */
	unsigned max_kernels; /* at most this many distinct kernels launched; 0 = no condition */
	unsigned min_streams; /* GPU: kernels on at least this many streams; 0 = no condition */
	unsigned min_fma_per_load; /* a loaded value feeds this many fma (register tiling) */
	char *doc;
};

/* What a performance check measures against the device's peak. */
enum spec_perf_metric {
	SPEC_PERF_TIME,      /* only the time ratio to the solution */
	SPEC_PERF_BANDWIDTH, /* bytes / kernel time, against the peak memory bandwidth */
	SPEC_PERF_FLOPS,     /* flops / kernel time, against the peak FP32 rate */
};

/* The vendor library a performance check compares with on a GPU (no points): a .cu
 * implementing the lab's operation with cuBLAS, CUB or a copy kernel, built and timed like
 * the solution (labs/README.md, "The vendor line"). */
struct spec_vendor {
	char *name;          /* shown: "cuBLAS SGEMM" */
	char *file;          /* the .cu, relative to the lab folder */
	char *function;      /* its host function; NULL = the entry point's name */
	char **args;         /* the names it is called with; NULL = entry.args */
	unsigned args_count;
	char *bytes, *flops; /* the work it does when not the check's (a copy) */
	char **nvcc_flags;   /* added to the lab's (-lcublas) */
	unsigned nvcc_flags_count;
	bool checked;        /* it computes the lab's outputs: lab check grades them (GPU) */
	char *doc;
};

/* Which global requests the emulator's traffic and coalescing figures count (issue 14):
 * a lab judges the traffic it teaches, not, say, a fixed per-block merge. */
enum spec_perf_traffic {
	SPEC_TRAFFIC_ALL,   /* loads, stores and atomics */
	SPEC_TRAFFIC_LOADS, /* loads only */
};

/* A check beyond correctness (correctness points live on the datasets). */
struct spec_check {
	enum spec_check_kind kind;
	unsigned points;
	char *dataset; /* which dataset it runs on; NULL = the first */
	char **datasets; /* memcheck only: several, each checked (lab 15: one a version) */
	unsigned datasets_count;

	/* kind performance only (labs/README.md, "Performance checks"). */
	enum spec_perf_metric metric;
	char *bytes;      /* expression over the params: bytes the kernels must move */
	char *flops;      /* expression over the params: floating-point operations */
	double max_ratio; /* student kernel time / solution kernel time; 0 = not checked */
	double min_peak;  /* fraction of the device's peak (0..1); 0 = not checked */
	/* on the emulator: modelled counters (grader/harness/pl_counters.h); 0 = not checked */
	char *emu_dataset;          /* dataset for the counted runs; NULL = dataset */
	double max_traffic_ratio;   /* global sectors moved / the solution's */
	double min_coalescing;      /* bytes the lanes asked for / bytes of the sectors moved */
	double max_bank_conflicts;  /* shared-memory passes / conflict-free passes (>= 1) */
	double min_lane_efficiency; /* active lanes per warp instruction / 32 */
	double max_insn_ratio;      /* warp instructions executed / the solution's */
	double max_store_ratio;     /* global bytes stored (atomics too) / the solution's */
	/* issue 14: what the traffic figures count, and per-element figures */
	enum spec_perf_traffic traffic; /* all requests (default) or the loads only */
	char *elements;                 /* expression: the elements the kernels process; NULL =
					 * the first output's size */
	double max_atomics_per_element; /* global atomic lane operations / elements */
	struct spec_vendor *vendor; /* GPU: the "vs the vendor library" line; NULL = none */
	/* kind barriers only (labs/README.md, "Barrier checks"; issue 6). */
	char *kernel;            /* the kernel min_barriers applies to; NULL = the one with most */
	unsigned min_barriers;   /* __syncthreads() it must contain; 0 = not checked */
	bool *forbid_divergent;  /* barriers under thread-dependent conditions fail; NULL = true */
	/* kind optimisations only (labs/README.md, "Optimisation checks"); emu_dataset too. */
	struct spec_recogniser *recognisers;
	unsigned recognisers_count;
	char *baseline;     /* the dataset its speed-up is measured against; NULL = none */
	char *emu_baseline; /* the same on the emulator; NULL = baseline */
	unsigned min_used;  /* recognised optimisations needed to pass; 0 = informational */
	bool leaderboard;   /* keep the best results in the student's workspace */
	char *doc;
};

struct spec_entry {
	char *function;     /* host function the harness calls */
	char **args;        /* names of params, inputs and outputs, in call order */
	unsigned args_count;
};

struct spec_reference {
	char *file;     /* C file (compiled with cc) holding the CPU reference */
	char *function; /* same arguments as the entry point */
	/* Not in lab.yaml: a vendor's view (spec_vendor_view) calls the vendor function with
	 * its own args, and keeps the entry point's here for the reference (else NULL). */
	char **args;
	unsigned args_count;
};

struct lab_spec {
	char *id;
	char *title;
	unsigned chapter;
	char *summary;
	char *student;          /* the starter / student file name, in the lab folder */
	struct spec_entry entry;
	char *solution;         /* path of the solution .cu (relative to the lab folder) */
	struct spec_reference reference;
	char *wrong;            /* folder of known-wrong submissions (lab check) */
	char *right;            /* folder of known-right submissions (lab check) */
	struct spec_param *params;
	unsigned params_count;
	struct spec_buffer *inputs;
	unsigned inputs_count;
	struct spec_buffer *outputs;
	unsigned outputs_count;
	struct spec_dataset *datasets;
	unsigned datasets_count;
	struct spec_check *checks;
	unsigned checks_count;
	char **hints;
	unsigned hints_count;
	unsigned timeout;       /* seconds per run of the student program; 0 = 10 */
	char **nvcc_flags;      /* extra flags for every nvcc call of this lab */
	unsigned nvcc_flags_count;

	/* Filled by spec_load, not read from YAML. */
	char *dir;              /* absolute path of the lab folder */
	char *path;             /* absolute path of lab.yaml */
};

/* Loads and checks DIR/lab.yaml. Returns 0 and sets *out, or a negative errno-style
 * code with at least one entry in diags naming file, line and field. Free with
 * spec_free. */
int spec_load(const char *dir, struct lab_spec **out, struct diag_list *diags);
void spec_free(struct lab_spec *spec);

/* The absolute path of REL (a path written in the spec). Caller frees. */
char *spec_path(const struct lab_spec *spec, const char *rel);

/* VIEW becomes the lab as vendor V's program sees it: SPEC's params, buffers and
 * datasets, V's function, args and nvcc flags (after the lab's), and no checks. VIEW
 * borrows from SPEC and V. Returns 0 or -ENOMEM; release with spec_vendor_view_release. */
int spec_vendor_view(const struct lab_spec *spec, const struct spec_vendor *v,
		     struct lab_spec *view);
void spec_vendor_view_release(struct lab_spec *view);

/* The element size of a dtype, and its YAML name. */
size_t spec_dtype_size(enum spec_dtype t);
const char *spec_dtype_name(enum spec_dtype t);

/* The dataset called NAME, or NULL. */
const struct spec_dataset *spec_dataset_named(const struct lab_spec *s, const char *name);

/* The value of param NAME in dataset D; false when D does not set it. */
bool spec_dataset_value(const struct spec_dataset *d, const char *name, int64_t *out);

/* How input B is filled in dataset D: the dataset's own generator for it, else B's. */
const struct spec_generator *spec_dataset_generator(const struct spec_dataset *d,
						    const struct spec_buffer *b);

/* Evaluates EXPR (an expression over the params, like a size) in dataset D into *out.
 * Returns 0, or -EINVAL (unknown name, bad expression). */
int spec_dataset_eval(const struct lab_spec *spec, const struct spec_dataset *d,
		      const char *expr, int64_t *out);

/* An output's dimensions in one dataset, outermost first; n = 0 when it has no shape. */
#define SPEC_SHAPE_DIMS 4
struct spec_shape {
	unsigned n;
	uint64_t dim[SPEC_SHAPE_DIMS];
};

/* Output B's shape in dataset D, whose elements number COUNT: n = 0 when the spec gives
 * none or it does not evaluate to COUNT elements (lab check reports that). */
void spec_buffer_shape(const struct lab_spec *spec, const struct spec_buffer *b,
		       const struct spec_dataset *d, uint64_t count, struct spec_shape *out);

/* Evaluates a buffer's size in dataset D. Returns 0, or -EINVAL (unknown name, bad
 * expression, negative). */
int spec_buffer_count(const struct lab_spec *spec, const struct spec_buffer *b,
		      const struct spec_dataset *d, uint64_t *count);

#endif
