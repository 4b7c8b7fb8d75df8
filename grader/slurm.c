/* slurm: see slurm.h. */
#include "slurm.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "runner.h"
#include "sandbox.h"

/* NAME's path from $PATH, or NULL. Caller frees. */
static char *find_command(const char *name)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path ? path : "/usr/bin:/bin"), *save = NULL, *found = NULL;
	for (char *p = copy, *dir; copy && !found && (dir = strtok_r(p, ":", &save)); p = NULL) {
		char full[PATH_MAX];
		snprintf(full, sizeof(full), "%s/%s", dir, name);
		if (access(full, X_OK) == 0)
			found = strdup(full);
	}
	free(copy);
	return found;
}

/* Runs a Slurm command (argv[0] looked up on $PATH); its output in *res. 0, or a
 * negative code when it cannot start. */
static int run_cmd(char **argv, struct runner_result *res, struct diag_list *diags)
{
	char *cmd = find_command(argv[0]);
	if (!cmd) {
		diag_add(diags, DIAG_ERROR, NULL, 0, 0,
			 "%s is not on PATH: install Slurm's client commands (Debian: slurm-client), or run where they are", argv[0]);
		return -ENOENT;
	}
	const char *name = argv[0];
	argv[0] = cmd;
	struct runner_opts o = { .argv = argv, .timeout_ms = 120 * 1000 };
	int rc = runner_run(&o, res);
	argv[0] = (char *)name;
	if (rc < 0)
		diag_add(diags, DIAG_ERROR, NULL, 0, 0, "cannot run %s: %s", cmd, strerror(-rc));
	free(cmd);
	return rc;
}

/* A shell word: 'text', with ' written as '\'' */
static void shell_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "'\\''" : (char[]){ *s, 0 }, f);
	fputc('\'', f);
}

static int write_text(const char *path, const char *text, mode_t mode)
{
	int rc = fs_write_atomic(path, text, strlen(text));
	if (rc == 0 && chmod(path, mode) != 0)
		rc = -errno;
	return rc;
}

static int write_manifest(const struct batch *b, const unsigned *todo, unsigned n, const char *dir)
{
	char *text = NULL, path[PATH_MAX];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		fprintf(m, "%s\n", b->students[todo[i]].name);
	fclose(m);
	snprintf(path, sizeof(path), "%s/manifest", dir);
	int rc = write_text(path, text, 0644);
	free(text);
	return rc;
}

static int write_script(const struct batch *b, const struct slurm_opts *o, const char *dir)
{
	char *text = NULL, path[PATH_MAX];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	fprintf(m, "#!/bin/sh\n# pmpplab: array task $SLURM_ARRAY_TASK_ID grades its %u submissions of the batch in\n# %s (written by pmpplab --grade --slurm)\nexec ",
		o->chunk, b->out);
	shell_quote(m, o->self);
	fputs(" slurm-task ", m);
	shell_quote(m, b->out);
	fprintf(m, " --chunk %u -j %u%s\n", o->chunk, o->jobs,
		sandbox_enabled() ? "" : " --sandbox=off"); /* the tasks as the batch: knowingly */
	fclose(m);
	snprintf(path, sizeof(path), "%s/job.sh", dir);
	int rc = write_text(path, text, 0755);
	free(text);
	return rc;
}

int slurm_last_job(const struct batch *b, char *jobid, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/slurm/job.json", b->out);
	json_t *o = json_load_file(path, 0, NULL);
	const char *id = NULL;
	int rc = o && json_unpack(o, "{s:s}", "job", &id) == 0 ? 0 : -ENOENT;
	if (rc == 0)
		snprintf(jobid, len, "%s", id);
	json_decref(o);
	return rc;
}

int slurm_active(const char *jobid, struct diag_list *diags)
{
	char *argv[] = { "squeue", "-h", "-j", (char *)jobid, "-o", "%i %t", NULL };
	struct runner_result res;
	int rc = run_cmd(argv, &res, diags);
	if (rc < 0)
		return rc;
	int n = 0;
	if (res.status == RUNNER_EXITED && res.exit_code == 0) {
		for (const char *p = res.out; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
			n += isdigit((unsigned char)*p) != 0;
	} else if (res.err && strstr(res.err, "Invalid job id")) {
		n = 0; /* ended long enough ago that slurmctld forgot it */
	} else {
		diag_add(diags, DIAG_ERROR, NULL, 0, 0, "squeue -j %s failed: %s", jobid,
			 res.err && *res.err ? res.err : "no message");
		n = -EIO;
	}
	runner_result_release(&res);
	return n;
}

/* sbatch's argument list for the job (NULL-terminated in ARGV, strings in BUF). */
static void sbatch_argv(const struct batch *b, const struct slurm_opts *o, unsigned tasks,
			const char *dir, char **argv, char buf[6][PATH_MAX])
{
	unsigned n = 0;
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	snprintf(buf[0], PATH_MAX, "--array=0-%u", tasks - 1);
	snprintf(buf[1], PATH_MAX, "--job-name=pmpplab-%s", b->lab);
	snprintf(buf[2], PATH_MAX, "--output=%s/task-%%a.log", dir);
	snprintf(buf[3], PATH_MAX, "--cpus-per-task=%u", o->jobs);
	for (unsigned i = 0; i < 4; i++)
		argv[n++] = buf[i];
	if (o->partition)
		argv[n++] = "--partition", argv[n++] = (char *)o->partition;
	if (o->gres)
		argv[n++] = "--gres", argv[n++] = (char *)o->gres;
	if (o->time)
		argv[n++] = "--time", argv[n++] = (char *)o->time;
	snprintf(buf[4], PATH_MAX, "%s/job.sh", dir);
	argv[n++] = buf[4];
	argv[n] = NULL;
}

int slurm_submit(const struct batch *b, const struct slurm_opts *o, const unsigned *todo,
		 unsigned n, char *jobid, size_t len, struct diag_list *diags)
{
	char dir[PATH_MAX], old[64];
	snprintf(dir, sizeof(dir), "%s/slurm", b->out);
	if (slurm_last_job(b, old, sizeof(old)) == 0 && slurm_active(old, diags) > 0) {
		diag_add(diags, DIAG_ERROR, NULL, 0, 0,
			 "Slurm job %s is still grading this batch: wait for it (pmpplab --collect %s), or cancel it (scancel %s)",
			 old, b->out, old);
		return -EBUSY;
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		diag_add(diags, DIAG_ERROR, dir, 0, 0, "cannot make the folder: %s", strerror(errno));
		return -errno;
	}
	unsigned chunk = o->chunk ? o->chunk : 1, tasks = (n + chunk - 1) / chunk;
	int rc = write_manifest(b, todo, n, dir);
	if (rc == 0)
		rc = write_script(b, o, dir);
	if (rc < 0) {
		diag_add(diags, DIAG_ERROR, dir, 0, 0, "cannot write the job's files: %s", strerror(-rc));
		return rc;
	}
	char *argv[20], buf[6][PATH_MAX];
	sbatch_argv(b, o, tasks, dir, argv, buf);
	struct runner_result res;
	if ((rc = run_cmd(argv, &res, diags)) < 0)
		return rc;
	if (res.status != RUNNER_EXITED || res.exit_code != 0 || !res.out || !isdigit((unsigned char)res.out[0])) {
		diag_add(diags, DIAG_ERROR, NULL, 0, 0, "sbatch refused the job: %s",
			 res.err && *res.err ? res.err : res.out ? res.out : "no message");
		rc = -EIO;
	} else {
		snprintf(jobid, len, "%.*s", (int)strspn(res.out, "0123456789"), res.out);
		json_t *j = json_pack("{s:s, s:i, s:i, s:i}", "job", jobid, "tasks", (int)tasks,
				      "chunk", (int)chunk, "submissions", (int)n);
		char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
		snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/job.json");
		rc = text ? write_text(dir, text, 0644) : -ENOMEM;
		free(text);
		json_decref(j);
	}
	runner_result_release(&res);
	return rc;
}

/* The manifest's names, one a line (caller frees the text; *names points into it). */
static char **read_manifest(const struct batch *b, char **text, unsigned *n)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/slurm/manifest", b->out);
	*n = 0;
	*text = fs_read(path, NULL);
	if (!*text)
		return NULL;
	unsigned lines = 0;
	for (const char *p = *text; *p; p++)
		lines += *p == '\n';
	char **names = calloc(lines + 1, sizeof(char *));
	for (char *p = *text, *save = NULL, *tok; names && (tok = strtok_r(p, "\n", &save)); p = NULL)
		names[(*n)++] = tok;
	return names;
}

static int find_student(const struct batch *b, const char *name)
{
	for (unsigned i = 0; i < b->n; i++)
		if (strcmp(b->students[i].name, name) == 0)
			return (int)i;
	return -1;
}

int slurm_task_students(const struct batch *b, unsigned task, unsigned chunk, unsigned **todo,
			unsigned *n, struct diag_list *diags)
{
	char *text;
	unsigned lines;
	char **names = read_manifest(b, &text, &lines);
	*n = 0;
	*todo = calloc(chunk ? chunk : 1, sizeof(unsigned));
	if (!names || !*todo) {
		diag_add(diags, DIAG_ERROR, b->out, 0, 0, "cannot read slurm/manifest: %s", strerror(errno));
		free(names);
		free(text);
		return -ENOENT;
	}
	for (unsigned i = task * chunk; i < lines && i < (task + 1) * chunk; i++) {
		int k = find_student(b, names[i]);
		if (k >= 0)
			(*todo)[(*n)++] = (unsigned)k;
	}
	free(names);
	free(text);
	return 0;
}

unsigned slurm_mark_lost(const struct batch *b)
{
	char path[PATH_MAX], *text;
	snprintf(path, sizeof(path), "%s/slurm/job.json", b->out);
	json_t *j = json_load_file(path, 0, NULL);
	int chunk = 1;
	const char *job = "?";
	json_unpack(j, "{s:s, s:i}", "job", &job, "chunk", &chunk);
	unsigned lines, lost = 0;
	char **names = read_manifest(b, &text, &lines);
	for (unsigned i = 0; names && i < lines; i++) {
		int k = find_student(b, names[i]);
		if (k < 0 || batch_state(b, &b->students[k]) != BATCH_LEFT)
			continue;
		char why[PATH_MAX + 200];
		snprintf(why, sizeof(why), "Slurm job %s, array task %u, ended without grading this submission (see %s/slurm/task-%u.log); it is graded again at the next start of the batch",
			 job, i / (unsigned)(chunk > 0 ? chunk : 1), b->out, i / (unsigned)(chunk > 0 ? chunk : 1));
		batch_record_error(b, &b->students[k], why);
		lost++;
	}
	free(names);
	free(text);
	json_decref(j);
	return lost;
}
