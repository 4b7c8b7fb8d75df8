/* cudart_race — see cudart_race.h. */
#include "cudart_race.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudart_report.h"
#include "race.h"

static const char *rt_race_base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "?";
}

/* One finding: a diagnostic on stderr and an event line. */
static void rt_race_report(const struct race_finding *f, const char *kernel, int events_fd)
{
	int bar = f->kind >= RACE_BAR_DIVERGENT;
	const char *file = bar ? f->file1 : f->file2;
	unsigned line = bar ? f->line1 : f->line2;
	char name[256];
	rt_report_kernel_name(kernel, name, sizeof name);
	fprintf(stderr, "%s:%u: %s: %s%s (kernel %s, %u block%s)\n", rt_race_base(file), line,
		race_severity(f), f->intra_warp ? "inside one warp: " : "", f->message, name,
		f->count, f->count == 1 ? "" : "s");
	if (events_fd < 0)
		return;
	char buf[4096];
	size_t n = race_finding_json(f, buf, sizeof buf - 1);
	if (n >= sizeof buf - 1)
		return; /* cannot happen with the tracker's bounded strings */
	buf[n++] = '\n';
	ssize_t w = write(events_fd, buf, n);
	(void)w; /* nothing useful to do when the events file is full */
}

int rt_race_run(const struct emu_launch *l, struct emu_fault *fault, const char *kernel)
{
	if (!race_enabled_by_env())
		return emu_run(l, fault);
	struct race_tracker *t = race_new(l);
	if (!t)
		return emu_run(l, fault); /* out of memory: run unchecked rather than fail */
	int rc = race_run(t, fault);
	unsigned n = race_nfindings(t);
	if (n) {
		const char *path = getenv("PMPPLAB_EVENTS");
		int fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)
				       : -1;
		fflush(stdout);
		for (unsigned i = 0; i < n; i++)
			rt_race_report(race_finding_at(t, i), kernel, fd);
		if (fd >= 0)
			close(fd);
	}
	race_free(t);
	return rc;
}
