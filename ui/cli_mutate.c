/* cli_mutate: see cli_mutate.h. */
#include "cli_mutate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "labs.h"
#include "mutate.h"
#include "mutops.h"

static const char mutate_usage[] =
	"usage: pmpplab lab mutate LAB [-j N] [--limit K] [--operators LIST] [--seed N]\n"
	"                              [--timeout S] [--min-kill-rate P] [--keep DIR] [--dry-run]\n"
	"  LAB              a lab folder, or a lab's id in the collection (05, 05-tiled-matmul)\n"
	"  -j, --jobs N     grade N mutants at a time (default: the number of CPUs)\n"
	"  --limit K        grade a fixed sample of K mutants, spread over every operator\n"
	"  --operators LIST only these operators, comma-separated: %s\n"
	"  --seed N         generate the inputs from seed N\n"
	"  --timeout S      seconds per run of a mutant (default: from the solution's grading)\n"
	"  --min-kill-rate P  exit 1 when fewer than P%% of the non-equivalent mutants are\n"
	"                   killed (default 95)\n"
	"  --keep DIR       also write each mutant's source into DIR (mNNN.cu), to read or\n"
	"                   grade one with --grade LAB --submission DIR/mNNN.cu\n"
	"  --dry-run        list the mutants, grade none\n";

static int mutate_usage_error(const char *what, const char *arg)
{
	char ops[256] = "";
	for (unsigned i = 0, n = 0; i < MUTOP_COUNT; i++)
		n += (unsigned)snprintf(ops + n, sizeof(ops) - n, "%s%s", i ? "," : "", mutops_name(i));
	if (what)
		fprintf(stderr, "pmpplab: lab mutate: %s%s%s%s\n", what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	fprintf(stderr, mutate_usage, ops);
	return CLI_USAGE;
}

int cli_mutate_find(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "lab") == 0)
			return strcmp(argv[i + 1], "mutate") == 0 ? i + 1 : 0;
		if (strcmp(argv[i], "--labs") == 0 || strcmp(argv[i], "--backend") == 0)
			i++; /* a global option's value */
		else if (argv[i][0] != '-')
			return 0;
	}
	return 0;
}

/* LAB as a folder, or as an id in the collection. Caller frees. */
static char *lab_dir(const char *lab, const char *labs_dir)
{
	struct stat st;
	if (stat(lab, &st) == 0 && S_ISDIR(st.st_mode))
		return strdup(lab);
	char *dir = labs_dir ? strdup(labs_dir) : labs_default_dir();
	struct lab_list labs = { 0 };
	struct diag_list diags;
	diag_list_init(&diags);
	char *found = NULL;
	if (dir && labs_load(dir, &labs, &diags) == 0) {
		const struct lab_spec *s = labs_find(&labs, lab);
		if (s)
			found = strdup(s->dir);
	}
	diag_list_release(&diags);
	labs_release(&labs);
	if (!found)
		fprintf(stderr, "pmpplab: lab mutate: '%s' is neither a lab folder nor a lab in %s (pmpplab --list names them)\n",
			lab, dir ? dir : "the collection");
	free(dir);
	return found;
}

static int number(const char *v, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(v, &end);
	return errno || end == v || *end || *out < 0 ? -1 : 0;
}

int cli_mutate(int argc, char **argv, int at)
{
	const char *labs_dir = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct mutate_opts o = { .jobs = cpus > 0 ? (unsigned)cpus : 1, .min_rate = 95 };
	const char *lab = NULL;
	for (int i = 1; i < argc; i++) {
		if (i == at - 1 || i == at) /* "lab mutate" */
			continue;
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double x;
		bool valued = strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0 || strcmp(a, "--limit") == 0 ||
			      strcmp(a, "--operators") == 0 || strcmp(a, "--seed") == 0 ||
			      strcmp(a, "--timeout") == 0 || strcmp(a, "--min-kill-rate") == 0 ||
			      strcmp(a, "--keep") == 0 ||
			      strcmp(a, "--labs") == 0 || strcmp(a, "--backend") == 0;
		if (valued && !v)
			return mutate_usage_error("this option needs a value:", a);
		if (valued)
			i++;
		if (strcmp(a, "--dry-run") == 0) {
			o.list = true;
		} else if (strcmp(a, "--operators") == 0) {
			char bad[64];
			if (mutops_parse(v, &o.ops, bad, sizeof(bad)) < 0)
				return mutate_usage_error("unknown operator", bad);
		} else if (strcmp(a, "--backend") == 0) {
			enum backend_kind b;
			if (backend_parse(v, &b) < 0 || b == BACKEND_GPU)
				return mutate_usage_error("mutants are graded on the emulator: --backend takes emu, not", v);
		} else if (strcmp(a, "--labs") == 0) {
			labs_dir = v;
		} else if (strcmp(a, "--keep") == 0) {
			o.keep = v;
		} else if (strcmp(a, "--seed") == 0) {
			o.seed = strtoull(v, NULL, 0);
		} else if (valued) {
			if (number(v, &x) < 0)
				return mutate_usage_error("not a number:", v);
			if (a[1] == 'j' || strcmp(a, "--jobs") == 0)
				o.jobs = x >= 1 ? (unsigned)x : 1;
			else if (strcmp(a, "--limit") == 0)
				o.limit = (unsigned)x;
			else if (strcmp(a, "--timeout") == 0)
				o.timeout = (unsigned)x;
			else
				o.min_rate = x;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			mutate_usage_error(NULL, NULL);
			return CLI_OK;
		} else if (a[0] == '-' || lab) {
			return mutate_usage_error(a[0] == '-' ? "unknown option" : "one lab at a time; unexpected", a);
		} else {
			lab = a;
		}
	}
	if (!lab)
		return mutate_usage_error("which lab?", NULL);
	char *dir = lab_dir(lab, labs_dir);
	if (!dir)
		return CLI_USAGE;
	int rc = mutate_lab(dir, &o, stdout);
	free(dir);
	return rc;
}
