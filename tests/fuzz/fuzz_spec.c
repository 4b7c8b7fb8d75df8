/* fuzz_spec: lab.yaml through the whole loader (grader/spec.c: libcyaml and the schema,
 * yamlpos, the checks of names, files and size expressions), then every buffer size and
 * performance expression evaluated in every dataset. The lab folder lives in a private
 * tree where the files the repository's specs name exist (links to the real labs/ and
 * kernels/), so a mutated spec gets past the file checks to the deeper ones. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "fsutil.h"
#include "fuzz.h"
#include "spec.h"

static char root[64], lab[128], yaml[160];

static void cleanup(void)
{
	fs_remove_tree(root);
}

/* Links every file of every lab folder of SOURCE_ROOT/labs into lab/ (names are unique
 * across labs: each starter is named for its lab). */
static void link_lab_files(void)
{
	char labs[4096];
	snprintf(labs, sizeof(labs), "%s/labs", SOURCE_ROOT);
	DIR *top = opendir(labs);
	if (!top)
		abort();
	for (struct dirent *e; (e = readdir(top));) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4352];
		snprintf(sub, sizeof(sub), "%s/%s", labs, e->d_name);
		DIR *d = opendir(sub);
		if (!d)
			continue;
		for (struct dirent *f; (f = readdir(d));) {
			char from[4608], to[512];
			if (f->d_name[0] == '.' || strcmp(f->d_name, "lab.yaml") == 0)
				continue;
			snprintf(from, sizeof(from), "%s/%s", sub, f->d_name);
			snprintf(to, sizeof(to), "%s/%s", lab, f->d_name);
			if (symlink(from, to) != 0) { /* a duplicate name: the first one stays */
			}
		}
		closedir(d);
	}
	closedir(top);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "/tmp/pmpplab-fuzz-spec-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	char path[256], kernels[4096];
	snprintf(path, sizeof(path), "%s/labs", root);
	snprintf(lab, sizeof(lab), "%s/labs/lab", root);
	snprintf(yaml, sizeof(yaml), "%s/lab.yaml", lab);
	snprintf(kernels, sizeof(kernels), "%s/kernels", SOURCE_ROOT);
	char klink[256];
	snprintf(klink, sizeof(klink), "%s/kernels", root);
	if (mkdir(path, 0755) != 0 || mkdir(lab, 0755) != 0 || symlink(kernels, klink) != 0)
		abort();
	link_lab_files();
	return 0;
}

static void evaluate(const struct lab_spec *s)
{
	for (unsigned d = 0; d < s->datasets_count; d++) {
		const struct spec_dataset *ds = &s->datasets[d];
		uint64_t count;
		int64_t v;
		for (unsigned i = 0; i < s->inputs_count; i++)
			spec_buffer_count(s, &s->inputs[i], ds, &count);
		for (unsigned i = 0; i < s->outputs_count; i++)
			spec_buffer_count(s, &s->outputs[i], ds, &count);
		for (unsigned i = 0; i < s->checks_count; i++) {
			if (s->checks[i].bytes)
				spec_dataset_eval(s, ds, s->checks[i].bytes, &v);
			if (s->checks[i].flops)
				spec_dataset_eval(s, ds, s->checks[i].flops, &v);
		}
		for (unsigned i = 0; i < s->params_count; i++)
			spec_dataset_value(ds, s->params[i].name, &v);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_write(yaml, data, size) != 0)
		abort();
	struct diag_list d;
	diag_list_init(&d);
	struct lab_spec *s = NULL;
	if (spec_load(lab, &s, &d) == 0) {
		evaluate(s);
		spec_free(s);
	} else if (d.n == 0) {
		abort(); /* a spec refused without a word: the student would see nothing */
	}
	diag_list_release(&d);
	return 0;
}
