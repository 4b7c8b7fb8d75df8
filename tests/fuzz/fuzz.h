/* fuzz.h — what every fuzz target defines (libFuzzer's entry points). Built two ways
 * (meson.build): with clang's -fsanitize=fuzzer, libFuzzer drives the target; with any
 * other compiler, replay_main.c runs it once over each file it is given (the saved
 * corpus and the crashers), so the regression run works in every build. */
#ifndef PMPPLAB_FUZZ_H
#define PMPPLAB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string (the parsers take C strings); a NUL inside the
 * data ends it early, as it would for the program that reads such a file. Caller
 * frees. */
char *fuzz_cstr(const uint8_t *data, size_t size);
/* Writes the input to PATH (truncating); 0 or -1. */
int fuzz_write(const char *path, const uint8_t *data, size_t size);

#endif
