/* leaderboard: see leaderboard.h. */
#include "leaderboard.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

void leaderboard_run_release(struct leaderboard_run *r)
{
	for (unsigned i = 0; i < r->n_used; i++)
		free(r->used[i]);
	r->n_used = 0;
}

void leaderboard_release(struct leaderboard *b)
{
	for (unsigned i = 0; i < b->n; i++)
		leaderboard_run_release(&b->runs[i]);
	free(b->runs);
	free(b->lab);
	memset(b, 0, sizeof(*b));
}

/* A deep copy of R into *OUT. Returns 0 or -ENOMEM. */
static int run_copy(struct leaderboard_run *out, const struct leaderboard_run *r)
{
	*out = *r;
	out->n_used = 0;
	for (unsigned i = 0; i < r->n_used && i < LEADERBOARD_MAX_USED; i++) {
		if (!(out->used[i] = strdup(r->used[i]))) {
			leaderboard_run_release(out);
			return -ENOMEM;
		}
		out->n_used++;
	}
	return 0;
}

static int run_from_json(json_t *o, struct leaderboard_run *r)
{
	memset(r, 0, sizeof(*r));
	json_t *used = json_object_get(o, "used");
	json_t *value = json_object_get(o, "value");
	if (!json_is_object(o) || !json_is_number(value) || !json_is_array(used))
		return -EINVAL;
	copy_str(r->when, sizeof(r->when), json_string_value(json_object_get(o, "when")));
	copy_str(r->backend, sizeof(r->backend), json_string_value(json_object_get(o, "backend")));
	copy_str(r->device, sizeof(r->device), json_string_value(json_object_get(o, "device")));
	copy_str(r->unit, sizeof(r->unit), json_string_value(json_object_get(o, "unit")));
	copy_str(r->source, sizeof(r->source), json_string_value(json_object_get(o, "source")));
	r->value = json_number_value(value);
	r->baseline = json_number_value(json_object_get(o, "baseline"));
	size_t i;
	json_t *name;
	json_array_foreach(used, i, name) {
		if (!json_is_string(name) || r->n_used == LEADERBOARD_MAX_USED)
			continue;
		if (!(r->used[r->n_used] = strdup(json_string_value(name)))) {
			leaderboard_run_release(r);
			return -ENOMEM;
		}
		r->n_used++;
	}
	return 0;
}

int leaderboard_parse(const char *text, const char *lab, struct leaderboard *b)
{
	memset(b, 0, sizeof(*b));
	if (!(b->lab = strdup(lab)))
		return -ENOMEM;
	if (!text || !*text)
		return 0;
	json_t *root = json_loads(text, 0, NULL);
	json_t *runs = json_object_get(root, "runs");
	if (!json_is_array(runs)) {
		json_decref(root);
		leaderboard_release(b);
		return -EINVAL;
	}
	b->runs = calloc(json_array_size(runs) + 1, sizeof(*b->runs));
	int rc = b->runs ? 0 : -ENOMEM;
	size_t i;
	json_t *o;
	json_array_foreach(runs, i, o) {
		if (rc == 0 && (rc = run_from_json(o, &b->runs[b->n])) == 0)
			b->n++;
	}
	json_decref(root);
	if (rc < 0)
		leaderboard_release(b);
	return rc;
}

char *leaderboard_format(const struct leaderboard *b)
{
	json_t *runs = json_array();
	for (unsigned i = 0; runs && i < b->n; i++) {
		const struct leaderboard_run *r = &b->runs[i];
		json_t *used = json_array();
		for (unsigned k = 0; used && k < r->n_used; k++)
			json_array_append_new(used, json_string(r->used[k]));
		json_array_append_new(runs, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:o, s:s}", "when",
						      r->when, "backend", r->backend, "device", r->device,
						      "unit", r->unit, "value", r->value, "baseline",
						      r->baseline, "used", used ? used : json_array(),
						      "source", r->source));
	}
	json_t *root = json_pack("{s:s, s:o}", "lab", b->lab ? b->lab : "", "runs", runs ? runs : json_array());
	char *text = root ? json_dumps(root, JSON_INDENT(1)) : NULL;
	json_decref(root);
	return text;
}

static bool comparable(const struct leaderboard_run *a, const struct leaderboard_run *b)
{
	return strcmp(a->backend, b->backend) == 0 && strcmp(a->device, b->device) == 0 &&
	       strcmp(a->unit, b->unit) == 0;
}

int leaderboard_add(struct leaderboard *b, const struct leaderboard_run *r)
{
	for (unsigned i = 0; i < b->n; i++)
		if (comparable(&b->runs[i], r) && strcmp(b->runs[i].source, r->source) == 0) {
			leaderboard_run_release(&b->runs[i]);
			memmove(&b->runs[i], &b->runs[i + 1], (b->n - i - 1) * sizeof(*b->runs));
			b->n--;
			break;
		}
	if (b->n == LEADERBOARD_MAX_RUNS) {
		leaderboard_run_release(&b->runs[0]);
		memmove(&b->runs[0], &b->runs[1], (b->n - 1) * sizeof(*b->runs));
		b->n--;
	}
	struct leaderboard_run *grown = realloc(b->runs, (b->n + 1) * sizeof(*b->runs));
	if (!grown)
		return -ENOMEM;
	b->runs = grown;
	int rc = run_copy(&b->runs[b->n], r);
	if (rc == 0)
		b->n++;
	return rc;
}

const struct leaderboard_run *leaderboard_best(const struct leaderboard *b,
					       const struct leaderboard_run *r)
{
	const struct leaderboard_run *best = NULL;
	for (unsigned i = 0; i < b->n; i++)
		if (comparable(&b->runs[i], r) && (!best || b->runs[i].value < best->value))
			best = &b->runs[i];
	return best;
}

static bool uses(const struct leaderboard_run *r, const char *name)
{
	for (unsigned i = 0; i < r->n_used; i++)
		if (strcmp(r->used[i], name) == 0)
			return true;
	return false;
}

const struct leaderboard_run *leaderboard_without(const struct leaderboard *b,
						  const struct leaderboard_run *r,
						  const char *name)
{
	const struct leaderboard_run *best = NULL;
	for (unsigned i = 0; i < b->n; i++) {
		const struct leaderboard_run *e = &b->runs[i];
		if (!comparable(e, r) || uses(e, name))
			continue;
		bool subset = true;
		for (unsigned k = 0; k < e->n_used && subset; k++)
			subset = uses(r, e->used[k]);
		if (subset && (!best || e->value < best->value))
			best = e;
	}
	return best;
}

int leaderboard_record(const char *path, const char *lab, const struct leaderboard_run *r,
		       struct leaderboard *b, char **broken)
{
	if (broken)
		*broken = NULL;
	char *text = fs_read(path, NULL);
	int rc = leaderboard_parse(text, lab, b);
	if (rc == -EINVAL) {
		/* never lose what is there: keep it beside, start a new board */
		char aside[PATH_MAX];
		for (unsigned n = 1; n < 1000; n++) {
			snprintf(aside, sizeof(aside), "%s.broken.%u", path, n);
			if (access(aside, F_OK) != 0)
				break;
		}
		rc = rename(path, aside) == 0 ? leaderboard_parse(NULL, lab, b) : -errno;
		if (rc == 0 && broken)
			*broken = strdup(aside);
	}
	free(text);
	if (rc == 0)
		rc = leaderboard_add(b, r);
	char *out = rc == 0 ? leaderboard_format(b) : NULL;
	if (rc == 0 && !out)
		rc = -ENOMEM;
	if (rc == 0)
		rc = fs_write_atomic(path, out, strlen(out));
	free(out);
	if (rc < 0)
		leaderboard_release(b);
	return rc;
}
