/* backend: which machine runs the student program (docs/ARCHITECTURE.md, "Two
 * backends, one program"), and where the tools each needs are found. */
#ifndef PMPPLAB_BACKEND_H
#define PMPPLAB_BACKEND_H

#include <stdbool.h>

enum backend_kind { BACKEND_AUTO, BACKEND_GPU, BACKEND_EMU };

/* Parses "gpu", "emu" or "auto". Returns 0 or -EINVAL. */
int backend_parse(const char *s, enum backend_kind *out);
const char *backend_name(enum backend_kind k);
/* True when a CUDA driver with at least one device is present (dlopens libcuda). */
bool backend_gpu_present(void);
/* Resolves BACKEND_AUTO: the GPU when one is present, else the emulator. */
enum backend_kind backend_resolve(enum backend_kind k);

#endif
