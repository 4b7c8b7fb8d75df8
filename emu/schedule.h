/* schedule — the order in which the interpreter runs blocks and warps (issue 6).
 *
 * A kernel that is only correct because warp 0 happens to run before warp 1 has a race.
 * The emulator normally runs blocks in index order and each warp until it reaches a
 * barrier (forward). An adversarial schedule runs them in reverse, or in a seeded random
 * order reshuffled at every barrier, and can switch warps every few instructions, so
 * that such code fails visibly. Results of a correct kernel do not change.
 *
 * Text form (PMPPLAB_EMU_SCHEDULE): ORDER[:SEED][/SLICE], ORDER one of forward, reverse,
 * random; SLICE the warp instructions a warp runs before the next warp of its block
 * (default: until it waits at a barrier). "random:42/7", "reverse". */
#ifndef PMPPLAB_EMU_SCHEDULE_H
#define PMPPLAB_EMU_SCHEDULE_H

#include <stdint.h>

enum emu_order { EMU_ORDER_FORWARD, EMU_ORDER_REVERSE, EMU_ORDER_RANDOM };

struct emu_schedule {
	enum emu_order order;
	uint64_t seed;   /* random only */
	unsigned slice;  /* 0 = the interpreter's default timeslice */
};

/* Parses the text form. Returns 0, or -EINVAL (out unchanged). */
int emu_schedule_parse(const char *text, struct emu_schedule *out);

/* Sets the schedule of later launches (process-wide); NULL goes back to the
 * environment's PMPPLAB_EMU_SCHEDULE, or forward when it is unset or invalid. */
void emu_set_schedule(const struct emu_schedule *s);
/* The schedule a launch starting now uses. */
void emu_schedule_current(struct emu_schedule *out);

/* The index of the i-th block to run of n. A permutation of [0, n) for every order. */
unsigned emu_schedule_block(const struct emu_schedule *s, unsigned i, unsigned n);

/* Fills order[0..n) with the warps of block `block` in the order to run them in round
 * `round` (a round ends when every warp waits at a barrier or has ended). */
void emu_schedule_warps(const struct emu_schedule *s, unsigned block, unsigned round,
			unsigned *order, unsigned n);

#endif
