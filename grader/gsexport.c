/* gsexport: see gsexport.h. */
#include "gsexport.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "sandbox.h"
#include "zipw.h"

struct bundle {
	struct zipw z;
	char **names;           /* added so far: a folder named twice is added once */
	unsigned n;
	struct diag_list *diags;
};

static bool added(struct bundle *b, const char *name)
{
	for (unsigned i = 0; i < b->n; i++)
		if (strcmp(b->names[i], name) == 0)
			return true;
	char **names = realloc(b->names, (b->n + 1) * sizeof(char *));
	if (names) {
		b->names = names;
		b->names[b->n++] = strdup(name);
	}
	return false;
}

static void add_file(struct bundle *b, const char *path, const char *name, const char *lab)
{
	if (added(b, name))
		return;
	struct stat st;
	size_t len;
	char *data = fs_read(path, &len);
	if (!data || stat(path, &st) != 0) {
		diag_add(b->diags, DIAG_ERROR, path, 0, 0, "cannot read: %s", strerror(errno));
		b->z.err = b->z.err ? b->z.err : -EIO;
		free(data);
		return;
	}
	if (lab) { /* a template: the lab's id for @LAB@, the sandbox option for @SANDBOX@ */
		char *out = NULL;
		size_t olen = 0;
		FILE *m = open_memstream(&out, &olen);
		for (const char *p = data, *at; m && *p; p = at + (at[1] == 'L' ? 5 : 9)) {
			const char *l = strstr(p, "@LAB@"), *sb = strstr(p, "@SANDBOX@");
			at = l && (!sb || l < sb) ? l : sb;
			if (!at) {
				fputs(p, m);
				break;
			}
			fprintf(m, "%.*s%s", (int)(at - p), p,
				at == l ? lab : sandbox_enabled() ? "" : " --sandbox=off");
		}
		if (m)
			fclose(m);
		free(data);
		data = out;
		len = olen;
	}
	zipw_add(&b->z, name, data, len, st.st_mode & 0777);
	free(data);
}

/* Adds the folder DIR as NAME/..., hidden entries (.git) left out. */
static void add_tree(struct bundle *b, const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	if (!d) {
		diag_add(b->diags, DIAG_ERROR, dir, 0, 0, "cannot read the folder: %s", strerror(errno));
		b->z.err = b->z.err ? b->z.err : -EIO;
		return;
	}
	struct dirent *e;
	char **entries = NULL;
	unsigned n = 0;
	while ((e = readdir(d))) {
		char **more = e->d_name[0] == '.' ? entries : realloc(entries, (n + 1) * sizeof(char *));
		if (e->d_name[0] != '.' && more)
			(entries = more)[n++] = strdup(e->d_name);
	}
	closedir(d);
	for (unsigned i = 0; i < n; i++) { /* readdir's order is the file system's: sort */
		for (unsigned j = i + 1; j < n; j++)
			if (strcmp(entries[j], entries[i]) < 0) {
				char *t = entries[i];
				entries[i] = entries[j];
				entries[j] = t;
			}
		char path[PATH_MAX], sub[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, entries[i]);
		snprintf(sub, sizeof(sub), "%s/%s", name, entries[i]);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			add_tree(b, path, sub);
		else if (S_ISREG(st.st_mode))
			add_file(b, path, sub, NULL);
		free(entries[i]);
	}
	free(entries);
}

/* "labs/01/../../kernels/01/x.cu" -> "kernels/01/x.cu"; NULL when it climbs out. */
static char *normalize(const char *path)
{
	char *copy = strdup(path), *out = calloc(1, strlen(path) + 1), *save = NULL;
	size_t len = 0;
	for (char *p = copy, *tok; copy && out && (tok = strtok_r(p, "/", &save)); p = NULL) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (!len) {
				free(out);
				out = NULL;
				break;
			}
			while (len && out[len - 1] != '/')
				len--;
			len -= len > 0;
			out[len] = '\0';
			continue;
		}
		len += (size_t)sprintf(out + len, "%s%s", len ? "/" : "", tok);
	}
	free(copy);
	return out;
}

/* The folder of the lab's file REL (solution, reference), at the place REL names
 * relative to labs/LAB/ in the bundle. */
static void add_folder_of(struct bundle *b, const struct lab_spec *spec, const char *rel, const char *field)
{
	if (!rel)
		return;
	char inside[PATH_MAX], *dir = spec_path(spec, rel), *name;
	snprintf(inside, sizeof(inside), "pmpplab/labs/%s/%s", spec->id, rel);
	if (rel[0] == '/' || !(name = normalize(inside)) || strncmp(name, "pmpplab/", 8) != 0) {
		diag_add(b->diags, DIAG_ERROR, spec->path, 0, 0,
			 "%s: '%s' lies outside the lab collection's folder; an autograder bundle needs the lab's files within it (for example in kernels/%s/)",
			 field, rel, spec->id);
		b->z.err = b->z.err ? b->z.err : -EINVAL;
		free(dir);
		return;
	}
	*strrchr(name, '/') = '\0';
	*strrchr(dir, '/') = '\0';
	add_tree(b, dir, name);
	free(name);
	free(dir);
}

int gsexport_write(const char *zip, const struct lab_spec *spec, const char *source_root,
		   unsigned *files, struct diag_list *diags)
{
	char path[PATH_MAX], name[PATH_MAX];
	snprintf(path, sizeof(path), "%s/assets/gradescope/run_autograder", source_root);
	if (access(path, R_OK) != 0) {
		diag_add(diags, DIAG_ERROR, path, 0, 0,
			 "pmpplab's source tree is not here (%s): export gradescope bundles the source, so run it from a build of the source", strerror(errno));
		return -ENOENT;
	}
	struct bundle b = { .diags = diags };
	int rc = zipw_open(&b.z, zip);
	if (rc < 0) {
		diag_add(diags, DIAG_ERROR, zip, 0, 0, "cannot write: %s", strerror(-rc));
		return rc;
	}
	static const char *templates[] = { "setup.sh", "run_autograder" };
	for (unsigned i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/assets/gradescope/%s", source_root, templates[i]);
		add_file(&b, path, templates[i], spec->id);
	}
	static const char *top[] = { "meson.build", "meson_options.txt", "README.md" };
	for (unsigned i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", source_root, top[i]);
		snprintf(name, sizeof(name), "pmpplab/%s", top[i]);
		add_file(&b, path, name, NULL);
	}
	static const char *dirs[] = { "emu", "grader", "ui", "assets" };
	for (unsigned i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", source_root, dirs[i]);
		snprintf(name, sizeof(name), "pmpplab/%s", dirs[i]);
		add_tree(&b, path, name);
	}
	snprintf(name, sizeof(name), "pmpplab/labs/%s", spec->id);
	add_tree(&b, spec->dir, name);
	add_folder_of(&b, spec, spec->solution, "solution");
	add_folder_of(&b, spec, spec->reference.file, "reference.file");
	for (unsigned i = 0; i < spec->checks_count; i++) /* the spec names them: it must load */
		if (spec->checks[i].vendor)
			add_folder_of(&b, spec, spec->checks[i].vendor->file, "vendor.file");
	*files = b.z.n;
	rc = zipw_close(&b.z);
	if (rc < 0 && !diag_count(diags, DIAG_ERROR))
		diag_add(diags, DIAG_ERROR, zip, 0, 0, "cannot write: %s", strerror(-rc));
	for (unsigned i = 0; i < b.n; i++)
		free(b.names[i]);
	free(b.names);
	return rc;
}
