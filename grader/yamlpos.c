/* yamlpos: a libyaml event walk recording the line of every key and sequence entry. */
#include "yamlpos.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct entry {
	char *path;
	unsigned line;
};

struct yamlpos {
	struct entry *items;
	size_t n, cap;
};

/* One open collection while walking: its path, and for a mapping whether the next scalar
 * is a key; for a sequence the index of the next entry. */
struct frame {
	char path[512];
	bool mapping, want_key;
	unsigned index;
	char key[128];
};

static void record(struct yamlpos *p, const char *path, unsigned line)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct entry *items = realloc(p->items, cap * sizeof(*items));
		if (!items)
			return;
		p->items = items;
		p->cap = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return;
	p->items[p->n++] = (struct entry){ copy, line };
}

/* The path of the value that starts now inside frame F (a key's value or an entry). */
static void child_path(struct yamlpos *p, struct frame *f, char *out, size_t len, unsigned line)
{
	if (f->mapping)
		snprintf(out, len, "%s%s%s", f->path, f->path[0] ? "." : "", f->key);
	else
		snprintf(out, len, "%s[%u]", f->path, f->index++);
	if (!f->mapping)
		record(p, out, line);
	f->want_key = true;
}

static bool walk(yaml_parser_t *parser, struct yamlpos *p)
{
	struct frame stack[32];
	int depth = -1;
	char path[512] = "";
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(parser, &ev))
			return false;
		unsigned line = (unsigned)ev.start_mark.line + 1;
		yaml_event_type_t type = ev.type;
		struct frame *top = depth >= 0 ? &stack[depth] : NULL;
		if (type == YAML_SCALAR_EVENT && top && top->mapping && top->want_key) {
			snprintf(top->key, sizeof(top->key), "%s", (const char *)ev.data.scalar.value);
			top->want_key = false;
			char kp[700];
			snprintf(kp, sizeof(kp), "%s%s%s", top->path, top->path[0] ? "." : "", top->key);
			record(p, kp, line);
		} else if (type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT) {
			if (top)
				child_path(p, top, path, sizeof(path), line);
		} else if ((type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT) &&
			   depth < 31) {
			if (top)
				child_path(p, top, path, sizeof(path), line);
			struct frame *f = &stack[++depth];
			snprintf(f->path, sizeof(f->path), "%s", top ? path : "");
			f->mapping = type == YAML_MAPPING_START_EVENT;
			f->want_key = true;
			f->index = 0;
		} else if (type == YAML_MAPPING_END_EVENT || type == YAML_SEQUENCE_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
		if (type == YAML_STREAM_END_EVENT)
			return true;
	}
}

struct yamlpos *yamlpos_scan(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct yamlpos *p = calloc(1, sizeof(*p));
	yaml_parser_t parser;
	if (!p || !yaml_parser_initialize(&parser)) {
		free(p);
		fclose(f);
		return NULL;
	}
	yaml_parser_set_input_file(&parser, f);
	bool ok = walk(&parser, p);
	yaml_parser_delete(&parser);
	fclose(f);
	if (!ok) {
		yamlpos_free(p);
		return NULL;
	}
	return p;
}

void yamlpos_free(struct yamlpos *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->items[i].path);
	free(p->items);
	free(p);
}

unsigned yamlpos_line(const struct yamlpos *p, const char *fmt, ...)
{
	if (!p)
		return 0;
	char want[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	/* Exact match first, then drop trailing components until something matches. */
	for (;;) {
		for (size_t i = 0; i < p->n; i++)
			if (strcmp(p->items[i].path, want) == 0)
				return p->items[i].line;
		char *cut = strrchr(want, '.');
		char *br = strrchr(want, '[');
		if (br > cut)
			cut = br;
		if (!cut)
			return 0;
		*cut = '\0';
	}
}
