/* devinfo: see devinfo.h. */
#include "devinfo.h"

#include <errno.h>
#include <string.h>

static int metric(const struct pl_file *f, const char *name, unsigned *out)
{
	const struct pl_item *m = pl_find(f, PL_METRIC, name);
	if (!m || !(m->dval > 0) || m->dval > 4e9)
		return -ENOENT;
	*out = (unsigned)m->dval;
	return 0;
}

int devinfo_from_result(const struct pl_file *result, struct devinfo *d)
{
	memset(d, 0, sizeof(*d));
	int rc = 0;
	rc |= metric(result, "dev_sm_count", &d->sm_count);
	rc |= metric(result, "dev_clock_khz", &d->clock_khz);
	rc |= metric(result, "dev_mem_clock_khz", &d->mem_clock_khz);
	rc |= metric(result, "dev_bus_width_bits", &d->bus_width_bits);
	rc |= metric(result, "dev_cc_major", &d->cc_major);
	/* minor 0 and an unknown L2 are legitimate */
	const struct pl_item *m = pl_find(result, PL_METRIC, "dev_cc_minor");
	d->cc_minor = m && m->dval > 0 ? (unsigned)m->dval : 0;
	m = pl_find(result, PL_METRIC, "dev_l2_bytes");
	d->l2_bytes = m && m->dval > 0 ? (unsigned)m->dval : 0;
	return rc ? -ENOENT : 0;
}

double devinfo_peak_bandwidth(const struct devinfo *d)
{
	return 2.0 * d->mem_clock_khz * 1e3 * (d->bus_width_bits / 8.0);
}

unsigned devinfo_fp32_lanes(unsigned major, unsigned minor)
{
	switch (major) {
	case 5: return 128;
	case 6: return minor == 0 ? 64 : 128;
	case 7: return 64;
	case 8: return minor == 0 ? 64 : 128;
	case 9: case 10: case 11: case 12: return 128;
	}
	return 0;
}

double devinfo_peak_flops(const struct devinfo *d)
{
	return (double)d->sm_count * devinfo_fp32_lanes(d->cc_major, d->cc_minor) * 2.0 *
	       d->clock_khz * 1e3;
}
