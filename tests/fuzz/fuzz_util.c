/* fuzz_util: helpers shared by the fuzz targets (fuzz.h). */
#include "fuzz.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

int fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	return off == size ? 0 : -1;
}
