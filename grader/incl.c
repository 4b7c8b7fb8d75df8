/* incl: see incl.h. */
#include "incl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"

#define MAX_FILES 256
#define MAX_BYTES (16L << 20)
#define MAX_DEPTH 3

static bool source_name(const char *name)
{
	static const char *const ext[] = { ".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl",
					   ".inc", ".c", ".cc", ".cpp", ".cxx", ".def" };
	const char *dot = strrchr(name, '.');
	for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
		if (strcmp(dot, ext[i]) == 0)
			return true;
	return false;
}

struct walk {
	unsigned files;
	long bytes;
	int (*fn)(struct walk *w, const char *path, const char *rel);
	struct fs_hash *hash;
	const char *to;
};

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The source files under DIR/REL in name order (a stable hash), depth-first. */
static int walk_folder(struct walk *w, const char *dir, const char *rel, int depth)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	char *names[512];
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 512)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(char *), compare_names);
	int rc = 0;
	for (unsigned i = 0; i < n; i++) {
		char sub[PATH_MAX], full[PATH_MAX];
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i] ? names[i] : "");
		snprintf(full, sizeof(full), "%s/%s", dir, sub);
		struct stat st;
		if (!names[i] || rc < 0 || lstat(full, &st) != 0)
			;
		else if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
			rc = walk_folder(w, dir, sub, depth + 1);
		else if (S_ISREG(st.st_mode) && source_name(names[i]) && w->files < MAX_FILES &&
			 w->bytes + st.st_size <= MAX_BYTES) {
			w->files++;
			w->bytes += st.st_size;
			rc = w->fn(w, full, sub);
		}
		free(names[i]);
	}
	return rc;
}

static int hash_one(struct walk *w, const char *path, const char *rel)
{
	fs_hash_str(w->hash, rel);
	fs_hash_file(w->hash, path);
	return 0;
}

void incl_hash_folder(struct fs_hash *h, const char *dir)
{
	struct walk w = { .fn = hash_one, .hash = h };
	walk_folder(&w, dir, "", 0);
}

static int copy_one(struct walk *w, const char *path, const char *rel)
{
	char dst[PATH_MAX];
	snprintf(dst, sizeof(dst), "%s/%s", w->to, rel);
	char *slash = strrchr(dst, '/');
	*slash = '\0';
	int rc = paths_mkdirs(dst);
	*slash = '/';
	size_t len = 0;
	char *data = rc < 0 ? NULL : fs_read(path, &len);
	if (rc == 0 && !data)
		rc = -errno;
	int fd = data ? open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;
	if (data && fd < 0)
		rc = -errno;
	if (fd >= 0 && (write(fd, data, len) != (ssize_t)len || fchmod(fd, 0644) != 0))
		rc = -EIO;
	if (fd >= 0)
		close(fd);
	free(data);
	return rc;
}

int incl_copy_folder(const char *dir, const char *to)
{
	int rc = paths_mkdirs(to);
	struct walk w = { .fn = copy_one, .to = to };
	return rc < 0 ? rc : walk_folder(&w, dir, "", 0);
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0' || n == 1);
}

static bool allowed(const char *real, const struct incl_rules *r)
{
	if (r->own && under(real, r->own))
		return true;
	for (unsigned i = 0; i < r->n_hidden; i++)
		if (under(real, r->hidden[i]))
			return false;
	for (unsigned i = 0; i < r->n_system; i++)
		if (under(real, r->system[i]))
			return true;
	return false;
}

/* The next path of a make rule (backslash-escaped spaces, line continuations). */
static const char *next_dep(const char *p, char *out, size_t len)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || (*p == '\\' && p[1] == '\n'))
		p += *p == '\\' ? 2 : 1;
	size_t n = 0;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
		if (*p == '\\' && p[1] == '\n')
			break;
		if (*p == '\\' && p[1])
			p++;
		if (n + 1 < len)
			out[n++] = *p;
		p++;
	}
	out[n] = '\0';
	return n ? p : NULL;
}

char *incl_refused(const char *deps, const char *cwd, const struct incl_rules *r, int *err)
{
	char *text = fs_read(deps, NULL);
	*err = text ? 0 : -errno;
	if (!text)
		return NULL;
	char *colon = strstr(text, ": ");
	const char *p = colon ? colon + 2 : text;
	char dep[PATH_MAX], full[PATH_MAX + 2], real[PATH_MAX];
	char *bad = NULL;
	while (!bad && (p = next_dep(p, dep, sizeof(dep)))) {
		snprintf(full, sizeof(full), "%s%s%s", dep[0] == '/' ? "" : cwd, dep[0] == '/' ? "" : "/", dep);
		if (!realpath(full, real) || !allowed(real, r))
			bad = strdup(dep);
	}
	free(text);
	return bad;
}

/* A line marker: # LINE "FILE" FLAGS. Returns the flags' first number (0 none), or -1
 * when the line is not a marker. */
static int marker(const char *l, unsigned *line, char *file, size_t len)
{
	if (l[0] != '#' || l[1] != ' ' || l[2] < '0' || l[2] > '9')
		return -1;
	char *end;
	*line = (unsigned)strtoul(l + 2, &end, 10);
	if (end[0] != ' ' || end[1] != '"')
		return -1;
	const char *q = strchr(end + 2, '"');
	if (!q)
		return -1;
	snprintf(file, len, "%.*s", (int)(q - end - 2), end + 2);
	return atoi(q + 1);
}

/* Whether the marker's NAME is the file BAD (spelled alike, or the same file). */
static bool same_file(const char *name, const char *bad)
{
	if (strcmp(name, bad) == 0)
		return true;
	if (strcmp(fs_base_name(name), fs_base_name(bad)) != 0)
		return false;
	char a[PATH_MAX], b[PATH_MAX];
	return realpath(name, a) && realpath(bad, b) && strcmp(a, b) == 0;
}

int incl_locate(const char *pre, const char *bad, char **file, unsigned *line)
{
	FILE *f = fopen(pre, "r");
	if (!f)
		return -ENOENT;
	char *l = NULL, name[PATH_MAX];
	size_t cap = 0;
	unsigned at, depth = 0;
	int rc = -ENOENT;
	/* Inside BAD (and what it includes) until a return (flag 2) leaves it: that marker
	 * names the includer at LINE + 1, the line after its #include. */
	while (rc < 0 && getline(&l, &cap, f) > 0) {
		int flag = marker(l, &at, name, sizeof(name));
		if (flag == 1 && (depth || same_file(name, bad))) {
			depth++;
		} else if (flag == 2 && depth && --depth == 0 && at > 0) {
			*file = strdup(name);
			*line = at - 1;
			rc = *file ? 0 : -ENOMEM;
		}
	}
	free(l);
	fclose(f);
	return rc;
}
