/* fuzz_ptx: the emulator's PTX decoder (lexer, parser, operand decoding, the
 * reconvergence points of the CFG, emu/ptx*.c) and the static barrier analysis over what
 * it decoded (emu/uniformity.c). Nothing is executed: a fuzzed kernel may loop forever. */
#include <stdlib.h>

#include "fuzz.h"
#include "ptx.h"
#include "uniformity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptx_module *m = NULL;
	char err[256];
	if (ptx_module_load((const char *)data, size, "fuzz.ptx", &m, err, sizeof(err)) != 0)
		return 0;
	for (unsigned i = 0; i < ptx_module_nkernels(m); i++) {
		const struct ptx_kernel *k = ptx_module_kernel_at(m, i);
		volatile size_t sink = ptx_kernel_static_shared(k) + ptx_kernel_local_size(k) +
				       ptx_kernel_nregs(k);
		for (unsigned p = 0; p < ptx_kernel_nparams(k); p++)
			sink += ptx_kernel_param_size(k, p) + ptx_kernel_param_offset(k, p);
		(void)sink;
		if (ptx_module_kernel(m, ptx_kernel_name(k)) != k)
			abort(); /* a kernel is found by its own name */
	}
	struct uniformity_report *r = NULL;
	if (uniformity_analyze(m, &r) == 0)
		uniformity_report_free(r);
	ptx_module_free(m);
	return 0;
}
