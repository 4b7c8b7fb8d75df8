/* occupancy: the device table, GPU detection and the curve. See occupancy.h. */
#include "occupancy.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "emu_device.h"

/* A device of the emulator's table (emu_device.h: the cards' cudaDeviceProp) in the
 * calculator's terms, under the card's name or, for the one the emulator emulates, the
 * emulator's. */
static void from_emu(const struct emu_device *e, bool emulated, struct occ_device *d)
{
	memset(d, 0, sizeof(*d));
	/* the panel prints the architecture beside the name */
	snprintf(d->name, sizeof(d->name), emulated ? "pmpplab emulated %s" : "%s",
		 emulated ? e->model : e->product);
	snprintf(d->arch, sizeof(d->arch), "%s", e->arch);
	d->cc_major = e->cc_major;
	d->cc_minor = e->cc_minor;
	d->max_threads_per_block = 1024;
	d->max_threads_per_sm = e->max_threads_per_sm;
	d->regs_per_block = e->regs_per_block;
	d->regs_per_sm = e->regs_per_sm;
	d->warp_size = 32;
	d->smem_per_block = e->smem_per_block;
	d->smem_per_sm = e->smem_per_sm;
	d->smem_per_block_optin = e->smem_per_block_optin;
	d->reserved_smem_per_block = e->smem_reserved_per_block;
	d->sm_count = e->sm_count;
}

#define MAX_DEVICES 8

const struct occ_device *occ_devices(unsigned *n)
{
	static struct occ_device table[MAX_DEVICES];
	unsigned ne;
	const struct emu_device *e = emu_device_list(&ne);
	*n = ne < MAX_DEVICES ? ne : MAX_DEVICES;
	for (unsigned i = 0; i < *n; i++)
		from_emu(&e[i], false, &table[i]);
	return table;
}

const struct occ_device *occ_device_find(const char *name)
{
	unsigned n, ne;
	const struct occ_device *t = occ_devices(&n);
	const struct emu_device *e = emu_device_find(name), *list = emu_device_list(&ne);
	return e && e - list < (long)n ? &t[e - list] : NULL;
}

void occ_device_emulated(struct occ_device *d)
{
	from_emu(emu_device_current(NULL), true, d);
}

/* ---- detection through the driver API (dlopened) ---- */

/* CUdevice_attribute values from cuda.h (stable ABI). */
enum {
	ATTR_MAX_THREADS_PER_BLOCK = 1,
	ATTR_MAX_SHARED_PER_BLOCK = 8,
	ATTR_WARP_SIZE = 10,
	ATTR_MAX_REGS_PER_BLOCK = 12,
	ATTR_SM_COUNT = 16,
	ATTR_MAX_THREADS_PER_SM = 39,
	ATTR_CC_MAJOR = 75,
	ATTR_CC_MINOR = 76,
	ATTR_MAX_SHARED_PER_SM = 81,
	ATTR_MAX_REGS_PER_SM = 82,
	ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97,
	ATTR_RESERVED_SHARED_PER_BLOCK = 111,
};

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_attr_fn)(int *, int, int);
typedef int (*cu_name_fn)(char *, int, int);

static int attr(cu_attr_fn get, int dev, int which)
{
	int v = 0;
	return get(&v, which, dev) == 0 ? v : 0;
}

int occ_device_detect(struct occ_device *d)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -ENODEV;
	cu_init_fn init = (cu_init_fn)dlsym(lib, "cuInit");
	cu_device_get_fn get = (cu_device_get_fn)dlsym(lib, "cuDeviceGet");
	cu_attr_fn at = (cu_attr_fn)dlsym(lib, "cuDeviceGetAttribute");
	cu_name_fn nm = (cu_name_fn)dlsym(lib, "cuDeviceGetName");
	int dev = 0, rc = -ENODEV;
	if (!init || !get || !at || !nm || init(0) != 0 || get(&dev, 0) != 0)
		goto out;
	memset(d, 0, sizeof(*d));
	if (nm(d->name, (int)sizeof(d->name), dev) != 0)
		snprintf(d->name, sizeof(d->name), "GPU 0");
	d->cc_major = attr(at, dev, ATTR_CC_MAJOR);
	d->cc_minor = attr(at, dev, ATTR_CC_MINOR);
	snprintf(d->arch, sizeof(d->arch), "sm_%d%d", d->cc_major, d->cc_minor);
	d->max_threads_per_block = attr(at, dev, ATTR_MAX_THREADS_PER_BLOCK);
	d->max_threads_per_sm = attr(at, dev, ATTR_MAX_THREADS_PER_SM);
	d->regs_per_block = attr(at, dev, ATTR_MAX_REGS_PER_BLOCK);
	d->regs_per_sm = attr(at, dev, ATTR_MAX_REGS_PER_SM);
	d->warp_size = attr(at, dev, ATTR_WARP_SIZE);
	d->smem_per_block = (size_t)attr(at, dev, ATTR_MAX_SHARED_PER_BLOCK);
	d->smem_per_sm = (size_t)attr(at, dev, ATTR_MAX_SHARED_PER_SM);
	d->smem_per_block_optin = (size_t)attr(at, dev, ATTR_MAX_SHARED_PER_BLOCK_OPTIN);
	d->reserved_smem_per_block = (size_t)attr(at, dev, ATTR_RESERVED_SHARED_PER_BLOCK);
	d->sm_count = attr(at, dev, ATTR_SM_COUNT);
	rc = d->cc_major > 0 && d->warp_size > 0 ? 0 : -ENODEV;
out:
	dlclose(lib);
	return rc;
}

/* ---- the calculator ---- */

int occ_compute(const struct occ_device *d, const struct occ_kernel *k, int block_size,
		struct occ_result *out)
{
	memset(out, 0, sizeof(*out));
	if (!d || !k || block_size < 1 || k->regs < 0 || d->warp_size <= 0)
		return -EINVAL;
	out->max_warps_per_sm = d->max_threads_per_sm / d->warp_size;
	int rc = occ_shim_compute(d, k, block_size, out);
	if (rc < 0)
		return rc;
	int warps = (block_size + d->warp_size - 1) / d->warp_size;
	out->warps_per_sm = out->blocks_per_sm * warps;
	out->occupancy = out->max_warps_per_sm ? (double)out->warps_per_sm / out->max_warps_per_sm : 0;
	if (out->blocks_per_sm == 0) {
		/* Say which resource one block already overflows. */
		out->limits = 0;
		if (block_size > d->max_threads_per_block || out->limit_warps == 0)
			out->limits |= OCC_LIM_WARPS;
		if (out->limit_regs == 0)
			out->limits |= OCC_LIM_REGISTERS;
		if (out->limit_smem == 0)
			out->limits |= OCC_LIM_SHARED;
	}
	return 0;
}

int occ_curve(const struct occ_device *d, const struct occ_kernel *k,
	      struct occ_result out[OCC_CURVE_POINTS])
{
	for (int i = 0; i < OCC_CURVE_POINTS; i++) {
		int rc = occ_compute(d, k, 32 * (i + 1), &out[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

const char *occ_limit_name(unsigned limits)
{
	if (limits & OCC_LIM_REGISTERS)
		return "registers";
	if (limits & OCC_LIM_SHARED)
		return "shared memory";
	if (limits & OCC_LIM_WARPS)
		return "warps per SM";
	if (limits & OCC_LIM_BLOCKS)
		return "blocks per SM";
	if (limits & OCC_LIM_BARRIERS)
		return "barriers";
	return "none";
}

char *occ_limit_list(unsigned limits, char *buf, size_t n)
{
	static const unsigned order[] = {OCC_LIM_REGISTERS, OCC_LIM_SHARED, OCC_LIM_WARPS,
					 OCC_LIM_BLOCKS, OCC_LIM_BARRIERS};
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (unsigned i = 0; i < 5 && n; i++)
		if (limits & order[i])
			len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? " + " : "",
						occ_limit_name(order[i]));
	if (n && !buf[0])
		snprintf(buf, n, "none");
	return buf;
}

const char *occ_limit_advice(unsigned limits)
{
	if (limits & OCC_LIM_REGISTERS)
		return "Each thread uses too many registers for more warps: simplify the kernel or cap them with __launch_bounds__ / -maxrregcount.";
	if (limits & OCC_LIM_SHARED)
		return "Each block's shared memory leaves room for few blocks: smaller tiles, or fewer bytes per block.";
	if (limits & OCC_LIM_BLOCKS)
		return "Blocks are so small that the SM's block limit binds first: use more threads per block.";
	if (limits & OCC_LIM_WARPS)
		return "The SM is full of warps: this is the most it can hold.";
	if (limits & OCC_LIM_BARRIERS)
		return "The kernel uses many named barriers; each block takes its own.";
	return "";
}
