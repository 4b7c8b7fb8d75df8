/* replay_main: runs a fuzz target once over every file named on the command line, or
 * every file in every folder named (the regression run of a build without libFuzzer).
 * Prints how many inputs ran; a crash is the test's failure, as under libFuzzer. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		return -1;
	/* an exact-size copy, so that ASan sees reads past the end */
	unsigned char *data = malloc(n ? n : 1);
	memcpy(data, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(data, n);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	unsigned ran = 0;
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') /* libFuzzer's flags (-runs=N...) mean nothing here */
			continue;
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			bad = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]) != 0;
			ran++;
			continue;
		}
		struct dirent **names;
		int n = scandir(argv[i], &names, NULL, alphasort);
		for (int k = 0; k < n; k++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
			if (names[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				bad |= run_file(path) != 0;
				ran++;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("replayed %u inputs\n", ran);
	return bad || ran == 0; /* nothing replayed measures nothing */
}
