/* slurm: a batch (batch.h) graded by a Slurm cluster as one job array. The submitting
 * pmpplab writes the students still to grade to OUT/slurm/manifest (one name a line)
 * and a job script, and runs `sbatch --array=0-(T-1)`; array task K runs
 * `pmpplab slurm-task OUT --chunk C`, which grades manifest lines K*C to K*C+C-1 on its
 * node and writes their results.json into OUT, as a local batch would. OUT (and the
 * submissions, the lab collection and pmpplab) must be on a file system every node
 * sees. OUT/slurm/job.json remembers the job, so the batch can be waited for or
 * collected later. */
#ifndef PMPPLAB_SLURM_H
#define PMPPLAB_SLURM_H

#include <stddef.h>

#include "batch.h"
#include "diag.h"

struct slurm_opts {
	const char *self;       /* the pmpplab binary the tasks run (absolute) */
	const char *partition;  /* sbatch --partition, or NULL */
	const char *gres;       /* sbatch --gres ("gpu:1"), or NULL */
	const char *time;       /* sbatch --time, or NULL */
	unsigned chunk;         /* submissions per array task (>= 1) */
	unsigned jobs;          /* workers per task (its -j; cpus-per-task) */
};

/* Submits the students TODO[0..n) as one job array. Returns 0 with the job id in JOBID,
 * or a negative code with sbatch's message in diags (-EBUSY: a job of this batch is
 * still queued or running). */
int slurm_submit(const struct batch *b, const struct slurm_opts *o, const unsigned *todo,
		 unsigned n, char *jobid, size_t len, struct diag_list *diags);

/* The batch's last job (from OUT/slurm/job.json): 0 with its id, or -ENOENT. */
int slurm_last_job(const struct batch *b, char *jobid, size_t len);

/* Array tasks of JOBID still pending or running (squeue), 0 when all ended, or a
 * negative code when squeue cannot be asked (its message in diags). */
int slurm_active(const char *jobid, struct diag_list *diags);

/* Array task TASK's students, as indexes into b->students (caller frees *todo); names
 * no longer in the submissions folder are skipped. 0 or a negative code. */
int slurm_task_students(const struct batch *b, unsigned task, unsigned chunk, unsigned **todo,
			unsigned *n, struct diag_list *diags);

/* The students of the last job's manifest that no task graded (a task that died or ran
 * out of time) get an error record naming the task's log, so they are graded again
 * next time. Returns how many. */
unsigned slurm_mark_lost(const struct batch *b);

#endif
