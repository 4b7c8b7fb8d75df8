/* starter: see starter.h. */
#include "starter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"

enum marker { M_NONE, M_BEGIN, M_STARTER, M_END };

/* The marker a line is, if any: the line, past its indentation, starts with it. INDENT
 * is the indentation's length; REST what follows "BEGIN SOLUTION". */
static enum marker marker_of(const char *line, size_t len, size_t *indent, const char **rest)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	*indent = i;
	static const struct { const char *text; enum marker m; } marks[] = {
		{ "// BEGIN SOLUTION", M_BEGIN }, { "// STARTER", M_STARTER }, { "// END SOLUTION", M_END },
	};
	for (unsigned k = 0; k < 3; k++) {
		size_t n = strlen(marks[k].text), j = i + n;
		if (len - i < n || memcmp(line + i, marks[k].text, n) != 0)
			continue;
		/* a marker is the whole line ("// STARTER lines are..." is prose); BEGIN may
		 * carry the TODO's text after a colon */
		*rest = line + j;
		if (marks[k].m == M_BEGIN && j < len && line[j] == ':')
			return M_BEGIN;
		while (j < len && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r'))
			j++;
		return j == len ? marks[k].m : M_NONE;
	}
	return M_NONE;
}

bool starter_marked(const char *path)
{
	char *text = fs_read(path, NULL);
	bool marked = false;
	for (const char *p = text; p && *p && !marked;) {
		size_t n = strcspn(p, "\n"), indent;
		const char *rest;
		marked = marker_of(p, n, &indent, &rest) == M_BEGIN;
		p += n + (p[n] == '\n');
	}
	free(text);
	return marked;
}

/* The starter's line for a line of a STARTER section: "//> code" loses its marker. */
static void stub_line(FILE *f, const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i >= 3 && memcmp(line + i, "//>", 3) == 0) {
		size_t skip = 3 + (len - i > 3 && line[i + 3] == ' ');
		if (len - i == skip) /* "//>" alone: an empty line, without the indentation */
			fputc('\n', f);
		else
			fprintf(f, "%.*s%.*s\n", (int)i, line, (int)(len - i - skip), line + i + skip);
	} else {
		fprintf(f, "%.*s\n", (int)len, line);
	}
}

int starter_generate(const char *path, char **out, struct diag_list *diags)
{
	*out = NULL;
	size_t size;
	char *text = fs_read(path, &size);
	if (!text) {
		diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot read the solution: %s", strerror(errno));
		return -ENOENT;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	enum marker state = M_NONE; /* M_BEGIN: in a block; M_STARTER: in its stub */
	unsigned line = 0, begin_line = 0, errors = 0;
	bool stub = false;
	size_t begin_indent = 0;
	const char *begin_at = text, *begin_rest = ""; /* the BEGIN line, what follows the marker */
	for (const char *p = text; f && *p;) {
		size_t n = strcspn(p, "\n"), indent;
		const char *rest;
		line++;
		enum marker m = marker_of(p, n, &indent, &rest);
		if (m == M_BEGIN && state != M_NONE) {
			diag_add(diags, DIAG_ERROR, path, line, 0, "BEGIN SOLUTION inside the block opened at line %u: close it with // END SOLUTION first", begin_line);
			errors++;
		} else if (m == M_BEGIN) {
			state = M_BEGIN, begin_line = line, begin_at = p, begin_indent = indent, begin_rest = rest, stub = false;
		} else if (m == M_STARTER && state != M_BEGIN) {
			diag_add(diags, DIAG_ERROR, path, line, 0, "// STARTER %s", state == M_NONE ? "outside a BEGIN SOLUTION block" : "twice in one block");
			errors++;
		} else if (m == M_STARTER) {
			state = M_STARTER, stub = true;
		} else if (m == M_END && state == M_NONE) {
			diag_add(diags, DIAG_ERROR, path, line, 0, "END SOLUTION without a BEGIN SOLUTION before it");
			errors++;
		} else if (m == M_END) {
			if (!stub) { /* "// BEGIN SOLUTION: text" -> "// TODO: text" */
				size_t r = strcspn(begin_rest, "\n");
				fprintf(f, "%.*s// TODO%.*s\n", (int)begin_indent, begin_at, (int)r, begin_rest);
			}
			state = M_NONE;
		} else if (state == M_STARTER) {
			stub_line(f, p, n);
		} else if (state == M_NONE) {
			fprintf(f, "%.*s\n", (int)n, p);
		}
		p += n + (p[n] == '\n');
	}
	if (state != M_NONE) {
		diag_add(diags, DIAG_ERROR, path, begin_line, 0, "BEGIN SOLUTION is never closed: add // END SOLUTION after the solution's lines");
		errors++;
	}
	if (f)
		fclose(f);
	free(text);
	if (!f || errors) {
		free(buf);
		return f ? -EINVAL : -ENOMEM;
	}
	*out = buf;
	return 0;
}

long starter_compare(const char *generated, const char *path)
{
	char *text = fs_read(path, NULL);
	if (!text)
		return -1;
	long line = 1, diff = 0;
	for (const char *a = generated, *b = text;; a++, b++) {
		if (*a != *b) {
			diff = line;
			break;
		}
		if (!*a)
			break;
		line += *a == '\n';
	}
	free(text);
	return diff;
}
