/* pl_io: see pl_io.h. */
#include "pl_io.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char pl_magic[8] = { 'P', 'M', 'P', 'P', 'L', 'A', 'B', '1' };

size_t pl_dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case PL_F32: case PL_I32: case PL_U32: return 4;
	case PL_F64: return 8;
	case PL_U8: return 1;
	}
	return 0;
}

struct pl_item *pl_add(struct pl_file *f, uint32_t kind, uint32_t dtype, const char *name,
		       uint64_t count, void *data)
{
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 8;
		struct pl_item *items = (struct pl_item *)realloc(f->items, cap * sizeof(*items));
		if (!items)
			return NULL;
		f->items = items;
		f->cap = cap;
	}
	struct pl_item *it = &f->items[f->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->dtype = dtype;
	it->name = strdup(name);
	it->count = count;
	it->data = data;
	return it;
}

struct pl_item *pl_find(const struct pl_file *f, uint32_t kind, const char *name)
{
	for (uint32_t i = 0; i < f->n; i++)
		if (f->items[i].kind == kind && strcmp(f->items[i].name, name) == 0)
			return &f->items[i];
	return NULL;
}

int pl_same_shape(const struct pl_item *a, const struct pl_item *b)
{
	return a && b && a->kind == b->kind && a->dtype == b->dtype && a->count == b->count &&
	       (a->count == 0 || (a->data && b->data));
}

/* Which items carry count*size bytes of data in this file. */
static int has_array(const struct pl_item *it)
{
	return it->kind == PL_INPUT || (it->kind == PL_OUTPUT && it->data);
}

int pl_write(const struct pl_file *f, const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "wb");
	if (!fp) {
		snprintf(err, errlen, "cannot create %s", path);
		return -1;
	}
	int ok = fwrite(pl_magic, 8, 1, fp) == 1 && fwrite(&f->n, 4, 1, fp) == 1;
	for (uint32_t i = 0; ok && i < f->n; i++) {
		const struct pl_item *it = &f->items[i];
		uint32_t hdr[3] = { it->kind, it->dtype, (uint32_t)strlen(it->name) };
		uint32_t flag = has_array(it) ? 1 : 0;
		ok = fwrite(hdr, 4, 3, fp) == 3 && fwrite(it->name, 1, hdr[2], fp) == hdr[2] &&
		     fwrite(&it->count, 8, 1, fp) == 1 && fwrite(&flag, 4, 1, fp) == 1;
		if (ok && it->kind == PL_PARAM)
			ok = fwrite(&it->ival, 8, 1, fp) == 1;
		else if (ok && it->kind == PL_METRIC)
			ok = fwrite(&it->dval, 8, 1, fp) == 1;
		else if (ok && flag) {
			size_t bytes = (size_t)it->count * pl_dtype_size(it->dtype);
			ok = bytes == 0 || fwrite(it->data, 1, bytes, fp) == bytes;
		}
	}
	if (fclose(fp) != 0)
		ok = 0;
	if (!ok)
		snprintf(err, errlen, "cannot write %s (disk full?)", path);
	return ok ? 0 : -1;
}

static int read_item(FILE *fp, uint64_t file_size, struct pl_file *f)
{
	uint32_t hdr[3], flag;
	uint64_t count;
	if (fread(hdr, 4, 3, fp) != 3 || hdr[0] > PL_METRIC || hdr[2] > 4096)
		return -1;
	char name[4097];
	if (fread(name, 1, hdr[2], fp) != hdr[2] || fread(&count, 8, 1, fp) != 1 ||
	    fread(&flag, 4, 1, fp) != 1)
		return -1;
	name[hdr[2]] = '\0';
	struct pl_item *it = pl_add(f, hdr[0], hdr[1], name, count, NULL);
	if (!it)
		return -1;
	if (hdr[0] == PL_PARAM)
		return fread(&it->ival, 8, 1, fp) == 1 ? 0 : -1;
	if (hdr[0] == PL_METRIC)
		return fread(&it->dval, 8, 1, fp) == 1 ? 0 : -1;
	if (!flag) /* request outputs: a size only; inputs always carry their data */
		return hdr[0] == PL_INPUT ? -1 : 0;
	/* a result is written by the student's process: an unknown type, or more data than
	 * the file holds, is a damaged file, not an allocation to attempt */
	size_t esize = pl_dtype_size(hdr[1]);
	long pos = ftell(fp);
	if (esize == 0 || pos < 0 || count > (file_size - (uint64_t)pos) / esize)
		return -1;
	size_t bytes = (size_t)count * esize;
	it->data = malloc(bytes ? bytes : 1);
	if (!it->data)
		return -1;
	return bytes == 0 || fread(it->data, 1, bytes, fp) == bytes ? 0 : -1;
}

int pl_read(struct pl_file *f, const char *path, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		snprintf(err, errlen, "cannot open %s", path);
		return -1;
	}
	char magic[8];
	uint32_t n;
	struct stat st;
	uint64_t file_size = fstat(fileno(fp), &st) == 0 ? (uint64_t)st.st_size : 0;
	int ok = fread(magic, 8, 1, fp) == 1 && memcmp(magic, pl_magic, 8) == 0 &&
		 fread(&n, 4, 1, fp) == 1;
	for (uint32_t i = 0; ok && i < n; i++)
		ok = read_item(fp, file_size, f) == 0;
	fclose(fp);
	if (!ok) {
		snprintf(err, errlen, "%s is truncated or not a pmpplab data file", path);
		pl_release(f);
		return -1;
	}
	return 0;
}

void pl_release(struct pl_file *f)
{
	for (uint32_t i = 0; i < f->n; i++) {
		free(f->items[i].name);
		free(f->items[i].data);
	}
	free(f->items);
	memset(f, 0, sizeof(*f));
}
