/* labs: see labs.h. */
#include "labs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths.h"

char *labs_default_dir(void)
{
	const char *env = getenv("PMPPLAB_LABS");
	if (env && *env)
		return strdup(env);
	char *root = paths_data_root();
	char *dir = NULL;
	if (asprintf(&dir, "%s/labs", root) < 0)
		dir = NULL;
	free(root);
	return dir ? dir : strdup("labs");
}

static int by_id(const void *a, const void *b)
{
	const struct lab_spec *x = *(struct lab_spec *const *)a, *y = *(struct lab_spec *const *)b;
	return strcmp(x->id, y->id);
}

/* A lab folder is any sub-folder holding a lab.yaml. */
static bool is_lab(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s/lab.yaml", dir, name);
	return name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int labs_load(const char *dir, struct lab_list *out, struct diag_list *diags)
{
	memset(out, 0, sizeof(*out));
	DIR *d = opendir(dir);
	if (!d) {
		int err = errno;
		diag_add(diags, DIAG_ERROR, dir, 0, 0, "cannot open the lab collection: %s (use --labs DIR to point at one)",
			 strerror(err));
		return -err;
	}
	struct dirent *e;
	unsigned cap = 0;
	while ((e = readdir(d))) {
		if (!is_lab(dir, e->d_name))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct lab_spec *spec;
		if (spec_load(path, &spec, diags) < 0)
			continue;
		if (out->n == cap) {
			cap = cap ? 2 * cap : 16;
			struct lab_spec **labs = realloc(out->labs, cap * sizeof(*labs));
			if (!labs) {
				spec_free(spec);
				break;
			}
			out->labs = labs;
		}
		out->labs[out->n++] = spec;
	}
	closedir(d);
	if (out->n)
		qsort(out->labs, out->n, sizeof(*out->labs), by_id);
	return 0;
}

void labs_release(struct lab_list *l)
{
	for (unsigned i = 0; i < l->n; i++)
		spec_free(l->labs[i]);
	free(l->labs);
	memset(l, 0, sizeof(*l));
}

struct lab_spec *labs_find(const struct lab_list *l, const char *id)
{
	for (unsigned i = 0; i < l->n; i++)
		if (strcmp(l->labs[i]->id, id) == 0)
			return l->labs[i];
	/* "01" finds "01-vecadd": students type the number. */
	size_t n = strlen(id);
	struct lab_spec *match = NULL;
	for (unsigned i = 0; i < l->n; i++)
		if (strncmp(l->labs[i]->id, id, n) == 0 && l->labs[i]->id[n] == '-') {
			if (match)
				return NULL;
			match = l->labs[i];
		}
	return match;
}
