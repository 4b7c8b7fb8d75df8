/* backend: see backend.h. */
#include "backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_device.h"

int backend_parse(const char *s, enum backend_kind *out)
{
	static const char *names[] = { "auto", "gpu", "emu" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum backend_kind)i;
			return 0;
		}
	return -EINVAL;
}

const char *backend_name(enum backend_kind k)
{
	switch (k) {
	case BACKEND_AUTO: return "auto";
	case BACKEND_GPU: return "gpu";
	case BACKEND_EMU: return "emu";
	}
	return "?";
}

/* Asks the driver directly (not the runtime), so nothing here links against CUDA and a
 * machine without a driver simply answers no. */
bool backend_gpu_present(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return false;
	int (*cu_init)(unsigned) = (int (*)(unsigned))dlsym(lib, "cuInit");
	int (*cu_count)(int *) = (int (*)(int *))dlsym(lib, "cuDeviceGetCount");
	int count = 0;
	bool present = cu_init && cu_count && cu_init(0) == 0 && cu_count(&count) == 0 && count > 0;
	dlclose(lib);
	return present;
}

enum backend_kind backend_resolve(enum backend_kind k)
{
	if (k != BACKEND_AUTO)
		return k;
	return backend_gpu_present() ? BACKEND_GPU : BACKEND_EMU;
}

int backend_set_emu_device(const char *name)
{
	const struct emu_device *d = emu_device_find(name);
	if (!d)
		return -EINVAL;
	return setenv("PMPPLAB_EMU_DEVICE", d->key, 1) ? -errno : 0;
}

const char *backend_emu_device_keys(void)
{
	return emu_device_keys();
}

const char *backend_emu_device_name(void)
{
	static __thread char buf[96];
	return emu_device_name(emu_device_current(NULL), buf, sizeof(buf));
}

const char *backend_label(enum backend_kind k)
{
	static __thread char buf[112];
	if (k != BACKEND_EMU)
		return backend_name(k);
	const struct emu_device *d = emu_device_current(NULL);
	snprintf(buf, sizeof(buf), "emu (emulated %s, %s)", d->model, d->arch);
	return buf;
}
