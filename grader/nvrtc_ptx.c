/* pmpplab-nvrtc-ptx: the emulator's fast build compiles a file's device view (hostview.h)
 * to PTX with NVRTC, the toolkit's compiler library, instead of `nvcc -ptx` (issue 16):
 * the same front end and NVVM without nvcc's driver, the host preprocessor and cicc's
 * process, about 10x less CPU time a save. build_compile.c runs it in the sandbox like every
 * compiler of student code; a program of its own, since the sandbox is bubblewrap
 * exec'ing a command.
 *
 * usage: pmpplab-nvrtc-ptx LIBNVRTC SOURCE NAME OUT [OPTION...]
 * Compiles SOURCE, naming it NAME in diagnostics and line info, with NVRTC's OPTIONs;
 * writes the PTX to OUT. Exits 0 only when the compile succeeded and said nothing: a
 * warning or error (on stderr) exits 1, and build_compile.c then compiles with nvcc, whose
 * messages the student gets, as without this. Exits 2 when LIBNVRTC cannot be used. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nvrtc.h's entry points, declared here so the program builds without the toolkit. */
typedef struct nvrtc_program *nvrtc_program;
typedef int (*create_fn)(nvrtc_program *, const char *, const char *, int, const char *const *,
			 const char *const *);
typedef int (*compile_fn)(nvrtc_program, int, const char *const *);
typedef int (*size_fn)(nvrtc_program, size_t *);
typedef int (*get_fn)(nvrtc_program, char *);

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[65536];
	size_t n;
	while (m && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	if (m)
		fclose(m);
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: pmpplab-nvrtc-ptx LIBNVRTC SOURCE NAME OUT [OPTION...]\n");
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "pmpplab-nvrtc-ptx: %s\n", dlerror());
		return 2;
	}
	create_fn create = (create_fn)dlsym(lib, "nvrtcCreateProgram");
	compile_fn compile = (compile_fn)dlsym(lib, "nvrtcCompileProgram");
	size_fn log_size = (size_fn)dlsym(lib, "nvrtcGetProgramLogSize"),
		ptx_size = (size_fn)dlsym(lib, "nvrtcGetPTXSize");
	get_fn get_log = (get_fn)dlsym(lib, "nvrtcGetProgramLog"), get_ptx = (get_fn)dlsym(lib, "nvrtcGetPTX");
	if (!create || !compile || !log_size || !ptx_size || !get_log || !get_ptx) {
		fprintf(stderr, "pmpplab-nvrtc-ptx: %s lacks NVRTC's entry points\n", argv[1]);
		return 2;
	}
	char *src = slurp(argv[2]);
	if (!src) {
		fprintf(stderr, "pmpplab-nvrtc-ptx: cannot read %s\n", argv[2]);
		return 2;
	}
	nvrtc_program prog;
	if (create(&prog, src, argv[3], 0, NULL, NULL) != 0) {
		fprintf(stderr, "pmpplab-nvrtc-ptx: nvrtcCreateProgram failed\n");
		return 2;
	}
	int rc = compile(prog, argc - 5, (const char *const *)argv + 5) ? 1 : 0;
	free(src);
	size_t n = 0;
	char *log = log_size(prog, &n) == 0 && n ? malloc(n + 1) : NULL;
	if (log && get_log(prog, log) == 0) {
		log[n] = '\0';
		if (strspn(log, " \t\r\n") < strlen(log)) { /* a warning: nvcc says it */
			fputs(log, stderr);
			rc = 1;
		}
	}
	free(log);
	char *ptx = !rc && ptx_size(prog, &n) == 0 && n ? malloc(n) : NULL;
	if (!rc) {
		FILE *out = ptx && get_ptx(prog, ptx) == 0 ? fopen(argv[4], "wb") : NULL;
		size_t len = out ? strnlen(ptx, n) : 0;
		int bad = !out || fwrite(ptx, 1, len, out) != len;
		if ((out && fclose(out) != 0) || bad) {
			fprintf(stderr, "pmpplab-nvrtc-ptx: cannot write %s\n", argv[4]);
			rc = 2;
		}
	}
	free(ptx);
	return rc;
}
