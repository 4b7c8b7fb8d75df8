/* compare: see compare.h. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_device.h"

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

/* What device memory that nothing wrote reads as on the emulator (EMU_FRESH_BYTE).
 * Elements of one byte are left out: any value is plausible. */
static double fresh_value(enum spec_dtype t)
{
	unsigned char b[8];
	memset(b, EMU_FRESH_BYTE, sizeof b);
	return spec_dtype_size(t) >= 4 ? load(b, t, 0) : NAN;
}

/* A ends up at the fresh value plus E: a sum or a count started from memory nothing
 * cleared (float sums round on the way: 2^-13 of the pattern's size is far below it). */
static bool added_to_fresh(double e, double a, enum spec_dtype t)
{
	double p = fresh_value(t);
	if (isnan(p) || a == p)
		return false;
	double slack = t == SPEC_F32 || t == SPEC_F64 ? fabs(p) / 8192 : 0;
	return fabs(a - p - e) <= slack;
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

/* Where a wrong element sits in its rows x cols plane (the last two dimensions); roww and
 * colw (NULL when out of memory) count the wrong elements of each row and column. */
static void note_position(struct compare_result *out, const void *expected, const void *actual,
			  enum spec_dtype t, const struct spec_tolerance *tol, uint64_t i,
			  uint64_t *roww, uint64_t *colw)
{
	uint64_t R = out->shape.dim[out->shape.n - 2], C = out->shape.dim[out->shape.n - 1];
	uint64_t c = i % C, r = i / C % R, p = i / C / R;
	uint64_t d = r < c ? r : c, far_r = R - 1 - r, far_c = C - 1 - c;
	d = d < far_r ? d : far_r;
	d = d < far_c ? d : far_c;
	if (d > out->edge_max)
		out->edge_max = d;
	if (r < out->row_min)
		out->row_min = r;
	if (c < out->col_min)
		out->col_min = c;
	if (p < out->plane_min)
		out->plane_min = p;
	if (roww && colw) {
		roww[r]++;
		colw[c]++;
	}
	if (R == C && r != c &&
	    compare_close(load(expected, t, (p * R + c) * C + r), load(actual, t, i), tol))
		out->transposed++;
}

/* The last rows and columns that are (nearly: a never-written element may happen to
 * hold the right value) all wrong, and whether every wrong element lies in them: a grid
 * or a guard that stops short in y and x. */
static void far_sides(struct compare_result *out, const void *expected, const void *actual,
		      enum spec_dtype t, const struct spec_tolerance *tol, const uint64_t *roww,
		      const uint64_t *colw)
{
	uint64_t R = out->shape.dim[out->shape.n - 2], C = out->shape.dim[out->shape.n - 1];
	uint64_t planes = out->count / R / C, rows = 0, cols = 0;
	while (rows < R - 1 && roww[R - 1 - rows] * 10 >= C * planes * 9)
		rows++;
	while (cols < C - 1 && colw[C - 1 - cols] * 10 >= R * planes * 9)
		cols++;
	if (!rows && !cols)
		return;
	for (uint64_t i = 0; i < out->count; i++) {
		uint64_t c = i % C, r = i / C % R;
		if (r < R - rows && c < C - cols &&
		    !compare_close(load(expected, t, i), load(actual, t, i), tol))
			return; /* a wrong element elsewhere */
	}
	out->last_rows = rows;
	out->last_cols = cols;
}

void compare_buffers(enum spec_dtype t, const struct spec_tolerance *tol, const void *expected,
		     const void *actual, uint64_t count, const struct spec_shape *shape,
		     struct compare_result *out)
{
	memset(out, 0, sizeof(*out));
	out->count = count;
	uint64_t *roww = NULL, *colw = NULL;
	if (shape && shape->n >= 2) {
		out->shape = *shape;
		out->row_min = out->col_min = out->plane_min = UINT64_MAX;
		roww = calloc(shape->dim[shape->n - 2], sizeof(*roww));
		colw = calloc(shape->dim[shape->n - 1], sizeof(*colw));
	}
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
		out->fresh += a == fresh_value(t);
		out->blank += fill || a == 0 || a == fresh_value(t);
		out->added_to_fresh += added_to_fresh(e, a, t);
		if (out->n_shown < COMPARE_SHOWN)
			out->shown[out->n_shown++] = (struct compare_mismatch){ i, e, a, fill };
		if (out->shape.n)
			note_position(out, expected, actual, t, tol, i, roww, colw);
	}
	if (out->wrong && roww && colw)
		far_sides(out, expected, actual, t, tol, roww, colw);
	free(roww);
	free(colw);
}

/* NAME[i] as the reader indexes it: NAME[r][c] (and the leading dimensions) with a shape. */
static void print_index(FILE *f, const char *name, const struct spec_shape *s, uint64_t i)
{
	fputs(name, f);
	if (s->n < 2) {
		fprintf(f, "[%llu]", (unsigned long long)i);
		return;
	}
	uint64_t at[SPEC_SHAPE_DIMS] = { 0 };
	for (unsigned k = s->n; k-- > 0;) {
		at[k] = i % s->dim[k];
		i /= s->dim[k];
	}
	for (unsigned k = 0; k < s->n; k++)
		fprintf(f, "[%llu]", (unsigned long long)at[k]);
}

/* The likely causes for an output with rows and columns; false when none of its shapes fits. */
static bool explain_shaped(FILE *f, const struct compare_result *r, const char *name)
{
	const struct spec_shape *s = &r->shape;
	uint64_t R = s->dim[s->n - 2], C = s->dim[s->n - 1], planes = r->count / R / C;
	uint64_t k = r->edge_max + 1, side = R < C ? R : C;
	bool blank = r->blank == r->wrong;
	const char *how = blank ? "; never computed: they hold the fill value or zero" : "";
	if (r->wrong >= 2 && r->transposed == r->wrong) {
		fprintf(f, "  %s is the transpose of the expected result: each wrong %s[r][c] holds what "
			   "belongs at [c][r]. Rows and columns (y and x) are swapped in an index or "
			   "in the launch.\n", name, name);
		return true;
	}
	if (r->last_rows && r->last_cols) {
		fprintf(f, "  Only the last %llu row%s and the last %llu column%s are wrong%s; the rest is "
			   "right: the grid or the guards stop short in both y and x. Round the number "
			   "of blocks up in each direction (e.g. (width + 15) / 16 for blocks of 16, not "
			   "width / 16) and guard with col < the number of columns (%llu) and row < the "
			   "number of rows (%llu).\n",
			(unsigned long long)r->last_rows, r->last_rows > 1 ? "s" : "",
			(unsigned long long)r->last_cols, r->last_cols > 1 ? "s" : "",
			blank ? " (never computed: they hold the fill value or zero)" : "",
			(unsigned long long)C, (unsigned long long)R);
		return true;
	}
	uint64_t r0 = r->row_min, c0 = r->col_min;
	if (r0 == 0 && c0 == 0) {
		if (k * 4 <= side) {
			fprintf(f, "  Every wrong element lies within %llu of the edge of its %llu x %llu plane, and "
				   "everything further in is right: the code is wrong only where the window or tile "
				   "reaches past the edge. How it treats the part outside (skipped, zero, clamped) "
				   "must be what the lab asks.\n",
				(unsigned long long)k, (unsigned long long)R, (unsigned long long)C);
			return true;
		}
		if (r->plane_min > 0) {
			fprintf(f, "  Only the planes from %s", name);
			print_index(f, "", s, r->plane_min * R * C);
			fprintf(f, " on are wrong%s; the first %llu of %llu are right: the grid (or the loop) "
				   "does not reach the later ones.\n", how,
				(unsigned long long)r->plane_min, (unsigned long long)planes);
			return true;
		}
		return false;
	}
	uint64_t region = (R - r0) * (C - c0) * planes;
	if (r0 == 0 || c0 == 0) {
		bool cols = r0 == 0;
		uint64_t from = cols ? c0 : r0, n = cols ? C : R;
		const char *unit = cols ? "column" : "row";
		fprintf(f, "  Only %ss %llu..%llu are wrong (%llu of the %llu elements there%s); %ss "
			   "0..%llu are right%s. Check the grid's %s extent (rounded up) and the guard "
			   "on the %s index: %s < the number of %ss (%llu), not of %ss.\n",
			unit, (unsigned long long)from, (unsigned long long)(n - 1),
			(unsigned long long)r->wrong, (unsigned long long)region, how, unit,
			(unsigned long long)(from - 1), cols ? " in every row" : "", cols ? "x" : "y",
			unit, cols ? "col" : "row", unit, (unsigned long long)n,
			cols ? "row" : "column");
	} else {
		fprintf(f, "  Only elements at row >= %llu and column >= %llu are wrong (%llu of the %llu "
			   "there%s): the rest is right. Check the bounds that the threads for the last "
			   "rows and columns meet.\n",
			(unsigned long long)r0, (unsigned long long)c0,
			(unsigned long long)r->wrong, (unsigned long long)region, how);
	}
	return true;
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
	bool bytes = tail && sz > 1 && r->first_wrong == n / sz && n >= sz;
	/* certain when some are the pattern plus the right value; the pattern alone in a
	 * single value (a sum whose few additions rounded away next to it): elsewhere it is
	 * just never written, which the shapes below explain (blank) */
	if (r->added_to_fresh + r->fresh == r->wrong && (r->added_to_fresh || n == 1)) {
		fprintf(f, "  The wrong elements hold what cudaMalloc left in device memory (the emulator "
			   "fills it with 0x%02X bytes; a GPU leaves whatever was there)%s: %s. cudaMalloc "
			   "does not clear memory: cudaMemset(%s_d, 0, bytes) before kernels accumulate "
			   "into it (atomicAdd, +=).\n", EMU_FRESH_BYTE,
			r->added_to_fresh ? " plus the right result" : "",
			r->added_to_fresh ? "the kernels added to it without anything clearing it first"
					  : "no kernel wrote them, or what a kernel added to them was too small to "
					    "show next to that value",
			name);
		return;
	}
	if (!(all_unwritten && r->wrong == n) && !bytes && r->shape.n >= 2 && explain_shaped(f, r, name))
		return;
	if (all_unwritten && r->wrong == n) {
		fprintf(f, "  No element of %s was written: the result never reached the host. "
			   "After the kernel, copy it back with cudaMemcpy(dst_h, src_d, bytes, cudaMemcpyDeviceToHost) "
			   "(check the direction and that the kernel ran: look for a CUDA error above).\n", name);
	} else if (bytes) {
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
	if (r->shape.n >= 2) {
		fprintf(f, "%s: %llu of %llu elements wrong (first at ", name,
			(unsigned long long)r->wrong, (unsigned long long)r->count);
		print_index(f, name, &r->shape, r->first_wrong);
		fputs(", last at ", f);
		print_index(f, name, &r->shape, r->last_wrong);
		fputs(")\n", f);
	} else {
		fprintf(f, "%s: %llu of %llu elements wrong (first at index %llu, last at %llu)\n", name,
			(unsigned long long)r->wrong, (unsigned long long)r->count,
			(unsigned long long)r->first_wrong, (unsigned long long)r->last_wrong);
	}
	for (unsigned i = 0; i < r->n_shown; i++) {
		fputs("  ", f);
		print_index(f, name, &r->shape, r->shown[i].index);
		fputs(": expected ", f);
		print_value(f, r->shown[i].expected, t, false);
		fputs(", got ", f);
		print_value(f, r->shown[i].actual, t, r->shown[i].unwritten);
		fputc('\n', f);
	}
	explain(f, r, name, t);
	fclose(f);
	return text;
}
