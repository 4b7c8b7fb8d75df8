/* junit: results as JUnit XML, the format GitHub Classroom, GitLab and most CI systems
 * read: one <testsuite> per graded submission, one <testcase> per check (classname
 * "pmpplab.LAB"), a <failure> holding the check's output when it failed, and the
 * output of a passed check in <system-out>. Written from results.json documents
 * (report_json), so a single grading and a class batch share it. */
#ifndef PMPPLAB_JUNIT_H
#define PMPPLAB_JUNIT_H

#include <stdio.h>

struct json_t;

/* DOCS[i] is a results.json document, NAMES[i] its suite's name (the student, or the
 * submission). Returns 0 or -EIO. */
int junit_write(FILE *f, struct json_t *const *docs, const char *const *names, unsigned n);

#endif
