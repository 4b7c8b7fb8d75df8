/* classreport: a gradebook (gradebook.h) as the class report a teacher reads: report.md
 * and report.html (one self-contained file: inline CSS, no scripts, no external assets).
 * Both hold the same sections: summary, score distribution, the checks that fail most,
 * the most common findings by kind with one example each, identical submissions,
 * submissions that never launch a kernel, the fastest and slowest kernels (GPU), the
 * submissions that could not be graded, and every student's row. */
#ifndef PMPPLAB_CLASSREPORT_H
#define PMPPLAB_CLASSREPORT_H

#include <stdio.h>

#include "gradebook.h"

/* Both return 0 or -EIO. */
int classreport_write_md(const struct gradebook *gb, FILE *f);
int classreport_write_html(const struct gradebook *gb, FILE *f);

#endif
