/* state: per-lab progress in state.json. See state.h. */
#include "state.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "xmem.h"

#define STATE_VERSION 1

static const char *const status_names[] = {
	[LAB_NOT_STARTED] = "not started",
	[LAB_FAILING] = "failing",
	[LAB_PASSED] = "passed",
};

const char *state_status_name(enum lab_status st)
{
	return st <= LAB_PASSED ? status_names[st] : "?";
}

void state_init(struct ui_state *s)
{
	memset(s, 0, sizeof(*s));
}

void state_release(struct ui_state *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->n; i++)
		free(s->labs[i].id);
	free(s->labs);
	free(s->selected);
	state_init(s);
}

const struct lab_state *state_find(const struct ui_state *s, const char *id)
{
	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->labs[i].id, id) == 0)
			return &s->labs[i];
	return NULL;
}

struct lab_state *state_lab(struct ui_state *s, const char *id)
{
	struct lab_state *l = (struct lab_state *)state_find(s, id);
	if (l)
		return l;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->labs = xrealloc(s->labs, s->cap * sizeof(*s->labs));
	}
	l = &s->labs[s->n++];
	memset(l, 0, sizeof(*l));
	l->id = xstrdup(id);
	return l;
}

void state_record(struct lab_state *l, double score, double max_score, bool passed, bool quick)
{
	l->status = passed ? LAB_PASSED : LAB_FAILING;
	l->last = score;
	l->last_max = max_score;
	l->last_quick = quick;
	l->runs++;
	/* Quick runs skip the large datasets: their best is kept apart from the grade's. */
	double *best = quick ? &l->best_quick : &l->best;
	double *best_max = quick ? &l->best_quick_max : &l->best_max;
	if (*best_max == 0 ||
	    score / (max_score ? max_score : 1) > *best / (*best_max ? *best_max : 1)) {
		*best = score;
		*best_max = max_score;
	}
}

void state_set_selected(struct ui_state *s, const char *id)
{
	free(s->selected);
	s->selected = id ? xstrdup(id) : NULL;
}

static enum lab_status status_parse(const char *s)
{
	for (int i = LAB_NOT_STARTED; i <= LAB_PASSED; i++)
		if (s && strcmp(s, status_names[i]) == 0)
			return (enum lab_status)i;
	return LAB_NOT_STARTED;
}

int state_load(struct ui_state *s, const char *path)
{
	json_error_t err;
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -EIO;
	json_t *root = json_loadf(f, 0, &err);
	fclose(f);
	json_t *labs = json_object_get(root, "labs");
	if (!root || !json_is_object(root) || (labs && !json_is_object(labs))) {
		/* not what state_save writes: damaged, so the caller restores the backup */
		json_decref(root);
		return -EINVAL;
	}
	const char *sel = json_string_value(json_object_get(root, "selected"));
	if (sel)
		state_set_selected(s, sel);
	const char *id;
	json_t *v;
	json_object_foreach(labs, id, v)
	{
		if (!json_is_object(v))
			continue;
		struct lab_state *l = state_lab(s, id);
		l->status = status_parse(json_string_value(json_object_get(v, "status")));
		l->best = json_number_value(json_object_get(v, "best_score"));
		l->best_max = json_number_value(json_object_get(v, "best_max_score"));
		l->best_quick = json_number_value(json_object_get(v, "best_quick_score"));
		l->best_quick_max = json_number_value(json_object_get(v, "best_quick_max_score"));
		l->last = json_number_value(json_object_get(v, "last_score"));
		l->last_max = json_number_value(json_object_get(v, "last_max_score"));
		l->last_quick = json_is_true(json_object_get(v, "last_quick"));
		l->runs = (unsigned)json_integer_value(json_object_get(v, "runs"));
		l->hints = (unsigned)json_integer_value(json_object_get(v, "hints"));
	}
	json_decref(root);
	return 0;
}

static json_t *state_json(const struct ui_state *s)
{
	json_t *labs = json_object();
	for (unsigned i = 0; i < s->n; i++) {
		const struct lab_state *l = &s->labs[i];
		json_object_set_new(labs, l->id,
				    json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:i, s:i}",
					      "status", state_status_name(l->status), "best_score",
					      l->best, "best_max_score", l->best_max,
					      "best_quick_score", l->best_quick,
					      "best_quick_max_score", l->best_quick_max, "last_score", l->last,
					      "last_max_score", l->last_max, "last_quick",
					      l->last_quick, "runs", (int)l->runs, "hints",
					      (int)l->hints));
	}
	json_t *root = json_pack("{s:i, s:o}", "version", STATE_VERSION, "labs", labs);
	if (s->selected)
		json_object_set_new(root, "selected", json_string(s->selected));
	return root;
}

int state_save(const struct ui_state *s, const char *path)
{
	json_t *root = state_json(s);
	char *json = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	if (!json)
		return -ENOMEM;
	char *text = xasprintf("%s\n", json);
	free(json);
	/* The state about to be replaced becomes PATH.bak, by a link renamed into place: at
	 * every moment PATH is whole (old or new) and PATH.bak is the state before, or
	 * absent (the first save). state_load_recover falls back on it. */
	char *bak = xasprintf("%s.bak", path);
	char *tmp = fs_tmp_name(bak);
	if (tmp && link(path, tmp) == 0) {
		rename(tmp, bak);
		unlink(tmp); /* left by rename when PATH.bak was a link to PATH already */
	}
	free(tmp);
	free(bak);
	int rc = fs_write_atomic(path, text, strlen(text));
	free(text);
	return rc;
}

char *state_load_recover(struct ui_state *s, const char *path)
{
	if (state_load(s, path) == 0)
		return NULL;
	const char *name = fs_base_name(path);
	char *aside = xasprintf("%s.unreadable", path), *bak = xasprintf("%s.bak", path), *note;
	rename(path, aside); /* kept for the curious; the next save writes PATH afresh */
	state_release(s);
	if (access(bak, F_OK) == 0 && state_load(s, bak) == 0) {
		state_save(s, path);
		note = xasprintf("%s was unreadable (kept as %s.unreadable): progress restored from %s.bak, as it was before the last change.",
				 name, name, name);
	} else {
		state_release(s);
		note = xasprintf("%s was unreadable (kept as %s.unreadable) and has no usable backup: progress starts afresh; your files are untouched.",
				 name, name);
	}
	free(aside);
	free(bak);
	return note;
}
