/* cudart_registry — see cudart_registry.h. */
#include "cudart_registry.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_errors.h"
#include "cudart_report.h"

/* One fat binary (one .cu translation unit). The handle nvcc's code keeps is a pointer
 * to this struct. */
struct rt_fatbin {
	const void *wrapper;       /* __fatDeviceText */
	struct ptx_module *module; /* its own PTX, when extracted from the fat binary */
	int tried;                 /* extraction attempted (success or not) */
	cudaError_t err;           /* why it failed, returned again on every use */
};

struct rt_var {
	const void *host_var;   /* the host shadow's address: what cudaMemcpyToSymbol gets */
	char *name;             /* device name, as in the PTX */
	size_t size;
	void **managed_ptr;     /* __managed__: where the host reads the variable's address */
	struct rt_fatbin *fb;
};

/* Modules from $PMPPLAB_EMU_PTX, shared by every fat binary. */
struct rt_envptx {
	int tried;
	int err;              /* cudaError_t of the failed load, reported once */
	unsigned n;
	struct ptx_module **modules;
	char **paths;
};

static pthread_mutex_t rt_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_fatbin **rt_fatbins;
static unsigned rt_nfatbins;
static struct rt_function **rt_functions;
static unsigned rt_nfunctions;
static struct rt_var **rt_vars;
static unsigned rt_nvars;
static struct rt_envptx rt_env;

/* Grows a pointer array by one slot; 0 or -ENOMEM. */
static int rt_push(void ***arr, unsigned *n, void *item)
{
	void **grown = realloc(*arr, (*n + 1) * sizeof **arr);
	if (!grown)
		return -ENOMEM;
	grown[(*n)++] = item;
	*arr = grown;
	return 0;
}

/* ---- fat binary PTX extraction ----------------------------------------------- */

#define RT_FATBIN_WRAPPER_MAGIC 0x466243b1u
#define RT_FATBIN_MAGIC 0xba55ed50u
#define RT_FATBIN_KIND_PTX 1
#define RT_ZSTD_MAGIC 0xfd2fb528u

struct rt_fatbin_wrapper {
	int magic;
	int version;
	const unsigned char *data;
	void *filename_or_fatbins;
};

static uint32_t rt_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rt_le64(const unsigned char *p)
{
	return rt_le32(p) | (uint64_t)rt_le32(p + 4) << 32;
}

/* libzstd through dlopen: the runtime must not need its headers at build time, and a
 * missing libzstd only disables this fallback. */
static int rt_zstd_decompress(const unsigned char *src, size_t srclen, char **out, size_t *outlen)
{
	void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -ENOTSUP;
	typedef unsigned long long (*size_fn)(const void *, size_t);
	typedef size_t (*dec_fn)(void *, size_t, const void *, size_t);
	typedef unsigned (*err_fn)(size_t);
	size_fn content_size = (size_fn)(uintptr_t)dlsym(h, "ZSTD_getFrameContentSize");
	dec_fn decompress = (dec_fn)(uintptr_t)dlsym(h, "ZSTD_decompress");
	err_fn is_error = (err_fn)(uintptr_t)dlsym(h, "ZSTD_isError");
	int rc = -ENOTSUP;
	if (!content_size || !decompress || !is_error)
		goto out_close;
	unsigned long long n = content_size(src, srclen);
	rc = -EINVAL;
	if (n >= (1ull << 32)) /* unknown or error sizes are huge values */
		goto out_close;
	rc = -ENOMEM;
	char *buf = malloc(n + 1);
	if (!buf)
		goto out_close;
	size_t got = decompress(buf, n, src, srclen);
	if (is_error(got)) {
		free(buf);
		rc = -EINVAL;
		goto out_close;
	}
	buf[got] = '\0';
	*out = buf;
	*outlen = strnlen(buf, got); /* the text is NUL-padded */
	rc = 0;
out_close:
	dlclose(h);
	return rc;
}

int rt_registry_fatbin_ptx(const void *wrapper, char **out, size_t *len)
{
	const struct rt_fatbin_wrapper *w = wrapper;
	if (!w || (uint32_t)w->magic != RT_FATBIN_WRAPPER_MAGIC || !w->data)
		return -EINVAL;
	const unsigned char *d = w->data;
	if (rt_le32(d) != RT_FATBIN_MAGIC)
		return -EINVAL;
	unsigned hsize = (unsigned)(d[6] | d[7] << 8);
	uint64_t fsize = rt_le64(d + 8);
	const unsigned char *p = d + hsize, *end = d + hsize + fsize;
	while (p + 16 <= end) {
		unsigned kind = (unsigned)(p[0] | p[1] << 8);
		uint32_t ehsize = rt_le32(p + 4);
		uint64_t psize = rt_le64(p + 8);
		const unsigned char *payload = p + ehsize;
		if (ehsize < 16 || payload + psize > end)
			return -EINVAL;
		if (kind == RT_FATBIN_KIND_PTX) {
			/* the payload is padded; the exact compressed size is the entry
			 * header's first field after the payload size */
			uint64_t csize = ehsize >= 20 ? rt_le32(p + 16) : 0;
			if (csize == 0 || csize > psize)
				csize = psize;
			if (psize >= 4 && rt_le32(payload) == RT_ZSTD_MAGIC)
				return rt_zstd_decompress(payload, csize, out, len);
			if (psize >= 2 && (payload[0] == '/' || payload[0] == '.' ||
					   payload[0] == '\n')) {
				char *buf = malloc(psize + 1);
				if (!buf)
					return -ENOMEM;
				memcpy(buf, payload, psize);
				buf[psize] = '\0';
				*len = strnlen(buf, psize); /* padding is NUL */
				*out = buf;
				return 0;
			}
			return -ENOTSUP; /* another compression (LZ4 of older nvcc) */
		}
		p = payload + psize;
	}
	return -ENOENT;
}

/* ---- module loading ---------------------------------------------------------- */

static int rt_read_file(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int rc = 0;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 262144;
			char *grown = realloc(buf, cap);
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			buf = grown;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (!rc && ferror(f))
		rc = -EIO;
	fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Parses one PTX text; reports a parse error as the emulator's diagnostic. */
static cudaError_t rt_load_text(const char *text, size_t len, const char *path,
				struct ptx_module **out)
{
	char err[512] = "";
	int rc = ptx_module_load(text, len, path, out, err, sizeof err);
	if (rc == 0)
		return cudaSuccess;
	if (rc == -ENOMEM)
		return cudaErrorMemoryAllocation;
	rt_report_error("%s", err[0] ? err : path);
	rt_report_error("the emulator cannot load this PTX; if it came from nvcc, run the "
			"program with --backend gpu and report the line above");
	return cudaErrorInvalidPtx;
}

/* Loads every file of $PMPPLAB_EMU_PTX, once. Caller holds rt_reg_lock. */
static cudaError_t rt_env_load(const char *list)
{
	if (rt_env.tried)
		return (cudaError_t)rt_env.err;
	rt_env.tried = 1;
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return (cudaError_t)(rt_env.err = cudaErrorMemoryAllocation);
	for (char *path = strtok_r(copy, ":", &save); path; path = strtok_r(NULL, ":", &save)) {
		char *text = NULL;
		size_t len = 0;
		int rc = rt_read_file(path, &text, &len);
		if (rc) {
			rt_report_error("cannot read the PTX file %s named by PMPPLAB_EMU_PTX: %s",
					path, strerror(-rc));
			rt_env.err = cudaErrorNoKernelImageForDevice;
			break;
		}
		struct ptx_module *m = NULL;
		cudaError_t e = rt_load_text(text, len, path, &m);
		free(text);
		if (e) {
			rt_env.err = e;
			break;
		}
		char *pcopy = strdup(path);
		struct ptx_module **mm = realloc(rt_env.modules, (rt_env.n + 1) * sizeof *mm);
		char **pp = pcopy ? realloc(rt_env.paths, (rt_env.n + 1) * sizeof *pp) : NULL;
		if (mm)
			rt_env.modules = mm;
		if (pp)
			rt_env.paths = pp;
		if (!mm || !pp) {
			free(pcopy);
			ptx_module_free(m);
			rt_env.err = cudaErrorMemoryAllocation;
			break;
		}
		rt_env.modules[rt_env.n] = m;
		rt_env.paths[rt_env.n++] = pcopy;
	}
	free(copy);
	return (cudaError_t)rt_env.err;
}

/* Extracts and loads fb's own PTX, once. Caller holds rt_reg_lock. */
static cudaError_t rt_fatbin_load(struct rt_fatbin *fb)
{
	if (fb->tried)
		return fb->module ? cudaSuccess : fb->err;
	fb->tried = 1;
	fb->err = cudaErrorNoKernelImageForDevice;
	char *text = NULL;
	size_t len = 0;
	int rc = rt_registry_fatbin_ptx(fb->wrapper, &text, &len);
	if (rc) {
		rt_report_error("this program carries no PTX the emulator can read (%s); run it "
				"with `pmpplab run FILE.cu`, or build the PTX with "
				"`nvcc -ptx -lineinfo -o prog.ptx prog.cu` and set "
				"PMPPLAB_EMU_PTX=prog.ptx",
				rc == -ENOTSUP ? "its PTX is compressed and libzstd.so.1 is missing"
				: rc == -ENOENT ? "the fat binary holds machine code only"
						: "unrecognised fat binary");
		return cudaErrorNoKernelImageForDevice;
	}
	cudaError_t e = rt_load_text(text, len, "(PTX embedded in the program)", &fb->module);
	free(text);
	fb->err = e;
	return e;
}

/* The kernel named mangled in the modules fb's code can see. */
static cudaError_t rt_find_kernel(struct rt_fatbin *fb, const char *mangled,
				  const struct ptx_module **mod, const struct ptx_kernel **k)
{
	const char *list = getenv("PMPPLAB_EMU_PTX");
	if (list && *list) {
		cudaError_t e = rt_env_load(list);
		if (e)
			return e;
		for (unsigned i = 0; i < rt_env.n; i++) {
			*k = ptx_module_kernel(rt_env.modules[i], mangled);
			if (*k) {
				*mod = rt_env.modules[i];
				return cudaSuccess;
			}
		}
		return cudaErrorInvalidDeviceFunction;
	}
	cudaError_t e = rt_fatbin_load(fb);
	if (e)
		return e;
	*k = ptx_module_kernel(fb->module, mangled);
	*mod = fb->module;
	return *k ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

static cudaError_t rt_find_symbol(struct rt_fatbin *fb, const char *name, devaddr_t *addr,
				  size_t *size)
{
	const char *list = getenv("PMPPLAB_EMU_PTX");
	if (list && *list) {
		cudaError_t e = rt_env_load(list);
		if (e)
			return e;
		for (unsigned i = 0; i < rt_env.n; i++)
			if (ptx_module_symbol(rt_env.modules[i], name, addr, size) == 0)
				return cudaSuccess;
		return cudaErrorInvalidSymbol;
	}
	cudaError_t e = rt_fatbin_load(fb);
	if (e)
		return e;
	return ptx_module_symbol(fb->module, name, addr, size) == 0 ? cudaSuccess
								    : cudaErrorInvalidSymbol;
}

/* Right after the PTX loads: name every kernel the program registered that the PTX
 * lacks (a PTX file built from another version of the source), once, before any launch
 * fails on one of them. Caller holds rt_reg_lock. */
static void rt_check_registered(void)
{
	char missing[1024] = "";
	size_t at = 0;
	unsigned n = 0;
	for (unsigned i = 0; i < rt_nfunctions; i++) {
		const struct ptx_module *m;
		const struct ptx_kernel *k;
		if (rt_find_kernel(rt_functions[i]->fatbin, rt_functions[i]->mangled, &m, &k) !=
		    cudaErrorInvalidDeviceFunction)
			continue;
		/* the device runtime's own kernels (libcudadevrt, linked in by a program built
		 * with -rdc for dynamic parallelism): not in the program's PTX, never launched */
		if (strstr(rt_functions[i]->mangled, "_cuda_device_runtime_cu_"))
			continue;
		if (at < sizeof missing)
			at += (size_t)snprintf(missing + at, sizeof missing - at, "%s%s",
					       n ? ", " : "", rt_functions[i]->name);
		n++;
	}
	if (n)
		rt_report_error("the program registers %u kernel%s that %s PTX lacks: %s; rebuild "
				"the PTX from the same .cu file (nvcc -ptx -lineinfo -o prog.ptx "
				"prog.cu)", n, n > 1 ? "s" : "",
				getenv("PMPPLAB_EMU_PTX") ? "the PMPPLAB_EMU_PTX" : "the embedded",
				missing);
}

/* ---- lookups ------------------------------------------------------------------ */

struct rt_function *rt_registry_function(const void *hfun)
{
	struct rt_function *found = NULL;
	pthread_mutex_lock(&rt_reg_lock);
	for (unsigned i = 0; i < rt_nfunctions && !found; i++)
		if (rt_functions[i]->host_fun == hfun || (const void *)rt_functions[i] == hfun)
			found = rt_functions[i];
	pthread_mutex_unlock(&rt_reg_lock);
	return found;
}

cudaError_t rt_registry_resolve(struct rt_function *f)
{
	cudaError_t e = cudaSuccess;
	pthread_mutex_lock(&rt_reg_lock);
	if (f->kernel)
		goto out_unlock;
	static int checked;
	e = rt_find_kernel(f->fatbin, f->mangled, &f->module, &f->kernel);
	if (!checked && (e == cudaSuccess || e == cudaErrorInvalidDeviceFunction)) {
		checked = 1;
		rt_check_registered();
	}
	if (e == cudaErrorInvalidDeviceFunction) {
		const char *list = getenv("PMPPLAB_EMU_PTX");
		rt_report_error("kernel %s (%s) is launched by the program but is not in %s: "
				"rebuild the PTX from the same .cu file "
				"(nvcc -ptx -lineinfo -o prog.ptx prog.cu)",
				f->name, f->mangled,
				list && *list ? list : "the program's embedded PTX");
		f->kernel = NULL;
	}
out_unlock:
	pthread_mutex_unlock(&rt_reg_lock);
	return e;
}

cudaError_t rt_registry_symbol(const void *host_var, devaddr_t *addr, size_t *size)
{
	struct rt_var *v = NULL;
	pthread_mutex_lock(&rt_reg_lock);
	for (unsigned i = 0; i < rt_nvars && !v; i++)
		if (rt_vars[i]->host_var == host_var)
			v = rt_vars[i];
	cudaError_t e = v ? rt_find_symbol(v->fb, v->name, addr, size) : cudaErrorInvalidSymbol;
	pthread_mutex_unlock(&rt_reg_lock);
	if (v && e == cudaErrorInvalidSymbol)
		rt_report_error("variable %s is registered by the program but is not in its PTX: "
				"rebuild the PTX from the same .cu file",
				v->name);
	return e;
}

void rt_registry_unload(void)
{
	pthread_mutex_lock(&rt_reg_lock);
	for (unsigned i = 0; i < rt_nfunctions; i++) {
		rt_functions[i]->module = NULL;
		rt_functions[i]->kernel = NULL;
	}
	for (unsigned i = 0; i < rt_nfatbins; i++) {
		ptx_module_free(rt_fatbins[i]->module);
		rt_fatbins[i]->module = NULL;
		rt_fatbins[i]->tried = 0;
	}
	for (unsigned i = 0; i < rt_env.n; i++) {
		ptx_module_free(rt_env.modules[i]);
		free(rt_env.paths[i]);
	}
	free(rt_env.modules);
	free(rt_env.paths);
	memset(&rt_env, 0, sizeof rt_env);
	pthread_mutex_unlock(&rt_reg_lock);
}

/* ---- entry points nvcc's generated code calls --------------------------------- */

void **__cudaRegisterFatBinary(void *fatCubin)
{
	rt_report_init();
	struct rt_fatbin *fb = calloc(1, sizeof *fb);
	if (!fb)
		return NULL;
	fb->wrapper = fatCubin;
	pthread_mutex_lock(&rt_reg_lock);
	if (rt_push((void ***)&rt_fatbins, &rt_nfatbins, fb)) {
		free(fb);
		fb = NULL;
	}
	pthread_mutex_unlock(&rt_reg_lock);
	return (void **)fb;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
	(void)fatCubinHandle; /* registration is complete; the PTX is loaded lazily */
}

/* Runs at exit (atexit from nvcc's code): free what the fat binary loaded. */
void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
	struct rt_fatbin *fb = (struct rt_fatbin *)fatCubinHandle;
	if (!fb)
		return;
	pthread_mutex_lock(&rt_reg_lock);
	ptx_module_free(fb->module);
	fb->module = NULL;
	fb->tried = 1; /* a launch from another atexit handler must not reload it */
	for (unsigned i = 0; i < rt_nfunctions; i++)
		if (rt_functions[i]->fatbin == fb) {
			rt_functions[i]->module = NULL;
			rt_functions[i]->kernel = NULL;
		}
	pthread_mutex_unlock(&rt_reg_lock);
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, void *tid, void *bid,
			    void *bDim, void *gDim, int *wSize)
{
	(void)deviceName, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim,
		(void)wSize;
	struct rt_function *f = calloc(1, sizeof *f);
	if (!f)
		return;
	f->host_fun = hostFun;
	f->mangled = deviceFun; /* a string literal in the program: lives forever */
	f->fatbin = (struct rt_fatbin *)fatCubinHandle;
	rt_report_kernel_name(deviceFun, f->name, sizeof f->name);
	pthread_mutex_lock(&rt_reg_lock);
	if (rt_push((void ***)&rt_functions, &rt_nfunctions, f) == 0)
		f = NULL;
	pthread_mutex_unlock(&rt_reg_lock);
	free(f); /* only on allocation failure */
}

static void rt_register_var(void **handle, const void *host_var, void **managed_ptr,
			    const char *name, size_t size)
{
	struct rt_var *v = calloc(1, sizeof *v);
	if (!v)
		return;
	v->host_var = host_var;
	v->name = strdup(name);
	v->size = size;
	v->managed_ptr = managed_ptr;
	v->fb = (struct rt_fatbin *)handle;
	pthread_mutex_lock(&rt_reg_lock);
	if (v->name && rt_push((void ***)&rt_vars, &rt_nvars, v) == 0)
		v = NULL;
	pthread_mutex_unlock(&rt_reg_lock);
	if (v) {
		free(v->name);
		free(v);
	}
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
		       const char *deviceName, int ext, size_t size, int constant, int global)
{
	(void)deviceAddress, (void)ext, (void)constant, (void)global;
	rt_register_var(fatCubinHandle, hostVar, NULL, deviceName, size);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
			      char *deviceAddress, const char *deviceName, int ext, size_t size,
			      int constant, int global)
{
	(void)deviceAddress, (void)ext, (void)constant, (void)global;
	rt_register_var(fatCubinHandle, hostVarPtrAddress, hostVarPtrAddress, deviceName, size);
}

/* Called before host code touches a __managed__ variable: point the host's pointer at
 * the variable's backing memory, which is what kernels read and write. Returns 1 when
 * every managed variable of the module could be bound. */
char __cudaInitModule(void **fatCubinHandle)
{
	char ok = 1;
	for (unsigned i = 0; i < rt_nvars; i++) {
		struct rt_var *v = rt_vars[i];
		if (!v->managed_ptr || v->fb != (struct rt_fatbin *)fatCubinHandle)
			continue;
		devaddr_t addr;
		size_t size;
		void *host;
		if (rt_registry_symbol(v->host_var, &addr, &size) != cudaSuccess ||
		    !(host = devmem_host(addr, size))) {
			ok = 0;
			continue;
		}
		*v->managed_ptr = host;
	}
	return ok;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
	struct rt_function *f = rt_registry_function(hostFun);
	if (!kernel)
		return rt_error_set(cudaErrorInvalidValue);
	*kernel = (cudaKernel_t)f;
	return f ? cudaSuccess : rt_error_set(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!devPtr)
		return rt_error_set(cudaErrorInvalidValue);
	devaddr_t addr;
	size_t size;
	e = rt_registry_symbol(symbol, &addr, &size);
	if (e)
		return rt_error_set(e);
	*devPtr = (void *)(uintptr_t)addr;
	return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
	cudaError_t e = rt_error_enter();
	if (e)
		return e;
	if (!size)
		return rt_error_set(cudaErrorInvalidValue);
	devaddr_t addr;
	e = rt_registry_symbol(symbol, &addr, size);
	return e ? rt_error_set(e) : cudaSuccess;
}
