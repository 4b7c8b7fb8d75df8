/* The zip writer (grader/zipw.h): CRC-32, and an archive Python's zipfile and unzip read
 * back with its names, bytes and modes (checked by e2e_gradescope.sh); here the layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsutil.h"
#include "zipw.h"

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_crc(void **state)
{
	(void)state;
	assert_int_equal(zipw_crc32(0, "123456789", 9), 0xcbf43926u); /* the check value */
	assert_int_equal(zipw_crc32(zipw_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
	assert_int_equal(zipw_crc32(0, "", 0), 0);
}

static void test_archive(void **state)
{
	(void)state;
	char path[] = "/tmp/pmpplab-zip-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	struct zipw z;
	assert_int_equal(zipw_open(&z, path), 0);
	assert_int_equal(zipw_add(&z, "run_autograder", "#!/bin/sh\n", 10, 0755), 0);
	assert_int_equal(zipw_add(&z, "pmpplab/a.txt", "hello", 5, 0644), 0);
	assert_int_equal(zipw_close(&z), 0);
	size_t len;
	unsigned char *b = (unsigned char *)fs_read(path, &len);
	assert_non_null(b);
	assert_int_equal(le32(b), 0x04034b50);
	/* end of central directory: 2 entries, the directory where it says */
	const unsigned char *end = b + len - 22;
	assert_int_equal(le32(end), 0x06054b50);
	assert_int_equal(end[10] | end[11] << 8, 2);
	const unsigned char *cd = b + le32(end + 16);
	assert_int_equal(le32(cd), 0x02014b50);
	assert_int_equal(le32(cd + 16), zipw_crc32(0, "#!/bin/sh\n", 10));
	assert_int_equal(le32(cd + 38) >> 16, 0100755);   /* the mode, so scripts run */
	assert_memory_equal(cd + 46, "run_autograder", 14);
	assert_memory_equal(b + 30 + 14, "#!/bin/sh\n", 10); /* stored as is */
	free(b);
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	/* a failed archive leaves nothing behind */
	assert_true(zipw_open(&z, "/nonexistent/dir/a.zip") < 0);
	assert_true(zipw_close(&z) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc),
		cmocka_unit_test(test_archive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
