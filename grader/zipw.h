/* zipw: writes a zip archive (PKWARE APPNOTE 6.3: stored entries, no compression),
 * enough for a Gradescope autograder bundle without depending on a zip program. Entries
 * carry their Unix mode (so scripts stay executable) and a fixed date, so the same
 * inputs give the same bytes. The archive is written to PATH.tmp and renamed into place
 * by zipw_close, so a failed export never leaves half an archive. */
#ifndef PMPPLAB_ZIPW_H
#define PMPPLAB_ZIPW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct zipw_entry {
	char *name;
	uint32_t crc, size, offset;
	unsigned mode;
};

struct zipw {
	FILE *f;
	char *path, *tmp;
	struct zipw_entry *entries;
	unsigned n;
	int err;          /* the first error (-errno); later calls do nothing */
};

/* 0 or -errno. */
int zipw_open(struct zipw *z, const char *path);
/* Adds NAME (a relative path with '/') holding DATA; MODE is its Unix permission bits. */
int zipw_add(struct zipw *z, const char *name, const void *data, size_t len, unsigned mode);
/* Writes the central directory and renames the archive into place; on an earlier error
 * removes it instead. Returns the first error, or 0. */
int zipw_close(struct zipw *z);

/* CRC-32 (ISO-HDLC, the zip one) of DATA, continued from CRC (0 to start). */
uint32_t zipw_crc32(uint32_t crc, const void *data, size_t len);

#endif
