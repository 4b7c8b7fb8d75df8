/* pl_io: the file format between the grader and a lab program (student's or reference):
 * a list of named items. The request holds the params and inputs and the sizes of the
 * outputs; the result holds the outputs and a few measurements. Written in C that also
 * compiles as C++, because nvcc builds it into student programs.
 *
 * Layout (little-endian): "PMPPLAB1", u32 count, then per item:
 *   u32 kind, u32 dtype, u32 name length, name bytes, u64 count, data.
 * Data: params 8 bytes (int64); inputs and result outputs count*element size; request
 * outputs and metrics none (metrics store a double in their 8-byte data). */
#ifndef PMPPLAB_PL_IO_H
#define PMPPLAB_PL_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pl_kind { PL_PARAM = 0, PL_INPUT = 1, PL_OUTPUT = 2, PL_METRIC = 3 };

/* dtype codes match enum spec_dtype. */
enum pl_dtype { PL_F32 = 0, PL_F64 = 1, PL_I32 = 2, PL_U32 = 3, PL_U8 = 4 };

struct pl_item {
	uint32_t kind, dtype;
	char *name;
	uint64_t count;
	void *data;     /* count * element size bytes; params and metrics: 8 bytes */
	int64_t ival;   /* params */
	double dval;    /* metrics */
};

struct pl_file {
	struct pl_item *items;
	uint32_t n, cap;
};

size_t pl_dtype_size(uint32_t dtype);
/* Adds an item (name copied; data NOT copied: ownership passes to the file, which frees
 * it). Returns the item, or NULL on ENOMEM. */
struct pl_item *pl_add(struct pl_file *f, uint32_t kind, uint32_t dtype, const char *name,
		       uint64_t count, void *data);
struct pl_item *pl_find(const struct pl_file *f, uint32_t kind, const char *name);
/* 1 when A and B (either may be NULL) hold the same kind, type and count of elements,
 * with their data: safe to compare element by element. A result file comes from the
 * student's process, so check this before reading it as the reference's type. */
int pl_same_shape(const struct pl_item *a, const struct pl_item *b);
/* Returns 0, or -1 with a short reason in err. */
int pl_write(const struct pl_file *f, const char *path, char *err, size_t errlen);
int pl_read(struct pl_file *f, const char *path, char *err, size_t errlen);
void pl_release(struct pl_file *f);

#ifdef __cplusplus
}
#endif

#endif
