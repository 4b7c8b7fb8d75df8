/* cli_course: see cli_course.h. */
#include "cli_course.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "classreport.h"
#include "cli.h"
#include "fsutil.h"
#include "gradebook.h"
#include "gsexport.h"
#include "junit.h"
#include "labs.h"
#include "pmpplab_config.h"
#include "slurm.h"
#include "spec.h"
#include "starter.h"

static int needs_value(const char *opt)
{
	fprintf(stderr, "pmpplab: %s needs a value (pmpplab --help)\n", opt);
	return -1;
}

/* A count of at least 1 from V, or 0 after saying why. */
static unsigned count_arg(const char *opt, const char *v)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || n < 1 || n > 4096) {
		fprintf(stderr, "pmpplab: %s takes a number from 1 to 4096, not '%s'\n", opt, v);
		return 0;
	}
	return (unsigned)n;
}

int cli_course_option(struct cli_course *o, int argc, char **argv, int i)
{
	const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
	if (strcmp(a, "--slurm") == 0)
		return o->slurm = true, 1;
	if (strcmp(a, "--no-wait") == 0)
		return o->no_wait = true, 1;
	if (strncmp(a, "-j", 2) == 0 && a[2]) /* -j4 */
		return (o->jobs = count_arg("-j", a + 2)) ? 1 : -2;
	static const char *valued[] = { "--submissions", "--output-dir", "--collect", "-j", "--jobs",
					"--partition", "--gres", "--time", "--chunk", "-o" };
	unsigned k = 0;
	while (k < sizeof(valued) / sizeof(*valued) && strcmp(a, valued[k]) != 0)
		k++;
	if (k == sizeof(valued) / sizeof(*valued))
		return 0;
	if (!v)
		return needs_value(a);
	const char **slot[] = { &o->submissions, &o->output_dir, &o->collect, NULL, NULL,
				&o->partition, &o->gres, &o->time, NULL, &o->out_file };
	if (slot[k])
		*slot[k] = v;
	else if (k == 8 && !(o->chunk = count_arg(a, v)))
		return -2;
	else if (k != 8 && !(o->jobs = count_arg(a, v)))
		return -2;
	return 2;
}

int cli_course_validate(const struct cli_course *o, bool grade)
{
	const char *stray = o->submissions && !grade ? "--submissions (it goes with --grade LAB)"
			    : (o->slurm || o->no_wait || o->partition || o->gres || o->time) && !o->submissions
				    ? "--slurm and its options (they go with --grade LAB --submissions DIR)"
			    : o->output_dir && !o->submissions ? "--output-dir (it goes with --submissions DIR)"
			    : o->no_wait && !o->slurm ? "--no-wait (it goes with --slurm)" : NULL;
	if (stray)
		fprintf(stderr, "pmpplab: %s\n", stray);
	return stray ? -1 : 0;
}

/* ---- progress ---------------------------------------------------------------------- */

static void duration(char *buf, size_t len, double s)
{
	if (s < 60)
		snprintf(buf, len, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
}

/* The progress bar on a terminal; a plain line per submission otherwise (a log). */
static void show_progress(void *userdata, const struct batch_progress *p)
{
	bool tty = userdata != NULL;
	char eta[32] = "?", rate[32] = "-";
	if (p->done_now + p->failed && p->elapsed_s > 0) {
		double per_s = (p->done_now + p->failed) / p->elapsed_s;
		snprintf(rate, sizeof(rate), "%.1f/min", per_s * 60);
		duration(eta, sizeof(eta), p->left / per_s);
	}
	if (!tty) {
		if (p->last && p->last_failed)
			printf("[%u/%u] %s: could not be graded (see its results.json)\n", p->total - p->left, p->total, p->last->name);
		else if (p->last)
			printf("[%u/%u] %s: %g/%g (%.1f s)\n", p->total - p->left, p->total, p->last->name,
			       p->last_score, p->last_max, p->last_s);
		fflush(stdout);
		return;
	}
	struct winsize ws;
	int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	char text[200];
	int n = snprintf(text, sizeof(text), " %u/%u  done %u  failed %u  left %u  %s  ETA %s",
			 p->total - p->left, p->total, p->done, p->failed, p->left, rate, p->left ? eta : "0s");
	int width = cols - 66; /* a bar as wide as the line allows, the same on every redraw */
	if (width > 40)
		width = 40;
	if (n > cols - 1)
		text[cols > 1 ? cols - 1 : 0] = '\0';
	fputs("\r\033[K", stderr);
	if (width >= 10) {
		int fill = p->total ? (int)lround((double)width * (p->total - p->left) / p->total) : width;
		fputc('[', stderr);
		for (int i = 0; i < width; i++)
			fputs(i < fill ? "#" : ".", stderr);
		fputc(']', stderr);
	}
	fputs(text, stderr);
	fflush(stderr);
}

/* ---- the gradebook -------------------------------------------------------------------- */

typedef int (*gb_writer)(const struct gradebook *gb, FILE *f, void *ctx);

static int write_csv(const struct gradebook *gb, FILE *f, void *ctx)
{
	(void)ctx;
	return gradebook_write_csv(gb, f);
}

static int write_md(const struct gradebook *gb, FILE *f, void *ctx)
{
	(void)ctx;
	return classreport_write_md(gb, f);
}

static int write_html(const struct gradebook *gb, FILE *f, void *ctx)
{
	(void)ctx;
	return classreport_write_html(gb, f);
}

/* The class as JUnit XML: one suite per graded student. */
static int write_junit(const struct gradebook *gb, FILE *f, void *ctx)
{
	(void)ctx;
	struct json_t **docs = calloc(gb->n ? gb->n : 1, sizeof(*docs));
	const char **names = calloc(gb->n ? gb->n : 1, sizeof(*names));
	unsigned n = 0;
	for (unsigned i = 0; docs && names && i < gb->n; i++)
		if (gb->rows[i].doc) {
			docs[n] = gb->rows[i].doc;
			names[n++] = gb->rows[i].student;
		}
	int rc = docs && names ? junit_write(f, docs, names, n) : -ENOMEM;
	free(docs);
	free(names);
	return rc;
}

/* Writes OUT/NAME through WRITE, atomically (a reader never sees half a report). */
static int write_out(const struct batch *b, const char *name, const struct gradebook *gb, gb_writer write)
{
	char *text = NULL, path[PATH_MAX];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	int rc = write(gb, m, NULL);
	fclose(m);
	snprintf(path, sizeof(path), "%s/%s", b->out, name);
	if (rc == 0)
		rc = fs_write_atomic(path, text, len);
	if (rc < 0)
		fprintf(stderr, "pmpplab: cannot write %s: %s\n", path, strerror(-rc));
	free(text);
	return rc;
}

/* grades.csv, report.md, report.html (and junit.xml), then a summary on stdout. Returns
 * the exit status: 0 when every submission has a result, 1 otherwise. */
static int write_gradebook(const struct batch *b, const struct cli_common *c)
{
	struct gradebook gb;
	int rc = gradebook_load(&gb, b);
	if (rc == 0)
		rc = write_out(b, "grades.csv", &gb, write_csv);
	if (rc == 0)
		rc = write_out(b, "report.md", &gb, write_md);
	if (rc == 0)
		rc = write_out(b, "report.html", &gb, write_html);
	if (rc == 0 && strcmp(c->format, "junit") == 0)
		rc = write_out(b, "junit.xml", &gb, write_junit);
	unsigned graded = gradebook_count(&gb, GB_GRADED), missing = gradebook_count(&gb, GB_MISSING);
	unsigned bad = gradebook_count(&gb, GB_INVALID) + gradebook_count(&gb, GB_ERROR);
	double sum = 0;
	for (unsigned i = 0; i < gb.n; i++)
		sum += gb.rows[i].status == GB_GRADED ? gb.rows[i].score : 0;
	if (rc == 0) {
		printf("%s: %u submissions, %u graded", b->lab, b->n, graded);
		if (graded)
			printf(" (mean %.2f/%g)", sum / graded, gb.max);
		if (bad)
			printf(", %u could not be graded", bad);
		if (missing)
			printf(", %u not graded yet", missing);
		printf("\n  %s/grades.csv\n  %s/report.html\n  %s/report.md\n", b->out, b->out, b->out);
		if (strcmp(c->format, "junit") == 0)
			printf("  %s/junit.xml\n", b->out);
	}
	gradebook_release(&gb);
	if (rc < 0)
		return CLI_USAGE;
	return bad || missing ? CLI_FAILED : CLI_OK;
}

/* ---- the batch ------------------------------------------------------------------------ */

static struct lab_spec *load_lab(const char *labs_dir, const char *id, struct lab_list *labs)
{
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = labs_load(labs_dir, labs, &diags);
	diag_print(stderr, &diags);
	diag_list_release(&diags);
	struct lab_spec *spec = rc == 0 ? labs_find(labs, id) : NULL;
	if (rc == 0 && !spec)
		fprintf(stderr, "pmpplab: no lab '%s' in %s (pmpplab --list shows them)\n", id, labs_dir);
	return spec;
}

/* Workers by default: on a GPU one (kernel times need the GPU alone), on the emulator
 * one per CPU core. */
static unsigned default_jobs(enum backend_kind backend)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return backend == BACKEND_GPU ? 1 : cpus > 0 ? (unsigned)cpus : 1;
}

/* The backend of a batch: as asked; auto means the GPU when this machine has one, or,
 * for Slurm, when --gres asks the nodes for one. */
static enum backend_kind batch_backend(const struct cli_course *o, const struct cli_common *c)
{
	if (c->backend != BACKEND_AUTO)
		return c->backend;
	if (o->slurm)
		return o->gres && strstr(o->gres, "gpu") ? BACKEND_GPU : BACKEND_EMU;
	return backend_resolve(BACKEND_AUTO);
}

static int run_local(const struct batch *b, const struct lab_spec *spec, unsigned jobs)
{
	unsigned *todo, n;
	if (batch_todo(b, &todo, &n) < 0)
		return -ENOMEM;
	bool tty = isatty(STDERR_FILENO);
	printf("grading %u of %u submissions of %s (%u done before) on %s with %u worker%s, seed %llu, into %s\n",
	       n, b->n, b->lab, b->n - n, backend_name(b->backend), jobs, jobs == 1 ? "" : "s",
	       (unsigned long long)b->seed, b->out);
	fflush(stdout);
	int rc = batch_run(b, spec, todo, n, jobs, show_progress, tty ? (void *)1 : NULL);
	if (tty)
		fputs("\n", stderr);
	if (rc < 0)
		fprintf(stderr, "pmpplab: cannot start a worker: %s\n", strerror(-rc));
	free(todo);
	return rc;
}

/* Waits for the job, showing the batch's progress from the results files. */
static int wait_job(const struct batch *b, const char *jobid)
{
	bool tty = isatty(STDERR_FILENO);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned start_done = 0, last_left = UINT32_MAX;
	for (bool first = true;; first = false) {
		struct diag_list diags;
		diag_list_init(&diags);
		int active = slurm_active(jobid, &diags);
		diag_print(stderr, &diags);
		diag_list_release(&diags);
		struct batch_progress p = { .total = b->n };
		for (unsigned i = 0; i < b->n; i++) {
			enum batch_state st = batch_state(b, &b->students[i]);
			p.done += st == BATCH_GRADED;
			p.failed += st == BATCH_INVALID || st == BATCH_ERROR;
		}
		p.left = b->n - p.done - p.failed;
		if (first)
			start_done = p.done;
		p.done_now = p.done - start_done;
		clock_gettime(CLOCK_MONOTONIC, &now);
		p.elapsed_s = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
		if (tty)
			show_progress((void *)1, &p);
		else if (p.left != last_left)
			printf("job %s: done %u, failed %u, left %u\n", jobid, p.done, p.failed, p.left);
		fflush(stdout);
		last_left = p.left;
		if (active <= 0) {
			if (tty)
				fputs("\n", stderr);
			return active;
		}
		sleep(2);
	}
}

static int run_slurm(const struct batch *b, const struct cli_course *o, unsigned jobs)
{
	unsigned *todo, n;
	if (batch_todo(b, &todo, &n) < 0)
		return -ENOMEM;
	if (n == 0) {
		free(todo);
		printf("every submission of %s is graded already\n", b->lab);
		return 0;
	}
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = '\0';
	struct slurm_opts so = { .self = self, .partition = o->partition, .gres = o->gres,
				 .time = o->time, .chunk = o->chunk ? o->chunk : 8, .jobs = jobs };
	char jobid[64];
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = slurm_submit(b, &so, todo, n, jobid, sizeof(jobid), &diags);
	diag_print(stderr, &diags);
	diag_list_release(&diags);
	free(todo);
	if (rc < 0)
		return rc;
	printf("Slurm job %s: %u submissions of %s in %u array tasks of %u, on %s, seed %llu, into %s\n",
	       jobid, n, b->lab, (n + so.chunk - 1) / so.chunk, so.chunk, backend_name(b->backend),
	       (unsigned long long)b->seed, b->out);
	if (o->no_wait) {
		printf("collect the gradebook when it ends: pmpplab --collect %s\n", b->out);
		return 1; /* nothing to write yet */
	}
	rc = wait_job(b, jobid);
	unsigned lost = rc == 0 ? slurm_mark_lost(b) : 0;
	if (lost)
		fprintf(stderr, "pmpplab: %u submissions were not graded by their Slurm task (their results.json says which log to read); run the same command again to grade them\n", lost);
	return rc;
}

int cli_course_batch(const struct cli_course *o, const struct cli_common *c)
{
	if (c->n_positional != 1) {
		fprintf(stderr, "pmpplab: --submissions grades one lab: pmpplab --grade LAB --submissions DIR\n");
		return CLI_USAGE;
	}
	struct lab_list labs = { 0 };
	char *labs_dir = c->labs_dir ? strdup(c->labs_dir) : labs_default_dir();
	struct lab_spec *spec = load_lab(labs_dir, c->positional[0], &labs);
	int status = CLI_USAGE;
	struct batch b = { 0 };
	if (!spec)
		goto out;
	enum backend_kind backend = batch_backend(o, c);
	if (backend == BACKEND_GPU && !o->slurm && !backend_gpu_present()) {
		fprintf(stderr, "pmpplab: --backend gpu, but no GPU is usable here: grade with --backend emu\n");
		goto out;
	}
	char out[PATH_MAX];
	snprintf(out, sizeof(out), "%s", o->output_dir ? o->output_dir : "");
	if (!o->output_dir)
		snprintf(out, sizeof(out), "grades-%s", spec->id);
	struct batch_params p = { .lab = spec->id, .labs_dir = labs_dir, .submissions = o->submissions,
				  .backend = backend, .seed = c->seed, .quick = c->quick };
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = batch_open(&b, out, &p, &diags);
	diag_print(stderr, &diags);
	diag_list_release(&diags);
	if (rc < 0)
		goto out;
	if (b.n == 0) {
		fprintf(stderr, "pmpplab: no submissions in %s: it should hold one .cu file, or one folder, per student\n", b.submissions);
		goto out;
	}
	unsigned jobs = o->jobs ? o->jobs : o->slurm ? 1 : default_jobs(backend);
	rc = o->slurm ? run_slurm(&b, o, jobs) : run_local(&b, spec, jobs);
	if (rc == 1)
		status = CLI_OK; /* --no-wait: submitted */
	else if (rc == 0)
		status = write_gradebook(&b, c);
out:
	batch_release(&b);
	labs_release(&labs);
	free(labs_dir);
	return status;
}

int cli_course_collect(const struct cli_course *o, const struct cli_common *c)
{
	struct batch b;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = batch_open(&b, o->collect, NULL, &diags);
	diag_print(stderr, &diags);
	diag_list_release(&diags);
	if (rc < 0) {
		batch_release(&b);
		return CLI_USAGE;
	}
	char jobid[64];
	if (slurm_last_job(&b, jobid, sizeof(jobid)) == 0) {
		diag_list_init(&diags);
		int active = slurm_active(jobid, &diags);
		diag_print(stderr, &diags);
		diag_list_release(&diags);
		if (active > 0)
			printf("Slurm job %s is still running (%d array tasks left): this gradebook is partial; collect again when it ends\n",
			       jobid, active);
		else if (active == 0 && slurm_mark_lost(&b))
			fprintf(stderr, "pmpplab: some submissions were not graded by their Slurm task (see their results.json); grade the batch again to finish them\n");
	}
	int status = write_gradebook(&b, c);
	batch_release(&b);
	return status;
}

int cli_course_slurm_task(const struct cli_course *o, const struct cli_common *c)
{
	(void)c;
	const char *id = getenv("SLURM_ARRAY_TASK_ID");
	if (c->n_positional != 2 || !o->chunk || !id) {
		fprintf(stderr, "pmpplab: slurm-task OUT --chunk N is what a Slurm array task of a batch runs (it reads $SLURM_ARRAY_TASK_ID); start batches with pmpplab --grade LAB --submissions DIR --slurm\n");
		return CLI_USAGE;
	}
	struct batch b;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = batch_open(&b, c->positional[1], NULL, &diags);
	unsigned *todo = NULL, n = 0;
	if (rc == 0)
		rc = slurm_task_students(&b, (unsigned)atoi(id), o->chunk, &todo, &n, &diags);
	diag_print(stderr, &diags);
	diag_list_release(&diags);
	struct lab_list labs = { 0 };
	struct lab_spec *spec = rc == 0 ? load_lab(b.labs_dir, b.lab, &labs) : NULL;
	int status = CLI_USAGE;
	if (spec) {
		unsigned k = 0;
		for (unsigned i = 0; i < n; i++) /* done already (a resubmitted task) */
			if (batch_state(&b, &b.students[todo[i]]) != BATCH_GRADED)
				todo[k++] = todo[i];
		printf("task %s: %u submissions of %s on %s\n", id, k, b.lab, backend_name(b.backend));
		rc = batch_run(&b, spec, todo, k, o->jobs ? o->jobs : 1, show_progress, NULL);
		status = rc == 0 ? CLI_OK : CLI_FAILED;
	}
	free(todo);
	labs_release(&labs);
	batch_release(&b);
	return status;
}

/* ---- export gradescope, lab starter ---------------------------------------------------- */

/* LAB as a lab folder (holding lab.yaml) or an id in the collection. */
static struct lab_spec *spec_of(const struct cli_common *c, const char *lab)
{
	char yaml[PATH_MAX];
	snprintf(yaml, sizeof(yaml), "%s/lab.yaml", lab);
	struct lab_spec *spec = NULL;
	struct diag_list diags;
	diag_list_init(&diags);
	if (access(yaml, R_OK) == 0) {
		spec_load(lab, &spec, &diags);
		diag_print(stderr, &diags);
	} else {
		struct lab_list labs = { 0 };
		char *dir = c->labs_dir ? strdup(c->labs_dir) : labs_default_dir();
		struct lab_spec *found = load_lab(dir, lab, &labs);
		if (found) {
			char *path = strdup(found->dir);
			spec_load(path, &spec, &diags);
			diag_print(stderr, &diags);
			free(path);
		}
		labs_release(&labs);
		free(dir);
	}
	diag_list_release(&diags);
	return spec;
}

int cli_course_export(const struct cli_course *o, const struct cli_common *c)
{
	if (c->n_positional != 3 || strcmp(c->positional[1], "gradescope") != 0) {
		fprintf(stderr, "pmpplab: usage: pmpplab export gradescope LAB [-o autograder.zip]\n");
		return CLI_USAGE;
	}
	struct lab_spec *spec = spec_of(c, c->positional[2]);
	if (!spec)
		return CLI_USAGE;
	const char *zip = o->out_file ? o->out_file : "autograder.zip";
	unsigned files = 0;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = gsexport_write(zip, spec, PMPPLAB_SOURCE_ROOT, &files, &diags);
	diag_print(stderr, &diags);
	diag_list_release(&diags);
	if (rc == 0)
		printf("%s: Gradescope autograder for lab %s (%u files). Upload it as the assignment's "
		       "autograder (Configure Autograder > Zip file upload); it grades on the emulator.\n",
		       zip, spec->id, files);
	spec_free(spec);
	return rc == 0 ? CLI_OK : CLI_USAGE;
}

int cli_course_starter(const struct cli_course *o, const struct cli_common *c)
{
	if (c->n_positional != 3) {
		fprintf(stderr, "pmpplab: usage: pmpplab lab starter LAB [-o FILE]\n");
		return CLI_USAGE;
	}
	struct lab_spec *spec = spec_of(c, c->positional[2]);
	if (!spec)
		return CLI_USAGE;
	char *solution = spec_path(spec, spec->solution), *text = NULL;
	char *target = o->out_file ? strdup(o->out_file) : spec_path(spec, spec->student);
	int status = CLI_USAGE;
	struct diag_list diags;
	diag_list_init(&diags);
	if (!starter_marked(solution))
		fprintf(stderr, "%s: error: no // BEGIN SOLUTION marker: mark the lines only the solution holds (labs/README.md, \"Solution markers\")\n", solution);
	else if (starter_generate(solution, &text, &diags) == 0) {
		int rc = strcmp(target, "-") == 0 ? (fputs(text, stdout) < 0 ? -EIO : 0)
						   : fs_write_atomic(target, text, strlen(text));
		if (rc < 0)
			fprintf(stderr, "pmpplab: cannot write %s: %s\n", target, strerror(-rc));
		else if (strcmp(target, "-") != 0)
			printf("%s: the starter of lab %s, generated from %s\n", target, spec->id, solution);
		status = rc < 0 ? CLI_USAGE : CLI_OK;
	}
	diag_print(stderr, &diags);
	diag_list_release(&diags);
	free(text);
	free(solution);
	free(target);
	spec_free(spec);
	return status;
}
