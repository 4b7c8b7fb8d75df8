/* paths: see paths.h. */
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmpplab_config.h"

bool paths_in_build_tree(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	size_t root = strlen(PMPPLAB_BUILD_ROOT);
	return strncmp(exe, PMPPLAB_BUILD_ROOT, root) == 0 && exe[root] == '/';
}

static char *env_or(const char *var, const char *fallback)
{
	const char *v = getenv(var);
	return strdup(v && *v ? v : fallback);
}

char *paths_data_root(void)
{
	return strdup(paths_in_build_tree() ? PMPPLAB_SOURCE_ROOT : PMPPLAB_DATADIR);
}

char *paths_which(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = strdup(path), *save = NULL;
	char *found = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *cand = NULL;
		if (asprintf(&cand, "%s/%s", *dir ? dir : ".", name) < 0)
			break;
		if (access(cand, X_OK) == 0)
			found = cand;
		else
			free(cand);
	}
	free(copy);
	return found;
}

char *paths_nvcc(void)
{
	const char *v = getenv("PMPPLAB_NVCC");
	if (v && *v)
		return access(v, X_OK) == 0 ? strdup(v) : NULL;
	char *p = paths_which("nvcc");
	if (p)
		return p;
	if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
		return strdup("/usr/local/cuda/bin/nvcc");
	return NULL;
}

char *paths_cuda_tool(const char *name)
{
	char *nvcc = paths_nvcc();
	if (nvcc) {
		char *slash = strrchr(nvcc, '/');
		char *cand = NULL;
		if (slash && asprintf(&cand, "%.*s/%s", (int)(slash - nvcc), nvcc, name) >= 0) {
			if (access(cand, X_OK) == 0) {
				free(nvcc);
				return cand;
			}
			free(cand);
		}
		free(nvcc);
	}
	return paths_which(name);
}

char *paths_harness_dir(void)
{
	char *root = paths_data_root();
	char *dir = NULL;
	if (asprintf(&dir, "%s/%s", root,
		     paths_in_build_tree() ? "grader/harness" : "harness") < 0)
		dir = NULL;
	free(root);
	char *out = env_or("PMPPLAB_HARNESS", dir ? dir : "");
	free(dir);
	return out;
}

char *paths_emu_libdir(void)
{
	return env_or("PMPPLAB_EMU_LIBDIR",
		      paths_in_build_tree() ? PMPPLAB_BUILD_ROOT "/emu" : PMPPLAB_LIBDIR);
}

char *paths_nvrtc_ptx(void)
{
	char *path = NULL;
	if (asprintf(&path, "%s/pmpplab-nvrtc-ptx",
		     paths_in_build_tree() ? PMPPLAB_BUILD_ROOT "/grader" : PMPPLAB_LIBDIR) < 0)
		return NULL;
	if (access(path, X_OK) == 0)
		return path;
	free(path);
	return NULL;
}

int paths_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

char *paths_cache_dir(void)
{
	char *dir = NULL;
	const char *v = getenv("PMPPLAB_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int rc;
	if (v && *v)
		rc = asprintf(&dir, "%s", v);
	else if (xdg && *xdg)
		rc = asprintf(&dir, "%s/pmpplab", xdg);
	else
		rc = asprintf(&dir, "%s/.cache/pmpplab", home && *home ? home : "/tmp");
	if (rc < 0)
		return NULL;
	paths_mkdirs(dir);
	return dir;
}
