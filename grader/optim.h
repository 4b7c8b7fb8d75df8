/* optim: checks of kind optimisations (labs/README.md, "Optimisation checks"): which of
 * a lab's menu of optimisations a submission really used, what they bought, and the
 * student's leaderboard.
 *
 * The check runs the student's program once more on its dataset: on a GPU timed (as the
 * performance check times it; CUPTI also names every kernel a call launched and counts
 * its streams), on the emulator counted (pl_counters) with its launch events. Each
 * recogniser of the spec is data: an extended regex over the PTX of the kernels that run
 * launched (never of kernels that are compiled and not launched: dead code earns
 * nothing), a limit on the distinct kernels launched, a least number of streams. The
 * run of the baseline dataset (the same layer done by the student's plain version) gives
 * the speed-up; the leaderboard (leaderboard.h), what each optimisation bought against
 * the student's own earlier runs. On a GPU the figure is the kernel time per call; on
 * the emulator a modelled cost (warp instructions + 4 x global sectors). */
#ifndef PMPPLAB_OPTIM_H
#define PMPPLAB_OPTIM_H

#include <stdbool.h>

#include "diag.h"
#include "perf.h"
#include "report.h"
#include "spec.h"

#define OPTIM_MAX_KERNELS 32

/* What one run launched: kernel names (as the PTX spells them on a GPU, as the emulator's
 * events spell them on the emulator) with their launches per call, and its streams. */
struct optim_launches {
	char *names[OPTIM_MAX_KERNELS];
	unsigned counts[OPTIM_MAX_KERNELS];
	unsigned n;
	int streams; /* distinct streams; -1 = not observable (the emulator) */
};

/* The identifier a kernel is known by, from a mangled name ("_Z6convFwPKfPfi" ->
 * "convFw", "_Z4tileILi16EEvPf" -> "tile") or a demangled one ("tile<16>" -> "tile",
 * "convFw(float const*)" -> "convFw"); extern "C" names stay as they are. */
void optim_base_name(const char *name, char *out, size_t len);

/* The PTX text of the kernels in L (matched by mangled name, or by base name where L
 * has a source name), one after another, malloc'd
 * ("" when none matches), or NULL on ENOMEM. */
char *optim_launched_ptx(const char *ptx, const struct optim_launches *l);

/* The emulator's launch events (PMPPLAB_EVENTS lines) into *L. Returns 0 or -ENOMEM. */
int optim_launches_from_events(const char *events, struct optim_launches *l);
/* A GPU run's "launched NAME" and streams_per_call metrics into *L. */
int optim_launches_from_result(const struct pl_file *result, struct optim_launches *l);
void optim_launches_release(struct optim_launches *l);

/* The most multiply-adds (fma) that read one loaded value before its register is
 * written again, over PTX: 1 when every operand is loaded for each use, U when a value
 * kept in a register feeds U outputs (register tiling). */
unsigned optim_fma_per_load(const char *ptx);

/* Recogniser R against PTX (of the launched kernels only) and L: 1 recognised, 0 not,
 * -1 not observable on this run (streams on the emulator). WHY gets the evidence or
 * what was missing. */
int optim_recognise(const struct spec_recogniser *r, const char *ptx,
		    const struct optim_launches *l, char *why, size_t len);

/* Runs check C and adds its test to R. Returns 0 (failures are in the report), or a
 * negative code for a configuration error. */
int optim_grade(const struct perf_context *ctx, const struct spec_check *c, struct report *r,
		struct diag_list *diags);

#endif
