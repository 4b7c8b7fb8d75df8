/* inspect: the panels' model rendered to lines, without curses: the occupancy table and
 * curve with the student's block marked, what-if keys, the device picker, and the warp
 * and memory views of a snapshot. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "inspect.h"
#include "keymap.h"

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
	inspect_init(&in, NULL, false);
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
}

static void test_warps_memory(void **state)
{
	(void)state;
	struct inspect in;
	inspect_init(&in, "/nonexistent/trace", false);
	in.tab = INSPECT_WARPS;
	char *s = render(&in, 78, 21);
	assert_non_null(strstr(s, "Nothing traced yet"));
	free(s);
	fake_snapshot(&in);
	s = render(&in, 78, 21);
	print_message("%s", s);
	assert_non_null(strstr(s, "kernel strided (strided.cu)"));
	assert_non_null(strstr(s, "blocks 5/32"));
	assert_non_null(strstr(s, "IBB."));                      /* warp states */
	assert_non_null(strstr(s, "2/3 arrived"));               /* 2 of 3 live warps */
	assert_non_null(strstr(s, "16/32 active"));              /* warp 0's mask */
	assert_non_null(strstr(s, "   28   25% "));               /* divergence */
	free(s);
	assert_true(inspect_key(&in, '3'));
	s = render(&in, 78, 21);
	print_message("%s", s);
	assert_non_null(strstr(s, "     128     32.0      128      4.0"));
	assert_non_null(strstr(s, "    4  32.0"));
	free(s);
	inspect_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_occupancy),
		cmocka_unit_test(test_warps_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
