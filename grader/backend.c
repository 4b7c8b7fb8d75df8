/* backend: see backend.h. */
#include "backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

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
