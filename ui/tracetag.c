/* tracetag: the lab and source version a trace is of. See tracetag.h. */
#include "tracetag.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "xmem.h"

#define TRACETAG_MAGIC "pmpplab-trace-tag 1"

int tracetag_of_file(struct tracetag *t, const char *lab, const char *path)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->lab, sizeof(t->lab), "%s", lab ? lab : "");
	if (!path)
		return -EINVAL;
	snprintf(t->file, sizeof(t->file), "%s", fs_base_name(path));
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
		t->size += n;
	}
	int rc = ferror(f) ? -EIO : 0;
	fclose(f);
	t->hash = h;
	return rc;
}

int tracetag_write(const char *path, const struct tracetag *t)
{
	char *text = xasprintf("%s\nlab %s\nfile %s\nsize %" PRIu64 "\nhash %016" PRIx64 "\n",
			       TRACETAG_MAGIC, t->lab, t->file, t->size, t->hash);
	int rc = fs_write_atomic(path, text, strlen(text));
	free(text);
	return rc;
}

int tracetag_read(const char *path, struct tracetag *t)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ENOENT : -errno;
	char line[512];
	int fields = 0, rc = -EINVAL;
	if (fgets(line, sizeof(line), f) && strncmp(line, TRACETAG_MAGIC, strlen(TRACETAG_MAGIC)) == 0) {
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (strncmp(line, "lab ", 4) == 0)
				fields |= snprintf(t->lab, sizeof(t->lab), "%s", line + 4) >= 0;
			else if (strncmp(line, "file ", 5) == 0)
				fields |= (snprintf(t->file, sizeof(t->file), "%s", line + 5) >= 0) << 1;
			else if (sscanf(line, "size %" SCNu64, &t->size) == 1)
				fields |= 4;
			else if (sscanf(line, "hash %" SCNx64, &t->hash) == 1)
				fields |= 8;
		}
		if (fields == 15)
			rc = 0;
	}
	fclose(f);
	return rc;
}

char *tracetag_path(const char *trace_path)
{
	return xasprintf("%s.tag", trace_path);
}

enum tracetag_match tracetag_compare(const struct tracetag *recorded, const struct tracetag *now)
{
	if (!recorded->lab[0] || strcmp(recorded->lab, now->lab) != 0 ||
	    strcmp(recorded->file, now->file) != 0)
		return TRACETAG_OTHER_LAB;
	if (recorded->size != now->size || recorded->hash != now->hash)
		return TRACETAG_OLD;
	return TRACETAG_MATCH;
}

bool tracetag_is_file(const struct tracetag *now, const char *trace_file)
{
	return !trace_file || !*trace_file || strcmp(fs_base_name(trace_file), now->file) == 0;
}
