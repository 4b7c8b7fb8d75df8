/* ncu: the GPU's own counters for the memory panel and the report (issue 7), from
 * NVIDIA Nsight Compute's command line (ncu) run over the student's program. Per kernel:
 * achieved occupancy, active lanes per warp instruction, 32-byte sectors per global load
 * and store request, and shared-memory passes per shared load and store instruction (1 =
 * conflict-free, 32 = a 32-way bank conflict): the same figures the emulator models,
 * measured. This module builds the command and reads ncu's CSV; grade_checks.c runs it. */
#ifndef PMPPLAB_NCU_H
#define PMPPLAB_NCU_H

#include <stdbool.h>
#include <stddef.h>

/* The name of the report's entry that holds the profile, or why there is none. */
#define NCU_REPORT_TEST "profile (ncu)"
/* The most kernels kept (launches of one kernel are added up into one entry). */
#define NCU_MAX_KERNELS 16
/* The most launches profiled: every counter needs several replays of a launch. */
#define NCU_LAUNCH_COUNT "24"

struct ncu_kernel {
	char name[96];          /* without its parameter list */
	unsigned launches;
	double time_ns;         /* summed over the launches */
	/* Sums over the launches; a counter ncu did not give stays negative. */
	double warps_pct_time;  /* achieved occupancy x time, for a time-weighted mean */
	double insts, lane_insts; /* warp instructions, and those x active lanes */
	double ld_sectors, ld_requests, st_sectors, st_requests;
	double shd_ld_passes, shd_ld_insts, shd_st_passes, shd_st_insts;
};

struct ncu_profile {
	struct ncu_kernel kernels[NCU_MAX_KERNELS];
	unsigned n;
	char dataset[64];       /* the dataset profiled */
};

/* Fills ARGV (room for 16 entries, NULL-terminated) with the command that profiles
 * PROGRAM REQUEST RESULT under NCU, its own output going to LOG. */
void ncu_command(const char **argv, const char *ncu, const char *log, const char *program,
		 const char *request, const char *result);

/* Reads ncu's CSV (--csv --page raw) from TEXT. Returns 0 with *out filled (n may be 0:
 * no kernel was profiled), or -1 when TEXT holds no CSV table; then WHY says what went
 * wrong, in words a student can act on (counters not permitted, no kernel...). */
int ncu_parse(const char *text, struct ncu_profile *out, char *why, size_t whylen);

/* The figures of K: NAN where ncu did not give the counters (or the kernel made no
 * such access). */
double ncu_occupancy_pct(const struct ncu_kernel *k);
double ncu_lanes(const struct ncu_kernel *k);
double ncu_ld_sectors_per_request(const struct ncu_kernel *k);
double ncu_st_sectors_per_request(const struct ncu_kernel *k);
double ncu_shared_ld_passes(const struct ncu_kernel *k);
double ncu_shared_st_passes(const struct ncu_kernel *k);

/* The whole profile as text for a report: the header, a line per kernel and what the
 * columns mean. Caller frees; NULL when out of memory. */
char *ncu_table(const struct ncu_profile *p);

#endif
