/* build_compile: the compiles of one build (build_internal.h): the nvcc/cc command lines,
 * the host and PTX compiles side by side in a private folder (sandboxed for student
 * code), the PTX by NVRTC or nvcc, and the rename into the cache. */
#include "build_internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
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

/* The lab's nvcc flags, the harness's include folder (-I, a lab's build) and -o OUT:
 * the same for the host compile and the PTX compile, so both see the same code. */
static void flags_and_output(const struct job *j, struct compile *c, const char *harness_inc,
			     const char *out)
{
	for (unsigned i = 0; i < j->n_flags; i++)
		arg(c, j->flags[i]);
	if (j->lab)
		arg(c, harness_inc);
	arg(c, "-o");
	arg(c, out);
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
	flags_and_output(j, host, paths[2], paths[0]);
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
		flags_and_output(j, ptx, paths[2], paths[1]);
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

int build_compile(const struct job *j, const char *final_dir, struct build_result *out)
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

int build_compile_fast(const struct job *j, const char *final_dir, const char *host_prog,
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
