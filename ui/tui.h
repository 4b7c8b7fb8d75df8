/* tui: the interactive pmpplab (what `pmpplab` with no command runs). */
#ifndef PMPPLAB_UI_TUI_H
#define PMPPLAB_UI_TUI_H

#include "backend.h"

/* Runs the TUI on workspace dir WS (created with workspace_init if it has no .pmpplab/)
 * with the labs in LABS_DIR. Returns the process exit status: 0 after a normal quit, 2
 * when the labs or the workspace cannot be loaded or the terminal cannot be used (the
 * reason is printed on stderr). */
int tui_run(const char *ws, const char *labs_dir, enum backend_kind backend);

#endif
