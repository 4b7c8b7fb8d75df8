/* memcheck: see memcheck.h. */
#include "memcheck.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"

static const char advice[] =
	"A thread read or wrote outside its arrays. When the grid is rounded up to whole blocks, "
	"the extra threads must not touch memory: guard the access with a bounds check such as "
	"if (i < n).";
/* Past a __shared__ array the cause is the block's own loop or index, not extra threads. */
static const char advice_shared[] =
	"A thread read or wrote outside a __shared__ array: check the bounds of the loop that "
	"fills or reads it (i < SIZE, not i <= SIZE) and the row and column a thread computes "
	"into the tile; on a GPU such an access silently lands in the next array.";

/* A misaligned access is not out of bounds: a guard would not help, the address would. */
static const char advice_misaligned[] =
	"A thread accessed memory at an address that is not a multiple of what it accessed "
	"(4 bytes for a float, 16 for a float4, 32 for a wmma fragment's start): check the "
	"pointer arithmetic, e.g. a byte offset cast to a wider pointer, or a tile's start; "
	"wmma's load/store_matrix_sync also need ldm a multiple of 16 bytes (8 halves or 4 "
	"floats), so a row length such as n only works when n is such a multiple.";

/* A read of memory nothing wrote: the emulator's sentence says where and what to do. */
static const char advice_unwritten[] =
	"A kernel read device memory before anything wrote it. cudaMalloc does not clear "
	"memory: it often holds zeros, so the answer can be right by luck and wrong on "
	"another run or GPU. A sum, count or histogram that kernels add to must first be "
	"set with cudaMemset (or a kernel that writes it), and so must an output a kernel "
	"updates with +=.";

const char *const memcheck_emu_env[] = { "PMPPLAB_EMU_INITCHECK=1", NULL };
const char *const memcheck_emu_race_env[] = { "PMPPLAB_EMU_RACECHECK=1",
					      "PMPPLAB_EMU_INITCHECK=1", NULL };

/* The advice for a finding that says WHAT (its first line) and DETAILS (the rest). */
static const char *advice_for(const char *what, const char *details)
{
	if ((what && strstr(what, "isaligned")) || (details && strstr(details, "is misaligned")) ||
	    (what && strstr(what, "must be") && strstr(what, "aligned")))
		return advice_misaligned;
	return what && (strstr(what, "shared array") || strstr(what, "shared memory") ||
			strstr(what, "__shared__")) ? advice_shared : advice;
}

/* compute-sanitizer prints each error as a block of "=========     " lines: what, then
 * "at KERNEL+0x.. in FILE:LINE", "by thread (..) in block (..)", the address and the
 * nearest allocation, then host backtraces we leave out. */
static bool scan_sanitizer(const char *out, struct memcheck_finding *f)
{
	const char *first = strstr(out, "========= Invalid ");
	if (!first)
		first = strstr(out, "========= Misaligned");
	if (!first)
		return false;
	char where[400] = "?", details[600] = "", what[200] = "";
	size_t used = 0;
	const char *p = first;
	for (int n = 0; n < 8 && *p; n++) {
		size_t len = strcspn(p, "\n");
		const char *text = p;
		while (text < p + len && (*text == '=' || *text == ' '))
			text++;
		int tlen = (int)(p + len - text);
		if (n == 0) {
			snprintf(what, sizeof(what), "%.*s", tlen, text);
		} else if (strncmp(text, "at ", 3) == 0) {
			const char *in = strstr(text, " in ");
			if (in && in < p + len) {
				const char *file = in + 4, *slash = memchr(file, '/', (size_t)(p + len - file));
				for (const char *q = file; q < p + len; q++)
					if (*q == '/')
						slash = q;
				if (slash)
					file = slash + 1;
				snprintf(where, sizeof(where), "%.*s", (int)(p + len - file), file);
			}
		} else if (tlen == 0 || strncmp(text, "Saved host", 10) == 0 || strncmp(text, "Host Frame", 10) == 0 ||
			   strncmp(text, "Device Frame", 12) == 0 || strncmp(text, "Invalid", 7) == 0) {
			break;
		} else if (used < sizeof(details)) {
			used += (size_t)snprintf(details + used, sizeof(details) - used, "; %.*s", tlen, text);
		}
		p += len + (p[len] == '\n');
	}
	unsigned errors = 0;
	const char *summary = strstr(out, "ERROR SUMMARY: ");
	if (summary)
		errors = (unsigned)strtoul(summary + 15, NULL, 10);
	f->errors = errors ? errors : 1;
	snprintf(f->text, sizeof(f->text), "%s: %s%s (%u errors in all)\n%s", where, what, details,
		 f->errors, advice_for(what, details));
	return true;
}

/* The first out-of-bounds or misaligned fault; else the first read of memory nothing wrote
 * (an initcheck finding: the kernel went on, and a fault after it says more). */
static bool scan_events(const char *path, struct memcheck_finding *f)
{
	char *text = fs_read(path, NULL);
	if (!text)
		return false;
	bool found = false, fault = false;
	for (char *line = strtok(text, "\n"); line && !fault; line = strtok(NULL, "\n")) {
		json_t *ev = json_loads(line, 0, NULL);
		const char *type = json_string_value(json_object_get(ev, "event"));
		const char *kind = json_string_value(json_object_get(ev, "kind"));
		const char *check = json_string_value(json_object_get(ev, "check"));
		bool unwritten = !found && type && strcmp(type, "finding") == 0 && check &&
				 strcmp(check, "initcheck") == 0;
		fault = type && strcmp(type, "fault") == 0 && kind &&
			(strcmp(kind, "out-of-bounds") == 0 || strcmp(kind, "misaligned") == 0);
		if (unwritten || fault) {
			const char *file = json_string_value(json_object_get(ev, "file"));
			const char *msg = json_string_value(json_object_get(ev, "message"));
			const char *slash = file ? strrchr(file, '/') : NULL;
			snprintf(f->text, sizeof(f->text), "%s:%lld: %s\n%s",
				 slash ? slash + 1 : file ? file : "?",
				 (long long)json_integer_value(json_object_get(ev, "line")),
				 msg ? msg : kind ? kind : "?",
				 !fault ? advice_unwritten
				 : strcmp(kind, "misaligned") == 0 ? advice_misaligned
				 : advice_for(msg, NULL));
			f->errors = 1;
			found = true;
		}
		json_decref(ev);
	}
	free(text);
	return found;
}

bool memcheck_scan(const char *output, const char *events, struct memcheck_finding *f)
{
	memset(f, 0, sizeof(*f));
	return (output && scan_sanitizer(output, f)) || (events && scan_events(events, f));
}

void memcheck_command(const char **argv, const char *sanitizer, const char *tool,
		      const char *program, const char *request, const char *result)
{
	unsigned argc = 0;
	if (sanitizer) {
		argv[argc++] = sanitizer;
		argv[argc++] = "--tool";
		argv[argc++] = tool;
		/* the count comes from its ERROR SUMMARY; the first reports are enough to show */
		argv[argc++] = "--print-limit";
		argv[argc++] = "20";
	}
	argv[argc++] = program;
	argv[argc++] = request;
	argv[argc++] = result;
	argv[argc] = NULL;
}
