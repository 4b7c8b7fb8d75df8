/* resources: ptxas's resource usage per kernel. See resources.h. */
#include "resources.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "fsutil.h"
#include "paths.h"
#include "runner.h"

#define PTXAS_TIMEOUT_MS (60u * 1000u)

void resources_init(struct resources *r)
{
	memset(r, 0, sizeof(*r));
}

void resources_release(struct resources *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->n; i++) {
		free(r->k[i].name);
		free(r->k[i].pretty);
	}
	free(r->k);
	resources_init(r);
}

const struct kernel_resources *resources_find(const struct resources *r, const char *name)
{
	for (unsigned i = 0; name && i < r->n; i++)
		if (strcmp(r->k[i].name, name) == 0 || strcmp(r->k[i].pretty, name) == 0)
			return &r->k[i];
	return NULL;
}

/* Reads one <length><identifier> of a mangled name; returns the position after it. */
static const char *mangled_part(const char *p, const char **id, size_t *len)
{
	char *end;
	unsigned long n = strtoul(p, &end, 10);
	if (end == p || strnlen(end, n) < n)
		return NULL;
	*id = end;
	*len = n;
	return end + n;
}

char *resources_pretty_name(const char *m)
{
	if (strncmp(m, "_Z", 2) != 0)
		return strdup(m);
	const char *p = m + 2, *id;
	size_t len;
	char out[512] = "";
	if (*p == 'N') { /* nested: N <part>... E */
		p++;
		while (p && *p && *p != 'E' && isdigit((unsigned char)*p)) {
			p = mangled_part(p, &id, &len);
			if (!p)
				break;
			if (*out)
				strncat(out, "::", sizeof(out) - strlen(out) - 1);
			strncat(out, id, len < sizeof(out) - strlen(out) - 1 ? len : sizeof(out) - strlen(out) - 1);
		}
	} else if (mangled_part(p, &id, &len)) {
		snprintf(out, sizeof(out), "%.*s", (int)len, id);
	}
	return strdup(*out ? out : m);
}

static struct kernel_resources *add_kernel(struct resources *r, const char *name, size_t len)
{
	struct kernel_resources *k = realloc(r->k, (r->n + 1) * sizeof(*k));
	if (!k)
		return NULL;
	r->k = k;
	k = &r->k[r->n];
	memset(k, 0, sizeof(*k));
	k->name = strndup(name, len);
	k->pretty = k->name ? resources_pretty_name(k->name) : NULL;
	if (!k->name || !k->pretty) {
		free(k->name);
		free(k->pretty);
		return NULL;
	}
	r->n++;
	return k;
}

/* The number before WHAT in LINE ("Used 36 registers"), or 0. */
static unsigned number_before(const char *line, const char *what)
{
	const char *w = strstr(line, what);
	if (!w)
		return 0;
	while (w > line && w[-1] == ' ')
		w--;
	while (w > line && isdigit((unsigned char)w[-1]))
		w--;
	return (unsigned)strtoul(w, NULL, 10);
}

/* ptxas -v prints, per entry function:
 *   ptxas info    : Compiling entry function '_Z2mmPKfS0_Pfi' for 'sm_80'
 *   ptxas info    : Function properties for _Z2mmPKfS0_Pfi
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 31 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]
 * Non-entry functions ("Compiling function", "Function properties for" a callee) are
 * skipped: only kernels are launched. */
int resources_parse(const char *text, struct resources *out)
{
	struct kernel_resources *cur = NULL;
	int found = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char buf[1024];
		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) - 1 ? n : sizeof(buf) - 1), line);
		const char *e = strstr(buf, "Compiling entry function '");
		const char *f = strstr(buf, "Compiling function '");
		if (e) {
			e += strlen("Compiling entry function '");
			const char *q = strchr(e, '\'');
			if (!q)
				q = e + strlen(e);
			cur = add_kernel(out, e, (size_t)(q - e));
			if (!cur)
				return -ENOMEM;
			found++;
			const char *arch = strstr(q, "for '");
			if (arch && !out->arch[0]) {
				arch += 5;
				size_t al = strcspn(arch, "'");
				snprintf(out->arch, sizeof(out->arch), "%.*s", (int)al, arch);
			}
		} else if (f) {
			cur = NULL;
		} else if (cur && strstr(buf, "bytes stack frame")) {
			cur->stack = number_before(buf, "bytes stack frame");
			cur->spill_stores = number_before(buf, "bytes spill stores");
			cur->spill_loads = number_before(buf, "bytes spill loads");
		} else if (cur && strstr(buf, "Used ") && strstr(buf, "registers")) {
			cur->regs = number_before(buf, "registers");
			cur->barriers = number_before(buf, "barriers");
			cur->smem = number_before(buf, "bytes smem");
			cur->cmem = number_before(buf, "bytes cmem[0]");
			cur = NULL; /* the last line of this entry */
		}
		line = nl ? nl + 1 : NULL;
	}
	return found;
}

/* Runs ARGV, parses its stderr (where ptxas -v writes) into OUT. It compiles what a
 * student wrote, so in the sandbox, seeing the file INPUT only; WHAT names it in
 * messages. */
static int run_and_parse(const char **argv, struct resources *out, struct diag_list *errs,
			 const char *input, const char *what)
{
	struct sandbox_view v = { .profile = SANDBOX_BUILD, .timeout_ms = PTXAS_TIMEOUT_MS };
	char real[PATH_MAX];
	sandbox_view_ro(&v, realpath(input, real) ? real : NULL);
	struct runner_opts o = {
		.argv = (char *const *)argv,
		.timeout_ms = PTXAS_TIMEOUT_MS,
		.output_cap = 256 * 1024,
		.sandbox = &v,
	};
	struct runner_result res;
	int rc = runner_run(&o, &res);
	if (rc < 0) {
		diag_add(errs, DIAG_ERROR, what, 0, 0, "cannot run %s: %s", argv[0], strerror(-rc));
		return rc;
	}
	if (res.status != RUNNER_EXITED || res.exit_code != 0) {
		diag_add(errs, DIAG_ERROR, what, 0, 0, "%s failed:\n%s%s", argv[0],
			 res.err ? res.err : "", res.out ? res.out : "");
		rc = -ENOEXEC;
	} else {
		/* nvcc --resource-usage writes to stdout, ptxas -v to stderr */
		rc = resources_parse(res.err ? res.err : "", out);
		if (rc >= 0 && res.out)
			rc = resources_parse(res.out, out);
		rc = rc < 0 ? rc : 0;
	}
	runner_result_release(&res);
	return rc;
}

/* The number of an architecture ("sm_90a" -> 90), 0 when there is none. */
static int arch_number(const char *a)
{
	const char *d = a;
	while (*d && !isdigit((unsigned char)*d))
		d++;
	return atoi(d);
}

/* PTX built for a newer GPU than ARCH (the emulator's builds are for the emulated H100,
 * sm_90) asked about an older one, an occupancy what-if: a copy of the PTX whose .target
 * is ARCH, in *copy (a temporary file the caller removes). ptxas then says which
 * instructions the older GPU lacks, if any. Returns 0 (with *copy NULL when the PTX
 * is fine as it is) or a negative errno. */
static int retarget_ptx(const char *ptx_path, const char *arch, char **copy)
{
	*copy = NULL;
	size_t len;
	char *text = fs_read(ptx_path, &len);
	if (!text)
		return -errno;
	char *t = strstr(text, "\n.target ");
	int rc = 0;
	if (t && arch_number(t + 9) > arch_number(arch)) {
		t += 9;
		size_t old = strcspn(t, " \t\n,/");
		const char *tmp = getenv("TMPDIR");
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/pmpplab-ptx-XXXXXX.ptx", tmp && *tmp ? tmp : "/tmp");
		int fd = mkstemps(path, 4);
		FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!f) {
			rc = -errno;
		} else {
			fprintf(f, "%.*s%s%s", (int)(t - text), text, arch, t + old);
			rc = fclose(f) ? -errno : 0;
			if (rc == 0 && !(*copy = strdup(path)))
				rc = -ENOMEM;
			if (rc)
				unlink(path);
		}
	}
	free(text);
	return rc;
}

int resources_from_ptx(const char *ptx_path, const char *arch, struct resources *out,
		       struct diag_list *errs)
{
	resources_init(out);
	char *ptxas = paths_cuda_tool("ptxas");
	if (!ptxas) {
		diag_add(errs, DIAG_ERROR, NULL, 0, 0,
			 "ptxas not found beside nvcc or on PATH: install the CUDA toolkit");
		return -ENOENT;
	}
	char *copy;
	int rc = retarget_ptx(ptx_path, arch, &copy);
	if (rc < 0) {
		diag_add(errs, DIAG_ERROR, ptx_path, 0, 0, "cannot read the PTX: %s", strerror(-rc));
		free(ptxas);
		return rc;
	}
	char archopt[32];
	snprintf(archopt, sizeof(archopt), "-arch=%s", arch);
	const char *argv[] = {ptxas, "-v", archopt, copy ? copy : ptx_path, "-o", "/dev/null", NULL};
	rc = run_and_parse(argv, out, errs, copy ? copy : ptx_path, ptx_path);
	if (rc == 0 && !out->arch[0])
		snprintf(out->arch, sizeof(out->arch), "%s", arch);
	if (copy)
		unlink(copy);
	free(copy);
	free(ptxas);
	return rc;
}

int resources_from_lab(const struct lab_spec *spec, const char *source, const char *arch,
		       struct resources *out, struct diag_list *errs)
{
	resources_init(out);
	struct build_result b;
	int rc = build_lab(spec, source, BACKEND_EMU, BUILD_PTX_NVCC, &b, errs);
	if (rc == -ENOEXEC)
		for (unsigned i = 0; i < b.diags.n; i++)
			diag_add(errs, b.diags.items[i].severity, b.diags.items[i].file,
				 b.diags.items[i].line, b.diags.items[i].col, "%s",
				 b.diags.items[i].message);
	if (rc == 0)
		rc = b.ptx ? resources_from_ptx(b.ptx, arch, out, errs) : -ENOENT;
	build_result_release(&b);
	return rc;
}

int resources_from_cu(const char *source, const char *arch, struct resources *out,
		      struct diag_list *errs)
{
	resources_init(out);
	char *nvcc = paths_nvcc();
	if (!nvcc) {
		diag_add(errs, DIAG_ERROR, NULL, 0, 0, "nvcc not found: install the CUDA toolkit");
		return -ENOENT;
	}
	char archopt[32];
	snprintf(archopt, sizeof(archopt), "-arch=%s", arch);
	const char *argv[] = {nvcc, "-cubin", "--resource-usage", archopt, "-o", "/dev/null",
			      source, NULL};
	int rc = run_and_parse(argv, out, errs, source, source);
	if (rc == 0 && !out->arch[0])
		snprintf(out->arch, sizeof(out->arch), "%s", arch);
	free(nvcc);
	return rc;
}
