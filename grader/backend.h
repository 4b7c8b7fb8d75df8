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

/* Picks the GPU model the emulator presents itself as and builds for (--emu-device):
 * "h100", "a100", "4090", "t4" or an architecture ("sm_80"). Sets PMPPLAB_EMU_DEVICE,
 * which every program pmpplab starts inherits. Returns 0 or -EINVAL (unknown name). */
int backend_set_emu_device(const char *name);
/* The names --emu-device takes, for messages: "h100, a100, 4090, t4". */
const char *backend_emu_device_keys(void);
/* The emulator's device as shown to people: "pmpplab emulated H100 (sm_90)". */
const char *backend_emu_device_name(void);
/* What a report or title says a backend is: "gpu", or "emu (emulated H100, sm_90)". */
const char *backend_label(enum backend_kind k);

#endif
