/* emu_device — see emu_device.h. */
#include "emu_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KIB 1024u
#define MIB (1024u * KIB)
#define GIB (1024ull * MIB)

/* cudaGetDeviceProperties of each card: the H100 as measured (CUDA 13.0, 2026-11), the
 * others from the CUDA C Programming Guide's "Technical Specifications per Compute
 * Capability" and the cards' deviceQuery output. */
static const struct emu_device devices[] = {
	{"h100", "H100", "NVIDIA H100 80GB HBM3", "sm_90", 9, 0, 132, 2048, 32, 65536, 65536,
	 228 * KIB, 48 * KIB, 227 * KIB, 1 * KIB, 1980000, 2619000, 5120, 50 * MIB,
	 31250 * KIB, 80 * GIB, 3},
	{"a100", "A100", "NVIDIA A100-SXM4-80GB", "sm_80", 8, 0, 108, 2048, 32, 65536, 65536,
	 164 * KIB, 48 * KIB, 163 * KIB, 1 * KIB, 1410000, 1593000, 5120, 40 * MIB,
	 30 * MIB, 80 * GIB, 3},
	{"4090", "RTX 4090", "NVIDIA GeForce RTX 4090", "sm_89", 8, 9, 128, 1536, 24, 65536,
	 65536, 100 * KIB, 48 * KIB, 99 * KIB, 1 * KIB, 2520000, 10501000, 384, 72 * MIB,
	 48 * MIB, 24 * GIB, 2},
	{"t4", "T4", "Tesla T4", "sm_75", 7, 5, 40, 1024, 16, 65536, 65536, 64 * KIB, 48 * KIB,
	 64 * KIB, 0, 1590000, 5001000, 256, 4 * MIB, 0, 15 * GIB, 3},
};
#define N_DEVICES (sizeof(devices) / sizeof(devices[0]))

const struct emu_device *emu_device_list(unsigned *n)
{
	*n = N_DEVICES;
	return devices;
}

const struct emu_device *emu_device_find(const char *name)
{
	for (unsigned i = 0; name && i < N_DEVICES; i++)
		if (!strcasecmp(name, devices[i].key) || !strcasecmp(name, devices[i].arch))
			return &devices[i];
	return NULL;
}

const struct emu_device *emu_device_current(const char **bad)
{
	const char *v = getenv("PMPPLAB_EMU_DEVICE");
	if (!v || !*v)
		return &devices[0];
	const struct emu_device *d = emu_device_find(v);
	if (!d && bad)
		*bad = v;
	return d ? d : &devices[0];
}

char *emu_device_name(const struct emu_device *d, char *buf, size_t n)
{
	snprintf(buf, n, "pmpplab emulated %s (%s)", d->model, d->arch);
	return buf;
}

const char *emu_device_keys(void)
{
	static char keys[64]; /* the same for every caller: a race writes the same bytes */
	size_t len = 0;
	for (unsigned i = 0; i < N_DEVICES && len < sizeof keys; i++)
		len += (size_t)snprintf(keys + len, sizeof keys - len, "%s%s", i ? ", " : "",
					devices[i].key);
	return keys;
}

char *emu_device_nvcc_arch(const struct emu_device *d, char *buf, size_t n)
{
	snprintf(buf, n, "compute_%d%d", d->cc_major, d->cc_minor);
	return buf;
}
