/* cudart_race — the replacement runtime's side of the barrier and race checker
 * (issue 6). With PMPPLAB_EMU_RACECHECK=1 in the environment, every launch runs under
 * emu/race.h's tracker; its findings go to stderr ("bad.cu:21: error: ...") and, when
 * $PMPPLAB_EVENTS names a file, as {"event":"finding","check":"race",...} lines (one
 * write each, O_APPEND, like the runtime's other events). Without it a launch is a plain
 * emu_run. */
#ifndef PMPPLAB_EMU_CUDART_RACE_H
#define PMPPLAB_EMU_CUDART_RACE_H

#include "exec.h"

#pragma GCC visibility push(hidden)

/* Runs launch l (kernel: its mangled name) as emu_run does, checked when enabled.
 * Returns emu_run's code; the findings are reported before it returns. */
int rt_race_run(const struct emu_launch *l, struct emu_fault *fault, const char *kernel);

#pragma GCC visibility pop

#endif
