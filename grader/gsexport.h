/* gsexport: `pmpplab export gradescope LAB -o autograder.zip`, a Gradescope autograder
 * for one lab, laid out as Gradescope's specification asks
 * (https://gradescope-autograders.readthedocs.io/en/latest/specs/): setup.sh and
 * run_autograder at the root of the archive (both from assets/gradescope/, the lab's id
 * written in), and pmpplab/ holding pmpplab's source (meson.build, emu/, grader/, ui/,
 * assets/), labs/LAB/ and the folders of every file the lab names (solution, CPU
 * reference, the vendor programs of its performance checks), at the places its paths
 * name. Gradescope unpacks it in /autograder/source; setup.sh
 * builds pmpplab there; run_autograder grades /autograder/submission into
 * /autograder/results/results.json on the emulator (Gradescope has no GPU), in the
 * sandbox, or with --sandbox=off when the export ran with it (sandbox_enabled()). */
#ifndef PMPPLAB_GSEXPORT_H
#define PMPPLAB_GSEXPORT_H

#include "diag.h"
#include "spec.h"

/* Writes the archive to ZIP from the source tree at SOURCE_ROOT. Returns 0 with the
 * number of files in *files, or a negative code with the reason in diags. */
int gsexport_write(const char *zip, const struct lab_spec *spec, const char *source_root,
		   unsigned *files, struct diag_list *diags);

#endif
