/* Tests of grader/barriers.c (issue 6): the static findings on the known-bad PTX, the
 * emulator's finding events, and compute-sanitizer racecheck/synccheck output turned into
 * the same findings.
 * Usage: test_grader_barriers BAD.ptx GOOD.ptx BAD.cu
 *        test_grader_barriers --parse DIR   (the logs of gpu_sanitizer.sh, see there) */
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

#include "barriers.h"
#include "barriers_shapes.h"
#include "exec.h"
#include "ptx.h"
#include "race.h"
#include "spec.h"

static const char *g_bad, *g_good, *g_bad_cu;

static unsigned mark(const char *tag)
{
	char want[128], line[512];
	snprintf(want, sizeof want, "MARK:%s", tag);
	FILE *f = fopen(g_bad_cu, "r");
	assert_non_null(f);
	for (unsigned n = 1; fgets(line, sizeof line, f); n++) {
		char *at = strstr(line, want);
		if (at && (at[strlen(want)] == '\n' || at[strlen(want)] == ' ')) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no MARK:%s", tag);
	return 0;
}

static const struct barriers_finding *with(const struct barriers_findings *fs,
					   const char *kind, unsigned line)
{
	for (unsigned i = 0; i < fs->n; i++)
		if (!strcmp(fs->items[i].kind, kind) && fs->items[i].line == line)
			return &fs->items[i];
	return NULL;
}

static void test_static_bad(void **state)
{
	(void)state;
	struct barriers_findings fs = { 0 };
	char err[256];
	assert_int_equal(barriers_static(g_bad, NULL, 0, true, &fs, err, sizeof err), 0);
	const struct barriers_finding *f = with(&fs, "divergent-barrier", mark("mm3_bar"));
	assert_non_null(f);
	assert_string_equal(f->file, "bad.cu");
	assert_int_equal(f->other_line, mark("mm3_cond"));
	assert_int_equal(f->severity, BARRIERS_ERROR);
	assert_non_null(strstr(f->message, "mm_sync_in_if"));
	assert_non_null(strstr(f->message, "threadIdx"));
	assert_non_null(strstr(f->idea, "PMPP"));
	assert_non_null(with(&fs, "divergent-barrier", mark("mm4_bar")));
	assert_non_null(with(&fs, "divergent-barrier", mark("two_bar_a")));
	/* nothing static about the missing-barrier kernels without min_barriers */
	for (unsigned i = 0; i < fs.n; i++)
		assert_string_equal(fs.items[i].kind, "divergent-barrier");
	barriers_findings_release(&fs);
	/* forbid_divergent: false turns those off */
	assert_int_equal(barriers_static(g_bad, NULL, 0, false, &fs, err, sizeof err), 0);
	assert_int_equal(fs.n, 0);
	barriers_findings_release(&fs);
}

static void test_min_barriers(void **state)
{
	(void)state;
	struct barriers_findings fs = { 0 };
	char err[256];
	/* the matmul without its first barrier has 1 of the 2 the lab needs */
	assert_int_equal(barriers_static(g_bad, "mm_no_first_sync", 2, false, &fs, err, sizeof err), 0);
	assert_int_equal(fs.n, 1);
	assert_string_equal(fs.items[0].kind, "too-few-barriers");
	assert_non_null(strstr(fs.items[0].message, "has 1 __syncthreads() but"));
	assert_string_equal(fs.items[0].file, "bad.cu");
	barriers_findings_release(&fs);
	assert_int_equal(barriers_static(g_bad, "mm_no_first_sync", 1, false, &fs, err, sizeof err), 0);
	assert_int_equal(fs.n, 0);
	assert_int_equal(barriers_static(g_bad, "no_such_kernel", 1, false, &fs, err, sizeof err), 0);
	assert_int_equal(fs.n, 1);
	assert_non_null(strstr(fs.items[0].message, "no kernel named no_such_kernel"));
	barriers_findings_release(&fs);
	/* good kernels: none divergent, and the most-barriers kernel has 4 */
	assert_int_equal(barriers_static(g_good, NULL, 4, true, &fs, err, sizeof err), 0);
	assert_int_equal(fs.n, 0);
	/* and their __syncthreads() lines are kept for racecheck's hazards */
	assert_true(fs.nbars >= 4);
	for (unsigned i = 0; i < fs.nbars; i++)
		assert_true(fs.bars[i].line > 0 && fs.bars[i].file[0]);
	assert_int_equal(barriers_static(g_good, NULL, 5, true, &fs, err, sizeof err), 0);
	assert_int_equal(fs.n, 1);
	barriers_findings_release(&fs);
	assert_true(barriers_static("/nonexistent.ptx", NULL, 1, true, &fs, err, sizeof err) < 0);
}

static void test_describe(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_int_equal(barriers_describe(g_good, m), 0);
	fclose(m);
	/* unrolled __syncwarp() copies are listed once per line */
	char want[200];
	snprintf(want, sizeof want, "kernel reduce_syncwarp: __syncthreads() at lines ");
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "; __syncwarp() at lines "));
	assert_non_null(strstr(text, "(none under a thread-dependent condition)\n"));
	free(text);
	m = open_memstream(&text, &len);
	assert_int_equal(barriers_describe(g_bad, m), 0);
	fclose(m);
	snprintf(want, sizeof want, "kernel mm_sync_in_if: __syncthreads() at lines %u, ",
		 mark("mm3_bar"));
	assert_non_null(strstr(text, want));
	free(text);
}

/* A kernel without any barrier is listed too, so a student sees it lost them all. */
static void test_describe_no_barrier(void **state)
{
	(void)state;
	char path[] = "/tmp/test_grader_barriers_XXXXXX.ptx";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	static const char ptx[] = ".version 8.0\n.target sm_75\n.address_size 64\n"
				  ".visible .entry nobar()\n{\n\tret;\n}\n";
	assert_int_equal(write(fd, ptx, sizeof ptx - 1), (ssize_t)(sizeof ptx - 1));
	close(fd);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_int_equal(barriers_describe(path, m), 0);
	fclose(m);
	assert_non_null(strstr(text, "kernel nobar: no __syncthreads() or __syncwarp()\n"));
	free(text);
	unlink(path);
}

/* A copy of lab 05 whose checks are replaced by `checks` (YAML text), loaded with
 * spec_load; returns its code (and *out on success). */
static int load_lab05(const char *checks, struct lab_spec **out, struct diag_list *diags)
{
	char root[] = "/tmp/test_grader_barriers_lab_XXXXXX";
	assert_non_null(mkdtemp(root));
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
		 "mkdir -p %s/labs/05-tiled-matmul && ln -s %s/kernels %s/kernels && "
		 "cp %s/labs/05-tiled-matmul/tiled_matmul.cu %s/labs/05-tiled-matmul/ && "
		 "sed '/^checks:/,/^hints:/{/^hints:/!d}' %s/labs/05-tiled-matmul/lab.yaml > %s/labs/05-tiled-matmul/lab.yaml",
		 root, SOURCE_ROOT, root, SOURCE_ROOT, root, SOURCE_ROOT, root);
	assert_int_equal(system(cmd), 0);
	char path[1024];
	snprintf(path, sizeof path, "%s/labs/05-tiled-matmul/lab.yaml", root);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fputs(checks, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/labs/05-tiled-matmul", root);
	int rc = spec_load(path, out, diags);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	return rc;
}

static void test_spec_fields(void **state)
{
	(void)state;
	struct lab_spec *spec = NULL;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = load_lab05("checks:\n  - kind: barriers\n    points: 2\n    dataset: not-a-multiple\n"
			    "    kernel: tiledMatMulKernel\n    min_barriers: 2\n"
			    "    forbid_divergent: false\n  - kind: barriers\n    points: 1\n",
			    &spec, &diags);
	if (rc)
		diag_print(stderr, &diags);
	assert_int_equal(rc, 0);
	assert_int_equal(spec->checks_count, 2);
	const struct spec_check *c = &spec->checks[0];
	assert_int_equal(c->kind, SPEC_CHECK_BARRIERS);
	assert_string_equal(c->kernel, "tiledMatMulKernel");
	assert_int_equal(c->min_barriers, 2);
	assert_non_null(c->forbid_divergent);
	assert_false(*c->forbid_divergent);
	assert_null(spec->checks[1].kernel);
	assert_null(spec->checks[1].forbid_divergent); /* absent: true */
	spec_free(spec);
	diag_list_release(&diags);
	/* the fields belong to kind barriers */
	diag_list_init(&diags);
	rc = load_lab05("checks:\n  - kind: memcheck\n    points: 1\n    min_barriers: 2\n", &spec,
			&diags);
	assert_int_equal(rc, -EINVAL);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	diag_print(m, &diags);
	fclose(m);
	assert_non_null(strstr(text, "belong to kind: barriers"));
	free(text);
	diag_list_release(&diags);
}

static void test_events(void **state)
{
	(void)state;
	char path[] = "/tmp/test_grader_barriers_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("{\"event\":\"launch\",\"kernel\":\"k\",\"status\":\"ok\"}\n"
	      "{\"event\":\"finding\",\"check\":\"race\",\"kind\":\"raw\",\"severity\":\"error\","
	      "\"intra_warp\":false,\"kernel\":\"k\",\"file\":\"/x/bad.cu\",\"line\":21,"
	      "\"other_file\":\"bad.cu\",\"other_line\":19,\"message\":\"thread (0,2,0) read Nds[0]\"}\n"
	      "{\"event\":\"finding\",\"check\":\"race\",\"kind\":\"raw\",\"severity\":\"error\","
	      "\"intra_warp\":false,\"kernel\":\"k\",\"file\":\"/x/bad.cu\",\"line\":21,"
	      "\"other_file\":\"bad.cu\",\"other_line\":19,\"message\":\"the same, another launch\"}\n"
	      "{\"event\":\"finding\",\"check\":\"race\",\"kind\":\"war\",\"severity\":\"warning\","
	      "\"intra_warp\":true,\"file\":\"bad.cu\",\"line\":174,\"other_file\":\"bad.cu\","
	      "\"other_line\":174,\"message\":\"lanes\"}\n"
	      "{\"event\":\"fault\",\"kind\":\"barrier\",\"kernel\":\"k\",\"file\":\"bad.cu\","
	      "\"line\":60,\"message\":\"__syncthreads() was reached by only some threads\"}\n"
	      "{\"event\":\"fault\",\"kind\":\"out-of-bounds\",\"file\":\"bad.cu\",\"line\":3}\n"
	      "not json\n", f);
	fclose(f);
	struct barriers_findings fs = { 0 };
	assert_int_equal(barriers_scan_events(path, &fs), 3);
	assert_string_equal(fs.items[0].kind, "raw");
	assert_string_equal(fs.items[0].file, "bad.cu");
	assert_int_equal(fs.items[0].other_line, 19);
	assert_non_null(strstr(fs.items[0].idea, "first barrier"));
	assert_true(fs.items[1].intra_warp);
	assert_int_equal(fs.items[1].severity, BARRIERS_WARNING);
	assert_non_null(strstr(fs.items[1].idea, "__syncwarp()"));
	assert_string_equal(fs.items[2].kind, "barrier-fault");
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	barriers_format(m, &fs, 2);
	fclose(m);
	/* errors first: the two errors fill the two places */
	assert_non_null(strstr(text, "bad.cu:21: error: thread (0,2,0) read Nds[0]\n  why: "));
	assert_non_null(strstr(text, "bad.cu:60: error: __syncthreads() was reached"));
	assert_null(strstr(text, "warning"));
	assert_non_null(strstr(text, "... and 1 more"));
	free(text);
	m = open_memstream(&text, &len);
	barriers_format(m, &fs, 10);
	fclose(m);
	char *w = strstr(text, "bad.cu:174: warning: (inside one warp) lanes");
	assert_non_null(w);
	assert_true(w > strstr(text, "bad.cu:60: error:"));
	assert_null(strstr(text, "more"));
	free(text);
	barriers_findings_release(&fs);
	unlink(path);
	assert_int_equal(barriers_scan_events(path, &fs), 0);
}

/* barriers_format(fs, max) as a string (free it). */
static char *formatted(const struct barriers_findings *fs, unsigned max)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	barriers_format(m, fs, max);
	fclose(m);
	return text;
}

/* Runs kernel name of the known-bad PTX (16x16 blocks, 2x2 grid, 32x32 matrices) under
 * the emulator's race checker and writes its findings as events to path. */
static void race_events(const char *name, const char *path)
{
	struct ptx_module *m;
	char err[512];
	if (ptx_module_load_file(g_bad, &m, err, sizeof err))
		fail_msg("%s", err);
	const struct ptx_kernel *k = ptx_module_kernel(m, name);
	assert_non_null(k);
	int n = 32;
	devaddr_t buf[3];
	for (int i = 0; i < 3; i++) {
		assert_int_equal(devmem_alloc(n * n * 4, DEVMEM_GLOBAL, "test buffer", &buf[i]), 0);
		memset(devmem_host(buf[i], n * n * 4), 0, n * n * 4);
	}
	void *args[] = { &buf[0], &buf[1], &buf[2], &n };
	struct emu_launch l = { m, k, { 2, 2, 1 }, { 16, 16, 1 }, 0, args };
	struct race_tracker *t = race_new(&l);
	assert_non_null(t);
	struct emu_fault fault = { 0 };
	assert_int_equal(race_run(t, &fault), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (unsigned i = 0; i < race_nfindings(t); i++) {
		char js[2048];
		race_finding_json(race_finding_at(t, i), js, sizeof js);
		fprintf(f, "%s\n", js);
	}
	fclose(f);
	race_free(t);
	for (int i = 0; i < 3; i++)
		devmem_free(buf[i]);
	ptx_module_free(m);
}

/* What the student reads for kernel name with min_barriers 2: the static count and
 * the emulator's findings, formatted. */
static char *lab05_text(const char *name)
{
	char path[] = "/tmp/test_grader_barriers_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	race_events(name, path);
	struct barriers_findings fs = { 0 };
	char err[256];
	assert_int_equal(barriers_static(g_bad, name, 2, false, &fs, err, sizeof err), 0);
	assert_true(barriers_scan_events(path, &fs) > 0);
	unlink(path);
	char *text = formatted(&fs, 10);
	barriers_findings_release(&fs);
	return text;
}

/* Issue 18: the first finding gives the right fix. Without the second barrier the
 * findings lead with the one at the end of the loop body, never "the first barrier"
 * (which is there), and no __syncwarp() remark; without the first, with the first. */
static void test_order_tiled(void **state)
{
	(void)state;
	char *text = lab05_text("mm_no_second_sync");
	if (getenv("BARRIERS_DUMP"))
		fprintf(stderr, "%s", text);
	const char *first = strstr(text, ": error: ");
	assert_non_null(first);
	assert_non_null(strstr(first, "already in a later pass of the loop"));
	assert_true(strstr(first, "already in a later pass") < strchr(first, '\n'));
	assert_non_null(strstr(text, "at the end of the loop body"));
	assert_true(strstr(text, "at the end of the loop body") < strstr(text, "has 1 __syncthreads()"));
	assert_null(strstr(text, "first barrier"));
	assert_null(strstr(text, "__syncwarp"));
	/* the idea is explained once */
	assert_null(strstr(strstr(text, "end of the loop body") + 1, "end of the loop body"));
	free(text);
	text = lab05_text("mm_no_first_sync");
	first = strstr(text, ": error: ");
	assert_non_null(first);
	const char *why = strstr(first, "why: ");
	assert_non_null(why);
	assert_true(why < strstr(why, "first barrier"));
	assert_true(strstr(why, "first barrier") < strchr(why, '\n'));
	assert_null(strstr(text, "__syncwarp"));
	free(text);
}

/* Racecheck's hazard between the same lines as the emulator's gets its advice and
 * rank: the racecheck RAW of a missing second barrier is not told "first barrier". */
static void test_racecheck_takes_gap(void **state)
{
	(void)state;
	struct barriers_findings fs = { 0 };
	const char *out =
		"========= Error: Race reported between Write access at k+0x2c0 in /u/bad.cu:39\n"
		"=========     and Read access at k+0x3a0 in /u/bad.cu:42 [7680 hazards]\n";
	assert_int_equal(barriers_scan_sanitizer(out, "racecheck", &fs), 1);
	char path[] = "/tmp/test_grader_barriers_XXXXXX";
	FILE *f = fdopen(mkstemp(path), "w");
	assert_non_null(f);
	fputs("{\"event\":\"finding\",\"check\":\"race\",\"kind\":\"war\",\"severity\":\"error\","
	      "\"intra_warp\":false,\"file\":\"bad.cu\",\"line\":39,\"other_file\":\"bad.cu\","
	      "\"other_line\":42,\"missing_barrier\":\"loop\",\"gap_lines\":[42,39],"
	      "\"gap_from\":\"read\",\"message\":\"emulator\"}\n", f);
	fclose(f);
	assert_int_equal(barriers_scan_events(path, &fs), 1);
	unlink(path);
	/* on a GPU racecheck also reports the other tile's array (line 38), which the
	 * emulator's run did not: the barrier at line 40 lies between its lines, so it
	 * crossed passes too */
	const char *other =
		"========= Warning: Race reported between Write access at k+0x2a0 in /u/bad.cu:38\n"
		"=========     and Read access at k+0x3a0 in /u/bad.cu:42 [512 hazards]\n";
	assert_int_equal(barriers_scan_sanitizer(other, "racecheck", &fs), 1);
	fs.bars = calloc(1, sizeof *fs.bars);
	assert_non_null(fs.bars);
	snprintf(fs.bars[0].file, sizeof fs.bars[0].file, "bad.cu");
	fs.bars[0].line = 40;
	fs.nbars = 1;
	barriers_racecheck_gaps(&fs);
	assert_string_equal(fs.items[2].gap, "loop");
	char *text = formatted(&fs, 10);
	assert_null(strstr(text, "first barrier"));
	assert_non_null(strstr(text, "end of the loop body"));
	/* the emulator's finding (threads, element, pass) leads; racecheck's copy follows */
	assert_true(strstr(text, "bad.cu:39: error: emulator") < strstr(text, "racecheck found"));
	free(text);
	/* with no barrier between its lines the hazard is within one pass: the first barrier */
	fs.bars[0].line = 20;
	fs.items[2].gap[0] = '\0';
	barriers_racecheck_gaps(&fs);
	assert_string_equal(fs.items[2].gap, "between");
	assert_non_null(strstr(fs.items[2].idea, "first barrier"));
	barriers_findings_release(&fs);
	assert_null(fs.bars);
}

/* Shared elements shown with the indices of their declaration (issue 18). */
static void test_shapes(void **state)
{
	(void)state;
	char path[] = "/tmp/test_grader_shapes_XXXXXX.cu";
	FILE *f = fdopen(mkstemps(path, 3), "w");
	assert_non_null(f);
	fputs("#define TILE_WIDTH 16\n"
	      "#define SQ(x) ((x) * (x))\n"
	      "const int W = 8;\n"
	      "template <int T> __global__ void t(float *o) { __shared__ float Ts[T][T]; }\n"
	      "__global__ void k(float *o)\n{\n"
	      "    __shared__ float As[TILE_WIDTH][TILE_WIDTH]; // not Bs[32]\n"
	      "    __shared__ int Cs[2 * W][W + 1u], x_s[256];\n"
	      "}\n", f);
	fclose(f);
	struct { const char *var; long long index; unsigned long long bytes; const char *want; } c[] = {
		{ "As", 32, 1024, "As[2][0]" },     /* #define */
		{ "As", 255, 1024, "As[15][15]" },
		{ "Ts", 17, 256, "Ts[2][1]" },      /* a template parameter: the square root */
		{ "Cs", 10, 576, "Cs[1][1]" },      /* const int */
		{ "x_s", 5, 1024, "x_s[5]" },       /* one dimension: as it is */
		{ "As", 3, 4096, "As[3]" },         /* another size: not this declaration */
	};
	struct barriers_findings fs = { 0 };
	fs.n = fs.cap = sizeof c / sizeof c[0];
	fs.items = calloc(fs.n, sizeof *fs.items);
	assert_non_null(fs.items);
	for (unsigned i = 0; i < fs.n; i++) {
		struct barriers_finding *x = &fs.items[i];
		snprintf(x->var, sizeof x->var, "%s", c[i].var);
		x->index = c[i].index;
		x->size = 4;
		x->var_bytes = c[i].bytes;
		snprintf(x->message, sizeof x->message, "thread (0,2,0) read %s[%lld] at line 31",
			 c[i].var, c[i].index);
	}
	barriers_show_shapes(&fs, path);
	for (unsigned i = 0; i < fs.n; i++) {
		char want[160];
		snprintf(want, sizeof want, "thread (0,2,0) read %s at line 31", c[i].want);
		assert_string_equal(fs.items[i].message, want);
	}
	barriers_show_shapes(&fs, "/nonexistent.cu"); /* unreadable: left as it is */
	assert_string_equal(fs.items[0].message, "thread (0,2,0) read As[2][0] at line 31");
	barriers_findings_release(&fs);
	unlink(path);
}

static void test_racecheck(void **state)
{
	(void)state;
	const char *out =
		"========= COMPUTE-SANITIZER\n"
		"========= Error: Race reported between Write access at mm_no_first_sync+0x2c0 in "
		"/home/u/lab/bad.cu:19\n"
		"=========     and Read access at mm_no_first_sync+0x3a0 in /home/u/lab/bad.cu:21 "
		"[7680 hazards]\n"
		"=========\n"
		"========= Warning: Race reported between Read access at k+0x10 in bad.cu:41\n"
		"=========     and Write access at k+0x20 in bad.cu:38 [12 hazards]\n"
		"========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n";
	struct barriers_findings fs = { 0 };
	assert_int_equal(barriers_scan_sanitizer(out, "racecheck", &fs), 2);
	assert_string_equal(fs.items[0].kind, "raw");
	assert_string_equal(fs.items[0].file, "bad.cu");
	assert_int_equal(fs.items[0].line, 21);
	assert_int_equal(fs.items[0].other_line, 19);
	assert_int_equal(fs.items[0].severity, BARRIERS_ERROR);
	assert_string_equal(fs.items[0].source, "racecheck");
	assert_string_equal(fs.items[1].kind, "war");
	assert_int_equal(fs.items[1].line, 38);
	assert_int_equal(fs.items[1].severity, BARRIERS_WARNING);
	barriers_findings_release(&fs);
	/* the older "hazard detected" form */
	const char *old =
		"========= ERROR: Potential WAW hazard detected at __shared__ 0x8 in block (0,0,0) :\n"
		"=========     Write Thread (1,0,0) at 0x00000050 in /x/bad.cu:131:hist_plain\n"
		"=========     Write Thread (2,0,0) at 0x00000050 in /x/bad.cu:131:hist_plain\n";
	assert_int_equal(barriers_scan_sanitizer(old, "racecheck", &fs), 1);
	assert_string_equal(fs.items[0].kind, "waw");
	assert_int_equal(fs.items[0].line, 131);
	barriers_findings_release(&fs);
	assert_int_equal(barriers_scan_sanitizer("========= ERROR SUMMARY: 0 errors\n", "racecheck", &fs), 0);
}

static void test_synccheck(void **state)
{
	(void)state;
	const char *out =
		"========= Barrier error detected. Divergent thread(s) in warp\n"
		"=========     at mm_sync_in_if+0x1e0 in /home/u/lab/bad.cu:60\n"
		"=========     by thread (8,0,0) in block (2,0,0)\n"
		"=========\n";
	struct barriers_findings fs = { 0 };
	assert_int_equal(barriers_scan_sanitizer(out, "synccheck", &fs), 1);
	assert_string_equal(fs.items[0].kind, "synccheck");
	assert_int_equal(fs.items[0].line, 60);
	assert_non_null(strstr(fs.items[0].message, "Divergent thread(s) in warp"));
	assert_non_null(strstr(fs.items[0].message, "by thread (8,0,0) in block (2,0,0)"));
	barriers_findings_release(&fs);
}

/* --parse DIR: prints what barriers_scan_sanitizer makes of the logs gpu_sanitizer.sh
 * left in DIR (KERNEL.racecheck.txt, KERNEL.synccheck.txt), to check the parser on a real
 * GPU's output. */
static int parse_logs(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "ls '%s' | grep -E '\\.(racecheck|synccheck)\\.txt$'", dir);
	FILE *ls = popen(cmd, "r");
	if (!ls)
		return 1;
	char name[512];
	while (fgets(name, sizeof name, ls)) {
		name[strcspn(name, "\n")] = 0;
		char path[4200];
		snprintf(path, sizeof path, "%s/%s", dir, name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		static char text[1 << 20];
		size_t n = fread(text, 1, sizeof text - 1, f);
		text[n] = 0;
		fclose(f);
		struct barriers_findings fs = { 0 };
		barriers_scan_sanitizer(text, strstr(name, ".synccheck.") ? "synccheck" : "racecheck", &fs);
		printf("%-44s %u finding%s\n", name, fs.n, fs.n == 1 ? "" : "s");
		for (unsigned i = 0; i < fs.n; i++)
			printf("    %s %s:%u (other %s:%u) %s\n", fs.items[i].kind, fs.items[i].file,
			       fs.items[i].line, fs.items[i].other_file, fs.items[i].other_line,
			       fs.items[i].severity == BARRIERS_ERROR ? "error" : "warning");
		barriers_findings_release(&fs);
	}
	pclose(ls);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--parse"))
		return parse_logs(argv[2]);
	if (argc < 4) {
		fprintf(stderr, "usage: %s BAD.ptx GOOD.ptx BAD.cu\n", argv[0]);
		return 2;
	}
	g_bad = argv[1];
	g_good = argv[2];
	g_bad_cu = argv[3];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_bad),
		cmocka_unit_test(test_min_barriers),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_describe_no_barrier),
		cmocka_unit_test(test_spec_fields),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_racecheck),
		cmocka_unit_test(test_synccheck),
		cmocka_unit_test(test_order_tiled),
		cmocka_unit_test(test_racecheck_takes_gap),
		cmocka_unit_test(test_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
