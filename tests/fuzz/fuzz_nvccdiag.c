/* fuzz_nvccdiag: nvcc's (and gcc's, ptxas's, the linker's) messages turned into
 * diagnostics (grader/nvccdiag.c). */
#include <stdlib.h>

#include "diag.h"
#include "fuzz.h"
#include "nvccdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct diag_list d;
	diag_list_init(&d);
	nvccdiag_parse(text, &d);
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		diag_print(null, &d);
		fclose(null);
	}
	diag_list_release(&d);
	free(text);
	return 0;
}
