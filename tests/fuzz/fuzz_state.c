/* fuzz_state: the workspace's state.json (ui/state.c) read back whatever it holds; what
 * loads must save and load again to the same labs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "state.h"

static char dir[64], in_path[96], out_path[96];

static void cleanup(void)
{
	unlink(in_path);
	unlink(out_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/tmp/pmpplab-fuzz-state-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(in_path, sizeof(in_path), "%s/state.json", dir);
	snprintf(out_path, sizeof(out_path), "%s/again.json", dir);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_write(in_path, data, size) != 0)
		abort();
	struct ui_state s;
	state_init(&s);
	if (state_load(&s, in_path) == 0) {
		for (unsigned i = 0; i < s.n; i++)
			state_record(&s.labs[i], 1, 2, false, i & 1);
		if (state_save(&s, out_path) != 0)
			abort();
		struct ui_state again;
		state_init(&again);
		/* every lab saved loads back (ids with odd bytes included) */
		if (state_load(&again, out_path) != 0 || again.n != s.n)
			abort();
		state_release(&again);
	}
	state_release(&s);
	return 0;
}
