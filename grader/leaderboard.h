/* leaderboard: a student's results on an optimisation lab, kept in the workspace
 * (<workspace>/.pmpplab/leaderboard-<lab>.json), so that each grading can say which run
 * was the best and what each optimisation bought against the student's own earlier runs
 * (labs/README.md, "Optimisation checks"). One entry per submission version, backend and
 * device; results of different devices (or the emulator's modelled cost) never compare.
 *
 * The file is JSON: {"lab": ID, "runs": [{"when", "backend", "device", "unit", "value",
 * "baseline", "used": [names], "source": hash}, ...]}, newest last, at most
 * LEADERBOARD_MAX_RUNS. It is rewritten atomically; a file that does not parse is
 * moved aside (never lost) and a new board started. */
#ifndef PMPPLAB_LEADERBOARD_H
#define PMPPLAB_LEADERBOARD_H

#include <stdbool.h>
#include <stddef.h>

#define LEADERBOARD_MAX_RUNS 100
#define LEADERBOARD_MAX_USED 32

struct leaderboard_run {
	char when[32];     /* ISO 8601, UTC */
	char backend[8];   /* "gpu", "emu" */
	char device[64];   /* "cc 9.0, 132 SMs" or "emulator" */
	char unit[16];     /* "ms" (kernel time) or "cost" (modelled) */
	double value;      /* smaller is better */
	double baseline;   /* the same run's baseline (the plain version); 0 = none */
	char source[33];   /* hash of the submission */
	char *used[LEADERBOARD_MAX_USED]; /* names of the optimisations recognised */
	unsigned n_used;
};

struct leaderboard {
	char *lab;
	struct leaderboard_run *runs;
	unsigned n;
};

/* Parses TEXT (NULL or empty: an empty board for LAB). Returns 0, or -EINVAL when the
 * text is not a leaderboard. */
int leaderboard_parse(const char *text, const char *lab, struct leaderboard *b);
/* The JSON text (malloc'd), or NULL on ENOMEM. */
char *leaderboard_format(const struct leaderboard *b);
/* Adds R (copied), replacing an entry of the same source, backend and device; drops the
 * oldest beyond LEADERBOARD_MAX_RUNS. Returns 0 or -ENOMEM. */
int leaderboard_add(struct leaderboard *b, const struct leaderboard_run *r);
/* The best run comparable with R (same backend, device and unit), or NULL. */
const struct leaderboard_run *leaderboard_best(const struct leaderboard *b,
					       const struct leaderboard_run *r);
/* What optimisation NAME, used in R, bought: the best comparable run that did not use it
 * and used nothing R did not (so the difference is NAME and perhaps other things R
 * adds). Returns that run, or NULL when there is none. */
const struct leaderboard_run *leaderboard_without(const struct leaderboard *b,
						  const struct leaderboard_run *r,
						  const char *name);
void leaderboard_release(struct leaderboard *b);
void leaderboard_run_release(struct leaderboard_run *r);

/* Loads PATH, adds R, writes PATH back. A file that does not parse is renamed to
 * PATH.broken.<N> first; BROKEN (may be NULL) then gets that name (malloc'd). Returns
 * 0 and the updated board in *B, or a negative errno. */
int leaderboard_record(const char *path, const char *lab, const struct leaderboard_run *r,
		       struct leaderboard *b, char **broken);

#endif
