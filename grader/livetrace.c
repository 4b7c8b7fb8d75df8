/* livetrace: see livetrace.h. */
#include "livetrace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRIES 8

int livetrace_read(const char *path, struct emu_trace_file *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	struct stat st;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(*out)) {
		close(fd);
		return st.st_size == 0 ? -ENOENT : -EINVAL;
	}
	const struct emu_trace_file *f = mmap(NULL, sizeof(*out), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return -EINVAL;
	int rc = -EAGAIN;
	for (int i = 0; i < TRIES && rc == -EAGAIN; i++) {
		uint64_t s1 = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			usleep(500);
			continue;
		}
		memcpy(out, f, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint64_t s2 = __atomic_load_n(&f->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			rc = out->magic == EMU_TRACE_MAGIC && out->version == EMU_TRACE_VERSION ? 0 : -EINVAL;
	}
	munmap((void *)f, sizeof(*out));
	if (rc == 0 && (out->nsms > EMU_TRACE_MAX_SMS || out->nlines > EMU_TRACE_MAX_LINES ||
			out->nkernels > EMU_TRACE_MAX_KERNELS))
		rc = -EINVAL;
	if (rc == 0) {
		out->kernel[sizeof(out->kernel) - 1] = '\0';
		out->file[sizeof(out->file) - 1] = '\0';
		for (unsigned i = 0; i < out->nkernels; i++)
			out->kernels[i].name[sizeof(out->kernels[i].name) - 1] = '\0';
	}
	return rc;
}

double livetrace_simt(const struct emu_trace_line_snap *l)
{
	return l->warp_insns ? (double)l->lanes / 32.0 / (double)l->warp_insns : 1.0;
}

double livetrace_ld_sectors(const struct emu_trace_line_snap *l)
{
	return l->gld_sampled ? (double)l->gld_sectors / (double)l->gld_sampled : 0;
}

double livetrace_st_sectors(const struct emu_trace_line_snap *l)
{
	return l->gst_sampled ? (double)l->gst_sectors / (double)l->gst_sampled : 0;
}

double livetrace_bank_degree(const struct emu_trace_line_snap *l)
{
	return l->shd_sampled ? (double)l->shd_passes / (double)l->shd_sampled : 0;
}

void livetrace_warp_counts(const struct emu_trace_sm_snap *s, unsigned counts[5])
{
	memset(counts, 0, 5 * sizeof(counts[0]));
	for (unsigned w = 0; w < EMU_TRACE_MAX_WARPS; w++)
		if (s->state[w] < 5)
			counts[s->state[w]]++;
}

char *livetrace_runs_path(const char *trace_path)
{
	char *p = NULL;
	return asprintf(&p, "%s.runs", trace_path) < 0 ? NULL : p;
}

/* The trace's sequence number now: 0 when there is none. */
static uint64_t trace_seq(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint32_t head[4] = { 0 }; /* magic, version, seq */
	ssize_t n = pread(fd, head, sizeof(head), 0);
	close(fd);
	uint64_t seq;
	memcpy(&seq, &head[2], sizeof(seq));
	return n == (ssize_t)sizeof(head) && head[0] == EMU_TRACE_MAGIC ? seq : 0;
}

void livetrace_note_run(char *const *env, const char *request, const char *what)
{
	const char *trace = getenv("PMPPLAB_TRACE");
	for (unsigned i = 0; env && env[i]; i++)
		if (strncmp(env[i], "PMPPLAB_TRACE=", 14) == 0)
			trace = env[i] + 14;
	if (!trace || !*trace)
		return;
	char *runs = livetrace_runs_path(trace);
	FILE *f = runs ? fopen(runs, "ae") : NULL;
	if (f) {
		const char *base = request ? strrchr(request, '/') : NULL;
		base = base ? base + 1 : request ? request : "";
		size_t len = strlen(base);
		int dlen = len > 3 && strcmp(base + len - 3, ".in") == 0 ? (int)len - 3 : 0;
		/* one line, one write: a reader sees it whole or not at all */
		char line[512];
		snprintf(line, sizeof(line), "%" PRIu64 "\t%.*s\t%s\n", trace_seq(trace), dlen, base,
			 what ? what : "");
		fputs(line, f);
		fclose(f);
	}
	free(runs);
}

bool livetrace_run_of(const char *trace_path, uint64_t seq, char *dataset, size_t dlen,
		      char *what, size_t wlen)
{
	char *runs = livetrace_runs_path(trace_path);
	FILE *f = runs ? fopen(runs, "re") : NULL;
	free(runs);
	if (!f)
		return false;
	char line[512];
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		char *end;
		uint64_t before = strtoull(line, &end, 10);
		char *tab1 = end + 1, *tab2 = *end == '\t' ? strchr(tab1, '\t') : NULL;
		if (!tab2 || before >= seq)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(dataset, dlen, "%.*s", (int)(tab2 - tab1), tab1);
		snprintf(what, wlen, "%s", tab2 + 1);
		found = true; /* the last run that started before the trace was written */
	}
	fclose(f);
	return found;
}
