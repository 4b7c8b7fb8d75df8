/* scratch: see scratch.h. */
#include "scratch.h"

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

#define SCRATCH_PREFIX "pmpplab-run-"

/* The start time of process PID (clock ticks since boot), or 0 when it is gone. */
static unsigned long long start_time(long pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')'); /* the name may hold spaces */
	unsigned long long t = 0;
	for (int field = 2; p && *p; p++)
		if (*p == ' ' && ++field == 22) {
			t = strtoull(p + 1, NULL, 10);
			break;
		}
	return t;
}

int scratch_new(char *path, size_t len)
{
	snprintf(path, len, "/tmp/" SCRATCH_PREFIX "%ld-XXXXXX", (long)getpid());
	if (!mkdtemp(path))
		return -errno;
	chmod(path, 0711);
	char owner[PATH_MAX], text[64];
	snprintf(owner, sizeof(owner), "%s/.owner", path);
	int n = snprintf(text, sizeof(text), "%ld %llu\n", (long)getpid(), start_time(getpid()));
	int rc = fs_write_atomic(owner, text, (size_t)n);
	if (rc < 0)
		fs_remove_tree(path);
	return rc;
}

/* NAME is one of ours, "pmpplab-run-PID-XXXXXX": the '-' after the pid is checked too,
 * so another program's (or an old pmpplab's) "pmpplab-run-98jbOy" is not taken for pid 98
 * and swept while its owner still uses it. */
static bool scratch_pid(const char *name, long *pid)
{
	int end = 0;
	return sscanf(name, SCRATCH_PREFIX "%ld-%n", pid, &end) == 1 && end > 0;
}

/* Whether the scratch folder DIR's owner is gone (its record names a dead process, or
 * one started at another time: the pid was reused). */
static bool owner_gone(const char *dir)
{
	char owner[PATH_MAX];
	snprintf(owner, sizeof(owner), "%s/.owner", dir);
	char *text = fs_read(owner, NULL);
	long pid = 0;
	unsigned long long t = 0;
	bool parsed = text && sscanf(text, "%ld %llu", &pid, &t) == 2;
	free(text);
	if (!parsed) { /* made but not yet recorded: only when its maker is gone */
		const char *name = fs_base_name(dir);
		return scratch_pid(name, &pid) && pid > 0 && !start_time(pid);
	}
	return pid <= 0 || start_time(pid) != t;
}

void scratch_sweep_stale(const char *cache_build)
{
	DIR *d = opendir("/tmp");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		long pid;
		char path[PATH_MAX];
		if (!scratch_pid(e->d_name, &pid))
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", e->d_name);
		if (owner_gone(path))
			fs_remove_tree(path);
	}
	if (d)
		closedir(d);
	/* build.c's temporaries: HASH.tmp.PID.THREAD */
	d = cache_build ? opendir(cache_build) : NULL;
	while (d && (e = readdir(d))) {
		const char *t = strstr(e->d_name, ".tmp.");
		long pid = t ? strtol(t + 5, NULL, 10) : 0;
		if (pid > 0 && !start_time(pid)) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/%s", cache_build, e->d_name);
			fs_remove_tree(path);
		}
	}
	if (d)
		closedir(d);
}
