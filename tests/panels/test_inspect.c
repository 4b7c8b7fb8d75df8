/* inspect: the panels' model rendered to lines, without curses: the occupancy table and
 * curve with the student's block marked, what-if keys, the device picker, the warp and
 * memory views of a snapshot, 80-column fit, and which trace a lab may show (tracetag). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "inspect.h"
#include "livetrace.h"
#include "keymap.h"
#include "tracetag.h"

static const char ptxas_text[] =
	"ptxas info    : Compiling entry function '_Z8tiled_mmPKfS0_Pfi' for 'sm_80'\n"
	"ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]\n"
	"ptxas info    : Compiling entry function '_Z5heavyPf' for 'sm_80'\n"
	"ptxas info    : Used 128 registers, 360 bytes cmem[0]\n";

static int loads;

static int fake_load(void *ctx, const char *arch, struct resources *out, char *err, size_t n)
{
	(void)ctx;
	(void)err;
	(void)n;
	loads++;
	int rc = resources_parse(ptxas_text, out);
	snprintf(out->arch, sizeof(out->arch), "%s", arch);
	return rc < 0 ? rc : 0;
}

/* The rendered lines as one string, for strstr. */
static char *render(struct inspect *in, int w, int h)
{
	struct sline_list l;
	sline_list_init(&l);
	inspect_render(in, w, h, &l);
	size_t len = 0;
	for (unsigned i = 0; i < l.n; i++)
		len += l.lines[i].len + 1;
	char *s = calloc(1, len + 1), *p = s;
	for (unsigned i = 0; i < l.n; i++)
		p += sprintf(p, "%s\n", l.lines[i].text);
	assert_true((int)l.n <= h + 1);
	sline_list_release(&l);
	return s;
}

static void test_occupancy(void **state)
{
	(void)state;
	struct inspect in;
	inspect_init(&in, NULL, false, false);
	assert_int_equal(in.ndevices, 4);
	in.device = 1; /* A100 */
	loads = 0;
	inspect_load(&in, fake_load, NULL);
	inspect_load(&in, fake_load, NULL);
	assert_int_equal(loads, 1); /* once per device */
	char *s = render(&in, 78, 21);
	print_message("%s", s);
	if (strstr(s, "no calculator")) {
		free(s);
		inspect_release(&in);
		skip();
	}
	assert_non_null(strstr(s, "A100"));
	assert_null(strstr(s, "emulated")); /* the real card, named as it names itself */
	assert_non_null(strstr(s, "tiled_mm"));
	assert_non_null(strstr(s, "heavy"));
	/* 32 regs, 256 threads assumed (not launched): full */
	assert_non_null(strstr(s, " 100% 64/64"));
	/* 128 regs: 4096 a warp, 16 warps */
	assert_non_null(strstr(s, "  25% 16/64  registers"));
	assert_non_null(strstr(s, "^ 256 threads"));
	free(s);
	/* what if: the block of tiled_mm to 288, registers to 64 */
	assert_true(inspect_key(&in, 'B'));
	assert_int_equal(in.whatif[0].block, 288);
	assert_true(inspect_key(&in, 'R'));
	assert_int_equal(in.whatif[0].regs, 36);
	for (int i = 0; i < 7; i++)
		inspect_key(&in, 'R');
	assert_int_equal(in.whatif[0].regs, 64);
	s = render(&in, 78, 21);
	/* 64 regs x 288 threads: 9 warps x 2048 = 18 Ki regs: 3 blocks = 27 warps */
	assert_non_null(strstr(s, "  42% 27/64  registers"));
	assert_non_null(strstr(s, "^ 288 threads"));
	assert_non_null(strstr(s, "What if (changed)"));
	free(s);
	assert_true(inspect_key(&in, '0'));
	assert_int_equal(in.whatif[0].block, 0);
	/* the picker cycles through the devices */
	assert_true(inspect_key(&in, 'd'));
	assert_int_equal(in.device, 2);
	s = render(&in, 78, 21);
	assert_non_null(strstr(s, "Asking ptxas for sm_89"));
	free(s);
	inspect_load(&in, fake_load, NULL);
	s = render(&in, 200, 57);
	assert_non_null(strstr(s, "RTX 4090"));
	free(s);
	/* the selection moves to the second kernel */
	assert_true(inspect_key(&in, KEYMAP_DOWN));
	assert_int_equal(in.kernel, 1);
	assert_true(inspect_key(&in, 'S'));
	assert_int_equal(in.whatif[1].smem, 1024);
	inspect_release(&in);
}

/* On the emulator the panel starts on the GPU it emulates, named as the emulator names
 * it (issue 18: the panels must not look like real hardware), then the real cards. */
static void test_emulated_device(void **state)
{
	(void)state;
	struct inspect in;
	inspect_init(&in, NULL, false, true);
	assert_int_equal(in.ndevices, 5);
	assert_int_equal(in.device, 0);
	assert_string_equal(in.devices[0].name, "pmpplab emulated H100");
	assert_string_equal(in.devices[1].arch, "sm_90");
	assert_null(strstr(in.devices[1].name, "emulated"));
	char *s = render(&in, 120, 21);
	assert_non_null(strstr(s, "Device pmpplab emulated H100 (sm_90, 132 SMs"));
	free(s);
	inspect_release(&in);
}

static void fake_snapshot(struct inspect *in)
{
	struct emu_trace_file *f = in->snap;
	memset(f, 0, sizeof(*f));
	f->magic = EMU_TRACE_MAGIC;
	snprintf(f->kernel, sizeof(f->kernel), "_Z7stridedPKfPfi");
	snprintf(f->file, sizeof(f->file), "/nonexistent/strided.cu");
	f->grid[0] = 32, f->grid[1] = f->grid[2] = 1;
	f->block[0] = 128, f->block[1] = f->block[2] = 1;
	f->nblocks = 32, f->blocks_done = 5, f->nsms = 2, f->running = 1;
	f->sm[0] = (struct emu_trace_sm_snap){.busy = 1, .block = 5, .nwarps = 4, .bar_line = 18};
	f->sm[0].state[0] = EMU_TW_ISSUING;
	f->sm[0].state[1] = EMU_TW_BARRIER;
	f->sm[0].state[2] = EMU_TW_BARRIER;
	f->sm[0].state[3] = EMU_TW_DONE;
	f->sm[0].mask[0] = 0x0000ffffu;
	f->nlines = 2;
	f->lines[0] = (struct emu_trace_line_snap){.line = 9, .warp_insns = 10, .lanes = 320,
						   .gld_req = 128, .gld_sampled = 128, .gld_sectors = 4096,
						   .gst_req = 128, .gst_sampled = 128, .gst_sectors = 512};
	f->lines[1] = (struct emu_trace_line_snap){.line = 28, .warp_insns = 100, .lanes = 800,
						   .shd_req = 4, .shd_sampled = 4, .shd_passes = 128};
	f->warp_insns = 110, f->lanes = 1120;
	in->snap_rc = 0;
	in->trace_mine = true; /* as inspect_refresh finds when the tag matches */
}

static void test_warps_memory(void **state)
{
	(void)state;
	struct inspect in;
	inspect_init(&in, "/nonexistent/trace", false, false);
	in.tab = INSPECT_WARPS;
	char *s = render(&in, 78, 21);
	assert_non_null(strstr(s, "No trace of this lab yet: press r (run) to record one."));
	free(s);
	fake_snapshot(&in);
	s = render(&in, 78, 21);
	print_message("%s", s);
	/* 80 columns: kernel, grid and block first; the file only where there is room */
	assert_non_null(strstr(s, "kernel strided  grid 32x1x1  block 128x1x1  launch #0"));
	assert_null(strstr(s, "(strided.cu)"));
	assert_non_null(strstr(s, "blocks 5/32"));
	assert_non_null(strstr(s, "IBB."));                      /* warp states */
	assert_non_null(strstr(s, "2/3 arrived"));               /* 2 of 3 live warps */
	assert_non_null(strstr(s, "16/32 active"));              /* warp 0's mask */
	assert_non_null(strstr(s, "   28   25% "));               /* divergence */
	free(s);
	s = render(&in, 120, 40);
	assert_non_null(strstr(s, "kernel strided (strided.cu)  grid 32x1x1"));
	assert_non_null(strstr(s, "warps: I issuing"));
	free(s);
	assert_true(inspect_key(&in, '3'));
	s = render(&in, 78, 21);
	print_message("%s", s);
	assert_non_null(strstr(s, "     128     32.0      128      4.0"));
	assert_non_null(strstr(s, "    4  32.0"));
	assert_non_null(strstr(s, "sect/req: 32-byte sectors"));
	free(s);
	/* Scrolled past the end, and a finished launch without accesses, say so. */
	for (int i = 0; i < 3; i++)
		inspect_key(&in, KEYMAP_DOWN);
	s = render(&in, 78, 21);
	assert_non_null(strstr(s, "Scrolled past the last line"));
	free(s);
	inspect_key(&in, KEYMAP_HOME);
	in.snap->lines[0].gld_req = in.snap->lines[0].gst_req = 0;
	in.snap->lines[1].shd_req = 0;
	s = render(&in, 78, 21);
	assert_non_null(strstr(s, "No global or shared memory accesses traced yet."));
	free(s);
	in.snap->running = 0;
	s = render(&in, 78, 21);
	assert_null(strstr(s, "traced yet"));
	assert_non_null(strstr(s, "This launch made no global or shared memory access"));
	free(s);
	inspect_release(&in);
}

/* Every rendered line fits the width; what does not fit ends in an ellipsis. */
/* On the emulator each SM row is named by the SM its block is placed on (block b on
 * SM b mod 132, the first wave one block an SM; issue 18), not by the worker. */
static void test_warps_model_sms(void **state)
{
	(void)state;
	struct inspect in;
	inspect_init(&in, "/nonexistent/trace", false, true);
	in.tab = INSPECT_WARPS;
	fake_snapshot(&in);
	in.snap->sm[0].block = 137; /* on SM 5 */
	in.snap->sm[1] = (struct emu_trace_sm_snap){.busy = 1, .block = 30, .nwarps = 4};
	char *s = render(&in, 120, 40);
	print_message("%s", s);
	assert_non_null(strstr(s, "132 SMs modelled, 2 at a time: block b on SM b mod 132"));
	assert_non_null(strstr(s, "SM 5 warp 0 lanes"));
	assert_non_null(strstr(s, ">SM 5   block 137"));
	assert_non_null(strstr(s, " SM 30  block 30"));
	free(s);
	inspect_release(&in);
}

static void test_fits_80_columns(void **state)
{
	(void)state;
	struct inspect in;
	inspect_init(&in, "/nonexistent/trace", false, false);
	in.device = 2; /* RTX 4090: the longest name */
	inspect_load(&in, fake_load, NULL);
	fake_snapshot(&in);
	snprintf(in.snap->kernel, sizeof(in.snap->kernel), "_Z26aVeryLongKernelNameForTestsPfi");
	for (int tab = 0; tab < INSPECT_TABS; tab++) {
		in.tab = (enum inspect_tab)tab;
		struct sline_list l;
		sline_list_init(&l);
		inspect_render(&in, 78, 21, &l);
		for (unsigned i = 0; i < l.n; i++) {
			if (sline_width(&l.lines[i]) > 78)
				fail_msg("tab %d line %u is %d wide: %s", tab, i,
					 sline_width(&l.lines[i]), l.lines[i].text);
			print_message("%s\n", l.lines[i].text);
		}
		char all[8192] = "";
		for (unsigned i = 0; i < l.n; i++)
			strncat(all, l.lines[i].text, sizeof(all) - strlen(all) - 2), strcat(all, "\n");
		if (tab == INSPECT_OCCUPANCY && !strstr(all, "no calculator")) {
			assert_non_null(strstr(all, "Device NVIDIA GeForce RTX 4090 (sm_89"));
			assert_non_null(strstr(all, "d: next"));
			assert_non_null(strstr(all, "> tiled_mm"));
			assert_non_null(strstr(all, "What if: b/B block -/+32"));
			assert_non_null(strstr(all, "^ 256 threads")); /* the block, under its mark */
		}
		if (tab == INSPECT_WARPS) {
			assert_non_null(strstr(all, "I issuing  r ready  B barrier"));
			assert_non_null(strstr(all, "16/32 active"));
		}
		sline_list_release(&l);
	}
	inspect_release(&in);
}

/* The GPU backend's memory tab: ncu's figures per kernel, in 78 columns; without a
 * profile, what to do and the grading's line saying why there is none. */
static void test_gpu_memory(void **state)
{
	(void)state;
	struct inspect in;
	inspect_init(&in, NULL, false, false);
	in.gpu = true;
	in.tab = INSPECT_MEMORY;
	in.ncu_note = "not measured (dataset large): ncu is not permitted to read this GPU's performance counters";
	char *s = render(&in, 78, 20);
	assert_non_null(strstr(s, "Grade the lab"));
	assert_non_null(strstr(s, "not permitted"));
	free(s);
	struct ncu_profile p = { .n = 2, .dataset = "large" };
	struct ncu_kernel k = { .name = "aVeryLongKernelNameThatMustBeCutShortHere", .launches = 1,
				.time_ns = 123456, .warps_pct_time = 80 * 123456.0, .insts = 10,
				.lane_insts = 320, .ld_sectors = 400, .ld_requests = 100,
				.st_sectors = 3200, .st_requests = 100, .shd_ld_passes = 3200,
				.shd_ld_insts = 100, .shd_st_passes = 100, .shd_st_insts = 100 };
	p.kernels[0] = k;
	snprintf(k.name, sizeof(k.name), "strided");
	k.shd_ld_passes = k.shd_ld_insts = k.shd_st_passes = k.shd_st_insts = -1;
	p.kernels[1] = k;
	in.ncu = &p;
	struct sline_list l;
	sline_list_init(&l);
	inspect_render(&in, 78, 20, &l);
	char all[4096] = "";
	for (unsigned i = 0; i < l.n; i++) {
		if (sline_width(&l.lines[i]) > 78)
			fail_msg("line %u is %d wide: %s", i, sline_width(&l.lines[i]), l.lines[i].text);
		strncat(all, l.lines[i].text, sizeof(all) - strlen(all) - 2), strcat(all, "\n");
	}
	print_message("%s", all);
	sline_list_release(&l);
	assert_non_null(strstr(all, "dataset large"));
	/* 80% occupancy, 32 lanes, 4 and 32 sectors per request, 32 and 1 shared passes */
	assert_non_null(strstr(all, "aVeryLongKe"));
	assert_non_null(strstr(all, "0.123    80%  32.0      4.0     32.0   32.0   1.0"));
	assert_non_null(strstr(all, "strided"));
	assert_non_null(strstr(all, "32.0      -     -")); /* no shared access: dashes */
	inspect_release(&in);
}

/* Writes a trace file of one launch of tiledKernel, recorded from FILE. */
static void write_trace(const char *path, const char *file, uint32_t nkernels)
{
	struct emu_trace_file *f = calloc(1, sizeof(*f));
	f->magic = EMU_TRACE_MAGIC;
	f->version = EMU_TRACE_VERSION;
	f->seq = 2;
	f->launch = 1;
	snprintf(f->kernel, sizeof(f->kernel), "_Z11tiledKernelPfi");
	snprintf(f->file, sizeof(f->file), "%s", file);
	f->grid[0] = f->grid[1] = f->grid[2] = 1;
	f->block[0] = 64, f->block[1] = f->block[2] = 1;
	f->nblocks = f->blocks_done = 1, f->nsms = 1, f->nlines = 1;
	f->lines[0] = (struct emu_trace_line_snap){.line = 2, .warp_insns = 4, .lanes = 128,
						   .gld_req = 2, .gld_sampled = 2, .gld_sectors = 8};
	f->nkernels = nkernels;
	snprintf(f->kernels[0].name, sizeof(f->kernels[0].name), "_Z11tiledKernelPfi");
	f->kernels[0].block[0] = 64, f->kernels[0].block[1] = f->kernels[0].block[2] = 1;
	FILE *out = fopen(path, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(f, sizeof(*f), 1, out), 1);
	fclose(out);
	free(f);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *render_tab(struct inspect *in, enum inspect_tab tab)
{
	in->tab = tab;
	return render(in, 120, 30);
}

/* A fresh folder for a workspace's trace files: the trace, its tag, and a .cu file. */
struct trace_dir {
	char dir[64], trace[128], tag[160], runs[160], src[128];
};

static void trace_dir_make(struct trace_dir *t, const char *name)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/pmpplab-%s-XXXXXX", name);
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->trace, sizeof(t->trace), "%s/trace.bin", t->dir);
	snprintf(t->tag, sizeof(t->tag), "%s/trace.bin.tag", t->dir);
	snprintf(t->runs, sizeof(t->runs), "%s/trace.bin.runs", t->dir);
	snprintf(t->src, sizeof(t->src), "%s/tiled.cu", t->dir);
}

/* D10: the warps and memory tabs show a trace only of the open lab, and only while its
 * file is the one that ran; the source lines come from that version. */
static void test_trace_belongs_to_lab(void **state)
{
	(void)state;
	struct trace_dir t;
	trace_dir_make(&t, "tracetag");
	const char *dir = t.dir, *trace = t.trace, *tag_path = t.tag, *tiled = t.src;
	char reduction[128];
	snprintf(reduction, sizeof(reduction), "%s/reduction.cu", dir);
	write_file(tiled, "#include <x>\n    a[i] = b[i]; // version 1\n");
	write_file(reduction, "// reduction\n");

	/* The TUI tags the run of 05 (tiled.cu) and the emulator writes its trace. */
	struct tracetag t05, t09, now;
	assert_int_equal(tracetag_of_file(&t05, "05-tiled-matmul", tiled), 0);
	assert_int_equal(tracetag_write(tag_path, &t05), 0);
	write_trace(trace, "/tmp/pmpplab-run-abc/tiled.cu", 1);
	struct tracetag back;
	assert_int_equal(tracetag_read(tag_path, &back), 0);
	assert_int_equal(tracetag_compare(&back, &t05), TRACETAG_MATCH);

	struct inspect in;
	inspect_init(&in, trace, false, false);
	inspect_expect(&in, &t05, tiled);
	assert_true(inspect_refresh(&in));
	assert_true(in.trace_mine);
	char *s = render_tab(&in, INSPECT_WARPS);
	assert_non_null(strstr(s, "kernel tiledKernel"));
	assert_non_null(strstr(s, "a[i] = b[i]; // version 1")); /* line 2's text */
	free(s);
	unsigned block;
	unsigned long dyn;
	assert_true(inspect_launch_of(&in, "_Z11tiledKernelPfi", &block, &dyn));
	assert_int_equal(block, 64);

	/* Lab 09 open: 05's trace is not shown, anywhere. */
	assert_int_equal(tracetag_of_file(&t09, "09-reduction", reduction), 0);
	inspect_expect(&in, &t09, reduction);
	inspect_refresh(&in);
	assert_false(in.trace_mine);
	for (int tab = INSPECT_WARPS; tab <= INSPECT_MEMORY; tab++) {
		s = render_tab(&in, (enum inspect_tab)tab);
		assert_non_null(strstr(s, "No trace of this lab yet: press r (run) to record one."));
		assert_null(strstr(s, "tiledKernel"));
		free(s);
	}
	assert_false(inspect_launch_of(&in, "_Z11tiledKernelPfi", &block, &dyn));

	/* Back on 05, after an edit: the trace is of the old version. */
	write_file(tiled, "#include <x>\n    c[i] = 0; // version 2, not run yet\n");
	assert_int_equal(tracetag_of_file(&now, "05-tiled-matmul", tiled), 0);
	assert_int_equal(tracetag_compare(&t05, &now), TRACETAG_OLD);
	inspect_expect(&in, &now, tiled);
	inspect_refresh(&in);
	assert_false(in.trace_mine);
	s = render_tab(&in, INSPECT_MEMORY);
	assert_non_null(strstr(s, "No trace of this version of tiled.cu yet: press r (run)"));
	assert_null(strstr(s, "version 2"));
	free(s);

	/* The run of version 2 is tagged and traced: its own source lines show. */
	assert_int_equal(tracetag_write(tag_path, &now), 0);
	write_trace(trace, "tiled.cu", 1);
	inspect_refresh(&in);
	assert_true(in.trace_mine);
	s = render_tab(&in, INSPECT_MEMORY);
	assert_non_null(strstr(s, "c[i] = 0; // version 2, not run yet"));
	free(s);

	/* A performance check ran the lab's solution after it: not the student's trace. */
	write_trace(trace, "/labs/kernels/05-tiled-matmul/solution.cu", 1);
	inspect_refresh(&in);
	assert_false(in.trace_mine);

	/* No tag (a trace from before tags, or another tool's): nothing shown. */
	write_trace(trace, "tiled.cu", 1);
	unlink(tag_path);
	inspect_refresh(&in);
	assert_false(in.trace_mine);
	/* A run going for this lab, before its first kernel: it says it is coming. */
	assert_int_equal(tracetag_write(tag_path, &now), 0);
	unlink(trace);
	in.run_going = true;
	inspect_refresh(&in);
	s = render_tab(&in, INSPECT_WARPS);
	assert_non_null(strstr(s, "Building and running"));
	free(s);

	inspect_release(&in);
	unlink(tag_path);
	unlink(tiled);
	unlink(reduction);
	rmdir(dir);
}

/* Sets the sequence number of the trace file at PATH. */
static void set_seq(const char *path, uint64_t seq)
{
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, offsetof(struct emu_trace_file, seq), SEEK_SET);
	assert_int_equal(fwrite(&seq, sizeof(seq), 1, f), 1);
	fclose(f);
}

/* Issue 18: the live tabs say which dataset (and which check's run) the trace is of, from
 * what the grader notes before each run of the program (livetrace_note_run). */
static void test_trace_names_dataset(void **state)
{
	(void)state;
	struct trace_dir t;
	trace_dir_make(&t, "traceruns");
	write_file(t.src, "#include <x>\n    a[i] = b[i];\n");
	struct tracetag tag;
	assert_int_equal(tracetag_of_file(&tag, "05-tiled-matmul", t.src), 0);
	assert_int_equal(tracetag_write(t.tag, &tag), 0);
	setenv("PMPPLAB_TRACE", t.trace, 1);

	/* Dataset tiny runs (no trace yet) and traces; then memcheck starts on large. */
	livetrace_note_run(NULL, "/tmp/pmpplab-run-x/tiny.in", "dataset tiny");
	write_trace(t.trace, "tiled.cu", 1);
	livetrace_note_run(NULL, "/tmp/pmpplab-run-x/large.in", "memcheck");
	char *blank[] = { "PMPPLAB_TRACE=", NULL }; /* a timed run: no trace, no note */
	livetrace_note_run(blank, "/tmp/pmpplab-run-x/large.in", "the performance run");
	struct inspect in;
	inspect_init(&in, t.trace, false, false);
	inspect_expect(&in, &tag, t.src);
	assert_true(inspect_refresh(&in));
	char *s = render_tab(&in, INSPECT_WARPS);
	print_message("%s", s);
	assert_non_null(strstr(s, "dataset tiny\n")); /* memcheck has not traced yet */
	free(s);
	/* memcheck's kernel runs: its trace says so. */
	set_seq(t.trace, 8);
	assert_true(inspect_refresh(&in));
	s = render_tab(&in, INSPECT_MEMORY);
	assert_non_null(strstr(s, "dataset large, run by memcheck\n"));
	assert_null(strstr(s, "performance"));
	free(s);
	/* A trace nobody noted (the runs file gone): said, not guessed. */
	unlink(t.runs);
	set_seq(t.trace, 10);
	inspect_refresh(&in);
	s = render_tab(&in, INSPECT_WARPS);
	assert_non_null(strstr(s, "which dataset: not known"));
	assert_null(strstr(s, "dataset large"));
	free(s);
	inspect_release(&in);
	unsetenv("PMPPLAB_TRACE");
	unlink(t.trace);
	unlink(t.tag);
	unlink(t.src);
	rmdir(t.dir);
}

static void test_tracetag_files(void **state)
{
	(void)state;
	struct tracetag t;
	assert_int_equal(tracetag_read("/nonexistent/trace.bin.tag", &t), -ENOENT);
	char path[] = "/tmp/pmpplab-tag-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "something else\n", 15), 15);
	close(fd);
	assert_int_equal(tracetag_read(path, &t), -EINVAL);
	assert_int_equal(tracetag_of_file(&t, "01-vecadd", "/nonexistent/vecadd.cu"), -ENOENT);
	unlink(path);
	char *p = tracetag_path("/ws/.pmpplab/trace.bin");
	assert_string_equal(p, "/ws/.pmpplab/trace.bin.tag");
	free(p);
	struct tracetag a = {.lab = "01-vecadd", .file = "vecadd.cu", .size = 10, .hash = 7};
	struct tracetag b = a;
	assert_int_equal(tracetag_compare(&a, &b), TRACETAG_MATCH);
	b.hash = 8;
	assert_int_equal(tracetag_compare(&a, &b), TRACETAG_OLD);
	snprintf(b.lab, sizeof(b.lab), "02-greyscale");
	assert_int_equal(tracetag_compare(&a, &b), TRACETAG_OTHER_LAB);
	assert_true(tracetag_is_file(&a, "/tmp/pmpplab-run-x/vecadd.cu"));
	assert_true(tracetag_is_file(&a, ""));
	assert_false(tracetag_is_file(&a, "solution.cu"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_occupancy),
		cmocka_unit_test(test_emulated_device),
		cmocka_unit_test(test_warps_memory),
		cmocka_unit_test(test_warps_model_sms),
		cmocka_unit_test(test_fits_80_columns),
		cmocka_unit_test(test_gpu_memory),
		cmocka_unit_test(test_trace_belongs_to_lab),
		cmocka_unit_test(test_tracetag_files),
		cmocka_unit_test(test_trace_names_dataset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
