/* workspace: see workspace.h. */
#include "workspace.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "paths.h"

char *workspace_student_file(const char *dir, const struct lab_spec *spec)
{
	char *path = NULL;
	if (asprintf(&path, "%s/%s/%s", dir, spec->id, spec->student) < 0)
		return NULL;
	return path;
}

/* Copies the lab's file NAME into the workspace unless it is already there. */
static int copy_if_missing(const char *dir, const struct lab_spec *spec, const char *name,
			   struct diag_list *diags)
{
	char dst[PATH_MAX];
	snprintf(dst, sizeof(dst), "%s/%s/%s", dir, spec->id, name);
	if (access(dst, F_OK) == 0)
		return 0;
	char *src = spec_path(spec, name);
	int rc = src ? fs_copy_new(src, dst) : -ENOMEM;
	if (rc < 0)
		diag_add(diags, DIAG_ERROR, dst, 0, 0, "cannot create: %s", strerror(-rc));
	free(src);
	return rc;
}

int workspace_init(const char *dir, const struct lab_list *labs, struct diag_list *diags)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.pmpplab", dir);
	int rc = paths_mkdirs(path);
	if (rc < 0) {
		diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot create the workspace: %s", strerror(-rc));
		return rc;
	}
	fs_sweep_stale(path); /* what a pmpplab killed while writing left (fs_tmp_name) */
	char *cache = paths_cache_dir(); /* and in the cache's kept results (grade_datasets.c, perf.c) */
	for (int k = 0; cache && k < 2; k++) {
		snprintf(path, sizeof(path), "%s/%s", cache, k ? "counted" : "expected");
		fs_sweep_stale(path);
	}
	free(cache);
	for (unsigned i = 0; i < labs->n; i++) {
		const struct lab_spec *s = labs->labs[i];
		snprintf(path, sizeof(path), "%s/%s", dir, s->id);
		fs_sweep_stale(path);
		if ((rc = paths_mkdirs(path)) < 0) {
			diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot create: %s", strerror(-rc));
			return rc;
		}
		if ((rc = copy_if_missing(dir, s, s->student, diags)) < 0 ||
		    (rc = copy_if_missing(dir, s, "README.md", diags)) < 0)
			return rc;
	}
	return 0;
}

char *workspace_find(const char *path)
{
	char cur[PATH_MAX];
	if (!realpath(path, cur))
		return NULL;
	for (;;) {
		char probe[PATH_MAX + 16];
		snprintf(probe, sizeof(probe), "%s/.pmpplab", cur);
		if (access(probe, F_OK) == 0)
			return strdup(cur);
		char *slash = strrchr(cur, '/');
		if (!slash || slash == cur)
			return NULL;
		*slash = '\0';
	}
}

int workspace_reset_lab(const char *dir, const struct lab_spec *spec, char **backup_out,
			struct diag_list *diags)
{
	if (backup_out)
		*backup_out = NULL;
	char *file = workspace_student_file(dir, spec);
	char *starter = spec_path(spec, spec->student);
	size_t len = 0;
	char *text = starter ? fs_read(starter, &len) : NULL;
	int rc = 0;
	if (!file || !starter) {
		rc = -ENOMEM;
	} else if (!text) {
		rc = -errno;
		diag_add(diags, DIAG_ERROR, starter, 0, 0, "cannot read the lab's starter: %s; nothing was changed",
			 strerror(-rc));
	} else if (access(file, F_OK) == 0) {
		/* The student's file gets a second name first (link: never replaces a backup
		 * made meanwhile), then the starter is renamed over the first. Killed between
		 * the two, the file is still the student's and the backup a copy of it. */
		char backup[PATH_MAX];
		for (unsigned n = 1;; n++) {
			snprintf(backup, sizeof(backup), "%s.bak.%u", file, n);
			if (access(backup, F_OK) != 0)
				break;
		}
		if (link(file, backup) != 0) {
			rc = -errno;
			diag_add(diags, DIAG_ERROR, file, 0, 0, "cannot back up before reset: %s; nothing was changed",
				 strerror(-rc));
		} else {
			fs_sync_dir(backup);
			if (backup_out)
				*backup_out = strdup(backup);
		}
	}
	if (rc == 0 && (rc = fs_write_atomic(file, text, len)) < 0)
		diag_add(diags, DIAG_ERROR, file, 0, 0, "cannot write the starter: %s; your file is unchanged",
			 strerror(-rc));
	free(text);
	free(starter);
	free(file);
	return rc;
}
