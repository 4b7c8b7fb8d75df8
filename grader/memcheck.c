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

/* Copies the rest of the line after PREFIX (within TEXT) into out. */
static bool field_after(const char *text, const char *prefix, char *out, size_t len)
{
	const char *p = strstr(text, prefix);
	if (!p)
		return false;
	p += strlen(prefix);
	size_t n = strcspn(p, "\n");
	snprintf(out, len, "%.*s", (int)n, p);
	return true;
}

static bool scan_sanitizer(const char *out, struct memcheck_finding *f)
{
	const char *first = strstr(out, "========= Invalid ");
	if (!first)
		first = strstr(out, "========= Misaligned");
	if (!first)
		return false;
	char what[160] = "", at[400] = "", who[160] = "", addr[200] = "";
	field_after(first, "========= ", what, sizeof(what));
	field_after(first, " in ", at, sizeof(at));
	field_after(first, "by thread ", who, sizeof(who));
	field_after(first, "Address ", addr, sizeof(addr));
	const char *slash = strrchr(at, '/');
	unsigned errors = 0;
	const char *summary = strstr(out, "ERROR SUMMARY: ");
	if (summary)
		errors = (unsigned)strtoul(summary + 15, NULL, 10);
	f->errors = errors ? errors : 1;
	snprintf(f->text, sizeof(f->text), "%s: %s by thread %s: address %s (%u errors in all)\n%s",
		 slash ? slash + 1 : at, what, who, addr, f->errors, advice);
	return true;
}

static bool scan_events(const char *path, struct memcheck_finding *f)
{
	char *text = fs_read(path, NULL);
	if (!text)
		return false;
	bool found = false;
	for (char *line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n")) {
		json_t *ev = json_loads(line, 0, NULL);
		const char *type = json_string_value(json_object_get(ev, "event"));
		const char *kind = json_string_value(json_object_get(ev, "kind"));
		if (type && strcmp(type, "fault") == 0 && kind &&
		    (strcmp(kind, "out-of-bounds") == 0 || strcmp(kind, "misaligned") == 0)) {
			const char *file = json_string_value(json_object_get(ev, "file"));
			const char *msg = json_string_value(json_object_get(ev, "message"));
			const char *slash = file ? strrchr(file, '/') : NULL;
			snprintf(f->text, sizeof(f->text), "%s:%lld: %s\n%s",
				 slash ? slash + 1 : file ? file : "?",
				 (long long)json_integer_value(json_object_get(ev, "line")),
				 msg ? msg : kind, advice);
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
