/* zipw: see zipw.h. */
#include "zipw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZIP_DOS_DATE 0x0021 /* 1980-01-01: a fixed date, so archives are reproducible */

uint32_t zipw_crc32(uint32_t crc, const void *data, size_t len)
{
	static uint32_t table[256];
	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	const unsigned char *p = data;
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void u16(struct zipw *z, unsigned v)
{
	fputc(v & 0xff, z->f);
	fputc((v >> 8) & 0xff, z->f);
}

static void u32(struct zipw *z, uint32_t v)
{
	u16(z, v & 0xffff);
	u16(z, v >> 16);
}

int zipw_open(struct zipw *z, const char *path)
{
	memset(z, 0, sizeof(*z));
	z->path = strdup(path);
	if (!z->path || asprintf(&z->tmp, "%s.tmp", path) < 0)
		return z->err = -ENOMEM;
	z->f = fopen(z->tmp, "wb");
	return z->f ? 0 : (z->err = -errno);
}

int zipw_add(struct zipw *z, const char *name, const void *data, size_t len, unsigned mode)
{
	if (z->err)
		return z->err;
	long at = ftell(z->f);
	struct zipw_entry *e = realloc(z->entries, (z->n + 1) * sizeof(*e));
	if (!e || at < 0 || len > UINT32_MAX || (uint64_t)at + len > UINT32_MAX)
		return z->err = e ? -EFBIG : -ENOMEM;
	z->entries = e;
	e = &z->entries[z->n++];
	*e = (struct zipw_entry){ .name = strdup(name), .crc = zipw_crc32(0, data, len),
				  .size = (uint32_t)len, .offset = (uint32_t)at, .mode = mode };
	u32(z, 0x04034b50);       /* local file header */
	u16(z, 20);               /* version needed: 2.0 */
	u16(z, 0x0800);           /* the name is UTF-8 */
	u16(z, 0);                /* stored */
	u16(z, 0);
	u16(z, ZIP_DOS_DATE);
	u32(z, e->crc);
	u32(z, e->size);
	u32(z, e->size);
	u16(z, (unsigned)strlen(name));
	u16(z, 0);
	fputs(name, z->f);
	if (len && fwrite(data, 1, len, z->f) != len)
		z->err = -EIO;
	return z->err;
}

static void central(struct zipw *z)
{
	long start = ftell(z->f);
	for (unsigned i = 0; i < z->n; i++) {
		const struct zipw_entry *e = &z->entries[i];
		u32(z, 0x02014b50);
		u16(z, (3 << 8) | 20);   /* made by Unix, 2.0: the external attributes hold the mode */
		u16(z, 20);
		u16(z, 0x0800);
		u16(z, 0);
		u16(z, 0);
		u16(z, ZIP_DOS_DATE);
		u32(z, e->crc);
		u32(z, e->size);
		u32(z, e->size);
		u16(z, (unsigned)strlen(e->name));
		u16(z, 0);
		u16(z, 0);
		u16(z, 0);
		u16(z, 0);
		u32(z, (uint32_t)(0100000 | (e->mode & 07777)) << 16);
		u32(z, e->offset);
		fputs(e->name, z->f);
	}
	long end = ftell(z->f);
	u32(z, 0x06054b50);       /* end of central directory */
	u16(z, 0);
	u16(z, 0);
	u16(z, z->n);
	u16(z, z->n);
	u32(z, (uint32_t)(end - start));
	u32(z, (uint32_t)start);
	u16(z, 0);
}

int zipw_close(struct zipw *z)
{
	if (z->f && !z->err) {
		if (z->n > 0xffff)
			z->err = -EFBIG;
		else
			central(z);
	}
	if (z->f && fclose(z->f) != 0 && !z->err)
		z->err = -EIO;
	if (z->tmp && !z->err && rename(z->tmp, z->path) != 0)
		z->err = -errno;
	if (z->tmp && z->err)
		unlink(z->tmp);
	for (unsigned i = 0; i < z->n; i++)
		free(z->entries[i].name);
	free(z->entries);
	free(z->path);
	free(z->tmp);
	int err = z->err;
	memset(z, 0, sizeof(*z));
	return err;
}
