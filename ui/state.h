/* state: what pmpplab remembers per lab in the workspace (WS/.pmpplab/state.json):
 * status, best and latest score, hints revealed, and the lab last selected. Saved
 * atomically (fs_write_atomic) after every change, so killing pmpplab at any moment
 * leaves either the old state or the new one, never half of each; the state before the
 * last change is kept as state.json.bak for when state.json is damaged anyway. */
#ifndef PMPPLAB_UI_STATE_H
#define PMPPLAB_UI_STATE_H

#include <stdbool.h>

enum lab_status { LAB_NOT_STARTED, LAB_FAILING, LAB_PASSED };

struct lab_state {
	char *id;
	enum lab_status status; /* of the latest run */
	double best, best_max;  /* best full grade; best_max 0 = never graded in full */
	double best_quick, best_quick_max; /* best quick run; best_quick_max 0 = none */
	double last, last_max;  /* latest run, quick or full */
	bool last_quick;
	unsigned runs;
	unsigned hints;         /* hints revealed so far */
};

struct ui_state {
	struct lab_state *labs;
	unsigned n, cap;
	char *selected;         /* id of the lab last selected, or NULL */
};

void state_init(struct ui_state *s);
void state_release(struct ui_state *s);
/* Loads PATH into S (after state_init). A missing file is an empty state and returns 0;
 * unreadable or malformed JSON returns -EIO / -EINVAL and leaves S empty. */
int state_load(struct ui_state *s, const char *path);
/* Writes S to PATH atomically (fs_write_atomic), the state it replaces becoming
 * PATH.bak. Returns 0 or -errno; on error PATH is untouched. */
int state_save(const struct ui_state *s, const char *path);
/* state_load, and when PATH is unreadable or malformed: sets it aside as
 * PATH.unreadable and restores PATH.bak (rewriting PATH), or starts empty when there is
 * no usable backup. Returns NULL when PATH loaded, else a note for the student saying
 * what happened (caller frees). Never fails. */
char *state_load_recover(struct ui_state *s, const char *path);
/* The state of lab ID, created (not started) when absent. */
struct lab_state *state_lab(struct ui_state *s, const char *id);
/* The state of lab ID, or NULL. */
const struct lab_state *state_find(const struct ui_state *s, const char *id);
/* Records a run's result: status, latest score, and the best full grade or the best
 * quick run. */
void state_record(struct lab_state *l, double score, double max_score, bool passed, bool quick);
void state_set_selected(struct ui_state *s, const char *id);
/* "not started", "failing", "passed". */
const char *state_status_name(enum lab_status st);

#endif
