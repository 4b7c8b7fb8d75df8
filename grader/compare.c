/* compare: see compare.h. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct spec_tolerance compare_default_tolerance(enum spec_dtype t)
{
	if (t == SPEC_F32)
		return (struct spec_tolerance){ false, 1e-6, 1e-5 };
	if (t == SPEC_F64)
		return (struct spec_tolerance){ false, 1e-12, 1e-10 };
	return (struct spec_tolerance){ true, 0, 0 };
}

static double load(const void *p, enum spec_dtype t, uint64_t i)
{
	switch (t) {
	case SPEC_F32: return ((const float *)p)[i];
	case SPEC_F64: return ((const double *)p)[i];
	case SPEC_I32: return ((const int32_t *)p)[i];
	case SPEC_U32: return ((const uint32_t *)p)[i];
	case SPEC_U8: return ((const uint8_t *)p)[i];
	}
	return 0;
}

static bool is_fill(const void *p, enum spec_dtype t, uint64_t i)
{
	size_t sz = spec_dtype_size(t);
	const unsigned char *b = (const unsigned char *)p + i * sz;
	for (size_t k = 0; k < sz; k++)
		if (b[k] != 0xFF)
			return false;
	return true;
}

bool compare_close(double expected, double actual, const struct spec_tolerance *tol)
{
	if (isnan(expected) || isnan(actual))
		return isnan(expected) && isnan(actual);
	if (tol->exact)
		return expected == actual;
	if (isinf(expected) || isinf(actual))
		return expected == actual;
	return fabs(actual - expected) <= tol->abs + tol->rel * fabs(expected);
}

void compare_buffers(enum spec_dtype t, const struct spec_tolerance *tol, const void *expected,
		     const void *actual, uint64_t count, struct compare_result *out)
{
	memset(out, 0, sizeof(*out));
	out->count = count;
	for (uint64_t i = 0; i < count; i++) {
		double e = load(expected, t, i), a = load(actual, t, i);
		double err = fabs(a - e);
		if (!isnan(err) && err > out->max_abs_err)
			out->max_abs_err = err;
		if (compare_close(e, a, tol))
			continue;
		bool fill = is_fill(actual, t, i);
		if (!out->wrong)
			out->first_wrong = i;
		out->last_wrong = i;
		out->wrong++;
		out->unwritten += fill;
		out->blank += fill || a == 0;
		if (out->n_shown < COMPARE_SHOWN)
			out->shown[out->n_shown++] = (struct compare_mismatch){ i, e, a, fill };
	}
}

static void print_value(FILE *f, double v, enum spec_dtype t, bool fill)
{
	if (fill)
		fputs("(never written)", f);
	else if (t == SPEC_F32 || t == SPEC_F64)
		fprintf(f, "%.9g", v);
	else
		fprintf(f, "%.0f", v);
}

/* The likely causes, from the shape of the mismatch. */
static void explain(FILE *f, const struct compare_result *r, const char *name, enum spec_dtype t)
{
	uint64_t n = r->count;
	bool all_unwritten = r->unwritten == r->wrong;
	bool all_blank = r->blank == r->wrong;
	bool tail = r->last_wrong == n - 1 && r->wrong == n - r->first_wrong;
	size_t sz = spec_dtype_size(t);
	if (all_unwritten && r->wrong == n) {
		fprintf(f, "  No element of %s was written: the result never reached the host. "
			   "After the kernel, copy it back with cudaMemcpy(dst_h, src_d, bytes, cudaMemcpyDeviceToHost) "
			   "(check the direction and that the kernel ran: look for a CUDA error above).\n", name);
	} else if (tail && sz > 1 && r->first_wrong == n / sz && n >= sz) {
		fprintf(f, "  Exactly the first %llu of %llu elements are right, i.e. 1/%zu of them: a byte count "
			   "of n instead of n * sizeof(element) in cudaMalloc or cudaMemcpy?\n",
			(unsigned long long)r->first_wrong, (unsigned long long)n, sz);
	} else if (tail && all_blank) {
		fprintf(f, "  The last %llu elements (from index %llu) were never computed: the grid does not "
			   "cover every element. Compute the number of blocks rounding up, e.g. (n + 255) / 256 "
			   "or ceil(n / 256.0); n / 256 drops the partial block.\n",
			(unsigned long long)r->wrong, (unsigned long long)r->first_wrong);
	} else if (all_unwritten) {
		fprintf(f, "  The wrong elements were never written (they hold the harness's fill value): "
			   "some threads that should write them do not.\n");
	}
}

char *compare_describe(const struct compare_result *r, const char *name, enum spec_dtype t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	fprintf(f, "%s: %llu of %llu elements wrong (first at index %llu, last at %llu)\n", name,
		(unsigned long long)r->wrong, (unsigned long long)r->count,
		(unsigned long long)r->first_wrong, (unsigned long long)r->last_wrong);
	for (unsigned i = 0; i < r->n_shown; i++) {
		fprintf(f, "  %s[%llu]: expected ", name, (unsigned long long)r->shown[i].index);
		print_value(f, r->shown[i].expected, t, false);
		fputs(", got ", f);
		print_value(f, r->shown[i].actual, t, r->shown[i].unwritten);
		fputc('\n', f);
	}
	explain(f, r, name, t);
	fclose(f);
	return text;
}
