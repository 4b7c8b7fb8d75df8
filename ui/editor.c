/* editor: choosing the editor command. See editor.h. */
#include "editor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmem.h"

/* Editors that read "+LINE" before the file name as "start at LINE". */
static const char *const plus_line_editors[] = {
	"vi",	       "vim",	"nvim", "gvim", "view", "nano", "pico", "emacs",
	"emacsclient", "micro", "kak",	"joe",	"mg",	"ne",	"jed",	NULL,
};

static bool takes_plus_line(const char *prog)
{
	const char *base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	for (const char *const *e = plus_line_editors; *e; e++)
		if (strcmp(base, *e) == 0)
			return true;
	return false;
}

/* Splits CMD at blanks into V (no quoting: editor variables rarely need it). */
static unsigned split_words(const char *cmd, char **v, unsigned max)
{
	unsigned n = 0;
	const char *p = cmd;
	while (*p && n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *q = p;
		while (*q && *q != ' ' && *q != '\t')
			q++;
		v[n++] = xstrndup(p, (size_t)(q - p));
		p = q;
	}
	return n;
}

char **editor_argv(const char *visual, const char *editor, editor_exists_fn exists,
		   const char *file, unsigned line)
{
	enum { MAX_WORDS = 16 };
	const char *cmd = visual && *visual ? visual : editor && *editor ? editor : NULL;
	if (!cmd)
		cmd = exists("nano") ? "nano" : exists("vi") ? "vi" : NULL;
	if (!cmd)
		return NULL;
	char **argv = xcalloc(MAX_WORDS + 3, sizeof(*argv));
	unsigned n = split_words(cmd, argv, MAX_WORDS);
	if (n == 0) {
		free(argv);
		return NULL;
	}
	if (line && takes_plus_line(argv[0]))
		argv[n++] = xasprintf("+%u", line);
	argv[n++] = xstrdup(file);
	argv[n] = NULL;
	return argv;
}

void editor_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

bool editor_on_path(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = xstrdup(path), *save = NULL;
	bool found = false;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", prog);
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}
