/* cli_course: the command line for running a course (issue 13): a class batch
 * (--grade LAB --submissions DIR, locally or through Slurm), --collect, the Slurm task,
 * `export gradescope` and `lab starter`. cli.c parses the shared options and hands
 * these over; they live apart so the commands of other areas merge cleanly. */
#ifndef PMPPLAB_CLI_COURSE_H
#define PMPPLAB_CLI_COURSE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

struct cli_course {
	const char *submissions;  /* --submissions DIR: grade a class */
	const char *output_dir;   /* --output-dir OUT (default grades-LAB) */
	const char *collect;      /* --collect OUT */
	unsigned jobs;            /* -j N (0: the default) */
	bool slurm, no_wait;      /* --slurm, --no-wait */
	const char *partition, *gres, *time; /* --partition, --gres, --time */
	unsigned chunk;           /* --chunk N: submissions per Slurm array task */
	const char *out_file;     /* -o FILE (export, lab starter) */
};

/* The options every command shares, parsed by cli.c. */
struct cli_common {
	const char *labs_dir;
	enum backend_kind backend;
	bool backend_given;       /* --backend was on the command line */
	uint64_t seed;
	bool quick;
	const char *format;
	const char *const *positional;
	int n_positional;
};

/* Parses the option at argv[i] if it is one of ours: returns the argv entries used,
 * 0 when it is not ours, or -1 (it lacks its value) / -2 (a bad value) after printing
 * the reason. */
int cli_course_option(struct cli_course *o, int argc, char **argv, int i);

/* After parsing: whether the options fit the command (GRADE: it is --grade). Prints the
 * reason and returns -1 when they do not. */
int cli_course_validate(const struct cli_course *o, bool grade);

/* The commands; each returns pmpplab's exit status (cli.h). */
int cli_course_batch(const struct cli_course *o, const struct cli_common *c);
int cli_course_collect(const struct cli_course *o, const struct cli_common *c);
int cli_course_slurm_task(const struct cli_course *o, const struct cli_common *c);
int cli_course_export(const struct cli_course *o, const struct cli_common *c);
int cli_course_starter(const struct cli_course *o, const struct cli_common *c);

#endif
