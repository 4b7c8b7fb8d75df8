/* ptx — a parsed, decoded PTX module.
 *
 * ptx_module_load() parses the text nvcc emits (`nvcc -ptx -lineinfo`, any -O level)
 * once into a compact decoded form (see ptx_internal.h) that the interpreter (exec.h)
 * runs. .global/.const variables are allocated in devmem (DEVMEM_SYMBOL) and
 * initialised at load. The library never prints: errors come back in err.
 */
#ifndef PMPPLAB_EMU_PTX_H
#define PMPPLAB_EMU_PTX_H

#include <stddef.h>
#include "devmem.h"

struct ptx_module;
struct ptx_kernel;

/* Parses text[0..len). path names the file in messages. On success returns 0 and
 * *out (free with ptx_module_free). On failure returns a negative code:
 *   -EINVAL   syntax error, err = "file.ptx:LINE: what"
 *   -ENOTSUP  a feature the emulator refuses at load (none today: unsupported
 *             instructions are decoded to a trap that faults when executed, so a
 *             module with an unused wmma kernel still loads)
 *   -ENOMEM
 * err may be NULL. */
int ptx_module_load(const char *text, size_t len, const char *path,
		    struct ptx_module **out, char *err, size_t errlen);
/* The same for the PTX file at PATH; a file that cannot be read is -errno, with the
 * reason in err. */
int ptx_module_load_file(const char *path, struct ptx_module **out, char *err, size_t errlen);
void ptx_module_free(struct ptx_module *m);

/* The .entry named mangled, or NULL. */
const struct ptx_kernel *ptx_module_kernel(const struct ptx_module *m, const char *mangled);
unsigned ptx_module_nkernels(const struct ptx_module *m);
const struct ptx_kernel *ptx_module_kernel_at(const struct ptx_module *m, unsigned i);

unsigned ptx_kernel_nparams(const struct ptx_kernel *k);
size_t ptx_kernel_param_size(const struct ptx_kernel *k, unsigned i);
size_t ptx_kernel_param_offset(const struct ptx_kernel *k, unsigned i);
size_t ptx_kernel_static_shared(const struct ptx_kernel *k);
size_t ptx_kernel_local_size(const struct ptx_kernel *k);
unsigned ptx_kernel_nregs(const struct ptx_kernel *k);
const char *ptx_kernel_name(const struct ptx_kernel *k);

/* The source name of a variable from its PTX name: the last component of a mangled
 * local (_ZZ4funcE4tile, _ZZ4funcE4tile_0: tile) or the name itself. */
void ptx_var_name(const char *name, char *out, size_t len);

/* A .global/.const variable of the module (allocated in devmem). 0 or -ENOENT. */
int ptx_module_symbol(const struct ptx_module *m, const char *name, devaddr_t *addr,
		      size_t *size);

#endif
