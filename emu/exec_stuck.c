/* Where a kernel that does not finish is stuck (issue 18, item 1).
 *
 * The grader stops a program that runs past its lab's time limit; on a GPU nothing can
 * say where its warps were, but the interpreter knows every warp's pc. When
 * $PMPPLAB_EMU_STOP_MS (milliseconds after the runtime started; the grader sets it a
 * little under its own time limit) has passed while a kernel still runs, the first
 * worker that notices writes one message to stderr naming the source lines its block's
 * warps were at, and the innermost loop around each (the span of the backward branch
 * that closes it, mapped to the .cu lines through the PTX's .loc), or the
 * __syncthreads() they wait at; then every worker parks until the grader's time limit
 * ends the process, so the grader's verdict ("timed out") stays what it was. */
#include "exec_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double stuck_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double stuck_deadline = -1; /* monotonic ms; 0: none; -1: not read yet */
static _Atomic int stuck_reported;

/* The deadline, read once (the first launch): the runtime's start is near enough the
 * process's for a limit of seconds. */
static double stuck_deadline_ms(void)
{
	if (stuck_deadline < 0) {
		const char *e = getenv("PMPPLAB_EMU_STOP_MS");
		double ms = e ? strtod(e, NULL) : 0;
		stuck_deadline = ms > 0 ? stuck_now_ms() + ms : 0;
	}
	return stuck_deadline;
}

void exec_stuck_arm(void)
{
	(void)stuck_deadline_ms(); /* on the launching thread, before the workers start */
}

/* The user's instruction a warp is at: inside a toolkit function, the call that
 * reached it. */
static const struct ptx_insn *stuck_user_insn(const struct block *b, const struct warp *w,
					      const struct ptx_insn **at_code, uint32_t *at_pc,
					      unsigned *ncode)
{
	const struct frame *fr = &w->frames[w->nframes - 1];
	uint32_t pc = w->sp ? w->stack[w->sp - 1].pc : 0;
	const struct ptx_insn *code = fr->f->code;
	*ncode = fr->f->ncode;
	if (pc >= *ncode)
		pc = *ncode ? *ncode - 1 : 0;
	/* a warp waiting at a barrier is past it already */
	if (w->state == W_BARRIER && pc > 0 && (code[pc - 1].op == OP_BAR || code[pc - 1].op == OP_BARRIER))
		pc--;
	const struct ptx_insn *in = *ncode ? &code[pc] : NULL;
	for (unsigned k = w->nframes; k > 1 && in; k--) {
		const char *file = ptx_module_file(b->L->m, in->file);
		if (file && !ptx_file_is_system(file))
			break;
		in = w->frames[k - 1].call;
		code = w->frames[k - 2].f->code;
		*ncode = w->frames[k - 2].f->ncode;
		pc = (uint32_t)(in - code);
	}
	*at_code = code;
	*at_pc = pc;
	return in;
}

/* The innermost loop around PC: the shortest span [target, branch] of a backward
 * branch that holds it; its first and last known .cu lines of IN's file. */
static int stuck_loop(const struct ptx_insn *code, unsigned ncode, uint32_t pc, uint16_t file,
		      uint32_t *lo, uint32_t *hi)
{
	uint32_t best = UINT32_MAX, from = 0, to = 0;
	for (uint32_t i = 0; i < ncode; i++)
		if (code[i].op == OP_BRA && code[i].target <= pc && i >= pc && i - code[i].target < best) {
			best = i - code[i].target;
			from = code[i].target;
			to = i;
		}
	if (best == UINT32_MAX)
		return 0;
	*lo = UINT32_MAX;
	*hi = 0;
	for (uint32_t i = from; i <= to; i++)
		if (code[i].line && code[i].file == file) {
			*lo = code[i].line < *lo ? code[i].line : *lo;
			*hi = code[i].line > *hi ? code[i].line : *hi;
		}
	return *hi != 0;
}

static void stuck_report(const struct block *b)
{
	struct place { uint32_t line, lo, hi; int loop, barrier, grid, mbar; const char *file; unsigned n; };
	struct place p[8];
	unsigned np = 0, alive = 0;
	for (unsigned i = 0; i < b->nwarps; i++) {
		const struct warp *w = &b->warps[i];
		if (w->state == W_DONE || w->sp == 0 || w->nframes == 0)
			continue;
		alive++;
		const struct ptx_insn *code, *in;
		uint32_t pc;
		unsigned ncode;
		if (!(in = stuck_user_insn(b, w, &code, &pc, &ncode)) || !in->line)
			continue;
		struct place q = { .line = in->line, .file = ptx_module_file(b->L->m, in->file),
				   .barrier = w->state == W_BARRIER, .grid = w->state == W_GRID,
				   .mbar = w->state == W_MBAR, .n = 1 };
		q.loop = !q.barrier && !q.grid && !q.mbar &&
			 stuck_loop(code, ncode, pc, in->file, &q.lo, &q.hi);
		unsigned k = 0;
		while (k < np && !(p[k].line == q.line && p[k].barrier == q.barrier &&
				   p[k].grid == q.grid && p[k].mbar == q.mbar && p[k].file == q.file))
			k++;
		if (k < np)
			p[k].n++;
		else if (np < sizeof p / sizeof *p)
			p[np++] = q;
	}
	char msg[2048];
	size_t len = 0;
#define PUT(...) (len += (size_t)snprintf(msg + len, len < sizeof msg ? sizeof msg - len : 0, __VA_ARGS__))
	/* the kernel's name as written: _Z<length><name>... for C++ names */
	const char *name = b->L->kf->name;
	int nlen = (int)strlen(name);
	if (name[0] == '_' && name[1] == 'Z') {
		char *end;
		long l = strtol(name + 2, &end, 10);
		if (end != name + 2 && l > 0 && l <= (long)strlen(end))
			name = end, nlen = (int)l;
	}
	PUT("pmpplab-emu: kernel %.*s did not finish in time; when it was stopped, block (%u,%u,%u) had %u of its %u warps still running:",
	    nlen, name, b->bid.x, b->bid.y, b->bid.z, alive, b->nwarps);
	for (unsigned k = 0; k < np; k++) {
		const char *f = p[k].file ? strrchr(p[k].file, '/') : NULL;
		f = f ? f + 1 : p[k].file ? p[k].file : "?";
		PUT("\n  %u warp%s at %s:%u", p[k].n, p[k].n == 1 ? "" : "s", f, p[k].line);
		if (p[k].barrier)
			PUT(", waiting at the barrier (__syncthreads()) of that line");
		else if (p[k].grid)
			PUT(", waiting at the grid barrier (this_grid().sync()) of that line");
		else if (p[k].mbar)
			PUT(", waiting for the mbarrier phase (cuda::barrier, cuda::pipeline) of that line");
		else if (p[k].loop && p[k].lo == p[k].hi)
			PUT(", in the loop of line %u", p[k].lo);
		else if (p[k].loop)
			PUT(", in the loop of lines %u-%u", p[k].lo, p[k].hi);
	}
	if (!np)
		PUT("\n  (no source line known: build with line information, nvcc -lineinfo)");
	PUT("\n");
#undef PUT
	if (len >= sizeof msg)
		len = sizeof msg - 1;
	fflush(stdout);
	(void)!write(2, msg, len);
}

void exec_stuck_deadlock(const struct block *b)
{
	if (stuck_deadline <= 0)
		return;
	if (!atomic_exchange(&stuck_reported, 1))
		stuck_report(b);
	for (;;)
		pause();
}

void exec_stuck_check(const struct block *b)
{
	double d = stuck_deadline;
	if (d <= 0 || stuck_now_ms() < d)
		return;
	if (!atomic_exchange(&stuck_reported, 1))
		stuck_report(b);
	/* the grader ends the process at its time limit; until then, cost nothing */
	for (;;)
		pause();
}
