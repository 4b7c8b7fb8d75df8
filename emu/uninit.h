/* uninit — static check of a decoded PTX module for registers read before they are
 * written: a variable the student never initialised (float sum; sum += ...), or a wmma
 * accumulator never filled. nvcc keeps such a read (its value is undefined: LLVM's undef
 * flows into the loop's first pass), and the result is garbage on a GPU and whatever the
 * emulator's registers held before.
 *
 * For every defined function, a read is a finding when no path from the function's
 * entry to it, taking no loop's back edge, writes the register: on the first pass
 * through the code (a loop's first iteration) nothing has written it, whichever way the
 * branches go, and the only writes that can reach it come round a loop (the accumulator
 * of a loop) or none at all. A register written on some paths only is not a finding:
 * correct code (cub's tile loads) writes and reads under conditions that are the same
 * at run time, which no path-insensitive analysis can match up. What an instruction
 * reads and writes is the decoder's own record (ptx_internal.h: d[] and s[], the matrix
 * fragments of module->mmas, the texture operands of module->texs), never the text.
 * A read whose value can only come round a loop counts only when it runs on every pass
 * of a loop (its block dominates the loop's latch) and is not guarded: code such as
 * `if (i > 0) use(prev); prev = x;` reads prev from the second pass on only.
 * Further choices, each to have no false positives on correct code:
 *   - a guarded write (@%p mov %r1, ...) counts as a write (if-converted branches);
 *   - the value a shuffle moves is not a read that counts: cub shuffles a struct word by
 *     word, padding included, and drops what the padding got;
 *   - an instruction the decoder refuses (OP_UNSUPPORTED) writes every register: what it
 *     writes is not known;
 *   - .func parameters and return values pass through .param memory (ld.param/st.param),
 *     so they are written by the loads nvcc emits; special registers and immediates are
 *     always written;
 *   - nested { } scopes reuse the slot of a name declared before (ptx_func.c), so a
 *     scope's temporaries are tracked like any register.
 * Checked on nvcc's PTX of every lab's solution and right/ variants, the kernels'
 * folders and 49 CUDA samples (-O3 and -O0): no finding.
 *
 * The report owns copies of all strings: it stays valid after the module is freed.
 */
#ifndef PMPPLAB_EMU_UNINIT_H
#define PMPPLAB_EMU_UNINIT_H

#include <stddef.h>

struct ptx_module;

/* How the register comes to be read unwritten. */
enum uninit_kind {
	UNINIT_LOOP,  /* written later in a loop the read is in: its first pass reads it */
	UNINIT_PATH,  /* written only on paths to the read that go round a loop elsewhere */
	UNINIT_NEVER, /* nothing in the function writes it */
};

struct uninit_read {
	char *func;          /* mangled name of the function */
	int is_entry;        /* .entry (a kernel) or .func */
	unsigned pc;         /* the reading instruction's index in the function */
	char *file;          /* its .cu file (NULL when unknown) */
	unsigned line;       /* its line (0 when unknown) */
	const char *op;      /* its opcode's name (static text) */
	enum uninit_kind kind;
	unsigned slot;       /* the first register read unwritten (its slot) */
	unsigned nregs;      /* how many registers it reads unwritten */
	int mma_acc;         /* they are the accumulator (C) of wmma.mma or mma.sync */
	/* kind UNINIT_LOOP: the branch that closes the loop (its line: the for or while);
	 * else 0. UNINIT_LOOP and UNINIT_PATH: the first write of the register (line). */
	char *loop_file;
	unsigned loop_line;
	char *write_file;
	unsigned write_line;
};

struct uninit_report {
	struct uninit_read *reads; /* by function, then pc */
	unsigned n;
};

/* At most this many reads are recorded per function (a register read unwritten in a
 * loop is often read by many instructions after it). */
#define UNINIT_MAX_PER_FUNC 32u

/* Analyses every defined function of m. Returns 0 and *out (free with
 * uninit_report_free), or -ENOMEM. */
int uninit_analyze(const struct ptx_module *m, struct uninit_report **out);

/* Loads the PTX file at path and analyses it. Returns 0, -errno when the file cannot be
 * read, or ptx_module_load's codes (err gets "file.ptx:LINE: what"; err may be NULL). */
int uninit_analyze_file(const char *path, struct uninit_report **out, char *err,
			size_t errlen);

void uninit_report_free(struct uninit_report *r); /* accepts NULL */

#endif
