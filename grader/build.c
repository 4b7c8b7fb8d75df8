/* build: the builds of build.h: the tools each backend needs, the content-hash key and
 * cache, and the reuse of host programs; the compiles themselves are build_compile.c's. */
#include "build.h"
#include "build_internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_device.h"
#include "fsutil.h"
#include "glue.h"
#include "hostview.h"
#include "incl.h"
#include "paths.h"

static void job_release(struct job *j)
{
	free(j->glue);
	free(j->user_dir);
	free(j->hidden[0]);
	free(j->hidden[1]);
	free(j->tool);
	free(j->harness);
	free(j->emulib);
	free(j->nvrtc_tool);
	free(j->nvrtc_lib);
	free(j->nvrtc_inc);
	free(j->device);
}

/* The key of the build, or with HOST_VIEW (hostview.h) the key of its host program. */
static void job_hash(const struct job *j, const char *host_view, char hex[33])
{
	struct fs_hash h;
	fs_hash_init(&h);
	fs_hash_str(&h, "pmpplab-build-4"); /* 4: + pl_timing, GPU timing flags */
	if (host_view)
		fs_hash_str(&h, "host program 1");
	fs_hash_str(&h, backend_name(j->backend));
	if (j->want_ptx)
		fs_hash_str(&h, "barriers-ptx-native"); /* issue 6; the binary's architecture */
	fs_hash_str(&h, j->arch);
	if (j->rdc)
		fs_hash_str(&h, "-rdc=true");
	if (j->openmp)
		fs_hash_str(&h, "-fopenmp");
	fs_hash_str(&h, j->tool);
	if (j->glue)
		fs_hash_str(&h, j->glue);
	if (host_view) { /* a host view trusts no header of the folder's (hostview.h) */
		fs_hash_str(&h, host_view);
	} else {
		if (j->nvrtc_tool) /* its PTX is another text: cached apart (build.h) */
			fs_hash_str(&h, "ptx by nvrtc 1");
		fs_hash_file(&h, j->user_source);
		if (j->user_dir)
			incl_hash_folder(&h, j->user_dir);
	}
	for (unsigned i = 0; i < j->n_flags; i++)
		fs_hash_str(&h, j->flags[i]);
	if (j->lab) {
		/* pl_timing, pl_counters: pmpplab perf (issue 8). */
		static const char *files[] = { "pl_harness.c", "pl_harness.h", "pl_io.c", "pl_io.h",
					       "pl_timing.c", "pl_timing.h", "pl_counters.c",
					       "pl_counters.h", "pl_provenance.c", "pl_provenance.h" };
		for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/%s", j->harness, files[i]);
			fs_hash_file(&h, path);
		}
	}
	if (j->emulib) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/libpmpplab_cudart.so", j->emulib);
		fs_hash_str(&h, path);
	}
	fs_hash_hex(&h, hex);
}

/* Where the host program of J would be kept for reuse (issue 16): an emulator build of
 * student code (a lab's or `pmpplab run`'s) whose file has a host view to trust
 * (hostview.h), unless PMPPLAB_FAST_BUILD=0. With NVRTC, takes the file's device view
 * too (the same reading). */
static bool job_host_prog(struct job *j, const char *cache, char *path, size_t len)
{
	const char *env = getenv("PMPPLAB_FAST_BUILD");
	bool fast = !(env && strcmp(env, "0") == 0);
	if (j->backend != BACKEND_EMU || !j->user_dir || (!fast && !j->nvrtc_tool) || j->rdc)
		return false;
	size_t n = 0;
	char *text = fs_read(j->user_source, &n);
	struct hostview v = { 0 };
	bool ok = text && hostview_make(text, n, &v) == 0 && !v.doubt;
	if (ok && fast) {
		char hex[33];
		job_hash(j, v.text, hex);
		snprintf(path, len, "%s/host/%s", cache, hex);
	}
	if (ok && j->nvrtc_tool) {
		j->device = v.device;
		v.device = NULL;
	}
	hostview_release(&v);
	free(text);
	return ok && fast;
}

/* Keeps the program PROG of a build that said nothing (no warning: those of its device
 * code could not be told apart later) as the host program HOST_PROG. */
static void job_keep_host(const struct build_result *out, const char *prog, const char *host_prog)
{
	if (out->diags.n || (out->log && *out->log))
		return;
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	snprintf(dir, sizeof(dir), "%s", host_prog);
	*strrchr(dir, '/') = '\0';
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d.%lx", host_prog, (int)getpid(), (unsigned long)pthread_self());
	if (paths_mkdirs(dir) == 0 && link(prog, tmp) == 0 && rename(tmp, host_prog) != 0)
		unlink(tmp);
}

/* J's folder in the build cache; whether a build of it is there. */
static bool job_cached(const struct job *j, char dir[PATH_MAX])
{
	char *cache = paths_cache_dir();
	char hex[33], prog[PATH_MAX + 8], ptx[PATH_MAX + 8];
	job_hash(j, NULL, hex);
	snprintf(dir, PATH_MAX, "%s/build/%s", cache ? cache : "/tmp/pmpplab-cache", hex);
	free(cache);
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(ptx, sizeof(ptx), "%s/prog.ptx", dir);
	return access(prog, X_OK) == 0 &&
	       ((j->backend != BACKEND_EMU && !j->want_ptx) || access(ptx, R_OK) == 0);
}

static int job_run(struct job *j, struct build_result *out, struct diag_list *errs)
{
	char *cache = paths_cache_dir();
	char dir[PATH_MAX], host_prog[PATH_MAX];
	const char *root = cache ? cache : "/tmp/pmpplab-cache";
	bool reusable = job_host_prog(j, root, host_prog, sizeof(host_prog));
	free(cache);
	char prog[PATH_MAX + 8], ptx[PATH_MAX + 8];
	bool cached = job_cached(j, dir);
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(ptx, sizeof(ptx), "%s/prog.ptx", dir);
	int rc = 0;
	if (cached) {
		out->cached = true;
	} else {
		char parent[PATH_MAX];
		snprintf(parent, sizeof(parent), "%s", dir);
		*strrchr(parent, '/') = '\0';
		if ((rc = paths_mkdirs(parent)) < 0) {
			diag_add(errs, DIAG_ERROR, parent, 0, 0, "cannot create the build cache: %s; set PMPPLAB_CACHE to a writable folder",
				 strerror(-rc));
			return rc;
		}
		static int swept; /* once a process: what killed builds left in the cache */
		if (!__atomic_exchange_n(&swept, 1, __ATOMIC_RELAXED))
			fs_sweep_stale(parent);
		rc = reusable && access(host_prog, X_OK) == 0 ? build_compile_fast(j, dir, host_prog, out)
							      : -EAGAIN;
		if (rc == -EAGAIN) {
			out->ms_ptx = 0;
			rc = build_compile(j, dir, out);
			if (rc == 0 && reusable)
				job_keep_host(out, prog, host_prog);
		}
		if (rc < 0 && rc != -ENOEXEC)
			diag_add(errs, DIAG_ERROR, dir, 0, 0, "cannot build in the cache: %s", strerror(-rc));
	}
	if (rc == 0) {
		out->program = strdup(prog);
		char mark[PATH_MAX + 8];
		snprintf(mark, sizeof(mark), "%s/nvrtc", dir);
		out->nvrtc = j->nvrtc_tool && access(mark, F_OK) == 0;
		if (j->backend == BACKEND_EMU)
			out->ptx = strdup(ptx);
		else if (j->want_ptx)
			out->barriers_ptx = strdup(ptx);
	}
	return rc;
}

/* Whether the CUDA file at PATH uses OpenMP: a line `#include <omp.h>` (omp_ calls need
 * it) or `#pragma omp ...`. Such a program's host code is compiled and linked with
 * -fopenmp on both backends: without it the pragmas are silently ignored and the omp_
 * functions are never defined. Only the file itself is read, not what it includes. */
static bool openmp_line(const char *p)
{
	p += strspn(p, " \t");
	if (*p++ != '#')
		return false;
	p += strspn(p, " \t");
	if (strncmp(p, "pragma", 6) == 0 && (p[6] == ' ' || p[6] == '\t')) {
		p += 6 + strspn(p + 6, " \t");
		return strncmp(p, "omp", 3) == 0 && strchr(" \t\r\n", p[3]);
	}
	if (strncmp(p, "include", 7) != 0)
		return false;
	p += 7 + strspn(p + 7, " \t");
	return strncmp(p, "<omp.h>", 7) == 0 || strncmp(p, "\"omp.h\"", 7) == 0;
}

static bool uses_openmp(const char *path)
{
	size_t n = 0;
	char *text = fs_read(path, &n);
	bool found = false;
	for (const char *line = text; line && !found; line = strchr(line, '\n')) {
		line += *line == '\n';
		found = openmp_line(line);
	}
	free(text);
	return found;
}

/* Finds the tools for the backend; says what to do when one is missing. */
static int job_tools(struct job *j, struct diag_list *errs)
{
	j->harness = paths_harness_dir();
	if (j->backend == BACKEND_AUTO) {
		j->tool = paths_which("cc");
		if (!j->tool) {
			diag_add(errs, DIAG_ERROR, NULL, 0, 0,
				 "no C compiler (cc) found on PATH: install gcc (apt-get install gcc)");
			return -ENOENT;
		}
		return 0;
	}
	j->tool = paths_nvcc();
	if (!j->tool) {
		diag_add(errs, DIAG_ERROR, NULL, 0, 0,
			 "nvcc not found (looked in $PMPPLAB_NVCC, PATH and /usr/local/cuda/bin): install the CUDA toolkit, or set PMPPLAB_NVCC to nvcc's path");
		return -ENOENT;
	}
	j->openmp = uses_openmp(j->user_source);
	if (j->backend == BACKEND_EMU) {
		/* PTX for the emulated GPU (PMPPLAB_EMU_DEVICE, --emu-device): what compiles
		 * for it compiles here (TF32 wmma needs sm_80), and nothing newer does */
		char a[16];
		snprintf(j->arch, sizeof(j->arch), "-arch=%s",
			 emu_device_nvcc_arch(emu_device_current(NULL), a, sizeof(a)));
		j->emulib = paths_emu_libdir();
		char lib[PATH_MAX];
		snprintf(lib, sizeof(lib), "%s/libpmpplab_cudart.so", j->emulib);
		if (access(lib, R_OK) != 0) {
			diag_add(errs, DIAG_ERROR, lib, 0, 0,
				 "the emulator runtime is missing: rebuild pmpplab (ninja -C build) or set PMPPLAB_EMU_LIBDIR");
			return -ENOENT;
		}
	}
	return 0;
}

/* With PTX (build.h) BUILD_PTX_NVRTC or PMPPLAB_NVRTC=1, an emulator build's NVRTC:
 * pmpplab-nvrtc-ptx and the toolkit's libnvrtc.so next to its nvcc (j->tool). Left
 * unset where one is missing: nvcc makes the PTX. */
static void job_find_nvrtc(struct job *j, enum build_ptx ptx)
{
	const char *env = getenv("PMPPLAB_NVRTC");
	if (env && *env)
		ptx = strcmp(env, "0") == 0 ? BUILD_PTX_NVCC : BUILD_PTX_NVRTC;
	char root[PATH_MAX];
	if (ptx != BUILD_PTX_NVRTC || j->backend != BACKEND_EMU || !realpath(j->tool, root))
		return;
	for (int up = 0; up < 2; up++) { /* .../bin/nvcc -> the toolkit */
		char *slash = strrchr(root, '/');
		if (!slash || slash == root)
			return;
		*slash = '\0';
	}
	char lib[PATH_MAX + 32], inc[PATH_MAX + 16];
	snprintf(lib, sizeof(lib), "%s/lib64/libnvrtc.so", root);
	snprintf(inc, sizeof(inc), "-I%s/include", root);
	j->nvrtc_tool = access(lib, R_OK) == 0 ? paths_nvrtc_ptx() : NULL;
	j->nvrtc_lib = j->nvrtc_tool ? strdup(lib) : NULL;
	j->nvrtc_inc = j->nvrtc_tool ? strdup(inc) : NULL;
	if (!j->nvrtc_lib || !j->nvrtc_inc) {
		free(j->nvrtc_tool);
		free(j->nvrtc_lib);
		free(j->nvrtc_inc);
		j->nvrtc_tool = j->nvrtc_lib = j->nvrtc_inc = NULL;
	}
}

/* The realpath of PATH's folder, UP levels above (1: the folder it is in), or NULL. */
static char *folder_of(const char *path, int up)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return NULL;
	for (int i = 0; i < up; i++) {
		char *slash = strrchr(real, '/');
		if (!slash)
			return NULL;
		slash[slash == real] = '\0'; /* "/x" -> "/" */
	}
	return strdup(real);
}

int build_lab(const struct lab_spec *spec, const char *source, enum backend_kind backend,
	      enum build_ptx ptx, struct build_result *out, struct diag_list *errs)
{
	memset(out, 0, sizeof(*out));
	char abs[PATH_MAX];
	if (!realpath(source, abs)) {
		diag_add(errs, DIAG_ERROR, source, 0, 0, "cannot read the submission: %s", strerror(errno));
		return -errno;
	}
	struct job j = { .backend = backend, .user_source = abs, .lab = true,
			 .flags = spec->nvcc_flags, .n_flags = spec->nvcc_flags_count };
	/* gpu: PTX for the static analyses (issue 6, uninitcheck.h), compiled beside the
	 * program */
	j.want_ptx = backend == BACKEND_GPU;
	char *ref = spec_path(spec, spec->reference.file);
	j.user_dir = folder_of(abs, 1);
	j.hidden[0] = spec->dir ? folder_of(spec->dir, 1) : NULL;
	j.hidden[1] = ref ? folder_of(ref, 2) : NULL;
	free(ref);
	int rc = j.user_dir ? job_tools(&j, errs) : -ENOMEM;
	if (rc == 0) {
		job_find_nvrtc(&j, ptx);
		j.glue = glue_generate(spec, abs, spec->entry.function);
		rc = j.glue ? job_run(&j, out, errs) : -ENOMEM;
	}
	job_release(&j);
	return rc;
}

int build_reference(const struct lab_spec *spec, struct build_result *out, struct diag_list *errs)
{
	memset(out, 0, sizeof(*out));
	char *ref = spec_path(spec, spec->reference.file);
	struct job j = { .backend = BACKEND_AUTO, .user_source = ref, .lab = true };
	int rc = ref ? job_tools(&j, errs) : -ENOMEM;
	struct lab_spec own = *spec; /* a vendor's view: the reference takes the entry's args */
	if (spec->reference.args) {
		own.entry.args = spec->reference.args;
		own.entry.args_count = spec->reference.args_count;
	}
	if (rc == 0) {
		j.glue = glue_generate(&own, ref, spec->reference.function);
		rc = j.glue ? job_run(&j, out, errs) : -ENOMEM;
	}
	if (rc == -ENOEXEC)
		diag_add(errs, DIAG_ERROR, ref, 0, 0, "the lab's CPU reference does not compile; this is the lab author's bug");
	job_release(&j);
	free(ref);
	return rc;
}

int build_standalone(const char *source, enum backend_kind backend, enum build_ptx ptx,
		     struct build_result *out, struct diag_list *errs)
{
	memset(out, 0, sizeof(*out));
	char abs[PATH_MAX];
	if (!realpath(source, abs)) {
		diag_add(errs, DIAG_ERROR, source, 0, 0, "cannot read: %s", strerror(errno));
		return -errno;
	}
	struct job j = { .backend = backend, .user_source = abs, .main_source = abs,
			 .user_dir = folder_of(abs, 1) };
	int rc = j.user_dir ? job_tools(&j, errs) : -ENOMEM;
	if (rc == 0) {
		char dir[PATH_MAX];
		struct job rdc = j;
		rdc.rdc = true;
		if (!job_cached(&rdc, dir)) /* else built before as relocatable device code */
			job_find_nvrtc(&j, ptx);
		else
			j.rdc = true;
		rc = job_run(&j, out, errs);
		/* kernels that launch kernels (dynamic parallelism): nvcc asks for separate
		 * compilation; build again so, as a GPU program's Makefile would (-rdc=true) */
		if (rc == -ENOEXEC && !j.rdc && out->log &&
		    strstr(out->log, "requires separate compilation mode")) {
			build_result_release(out);
			free(j.nvrtc_tool);
			j.nvrtc_tool = NULL;
			j.rdc = true;
			rc = job_run(&j, out, errs);
		}
	}
	job_release(&j);
	return rc;
}

void build_result_release(struct build_result *r)
{
	free(r->program);
	free(r->ptx);
	free(r->barriers_ptx);
	free(r->log);
	diag_list_release(&r->diags);
	memset(r, 0, sizeof(*r));
}
