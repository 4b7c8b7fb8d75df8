/* labs: the lab collection (a folder of lab folders) and where it is: --labs DIR, else
 * $PMPPLAB_LABS, else the source tree's labs/ when running from the build tree, else the
 * installed one. */
#ifndef PMPPLAB_LABS_H
#define PMPPLAB_LABS_H

#include "diag.h"
#include "spec.h"

struct lab_list {
	struct lab_spec **labs; /* sorted by id */
	unsigned n;
};

/* The default lab collection folder. Never NULL; caller frees. */
char *labs_default_dir(void);
/* Loads every DIR/<id>/lab.yaml. A lab whose spec is bad is left out and its errors go
 * to diags (so one bad lab does not hide the others). Returns 0, or -errno when DIR
 * cannot be read. */
int labs_load(const char *dir, struct lab_list *out, struct diag_list *diags);
void labs_release(struct lab_list *l);
/* The lab with this id, or NULL. */
struct lab_spec *labs_find(const struct lab_list *l, const char *id);

#endif
