/* fuzz_events: what a submission's process writes that the grader reads back as findings
 * (grader/memcheck.c, grader/barriers.c). The emulator's events file is written inside
 * the student's process, and compute-sanitizer's report is interleaved with the
 * program's own output, so a hostile program controls both. The first byte picks the
 * reader: even, the events file (JSON lines); odd, the output text (bit 1: racecheck or
 * synccheck). Every finding must format without overrunning its fixed-size fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "barriers.h"
#include "fuzz.h"
#include "memcheck.h"

static char path[64];

static void cleanup(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/pmpplab-fuzz-events-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		abort();
	close(fd);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned mode = data[0];
	struct memcheck_finding mf;
	struct barriers_findings fs = { 0 };
	if (mode % 2 == 0) {
		if (fuzz_write(path, data + 1, size - 1) != 0)
			abort();
		if (memcheck_scan(NULL, path, &mf) && !memchr(mf.text, 0, sizeof(mf.text)))
			abort();
		barriers_scan_events(path, &fs);
	} else {
		char *text = fuzz_cstr(data + 1, size - 1);
		if (memcheck_scan(text, NULL, &mf) && !memchr(mf.text, 0, sizeof(mf.text)))
			abort();
		barriers_scan_sanitizer(text, mode & 2 ? "synccheck" : "racecheck", &fs);
		free(text);
	}
	for (unsigned i = 0; i < fs.n; i++)
		if (!memchr(fs.items[i].message, 0, sizeof(fs.items[i].message)) ||
		    !memchr(fs.items[i].file, 0, sizeof(fs.items[i].file)))
			abort();
	FILE *sink = fopen("/dev/null", "w");
	if (sink) {
		barriers_format(sink, &fs, 8);
		fclose(sink);
	}
	barriers_findings_release(&fs);
	return 0;
}
