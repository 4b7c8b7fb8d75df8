/* build: nvcc/cc command lines, the content-hash cache, and compiler output parsing. */
#include "build.h"

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
#include "nvccdiag.h"
#include "paths.h"
#include "runner.h"
#include "sandbox.h"

#define BUILD_TIMEOUT_MS (300u * 1000u)
#define MAX_ARGS 64

/* One compiler invocation; in the sandbox when view is set. */
struct compile {
	const char *argv[MAX_ARGS];
	int argc;
	const struct sandbox_view *view;
	const char *cwd;
	const atomic_bool *cancel; /* the grading thread's (runner_set_cancel) */
	struct runner_result res;
	int rc;
};

static void arg(struct compile *c, const char *a)
{
	if (c->argc < MAX_ARGS - 1)
		c->argv[c->argc++] = a;
	c->argv[c->argc] = NULL;
}

static void *compile_run(void *p)
{
	struct compile *c = p;
	if (c->cancel) /* the PTX compile runs in a thread of its own */
		runner_set_cancel(c->cancel);
	struct runner_opts o = {
		.argv = (char *const *)c->argv,
		.cwd = c->cwd,
		.timeout_ms = BUILD_TIMEOUT_MS,
		.output_cap = 256 * 1024,
		.sandbox = c->view,
	};
	c->rc = runner_run(&o, &c->res);
	return NULL;
}

static bool compile_ok(const struct compile *c)
{
	return c->rc == 0 && c->res.status == RUNNER_EXITED && c->res.exit_code == 0;
}

/* What the build needs, gathered before hashing. */
struct job {
	enum backend_kind backend;   /* BACKEND_AUTO here means: host C with cc */
	const char *main_source;     /* the file handed to the compiler */
	char *glue;                  /* generated text, or NULL for standalone builds */
	const char *user_source;     /* what the student wrote (hashed) */
	char *hidden[2];             /* the lab collection and the lab's kernels (realpaths),
				      * whose files it may not include */
	char *user_dir;              /* its folder (realpath): the build sees its sources
				      * and may include nothing else (incl.h); NULL: the lab's
				      * own code, built unsandboxed */
	char *tool, *harness, *emulib;
	char **flags;
	unsigned n_flags;
	bool lab;                    /* link the harness in */
	bool want_ptx;               /* gpu: emit prog.ptx too (barriers check, issue 6) */
	char *nvrtc_tool, *nvrtc_lib, *nvrtc_inc; /* emu, BUILD_PTX_NVRTC: pmpplab-nvrtc-ptx,
				      * libnvrtc.so and -I of the toolkit's headers, when
				      * both are there; else NULL */
	char *device;                /* with nvrtc_tool: the file's device view (hostview.h) */
	char arch[32];               /* emu: "-arch=compute_90", the emulated device's */
	bool rdc;                    /* relocatable device code: a program whose kernels
				      * launch kernels (dynamic parallelism) */
	bool openmp;                 /* its host code uses OpenMP (uses_openmp) */
};

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

/* pmpplab perf (issue 8): GPU lab programs get pl_timing's real timing loop
 * (-DPMPPLAB_HARNESS_GPU) and a run path to the toolkit's lib folder, where pl_timing
 * dlopens libcupti (it falls back to CUDA events when that fails); emulator lab programs
 * get pl_counters' hooks (-DPMPPLAB_HARNESS_EMU). */
static void timing_flags(const struct job *j, struct compile *host, char *rpath, char *inc,
			 char *lib)
{
	if (j->backend == BACKEND_EMU && j->lab)
		arg(host, "-DPMPPLAB_HARNESS_EMU");
	if (j->backend != BACKEND_GPU || !j->lab)
		return;
	arg(host, "-DPMPPLAB_HARNESS_GPU");
	char bin[PATH_MAX];
	snprintf(bin, sizeof(bin), "%s", j->tool);
	char *slash = strrchr(bin, '/');
	if (!slash)
		return;
	*slash = '\0'; /* .../cuda/bin */
	snprintf(rpath, PATH_MAX, "-Xlinker=-rpath,%s/../lib64", bin);
	arg(host, rpath);
	/* Runfile installs keep CUPTI apart, in extras/CUPTI: its header, and the library
	 * the harness loads. */
	char extras[PATH_MAX];
	snprintf(extras, sizeof(extras), "%s/../extras/CUPTI", bin);
	if (access(extras, R_OK) != 0)
		return;
	snprintf(inc, PATH_MAX, "-I%s/include", extras);
	arg(host, inc);
	snprintf(lib, PATH_MAX, "-DPL_CUPTI_LIB=\"%s/lib64/libcupti.so\"", extras);
	arg(host, lib);
}

/* Fills the compiler command lines for the job, writing into DIR/host and DIR/ptx. */
static int job_commands(const struct job *j, const char *dir, struct compile *host,
			struct compile *ptx, char paths[14][PATH_MAX])
{
	snprintf(paths[0], PATH_MAX, "%s/host/prog", dir);
	snprintf(paths[1], PATH_MAX, "%s/ptx/prog.ptx", dir);
	snprintf(paths[2], PATH_MAX, "-I%s", j->harness);
	snprintf(paths[3], PATH_MAX, "%s/pl_harness.c", j->harness);
	snprintf(paths[4], PATH_MAX, "%s/pl_io.c", j->harness);
	snprintf(paths[5], PATH_MAX, "-Xlinker=-rpath,%s", j->emulib ? j->emulib : "");
	/* -arch=compute_90 -> sm_90: the machine code nvcc's device link wants (rdc) */
	const char *cc = strstr(j->arch, "compute_");
	snprintf(paths[13], PATH_MAX, "-arch=sm_%s", cc ? cc + 8 : "90");
	arg(host, j->tool);
	if (j->backend == BACKEND_AUTO) { /* cc for a CPU reference */
		arg(host, "-O2");
		arg(host, "-std=gnu17");
	} else {
		arg(host, "-O2");
		arg(host, "-lineinfo");
		arg(host, "-Wno-deprecated-gpu-targets");
		if (j->lab)
			arg(host, "-DPMPPLAB_HARNESS_CUDA");
		if (j->rdc) /* the device link needs a real architecture, and on the emulator
			     * nvcc's default runtime: an empty archive (emu/meson.build) */
			arg(host, "-rdc=true");
		if (j->backend == BACKEND_GPU)
			arg(host, "-arch=native");
		else if (j->rdc)
			arg(host, paths[13]);
		else
			arg(host, "-cudart=none");
		if (j->arch[0] && !j->rdc)
			arg(host, j->arch);
		if (j->openmp) { /* as the toolkit's samples build cudaOpenMP; gcc links libgomp */
			arg(host, "-Xcompiler");
			arg(host, "-fopenmp");
		}
	}
	for (unsigned i = 0; i < j->n_flags; i++)
		arg(host, j->flags[i]);
	if (j->lab)
		arg(host, paths[2]);
	arg(host, "-o");
	arg(host, paths[0]);
	if (j->user_dir) { /* the files it read, for incl_refused: of the last input */
		snprintf(paths[11], PATH_MAX, "%s/host/deps.d", dir);
		arg(host, "-MD");
		arg(host, "-MF");
		arg(host, paths[11]);
	}
	if (j->lab) {
		snprintf(paths[6], PATH_MAX, "%s/pl_timing.c", j->harness);
		snprintf(paths[8], PATH_MAX, "%s/pl_counters.c", j->harness);
		snprintf(paths[12], PATH_MAX, "%s/pl_provenance.c", j->harness);
		arg(host, paths[3]);
		arg(host, paths[4]);
		arg(host, paths[6]); /* pmpplab perf (issue 8) */
		arg(host, paths[8]);
		arg(host, paths[12]); /* issue 14 */
		timing_flags(j, host, paths[7], paths[9], paths[10]);
	}
	arg(host, j->main_source);
	if (j->backend == BACKEND_AUTO)
		arg(host, "-lm");
	if (j->backend == BACKEND_EMU) {
		arg(host, "-L");
		arg(host, j->emulib);
		arg(host, "-lpmpplab_cudart");
		arg(host, paths[5]);
	}
	if (j->backend == BACKEND_EMU || j->want_ptx) {
		arg(ptx, j->tool);
		arg(ptx, "-ptx");
		if (j->backend == BACKEND_GPU) /* the binary's architecture: TF32 wmma needs sm_80 */
			arg(ptx, "-arch=native");
		arg(ptx, "-lineinfo");
		arg(ptx, "-O2");
		arg(ptx, "-Wno-deprecated-gpu-targets");
		if (j->rdc)
			arg(ptx, "-rdc=true");
		if (j->arch[0])
			arg(ptx, j->arch);
		for (unsigned i = 0; i < j->n_flags; i++)
			arg(ptx, j->flags[i]);
		if (j->lab)
			arg(ptx, paths[2]);
		arg(ptx, "-o");
		arg(ptx, paths[1]);
		arg(ptx, j->main_source);
	}
	return 0;
}

static char *join_logs(const struct compile *a, const struct compile *b)
{
	char *out = NULL;
	if (asprintf(&out, "%s%s%s%s", a->res.out ? a->res.out : "", a->res.err ? a->res.err : "",
		     b->res.out ? b->res.out : "", b->res.err ? b->res.err : "") < 0)
		return NULL;
	return out;
}

/* The view of a compile of student code: its folder's sources (a copy, COPY) at their
 * place, the glue, the harness and the emulator runtime; OUT writable (a folder of its
 * own: the host and PTX compiles run at once, each as its own uid). */
static void build_view(const struct job *j, const char *out, const char *copy,
		       struct sandbox_view *v)
{
	*v = (struct sandbox_view){ .profile = SANDBOX_BUILD, .gpu = j->backend == BACKEND_GPU,
				    .copy_from = copy, .copy_at = j->user_dir, .cwd = out,
				    .timeout_ms = BUILD_TIMEOUT_MS };
	sandbox_view_rw(v, out);
	sandbox_view_ro(v, j->main_source);
	sandbox_view_ro(v, j->harness);
	sandbox_view_ro(v, j->emulib);
}

/* The folders a submission may include from besides its own (incl.h). */
static char *include_refused(const struct job *j, const char *tmp, const char *cwd,
			     const char *deps, int *err)
{
	char cuda[PATH_MAX] = "/usr/local/cuda", harness[PATH_MAX] = "", build[PATH_MAX] = "";
	if (!realpath(j->tool, cuda) || !strrchr(cuda, '/'))
		snprintf(cuda, sizeof(cuda), "/usr/local/cuda/bin/nvcc");
	for (int up = 0; up < 2; up++)
		*strrchr(cuda, '/') = '\0'; /* .../bin/nvcc -> the toolkit */
	if (!realpath(j->harness, harness) || !realpath(tmp, build))
		return NULL;
	const char *sys[] = { cuda, harness, build, "/usr/include", "/usr/lib", "/usr/lib64",
			      "/usr/local/include" };
	char *root = paths_data_root();
	char labs[PATH_MAX + 8] = "", kernels[PATH_MAX + 8] = "";
	snprintf(labs, sizeof(labs), "%s/labs", root ? root : "/nonexistent");
	snprintf(kernels, sizeof(kernels), "%s/kernels", root ? root : "/nonexistent");
	free(root);
	const char *hidden[4] = { labs, kernels };
	unsigned n_hidden = 2;
	for (int i = 0; i < 2; i++)
		if (j->hidden[i])
			hidden[n_hidden++] = j->hidden[i];
	struct incl_rules r = { .own = j->user_dir, .system = sys, .n_system = 7,
				.hidden = hidden, .n_hidden = n_hidden };
	return incl_refused(deps, cwd, &r, err);
}

/* Where the refused file BAD was included: the preprocessor's line markers, host side,
 * then device side (an #include under __CUDA_ARCH__). */
static void locate_refused(const struct job *j, const char *out, const struct sandbox_view *v,
			   const char *bad, struct diag_list *diags)
{
	char pre[PATH_MAX], incl[PATH_MAX + 2];
	snprintf(pre, sizeof(pre), "%s/pre.ii", out);
	snprintf(incl, sizeof(incl), "-I%s", j->harness);
	char *file = NULL;
	unsigned line = 0;
	for (int device = 0; device < 2 && !file; device++) {
		struct compile e = { .view = v, .cwd = out };
		arg(&e, j->tool);
		arg(&e, "-E");
		if (device)
			arg(&e, "-ptx");
		arg(&e, "-Wno-deprecated-gpu-targets");
		if (j->lab)
			arg(&e, "-DPMPPLAB_HARNESS_CUDA");
		for (unsigned i = 0; i < j->n_flags; i++)
			arg(&e, j->flags[i]);
		arg(&e, incl);
		arg(&e, "-o");
		arg(&e, pre);
		arg(&e, j->main_source);
		compile_run(&e);
		runner_result_release(&e.res);
		if (incl_locate(pre, bad, &file, &line) < 0)
			file = NULL;
	}
	diag_add(diags, DIAG_ERROR, file ? file : j->user_source, file ? line : 0, 0,
		 "#include of %s refused: a submission may include the CUDA and system headers and the files of its own folder (%s), nothing else (not the lab's solution or reference)",
		 bad, j->user_dir);
	free(file);
}

/* Compiler errors about a file it could not open: in the sandbox, only the submission's
 * folder and the system's headers are there, which is worth saying. */
static void note_missing_files(struct diag_list *diags, unsigned from)
{
	unsigned n = diags->n;
	for (unsigned i = from; i < n; i++) {
		const struct diag *d = &diags->items[i];
		if (d->severity == DIAG_ERROR && (strstr(d->message, "cannot open source file") ||
						  strstr(d->message, "No such file or directory")))
			diag_add(diags, DIAG_NOTE, d->file, d->line, d->col,
				 "a submission is built seeing the CUDA and system headers and its own folder only");
	}
}

/* A build's private folder, the copy of the student's folder its compiles see, and
 * their command lines. */
struct stage {
	char tmp[PATH_MAX], src[PATH_MAX], copy[PATH_MAX + 8], deps[PATH_MAX + 16];
	char dirs[2][PATH_MAX + 8];
	struct job local;
	struct sandbox_view views[2];
	bool boxed;
	struct compile host, ptx;
	char paths[14][PATH_MAX];
};

/* Makes the folder next to FINAL_DIR and fills the commands. Returns 0 or -errno; call
 * stage_close in both cases. */
static int stage_open(const struct job *j, const char *final_dir, struct stage *st)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->tmp, sizeof(st->tmp), "%s.tmp.%d.%lx", final_dir, (int)getpid(),
		 (unsigned long)pthread_self());
	snprintf(st->copy, sizeof(st->copy), "%s/src", st->tmp);
	snprintf(st->dirs[0], sizeof(st->dirs[0]), "%s/host", st->tmp);
	snprintf(st->dirs[1], sizeof(st->dirs[1]), "%s/ptx", st->tmp);
	snprintf(st->deps, sizeof(st->deps), "%s/deps.d", st->dirs[0]);
	int rc = paths_mkdirs(st->dirs[0]);
	if (rc < 0 || (rc = paths_mkdirs(st->dirs[1])) < 0)
		return rc;
	st->local = *j;
	if (j->glue) {
		snprintf(st->src, sizeof(st->src), "%s/glue.%s", st->tmp,
			 j->backend == BACKEND_AUTO ? "c" : "cu");
		if ((rc = fs_write_atomic(st->src, j->glue, strlen(j->glue))) < 0)
			return rc;
		st->local.main_source = st->src;
	}
	st->boxed = j->user_dir && sandbox_enabled();
	if (st->boxed && (rc = incl_copy_folder(j->user_dir, st->copy)) < 0)
		return rc;
	build_view(&st->local, st->dirs[0], st->boxed ? st->copy : NULL, &st->views[0]);
	build_view(&st->local, st->dirs[1], st->boxed ? st->copy : NULL, &st->views[1]);
	st->host = (struct compile){ .view = j->user_dir ? &st->views[0] : NULL, .cwd = st->dirs[0],
				     .cancel = runner_cancel_flag() };
	st->ptx = (struct compile){ .view = j->user_dir ? &st->views[1] : NULL, .cwd = st->dirs[1],
				    .cancel = runner_cancel_flag() };
	return job_commands(&st->local, st->tmp, &st->host, &st->ptx, st->paths);
}

/* Moves the program and the PTX up into the folder and renames it to FINAL_DIR; with
 * NVRTC, a file "nvrtc" there says whose PTX it is (build_result.nvrtc, when cached). */
static int stage_commit(struct stage *st, const char *final_dir, bool ptx, bool nvrtc)
{
	char prog[PATH_MAX + 8], ptx_out[PATH_MAX + 16], mark[PATH_MAX + 8];
	snprintf(prog, sizeof(prog), "%s/prog", st->tmp);
	snprintf(ptx_out, sizeof(ptx_out), "%s/prog.ptx", st->tmp);
	snprintf(mark, sizeof(mark), "%s/nvrtc", st->tmp);
	if ((access(prog, X_OK) != 0 && rename(st->paths[0], prog) != 0) ||
	    (ptx && rename(st->paths[1], ptx_out) != 0))
		return -errno;
	if (nvrtc && fs_write_atomic(mark, "NVRTC\n", 6) < 0)
		return -EIO;
	fs_remove_tree(st->dirs[0]);
	fs_remove_tree(st->dirs[1]);
	fs_remove_tree(st->copy);
	if (rename(st->tmp, final_dir) != 0 && access(final_dir, F_OK) != 0)
		return -errno;
	return 0;
}

static void stage_close(struct stage *st)
{
	runner_result_release(&st->host.res);
	runner_result_release(&st->ptx.res);
	fs_remove_tree(st->tmp);
}

/* The PTX compile of a build: by NVRTC (nvrtc_ptx.c) from the file's device view where
 * the job has it, else, or when NVRTC said anything at all (a warning, an error), by
 * nvcc, whose messages the student gets; the host compile may run meanwhile. */
struct ptx_step {
	const struct job *j;
	struct stage *st;
	bool nvrtc; /* NVRTC's PTX is in st->paths[1] */
	double ms;  /* NVRTC's time, then nvcc's */
};

static void job_nvrtc(struct ptx_step *p)
{
	const struct job *j = p->j;
	struct stage *st = p->st;
	char src[PATH_MAX + 16];
	snprintf(src, sizeof(src), "%s/device.cu", st->dirs[1]);
	if (!j->device || fs_write_atomic(src, j->device, strlen(j->device)) < 0)
		return;
	struct compile c = { .view = st->ptx.view, .cwd = st->dirs[1], .cancel = st->ptx.cancel };
	struct sandbox_view v;
	if (c.view) { /* the program itself, which may live in the build tree */
		v = *c.view;
		sandbox_view_ro(&v, j->nvrtc_tool);
		c.view = &v;
	}
	arg(&c, j->nvrtc_tool);
	arg(&c, j->nvrtc_lib);
	arg(&c, src);
	arg(&c, j->user_source); /* the name in line info and messages: the student's file */
	arg(&c, st->paths[1]);
	arg(&c, j->arch);
	arg(&c, "-lineinfo");
	arg(&c, j->nvrtc_inc);
	bool ok = true;
	for (unsigned i = 0; i < j->n_flags; i++) {
		const char *f = j->flags[i];
		if (strncmp(f, "-D", 2) == 0)
			arg(&c, f);
		else /* the linker's (-l, -L) change no PTX; NVRTC may not take another */
			ok &= strncmp(f, "-l", 2) == 0 || strncmp(f, "-L", 2) == 0;
	}
	if (ok)
		compile_run(&c);
	p->nvrtc = ok && compile_ok(&c) && access(st->paths[1], R_OK) == 0;
	p->ms = c.res.wall_ms;
	runner_result_release(&c.res);
}

static void *ptx_step_run(void *arg_)
{
	struct ptx_step *p = arg_;
	if (p->j->nvrtc_tool)
		job_nvrtc(p);
	if (!p->nvrtc) {
		compile_run(&p->st->ptx);
		p->ms += p->st->ptx.res.wall_ms;
	}
	return NULL;
}

/* Compiles into a private folder, then renames it into place (atomic for other graders
 * sharing the cache). Student code compiles in the sandbox and may include only what
 * incl.h allows. */
static int job_compile(const struct job *j, const char *final_dir, struct build_result *out)
{
	struct stage *st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	int rc = stage_open(j, final_dir, st);
	if (rc < 0)
		goto out_remove;
	struct compile *host = &st->host, *ptx = &st->ptx;
	struct ptx_step step = { .j = j, .st = st };
	pthread_t thr;
	bool threaded = ptx->argc && pthread_create(&thr, NULL, ptx_step_run, &step) == 0;
	compile_run(host);
	if (threaded)
		pthread_join(thr, NULL);
	else if (ptx->argc)
		ptx_step_run(&step);
	sandbox_reclaim(st->tmp);
	out->ms_host = host->res.wall_ms;
	out->ms_ptx = step.ms;
	out->log = join_logs(host, ptx);
	bool ptx_ok = !ptx->argc || step.nvrtc || compile_ok(ptx);
	/* The PTX compile repeats the host compile's front-end errors: parse one of them. */
	nvccdiag_parse(host->res.err ? host->res.err : "", &out->diags);
	if (compile_ok(host) && !ptx_ok)
		nvccdiag_parse(ptx->res.err ? ptx->res.err : "", &out->diags);
	bool ok = compile_ok(host) && ptx_ok;
	bool no_sandbox = host->res.status == RUNNER_NO_SANDBOX || ptx->res.status == RUNNER_NO_SANDBOX;
	if (st->boxed)
		note_missing_files(&out->diags, 0);
	if (!ok && host->rc == 0 && host->res.status == RUNNER_TIMEOUT)
		diag_add(&out->diags, DIAG_ERROR, NULL, 0, 0,
			 "the compiler ran for more than %u s and was stopped", BUILD_TIMEOUT_MS / 1000);
	if (!ok && diag_count(&out->diags, DIAG_ERROR) == 0)
		diag_add(&out->diags, DIAG_ERROR, NULL, 0, 0, "the build failed:\n%s",
			 out->log ? out->log : "(no output)");
	int err = 0;
	char *bad = ok && j->user_dir ? include_refused(&st->local, st->tmp, st->dirs[0], st->deps, &err)
				      : NULL;
	if (bad)
		locate_refused(&st->local, st->dirs[0], &st->views[0], bad, &out->diags);
	else if (err)
		diag_add(&out->diags, DIAG_ERROR, j->user_source, 0, 0,
			 "the compiler's list of included files (%s) cannot be read: %s", st->deps, strerror(-err));
	ok &= !bad && !err;
	free(bad);
	rc = no_sandbox ? -EPERM : ok ? 0 : -ENOEXEC;
	if (ok)
		rc = stage_commit(st, final_dir, ptx->argc, step.nvrtc);
out_remove:
	stage_close(st);
	free(st);
	return rc;
}

/* The fast build (issue 16): only the PTX compile, next to HOST_PROG, the program of an
 * earlier build with the same host view. Returns 0, or -EAGAIN when the compile did not
 * succeed silently: the full build then says what it says, exactly as without this. */
static int job_fast(const struct job *j, const char *final_dir, const char *host_prog,
		    struct build_result *out)
{
	struct stage *st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	int rc = stage_open(j, final_dir, st);
	if (rc == 0) {
		struct ptx_step step = { .j = j, .st = st };
		ptx_step_run(&step);
		sandbox_reclaim(st->tmp);
		char prog[PATH_MAX + 8];
		snprintf(prog, sizeof(prog), "%s/prog", st->tmp);
		rc = step.nvrtc || (compile_ok(&st->ptx) && !st->ptx.res.out_len && !st->ptx.res.err_len)
			     ? 0 : -EAGAIN;
		if (rc == 0 && link(host_prog, prog) != 0)
			rc = -EAGAIN; /* gone since (a cache cleaned): build in full */
		if (rc == 0)
			rc = stage_commit(st, final_dir, true, step.nvrtc);
		out->ms_ptx = step.ms;
		out->host_reused = rc == 0;
	}
	stage_close(st);
	free(st);
	return rc;
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
		rc = reusable && access(host_prog, X_OK) == 0 ? job_fast(j, dir, host_prog, out)
							      : -EAGAIN;
		if (rc == -EAGAIN) {
			out->ms_ptx = 0;
			rc = job_compile(j, dir, out);
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
	for (unsigned i = 0; i < spec->checks_count; i++) /* issue 6 */
		j.want_ptx |= backend == BACKEND_GPU && (spec->checks[i].kind == SPEC_CHECK_BARRIERS ||
							 spec->checks[i].kind == SPEC_CHECK_OPTIMISATIONS);
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
