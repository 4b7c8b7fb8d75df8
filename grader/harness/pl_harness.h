/* pl_harness: the small runtime linked into every lab program. Its main() reads the
 * grader's request, calls pl_entry() (generated per lab: it calls the student's or the
 * reference's function with the lab's arguments), checks for pending CUDA errors, and
 * writes the outputs back. Usage: prog REQUEST RESULT. */
#ifndef PMPPLAB_PL_HARNESS_H
#define PMPPLAB_PL_HARNESS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses the grader understands (anything else is the program's own). */
enum {
	PL_EXIT_IO = 70,    /* the harness could not read its request or write its result */
	PL_EXIT_CUDA = 71,  /* a CUDA error was pending when the entry point returned */
	PL_EXIT_OVERRUN = 72, /* the entry point wrote past the end of an output buffer */
};

/* The host buffer of input or output NAME (outputs are pre-filled with 0xFF bytes, so a
 * result never written is recognisable). Exits with PL_EXIT_IO if there is none. */
void *pl_buffer(const char *name);
/* The value of param NAME. */
long long pl_param(const char *name);

/* Defined by the generated glue. */
void pl_entry(void);

#ifdef __cplusplus
}
#endif

#endif
