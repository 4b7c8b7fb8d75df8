/* tracetag: which lab, and which version of its source, the trace file is of. The
 * emulator publishes one trace per workspace (.pmpplab/trace.bin, $PMPPLAB_TRACE) and
 * knows nothing of labs; so when the TUI starts a run it removes the old trace and
 * writes a tag beside it (trace.bin.tag) naming the lab and a hash of the student's
 * file as it was run. The panels show a trace only when its tag names the open lab and
 * the file still hashes the same, and when the trace is of that file (not, say, of the
 * lab's solution that a performance check ran after it). A pure model: files only. */
#ifndef PMPPLAB_UI_TRACETAG_H
#define PMPPLAB_UI_TRACETAG_H

#include <stdbool.h>
#include <stdint.h>

struct tracetag {
	char lab[64];   /* lab id */
	char file[256]; /* base name of the student's file */
	uint64_t size;  /* its bytes */
	uint64_t hash;  /* FNV-1a 64 of its bytes */
};

/* Fills *T for lab LAB from the student's file PATH as it is now. Returns 0 or -errno. */
int tracetag_of_file(struct tracetag *t, const char *lab, const char *path);
/* Writes T to PATH (atomically: a reader sees the old tag or the new). Returns 0 or
 * -errno. */
int tracetag_write(const char *path, const struct tracetag *t);
/* Reads the tag at PATH into *T. Returns 0, -ENOENT when there is none, -EINVAL when it
 * is not a tag. */
int tracetag_read(const char *path, struct tracetag *t);
/* The tag file that goes with trace file TRACE_PATH ("<trace>.tag"). Caller frees. */
char *tracetag_path(const char *trace_path);

enum tracetag_match {
	TRACETAG_MATCH,     /* the same lab and the same file contents */
	TRACETAG_OTHER_LAB, /* another lab's trace, or no tag: nothing to show */
	TRACETAG_OLD,       /* this lab, but the file changed since the run */
};
/* How the tag RECORDED compares with NOW (the open lab and its file as it is). */
enum tracetag_match tracetag_compare(const struct tracetag *recorded, const struct tracetag *now);
/* Whether TRACE_FILE (the .cu path a trace names; may be empty) is the student's file of
 * NOW, compared by base name since the grader may build a copy. An empty name counts. */
bool tracetag_is_file(const struct tracetag *now, const char *trace_file);

#endif
