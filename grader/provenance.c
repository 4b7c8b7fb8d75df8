/* provenance: see provenance.h. */
#include "provenance.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static double metric(const struct pl_file *f, const char *name, double fallback)
{
	const struct pl_item *m = pl_find(f, PL_METRIC, name);
	return m ? m->dval : fallback;
}

static unsigned long long count_of(const struct pl_file *f, const char *output, const char *what)
{
	char name[200];
	snprintf(name, sizeof(name), "prov:%s:%s", output, what);
	return (unsigned long long)metric(f, name, 0);
}

long provenance_launches(const struct pl_file *result)
{
	return (long)metric(result, "launches", -1);
}

/* "3 of 70001 elements of C were" / "1 element of C was": counts as a student reads them. */
static void elements(FILE *f, unsigned long long k, unsigned long long n, const char *name)
{
	if (k == n && n == 1)
		fprintf(f, "%s was", name);
	else if (k == n)
		fprintf(f, "all %llu elements of %s were", n, name);
	else
		fprintf(f, "%llu of %llu elements of %s %s", k, n, name, k == 1 ? "was" : "were");
}

/* An output that must be the kernels' work, from the emulator's counts. */
static bool judge_device(FILE *f, const struct pl_file *r, const char *name, long launches)
{
	unsigned long long kernel = count_of(r, name, "kernel"), changed = count_of(r, name, "changed"),
			   unwritten = count_of(r, name, "unwritten"), host = count_of(r, name, "host"),
			   filled = count_of(r, name, "filled");
	unsigned long long n = kernel + filled + changed + unwritten + host;
	if (count_of(r, name, "overflow")) {
		fprintf(f, "%s: the program copied more data back to the host than pmpplab can keep track of (1 GiB), so where %s came from is unknown; copy back only the results.\n",
			name, name);
		return false;
	}
	/* bytes cudaMemset set and no kernel needed to change (a histogram's empty bins)
	 * are the constant the kernels' work started from */
	if (kernel + filled == n && launches != 0)
		return true;
	if (kernel == 0 && unwritten + filled == n) {
		fprintf(f, "%s was copied back from device memory that no kernel wrote: it holds what the host put there with cudaMemcpy or cudaMemset (or whatever the memory held: cudaMalloc does not clear it), not a kernel's results%s.\n",
			name, launches == 0 ? " (no kernel ran during the call)" : "");
		return false;
	}
	if (launches == 0 || (kernel == 0 && host == n)) {
		fprintf(f, "%s was computed on the host: no kernel wrote it (%s).\n", name,
			launches == 0 ? "no kernel ran during the call"
				      : "nothing a kernel wrote was copied into it");
		return false;
	}
	if (host) {
		elements(f, host, n, name);
		fprintf(f, " computed on the host: no kernel wrote %s.\n", host == 1 ? "it" : "them");
	}
	if (changed) {
		elements(f, changed, n, name);
		fprintf(f, " changed by the host after %s copied back from the device.\n",
			changed == 1 ? "it was" : "they were");
	}
	if (unwritten) {
		elements(f, unwritten, n, name);
		fprintf(f, " copied back from device memory that no kernel wrote: what the host put there with cudaMemcpy or cudaMemset, or whatever the memory held (cudaMalloc does not clear it: a buffer the kernels add to, such as a histogram, needs a cudaMemset to 0 first).\n");
	}
	fprintf(f, "The first such element: %s[%llu].\n", name, count_of(r, name, "first_bad"));
	return false;
}

static bool judge_combined(FILE *f, const struct pl_file *r, const char *name, long launches,
			   bool counted)
{
	if (launches == 0) {
		fprintf(f, "%s was computed on the host, and no kernel ran during the call: the host may finish %s, but from results your kernels computed and copied back.\n",
			name, name);
		return false;
	}
	if (counted && metric(r, "prov_kernel_bytes", 0) == 0) {
		fprintf(f, "%s was computed on the host from nothing a kernel wrote: kernels ran, but none of what they wrote was copied back to the host. The host may finish %s, but from your kernels' results.\n",
			name, name);
		return false;
	}
	return true;
}

enum provenance_verdict provenance_judge(const struct lab_spec *spec, const struct pl_file *result,
					 char **text)
{
	*text = NULL;
	long launches = provenance_launches(result);
	bool counted = metric(result, "prov_counted", 0) == 1;
	if (launches < 0 && !counted)
		return PROVENANCE_UNKNOWN;
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	if (!f)
		return PROVENANCE_UNKNOWN;
	bool ok = true;
	for (unsigned i = 0; i < spec->outputs_count; i++) {
		const struct spec_buffer *o = &spec->outputs[i];
		if (o->provenance == SPEC_PROV_HOST_COMBINES)
			ok &= judge_combined(f, result, o->name, launches, counted);
		else if (o->provenance == SPEC_PROV_DEVICE && counted)
			ok &= judge_device(f, result, o->name, launches);
		else if (o->provenance == SPEC_PROV_DEVICE && launches == 0) {
			fprintf(f, "%s was computed on the host: no kernel wrote it (no kernel ran during the call).\n",
				o->name);
			ok = false;
		}
	}
	if (!ok)
		fprintf(f, "The lab's outputs must be computed by your kernels: pmpplab tracks which bytes each kernel writes and what is copied back to the host.\n");
	fclose(f);
	if (ok) {
		free(*text);
		*text = NULL;
	}
	return ok ? PROVENANCE_OK : PROVENANCE_BAD;
}
