/* inspect: the model behind the "look inside" panels of issue 7, three tabs over the
 * open lab:
 *   Occupancy  each kernel's registers and shared memory (ptxas, resources.h) and block
 *              size (from the last run's launches), fed to NVIDIA's calculator
 *              (occupancy.h) for a picked device; the occupancy curve over block sizes
 *              with the student's choice marked; what-if keys change block size,
 *              registers or shared memory and recompute at once.
 *   Warps      live, from the emulator's trace file (livetrace.h): the simulated SMs
 *              and their resident blocks, each warp's state, the selected warp's
 *              active-lane mask, barrier arrivals, and SIMT efficiency per source line.
 *   Memory     per source line: sectors per global request (coalescing) and bank
 *              passes per shared request (conflicts).
 * A pure model: it renders into sline lists (no curses), so tests read its screens. */
#ifndef PMPPLAB_UI_INSPECT_H
#define PMPPLAB_UI_INSPECT_H

#include <stdbool.h>

#include "livetrace.h"
#include "ncu.h"
#include "occupancy.h"
#include "resources.h"
#include "sline.h"
#include "tracetag.h"

/* Screens narrower than this get the panels' short spellings. */
#define INSPECT_WIDE 100
/* The block size the occupancy view assumes for a kernel not launched yet. */
#define INSPECT_DEFAULT_BLOCK 256

enum inspect_tab { INSPECT_OCCUPANCY, INSPECT_WARPS, INSPECT_MEMORY, INSPECT_TABS };

#define INSPECT_MAX_DEVICES 6

/* What-if changes to one kernel (0 = as built / as launched). */
struct inspect_whatif {
	int block, regs;
	long smem; /* bytes of static + dynamic shared memory; -1 = as built */
};

struct inspect {
	enum inspect_tab tab;

	/* Occupancy */
	struct occ_device devices[INSPECT_MAX_DEVICES];
	unsigned ndevices, device;     /* the picked one */
	bool has_detected;             /* devices[ndevices - 1] is the local GPU */
	unsigned model_sms;            /* the emulated GPU's SMs (0: not the emulator) */
	struct resources res[INSPECT_MAX_DEVICES]; /* per device; loaded[] says which */
	bool loaded[INSPECT_MAX_DEVICES];
	int res_rc[INSPECT_MAX_DEVICES];
	char res_error[INSPECT_MAX_DEVICES][256];
	unsigned kernel;               /* selected kernel */
	struct inspect_whatif whatif[EMU_TRACE_MAX_KERNELS];

	/* Warps and Memory: the latest snapshot of the trace file */
	char *trace_path;
	char *tag_path;                /* the trace's tag (tracetag.h) */
	struct emu_trace_file *snap;   /* heap: it is large */
	int snap_rc;                   /* livetrace_read's return */
	unsigned sm, warp;             /* selected SM and warp */
	unsigned scroll;               /* first line of the per-line tables */

	/* Whose trace may be shown (inspect_expect), and whether the snapshot is of it. */
	struct tracetag want;          /* want.lab empty: no lab */
	char *student_path;            /* the student's file, for the source lines */
	enum tracetag_match match;     /* the tag on disk against want, at the last refresh */
	bool trace_mine;               /* snap is of want: the live tabs show it */
	/* The run of the grading that wrote snap (livetrace_run_of): its dataset and what
	 * it was for; run_known false when the trace does not say (issue 18). */
	bool run_known;
	char run_dataset[64], run_what[128];
	bool run_going;                /* set by the panel: a run of this lab is going */

	/* A line shown above the live tabs (the GPU backend: where their figures come
	 * from), or NULL. */
	char *note;
	/* The GPU backend: the memory tab shows ncu's per-kernel figures (inspect_ncu.h)
	 * from the last grading of the open lab (NULL: none), or NCU_NOTE, why there are
	 * none. Both belong to the app's report: set before each render. */
	bool gpu;
	const struct ncu_profile *ncu;
	const char *ncu_note;

	/* The source of the traced kernel, to show each line's text: the student's file,
	 * read when its hash (src_hash) is the one the trace was recorded from. */
	char *src_path;
	uint64_t src_hash;
	char **src_lines;
	unsigned src_n;
};

/* Sets up the device list (the GPU the emulator emulates first, under the emulator's
 * name, when EMULATED is true; the built-in table; the local GPU when DETECT is true and
 * one is found) and the trace path (may be NULL). */
void inspect_init(struct inspect *in, const char *trace_path, bool detect, bool emulated);
void inspect_release(struct inspect *in);
/* Forgets the kernels' resources (the source changed or another lab opened). */
void inspect_forget(struct inspect *in);

/* Gives the resources of the picked device: computed by LOAD (called at most once per
 * device until inspect_forget), which fills res and returns 0 or a negative code with a
 * message. */
typedef int (*inspect_load_fn)(void *ctx, const char *arch, struct resources *out,
			       char *err, size_t errlen);
void inspect_load(struct inspect *in, inspect_load_fn load, void *ctx);
/* From now on shows only a trace of WANT (the open lab and its student's file as it is
 * now, from tracetag_of_file; NULL: no lab), reading source lines from STUDENT_PATH. */
void inspect_expect(struct inspect *in, const struct tracetag *want, const char *student_path);
/* Re-reads the trace file and its tag. Returns true when something changed (redraw). */
bool inspect_refresh(struct inspect *in);

/* The block size (threads), dynamic shared memory of kernel NAME (mangled) in the last
 * run, from the trace's launch table; false when it did not launch or the trace is not
 * of the expected lab and source. */
bool inspect_launch_of(const struct inspect *in, const char *name, unsigned *block,
		       unsigned long *dyn_smem);

/* Model actions (the panel maps keys to them). Each returns true when the view changed;
 * false leaves the key to the rest of the TUI (r runs in the warps and memory tabs). */
bool inspect_key(struct inspect *in, int key);
/* The panels' keys for the help page: KEYS[i][0] names keys, KEYS[i][1] says what they
 * do; *n set to the count. */
const char *const (*inspect_key_help(unsigned *n))[2];

/* Renders the current tab for a WIDTH x HEIGHT area (the tab line is the panel's). */
void inspect_render(struct inspect *in, int width, int height, struct sline_list *out);
/* The colour of a figure of the memory tab, emulator's or ncu's alike: green for the
 * best access pattern (4 sectors per request, 1 shared pass), red where it wastes most;
 * dim for a missing figure (NAN). */
enum ui_role inspect_sectors_role(double sectors_per_request);
enum ui_role inspect_banks_role(double passes_per_request);
/* The tab names, for the tab line. */
const char *inspect_tab_name(enum inspect_tab t);

#endif
