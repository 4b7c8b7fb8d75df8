/* fuzz_ncu: Nsight Compute's CSV (--csv --page raw) read into per-kernel figures
 * (grader/ncu.c), then the figures and the report table made from them. */
#include <stdlib.h>

#include "fuzz.h"
#include "ncu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct ncu_profile p;
	char why[256];
	if (ncu_parse(text, &p, why, sizeof(why)) == 0) {
		volatile double sink = 0;
		for (unsigned i = 0; i < p.n && i < NCU_MAX_KERNELS; i++)
			sink += ncu_occupancy_pct(&p.kernels[i]) + ncu_lanes(&p.kernels[i]) +
				ncu_ld_sectors_per_request(&p.kernels[i]) +
				ncu_st_sectors_per_request(&p.kernels[i]) +
				ncu_shared_ld_passes(&p.kernels[i]) + ncu_shared_st_passes(&p.kernels[i]);
		(void)sink;
		free(ncu_table(&p));
	}
	free(text);
	return 0;
}
