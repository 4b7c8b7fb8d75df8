/* fuzz_result: a lab program's result file (grader/harness/pl_io.c) read back whatever it
 * holds. The student's process writes it, so the grader must either refuse it or get
 * items it can compare: every output that pl_same_shape() accepts is compared with
 * itself element by element (compare.c, as the grader does), and what loads must write
 * and load again to the same items. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "compare.h"
#include "fuzz.h"
#include "pl_io.h"

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
	snprintf(dir, sizeof(dir), "/tmp/pmpplab-fuzz-result-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(in_path, sizeof(in_path), "%s/result", dir);
	snprintf(out_path, sizeof(out_path), "%s/again", dir);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_write(in_path, data, size) != 0)
		abort();
	struct pl_file f;
	char err[256];
	if (pl_read(&f, in_path, err, sizeof(err)) != 0)
		return 0;
	for (uint32_t i = 0; i < f.n; i++) {
		const struct pl_item *it = &f.items[i];
		if (it->kind != PL_OUTPUT || !pl_same_shape(it, it))
			continue;
		enum spec_dtype t = (enum spec_dtype)it->dtype;
		struct spec_tolerance tol = compare_default_tolerance(t);
		struct compare_result r;
		compare_buffers(t, &tol, it->data, it->data, it->count, NULL, &r);
		free(compare_describe(&r, it->name, t));
	}
	if (pl_write(&f, out_path, err, sizeof(err)) != 0)
		abort();
	struct pl_file again;
	if (pl_read(&again, out_path, err, sizeof(err)) != 0 || again.n != f.n)
		abort();
	pl_release(&again);
	pl_release(&f);
	return 0;
}
