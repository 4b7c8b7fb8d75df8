/* cli: argument parsing and the non-interactive commands (--grade, --list, init, run). */
#include "cli.h"
#include "cli_mutate.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "batch.h"
#include "build.h"
#include "cli_course.h"
#include "grade.h"
#include <jansson.h>
#include "junit.h"
#include "labcheck.h"
#include "labs.h"
#include "paths.h"
#include "pmpplab_config.h"
#include "report.h"
#include "runner.h"
#include "sandbox.h"
#include "tui.h"
#include "workspace.h"

enum command { CMD_TUI, CMD_GRADE, CMD_LIST, CMD_INIT, CMD_RUN, CMD_LABCHECK, CMD_HELP, CMD_VERSION,
	       CMD_COLLECT, CMD_SLURM_TASK, CMD_EXPORT, CMD_STARTER /* cli_course.c */ };

struct cli {
	enum command cmd;
	const char *labs_dir;
	enum backend_kind backend;
	bool backend_given;
	const char *submission;
	const char *format;
	const char *output;
	uint64_t seed;
	bool quick;
	bool profile;
	bool no_sandbox;      /* --sandbox=off */
	const char *positional[64];
	int n_positional;
	char **passthrough;   /* after "--" for run */
	int n_passthrough;
	struct cli_course course; /* batch, Slurm, export, lab starter: cli_course.c */
};

static const char usage[] =
	"usage: pmpplab [--labs DIR] [--backend gpu|emu|auto] [--emu-device NAME]\n"
	"               [--sandbox=on|off]\n"
	"       pmpplab init DIR\n"
	"       pmpplab --list\n"
	"       pmpplab run FILE.cu [--backend gpu|emu|auto] [-- ARGS...]\n"
	"       pmpplab --grade [LAB...] [--submission FILE.cu] [--backend gpu|emu|auto]\n"
	"                       [--format text|json|junit] [--output FILE] [--seed N]\n"
	"                       [--quick] [--profile]\n"
	"       pmpplab --grade LAB --submissions DIR [-j N] [--output-dir OUT] [--seed N]\n"
	"                       [--quick] [--backend B] [--format junit]\n"
	"                       [--slurm [--partition P] [--gres gpu:1] [--time T] [--chunk N]\n"
	"                        [--no-wait]]\n"
	"       pmpplab --collect OUT\n"
	"       pmpplab export gradescope LAB [-o autograder.zip]\n"
	"       pmpplab lab check DIR [--backend gpu|emu|auto]\n"
	"       pmpplab lab starter LAB [-o FILE]\n"
	"       pmpplab lab mutate LAB [-j N] [--limit K] [--operators LIST] [--dry-run]\n"
	"       pmpplab --help | --version\n";

static const char help_text[] =
	"pmpplab: CUDA labs from Programming Massively Parallel Processors.\n\n"
	"With no command, opens the labs in a terminal UI, in the workspace that holds the\n"
	"current folder (made by 'pmpplab init'), or in $PMPPLAB_WORKSPACE, or in\n"
	"~/pmpplab-work.\n\n"
	"Commands:\n"
	"  init DIR           make a student workspace: one folder per lab with its starter\n"
	"  --list             list the labs\n"
	"  run FILE.cu        build and run a standalone CUDA program; its output and exit\n"
	"                     status pass through (arguments after --)\n"
	"  --grade [LAB...]   grade without a screen: the workspace's files, or --submission\n"
	"  lab check DIR      for instructors: check a lab's spec, solution, starter and\n"
	"                     known-wrong/known-right submissions\n"
	"  --grade LAB --submissions DIR\n"
	"                     grade a class: one .cu per student, or one folder per student\n"
	"                     holding one .cu; resumable (run it again after a stop); writes\n"
	"                     OUT/students/NAME/results.json, grades.csv, report.html, report.md\n"
	"  --collect OUT      the gradebook of a batch in OUT (after --slurm --no-wait)\n"
	"  export gradescope LAB\n"
	"                     a Gradescope autograder (setup.sh, run_autograder, the lab and\n"
	"                     pmpplab's source) in autograder.zip, or -o FILE\n"
	"  lab starter LAB    for instructors: write the lab's starter, generated from its\n"
	"                     solution's // BEGIN SOLUTION ... // END SOLUTION markers\n"
	"  lab mutate LAB     for instructors: mutation testing; grade mechanical mistakes\n"
	"                     made in the lab's solution and report the share its tests\n"
	"                     catch (pmpplab lab mutate --help for its options)\n\n"
	"Options:\n"
	"  --labs DIR         use the lab collection in DIR\n"
	"  --backend B        gpu, emu (the CPU emulator) or auto (GPU when present)\n"
	"  --emu-device NAME  the GPU the emulator emulates: h100 (default), a100, 4090 or\n"
	"                     t4, with its limits and architecture (occupancy what-ifs);\n"
	"                     also PMPPLAB_EMU_DEVICE\n"
	"  --submission FILE  the .cu to grade (one LAB), or a folder holding it\n"
	"  --format F         text (default), json (Gradescope results.json) or junit (JUnit\n"
	"                     XML, one testcase per check; a batch writes OUT/junit.xml)\n"
	"  --output FILE      write the report to FILE instead of standard output\n"
	"  --seed N           generate the inputs from seed N (reported by every grading run)\n"
	"  --quick            skip the large performance datasets\n"
	"  --profile          on a GPU, also measure each kernel with Nsight Compute (ncu):\n"
	"                     occupancy, active lanes, sectors per request, bank conflicts\n"
	"  -j N               a batch's workers (default: one per CPU core; on a GPU, 1)\n"
	"  --output-dir OUT   where a batch writes (default grades-LAB)\n"
	"  --slurm            grade the batch as one Slurm job array (sbatch --array), wait\n"
	"                     for it and write the gradebook; OUT must be on a shared disk\n"
	"  --partition P, --gres G, --time T\n"
	"                     passed to sbatch (--gres gpu:1 also means --backend gpu)\n"
	"  --chunk N          submissions per array task (default 8)\n"
	"  --no-wait          submit and return; pmpplab --collect OUT later\n"
	"  -o FILE            the file export and lab starter write\n"
	"  --sandbox=off      build and run submissions without the sandbox (bubblewrap: no\n"
	"                     network, nothing of the machine but the submission's folder,\n"
	"                     its own uid as root, limits); reports then say \"not sandboxed\"\n\n"
	"Environment:\n"
	"  PMPPLAB_WORKSPACE  the workspace the TUI opens outside one (default ~/pmpplab-work)\n"
	"  PMPPLAB_CACHE      where builds are cached (default $XDG_CACHE_HOME/pmpplab or\n"
	"                     ~/.cache/pmpplab)\n"
	"  PMPPLAB_EMU_DEVICE the emulated GPU (as --emu-device)\n\n"
	"Exit status: 0 all passed, 1 something failed, 2 usage or configuration error.\n"
	"A batch: 0 every submission graded, 1 some could not be (see grades.csv's notes).\n";

/* Where the manual is: installed, `man pmpplab`; from a clone's build, the copy the
 * build makes (assets/meson.build), by its path or through PATH (issue 18). */
static void print_manual_line(void)
{
	if (paths_in_build_tree())
		printf("\nThe manual: man %s/man/man1/pmpplab.1\n(or man pmpplab, with %s/ui on "
		       "PATH).\n", PMPPLAB_BUILD_ROOT, PMPPLAB_BUILD_ROOT);
	else
		printf("\nThe manual: man pmpplab.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "pmpplab: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage);
	return CLI_USAGE;
}

/* Options that take a value; returns the number of argv entries consumed, or -1. */
static int parse_valued(struct cli *c, int argc, char **argv, int i)
{
	const char *opt = argv[i];
	if (i + 1 >= argc)
		return -1;
	const char *v = argv[i + 1];
	if (strcmp(opt, "--labs") == 0)
		c->labs_dir = v;
	else if (strcmp(opt, "--backend") == 0) {
		if (backend_parse(v, &c->backend) < 0)
			return -2;
		c->backend_given = true;
	} else if (strcmp(opt, "--emu-device") == 0) {
		if (backend_set_emu_device(v) < 0)
			return -3;
	} else if (strcmp(opt, "--submission") == 0)
		c->submission = v;
	else if (strcmp(opt, "--format") == 0)
		c->format = v;
	else if (strcmp(opt, "--output") == 0)
		c->output = v;
	else if (strcmp(opt, "--seed") == 0)
		c->seed = strtoull(v, NULL, 0);
	else
		return 0;
	return 2;
}

static int parse(struct cli *c, int argc, char **argv)
{
	memset(c, 0, sizeof(*c));
	c->format = "text";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int used = parse_valued(c, argc, argv, i);
		if (used == -1 && strncmp(a, "--", 2) == 0 && strcmp(a, "--") != 0 &&
		    (strcmp(a, "--labs") == 0 || strcmp(a, "--backend") == 0 ||
		     strcmp(a, "--emu-device") == 0 || strcmp(a, "--submission") == 0 ||
		     strcmp(a, "--format") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "--seed") == 0))
			return usage_error("%s needs a value", a);
		if (used == -2)
			return usage_error("--backend takes gpu, emu or auto, not '%s'", argv[i + 1]);
		if (used == -3) {
			char fmt[160];
			snprintf(fmt, sizeof(fmt), "--emu-device takes %s (or their sm_NN), not '%%s'",
				 backend_emu_device_keys());
			return usage_error(fmt, argv[i + 1]);
		}
		int course = used > 0 ? 0 : cli_course_option(&c->course, argc, argv, i);
		if (course < 0)
			return CLI_USAGE;
		if (used > 0 || course > 0) {
			i += (used > 0 ? used : course) - 1;
		} else if (strcmp(a, "--") == 0) {
			c->passthrough = argv + i + 1;
			c->n_passthrough = argc - i - 1;
			break;
		} else if (strcmp(a, "--grade") == 0) {
			c->cmd = CMD_GRADE;
		} else if (strcmp(a, "--list") == 0) {
			c->cmd = CMD_LIST;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			c->cmd = CMD_HELP;
		} else if (strcmp(a, "--version") == 0) {
			c->cmd = CMD_VERSION;
		} else if (strcmp(a, "--quick") == 0) {
			c->quick = true;
		} else if (strcmp(a, "--profile") == 0) {
			c->profile = true;
		} else if (strcmp(a, "--sandbox=off") == 0 || strcmp(a, "--sandbox=on") == 0) {
			c->no_sandbox = strcmp(a, "--sandbox=off") == 0;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'", a);
		} else if (c->n_positional < 64) {
			c->positional[c->n_positional++] = a;
		}
	}
	if (c->cmd == CMD_TUI && c->n_positional) {
		const char *verb = c->positional[0];
		if (strcmp(verb, "init") == 0)
			c->cmd = CMD_INIT;
		else if (strcmp(verb, "run") == 0)
			c->cmd = CMD_RUN;
		else if (strcmp(verb, "lab") == 0 && c->n_positional >= 2 && strcmp(c->positional[1], "check") == 0)
			c->cmd = CMD_LABCHECK;
		else if (strcmp(verb, "lab") == 0 && c->n_positional >= 2 && strcmp(c->positional[1], "starter") == 0)
			c->cmd = CMD_STARTER;
		else if (strcmp(verb, "export") == 0)
			c->cmd = CMD_EXPORT;
		else if (strcmp(verb, "slurm-task") == 0)
			c->cmd = CMD_SLURM_TASK;
		else
			return usage_error("unknown command '%s'", verb);
	}
	if (c->cmd == CMD_TUI && c->course.collect)
		c->cmd = CMD_COLLECT;
	if (cli_course_validate(&c->course, c->cmd == CMD_GRADE) < 0)
		return CLI_USAGE;
	if (strcmp(c->format, "text") != 0 && strcmp(c->format, "json") != 0 && strcmp(c->format, "junit") != 0)
		return usage_error("--format takes text, json or junit, not '%s'", c->format);
	return 0;
}

static int load_labs(const struct cli *c, struct lab_list *labs)
{
	char *dir = c->labs_dir ? strdup(c->labs_dir) : labs_default_dir();
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = labs_load(dir, labs, &diags);
	diag_print(stderr, &diags);
	bool bad = diag_count(&diags, DIAG_ERROR) > 0;
	diag_list_release(&diags);
	free(dir);
	if (rc < 0)
		return rc;
	if (bad)
		fprintf(stderr, "pmpplab: fix the lab spec errors above (labs/README.md documents every field)\n");
	return bad ? -EINVAL : 0;
}

static int cmd_list(const struct cli *c)
{
	struct lab_list labs;
	int rc = load_labs(c, &labs);
	for (unsigned i = 0; i < labs.n; i++)
		printf("%-16s ch.%-3u %s\n", labs.labs[i]->id, labs.labs[i]->chapter, labs.labs[i]->title);
	labs_release(&labs);
	return rc < 0 ? CLI_USAGE : CLI_OK;
}

static int cmd_init(const struct cli *c)
{
	if (c->n_positional != 2)
		return usage_error("%s", "init takes one folder: pmpplab init DIR");
	struct lab_list labs;
	if (load_labs(c, &labs) < 0) {
		labs_release(&labs);
		return CLI_USAGE;
	}
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = workspace_init(c->positional[1], &labs, &diags);
	diag_print(stderr, &diags);
	if (rc == 0)
		printf("Workspace ready in %s: %u labs. cd there and run pmpplab.\n", c->positional[1], labs.n);
	diag_list_release(&diags);
	labs_release(&labs);
	return rc < 0 ? CLI_USAGE : CLI_OK;
}

/* The workspace file for LAB, or the --submission file; a --submission folder gives its
 * one .cu (or the one named as the lab's starter). Caller frees. */
static char *submission_for(const struct cli *c, const char *ws, const struct lab_spec *spec)
{
	struct stat st;
	if (c->submission && stat(c->submission, &st) == 0 && S_ISDIR(st.st_mode)) {
		char *problem = NULL, *file = batch_find_source(c->submission, spec->student, &problem);
		if (!file)
			fprintf(stderr, "pmpplab: %s\n", problem ? problem : "out of memory");
		free(problem);
		return file;
	}
	if (c->submission)
		return strdup(c->submission);
	return ws ? workspace_student_file(ws, spec) : NULL;
}

static void print_progress(void *userdata, const struct grade_progress *p)
{
	(void)userdata;
	if (!isatty(STDERR_FILENO))
		return;
	static const char *stages[] = { "building", "reference", "running", "checking", "" };
	if (p->stage == GRADE_STAGE_DONE)
		fprintf(stderr, "\r\033[K");
	else if (p->stage == GRADE_STAGE_DATASET)
		fprintf(stderr, "\r\033[K%s dataset %u/%u: %s", stages[p->stage], p->index + 1, p->count, p->what);
	else
		fprintf(stderr, "\r\033[K%s %s", stages[p->stage], p->what ? p->what : "");
	fflush(stderr);
}

/* Picks the labs to grade: those named, or every lab with a file in the workspace. */
static int select_labs(const struct cli *c, const struct lab_list *labs, const char *ws,
		       struct lab_spec **out, unsigned *n)
{
	*n = 0;
	for (int i = 0; i < c->n_positional; i++) {
		struct lab_spec *s = labs_find(labs, c->positional[i]);
		if (!s) {
			fprintf(stderr, "pmpplab: no lab '%s' (pmpplab --list shows them)\n", c->positional[i]);
			return -ENOENT;
		}
		out[(*n)++] = s;
	}
	if (*n == 0 && c->submission) {
		fprintf(stderr, "pmpplab: --submission needs the lab too: pmpplab --grade LAB --submission %s\n", c->submission);
		return -EINVAL;
	}
	if (*n > 1 && c->submission) {
		fprintf(stderr, "pmpplab: --submission grades one lab; name just one\n");
		return -EINVAL;
	}
	if (*n == 0 && !ws) {
		fprintf(stderr, "pmpplab: not inside a workspace: name the lab and the file (pmpplab --grade LAB --submission FILE.cu), or make one with pmpplab init DIR\n");
		return -EINVAL;
	}
	for (unsigned i = 0; *n == 0 && i < labs->n && i < 64; i++) {
		char *file = workspace_student_file(ws, labs->labs[i]);
		if (file && access(file, F_OK) == 0)
			out[(*n)++] = labs->labs[i];
		free(file);
	}
	return 0;
}

static int write_reports(const struct cli *c, struct report **reports, unsigned n)
{
	FILE *f = stdout;
	if (c->output && !(f = fopen(c->output, "w"))) {
		fprintf(stderr, "pmpplab: cannot write %s: %s\n", c->output, strerror(errno));
		return -errno;
	}
	if (strcmp(c->format, "json") == 0) {
		report_write_json(f, reports, n);
	} else if (strcmp(c->format, "junit") == 0) {
		struct json_t *doc = report_json(reports, n);
		const char *name = n ? reports[0]->submission : "pmpplab";
		if (doc)
			junit_write(f, &doc, &name, 1);
		json_decref(doc);
	} else {
		bool color = f == stdout && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
		for (unsigned i = 0; i < n; i++)
			report_write_text(f, reports[i], color);
	}
	if (f != stdout)
		fclose(f);
	return 0;
}

/* The shared options, for the commands of cli_course.c. */
static struct cli_common common_of(const struct cli *c, int skip)
{
	return (struct cli_common){ .labs_dir = c->labs_dir, .backend = c->backend,
				    .backend_given = c->backend_given, .seed = c->seed,
				    .quick = c->quick, .format = c->format,
				    .positional = c->positional + skip,
				    .n_positional = c->n_positional - skip };
}

static int cmd_grade(const struct cli *c)
{
	if (c->course.submissions) {
		struct cli_common common = common_of(c, 0);
		return cli_course_batch(&c->course, &common);
	}
	struct lab_list labs;
	int rc = load_labs(c, &labs);
	char *ws = workspace_find(".");
	struct lab_spec *chosen[64];
	unsigned n = 0;
	struct report *reports[64];
	unsigned n_reports = 0;
	if (rc == 0)
		rc = select_labs(c, &labs, ws, chosen, &n);
	bool all_passed = true;
	for (unsigned i = 0; rc == 0 && i < n; i++) {
		char *sub = submission_for(c, ws, chosen[i]);
		if (!sub && c->submission) { /* a folder without its one .cu: said why */
			rc = -ENOENT;
			break;
		}
		if (!sub) /* grade_lab's default: the lab's own starter, which a user may not expect */
			fprintf(stderr, "pmpplab: not inside a workspace (no .pmpplab folder here or above): "
				"grading lab %s's starter; to grade your file, add --submission FILE.cu "
				"or run this inside a workspace (pmpplab init DIR)\n", chosen[i]->id);
		struct grade_opts o = { .backend = c->backend, .submission = sub, .seed = c->seed,
					.quick = c->quick, .profile = c->profile,
					.progress = print_progress };
		struct diag_list diags;
		diag_list_init(&diags);
		rc = grade_lab(chosen[i], &o, &reports[n_reports], &diags);
		diag_print(stderr, &diags);
		diag_list_release(&diags);
		free(sub);
		if (rc == 0)
			all_passed &= report_passed(reports[n_reports++]);
	}
	if (rc == 0)
		rc = write_reports(c, reports, n_reports);
	for (unsigned i = 0; i < n_reports; i++)
		report_free(reports[i]);
	labs_release(&labs);
	free(ws);
	if (rc < 0)
		return CLI_USAGE;
	return all_passed ? CLI_OK : CLI_FAILED;
}

/* run: the program's own output and exit status pass straight through. It runs in the
 * sandbox like a graded submission: its working folder is the sandbox's scratch /tmp. */
static int cmd_run(const struct cli *c)
{
	if (c->n_positional != 2)
		return usage_error("%s", "run takes one .cu file: pmpplab run FILE.cu [-- ARGS...]");
	enum backend_kind backend = backend_resolve(c->backend);
	char why[1024];
	if (runner_sandbox_check(backend == BACKEND_GPU, why, sizeof(why)) < 0) {
		fprintf(stderr, "pmpplab: %s\n", why);
		return CLI_USAGE;
	}
	struct build_result b;
	struct diag_list errs;
	diag_list_init(&errs);
	/* a student's edit-run loop, like the TUI's quick runs: NVRTC's PTX (build.h) */
	int rc = build_standalone(c->positional[1], backend, BUILD_PTX_NVRTC, &b, &errs);
	diag_print(stderr, &errs);
	diag_print(stderr, &b.diags);
	diag_list_release(&errs);
	if (rc < 0) {
		build_result_release(&b);
		return rc == -ENOEXEC ? CLI_FAILED : CLI_USAGE;
	}
	char **argv = calloc((size_t)c->n_passthrough + 2, sizeof(char *));
	argv[0] = b.program;
	for (int i = 0; i < c->n_passthrough; i++)
		argv[i + 1] = c->passthrough[i];
	char ptx_env[4200], dir[4096];
	snprintf(ptx_env, sizeof(ptx_env), "PMPPLAB_EMU_PTX=%s", b.ptx ? b.ptx : "");
	snprintf(dir, sizeof(dir), "%s", b.program);
	*strrchr(dir, '/') = '\0';
	char *env[] = { ptx_env, NULL };
	char *emulib = b.ptx ? paths_emu_libdir() : NULL;
	struct sandbox_view v = { .profile = SANDBOX_RUN, .gpu = !b.ptx };
	sandbox_view_ro(&v, dir);
	sandbox_view_ro(&v, emulib);
	struct runner_opts o = { .argv = argv, .env = b.ptx ? env : NULL, .pass_through = true,
				 .sandbox = &v };
	struct runner_result res;
	rc = runner_run(&o, &res);
	int status = CLI_USAGE;
	if (rc < 0)
		fprintf(stderr, "pmpplab: cannot run %s: %s\n", b.program, strerror(-rc));
	else if (res.status == RUNNER_EXITED)
		status = res.exit_code;
	else if (res.status != RUNNER_NO_SANDBOX) {
		char how[128];
		runner_describe(&res, 0, how, sizeof(how));
		fprintf(stderr, "pmpplab: %s %s\n", c->positional[1], how);
		status = 128 + res.term_signal;
	}
	free(emulib);
	free(argv);
	build_result_release(&b);
	return status;
}

static int cmd_labcheck(const struct cli *c)
{
	if (c->n_positional != 3)
		return usage_error("%s", "lab check takes one lab folder: pmpplab lab check DIR");
	return labcheck_run(c->positional[2], c->backend, stdout);
}

static int cmd_tui(const struct cli *c)
{
	char *ws = workspace_find(".");
	if (!ws) {
		/* the same default as scripts/bootstrap start and the README (issue 18) */
		const char *env = getenv("PMPPLAB_WORKSPACE"), *home = getenv("HOME");
		if (env && *env)
			ws = strdup(env);
		else if (asprintf(&ws, "%s/pmpplab-work", home && *home ? home : ".") < 0)
			ws = NULL;
		if (!ws)
			return 2;
		fprintf(stderr, "pmpplab: no workspace here; using %s (make others with pmpplab init DIR)\n", ws);
	}
	char *labs = c->labs_dir ? strdup(c->labs_dir) : labs_default_dir();
	int rc = tui_run(ws, labs, c->backend);
	free(labs);
	free(ws);
	return rc;
}

int cli_main(int argc, char **argv)
{
	int mutate = cli_mutate_find(argc, argv);
	if (mutate)
		return cli_mutate(argc, argv, mutate);
	struct cli c;
	if (parse(&c, argc, argv) != 0)
		return CLI_USAGE;
	sandbox_set_enabled(!c.no_sandbox);
	struct cli_common common = common_of(&c, 0);
	switch (c.cmd) {
	case CMD_HELP:
		fputs(help_text, stdout);
		print_manual_line();
		fputs("\n", stdout);
		fputs(usage, stdout);
		return CLI_OK;
	case CMD_VERSION:
		printf("pmpplab %s\n", PMPPLAB_VERSION);
		return CLI_OK;
	case CMD_LIST: return cmd_list(&c);
	case CMD_INIT: return cmd_init(&c);
	case CMD_GRADE: return cmd_grade(&c);
	case CMD_RUN: return cmd_run(&c);
	case CMD_LABCHECK: return cmd_labcheck(&c);
	case CMD_TUI: return cmd_tui(&c);
	case CMD_COLLECT: return cli_course_collect(&c.course, &common);
	case CMD_SLURM_TASK: return cli_course_slurm_task(&c.course, &common);
	case CMD_EXPORT: return cli_course_export(&c.course, &common);
	case CMD_STARTER: return cli_course_starter(&c.course, &common);
	}
	return CLI_USAGE;
}
