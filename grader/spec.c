/* spec: loading lab.yaml (libcyaml does the shape, spec_check_* the meaning). */
#include "spec.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "expr.h"
#include "spec_schema.h"
#include "yamlpos.h"

/* libcyaml reports through a log callback: the first error line says what, the
 * "Backtrace" lines after it say where, innermost first. */
struct cyaml_where {
	char field[128]; /* empty for sequence entries and bare mappings */
	unsigned line, col;
};

struct cyaml_log {
	char what[256];
	bool have_what;
	struct cyaml_where where[4];
	unsigned n_where;
};

static void cyaml_log_collect(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
	struct cyaml_log *log = ctx;
	if (level < CYAML_LOG_ERROR)
		return;
	char buf[512];
	vsnprintf(buf, sizeof(buf), fmt, args);
	buf[strcspn(buf, "\n")] = '\0';
	const char *text = buf;
	if (strncmp(text, "Load: ", 6) == 0)
		text += 6;
	if (strstr(text, "Backtrace:"))
		return;
	const char *at = strstr(text, "(line: ");
	if (strncmp(text, "  in ", 5) == 0 && at && log->n_where < 4) {
		struct cyaml_where *w = &log->where[log->n_where++];
		size_t line = 0, col = 0;
		sscanf(at, "(line: %zu, column: %zu)", &line, &col);
		w->line = (unsigned)line;
		w->col = (unsigned)col;
		if (sscanf(text, "  in mapping field '%127[^']'", w->field) != 1)
			w->field[0] = '\0';
	} else if (!log->have_what) {
		snprintf(log->what, sizeof(log->what), "%s", text);
		log->have_what = true;
	}
}

/* Turns libcyaml's wording into ours, with advice. A missing field is detected at the
 * end of its mapping, where the innermost backtrace entry is just the last field read:
 * the mapping that lacks it is the next entry out. */
static void report_cyaml_error(struct diag_list *diags, const char *path, cyaml_err_t err,
			       const struct cyaml_log *log)
{
	const char *what = log->have_what ? log->what : cyaml_strerror(err);
	const char *advice = "";
	const struct cyaml_where *w = log->n_where ? &log->where[0] : NULL;
	if (strstr(what, "Missing required mapping field")) {
		advice = " (see labs/README.md)";
		w = log->n_where > 1 ? &log->where[1] : NULL;
	} else if (strstr(what, "Unexpected key")) {
		advice = " (see labs/README.md for the fields a lab.yaml may have)";
	} else if (strstr(what, "Invalid")) {
		advice = " (see labs/README.md for the values this field takes)";
	} else if (strstr(what, "libyaml")) {
		advice = " (the file is not valid YAML: check indentation and quotes on this line or the ones before)";
	}
	if (w && w->field[0])
		diag_add(diags, DIAG_ERROR, path, w->line, w->col, "field '%s': %s%s", w->field, what, advice);
	else
		diag_add(diags, DIAG_ERROR, path, w ? w->line : 0, w ? w->col : 0, "%s%s", what, advice);
}

/* Meaning checks share one context, so each message can name its line. */
struct checker {
	struct lab_spec *spec;
	struct yamlpos *pos;
	struct diag_list *diags;
	const struct spec_dataset *dataset; /* for size lookups */
	unsigned errors;
};

static void check_error(struct checker *c, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check_error(struct checker *c, unsigned line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_add(c->diags, DIAG_ERROR, c->spec->path, line, 0, "%s", msg);
	c->errors++;
}

static const struct spec_param *find_param(const struct lab_spec *s, const char *name, size_t len)
{
	for (unsigned i = 0; i < s->params_count; i++)
		if (strlen(s->params[i].name) == len && strncmp(s->params[i].name, name, len) == 0)
			return &s->params[i];
	return NULL;
}

static bool valid_identifier(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static void check_file(struct checker *c, const char *rel, const char *field)
{
	char *abs = spec_path(c->spec, rel);
	if (abs && access(abs, R_OK) != 0)
		check_error(c, yamlpos_line(c->pos, "%s", field),
			    "field '%s': file '%s' not found (looked for %s); paths are relative to the lab folder",
			    field, rel, abs);
	free(abs);
}

/* Every param, input and output: its name, and where it was declared. */
struct named {
	const char *name;
	char field[48];
};

static unsigned collect_names(const struct lab_spec *s, struct named *out, unsigned cap)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->params_count && n < cap; i++, n++) {
		out[n].name = s->params[i].name;
		snprintf(out[n].field, sizeof(out[n].field), "params[%u]", i);
	}
	for (unsigned i = 0; i < s->inputs_count && n < cap; i++, n++) {
		out[n].name = s->inputs[i].name;
		snprintf(out[n].field, sizeof(out[n].field), "inputs[%u]", i);
	}
	for (unsigned i = 0; i < s->outputs_count && n < cap; i++, n++) {
		out[n].name = s->outputs[i].name;
		snprintf(out[n].field, sizeof(out[n].field), "outputs[%u]", i);
	}
	return n;
}

static void check_names(struct checker *c)
{
	struct named names[64];
	unsigned n = collect_names(c->spec, names, 64);
	for (unsigned i = 0; i < n; i++) {
		unsigned line = yamlpos_line(c->pos, "%s.name", names[i].field);
		if (!valid_identifier(names[i].name))
			check_error(c, line, "%s: '%s' is not a C identifier (letters, digits, '_')",
				    names[i].field, names[i].name);
		for (unsigned j = 0; j < i; j++)
			if (strcmp(names[i].name, names[j].name) == 0)
				check_error(c, line,
					    "%s: the name '%s' is already used by %s; params, inputs and outputs need distinct names",
					    names[i].field, names[i].name, names[j].field);
	}
}

static void check_entry(struct checker *c)
{
	struct lab_spec *s = c->spec;
	if (!valid_identifier(s->entry.function))
		check_error(c, yamlpos_line(c->pos, "entry.function"),
			    "entry.function: '%s' is not a C function name", s->entry.function);
	struct named names[64];
	unsigned n = collect_names(s, names, 64);
	bool used[64] = { false };
	for (unsigned a = 0; a < s->entry.args_count; a++) {
		const char *arg = s->entry.args[a];
		unsigned k = 0;
		while (k < n && strcmp(names[k].name, arg) != 0)
			k++;
		if (k == n)
			check_error(c, yamlpos_line(c->pos, "entry.args[%u]", a),
				    "entry.args[%u]: '%s' is not a param, input or output of this lab",
				    a, arg);
		else
			used[k] = true;
	}
	for (unsigned k = 0; k < n; k++)
		if (!used[k] && strncmp(names[k].field, "params", 6) != 0)
			check_error(c, yamlpos_line(c->pos, "entry.args"),
				    "entry.args: %s '%s' is never passed to %s; add it to args",
				    names[k].field, names[k].name, s->entry.function);
}

static bool lookup_param(void *userdata, const char *name, size_t len, int64_t *out)
{
	struct checker *c = userdata;
	if (!find_param(c->spec, name, len))
		return false;
	for (unsigned i = 0; i < c->dataset->n_vals; i++)
		if (strlen(c->dataset->vals[i].name) == len &&
		    strncmp(c->dataset->vals[i].name, name, len) == 0) {
			*out = c->dataset->vals[i].value;
			return true;
		}
	return false;
}

static void check_dataset_values(struct checker *c, unsigned di)
{
	struct spec_dataset *d = &c->spec->datasets[di];
	c->dataset = d;
	d->vals = calloc(d->values_count ? d->values_count : 1, sizeof(*d->vals));
	if (!d->vals)
		return;
	for (unsigned v = 0; v < d->values_count; v++) {
		char err[200];
		char *name = NULL;
		int64_t value;
		unsigned line = yamlpos_line(c->pos, "datasets[%u].values[%u]", di, v);
		if (expr_assignment(d->values[v], lookup_param, c, &name, &value, err, sizeof(err)) < 0) {
			check_error(c, line, "datasets[%u].values[%u]: '%s': %s", di, v, d->values[v], err);
			continue;
		}
		if (!find_param(c->spec, name, strlen(name))) {
			check_error(c, line, "datasets[%u].values[%u]: '%s' is not a param; declare it under params",
				    di, v, name);
			free(name);
			continue;
		}
		d->vals[d->n_vals++] = (struct spec_value){ name, value };
	}
	for (unsigned p = 0; p < c->spec->params_count; p++) {
		int64_t ignored;
		if (!spec_dataset_value(d, c->spec->params[p].name, &ignored))
			check_error(c, yamlpos_line(c->pos, "datasets[%u].values", di),
				    "dataset '%s' gives no value for param '%s'; add '%s = ...' to its values",
				    d->name, c->spec->params[p].name, c->spec->params[p].name);
	}
	for (unsigned g = 0; g < d->gens_count; g++) {
		const struct spec_dataset_gen *dg = &d->gens[g];
		unsigned line = yamlpos_line(c->pos, "datasets[%u].generate[%u]", di, g);
		bool found = false;
		for (unsigned i = 0; i < c->spec->inputs_count && !found; i++)
			found = strcmp(c->spec->inputs[i].name, dg->input) == 0;
		if (!found)
			check_error(c, line, "datasets[%u].generate[%u]: '%s' is not an input; name one declared under inputs",
				    di, g, dg->input);
		else if (dg->gen.kind == SPEC_GEN_UNIFORM && dg->gen.min > dg->gen.max)
			check_error(c, line, "datasets[%u].generate[%u]: min (%g) is greater than max (%g)", di, g,
				    dg->gen.min, dg->gen.max);
		for (unsigned h = 0; h < g; h++)
			if (strcmp(d->gens[h].input, dg->input) == 0)
				check_error(c, line, "datasets[%u].generate[%u]: input '%s' already has a generator in this dataset",
					    di, g, dg->input);
	}
	for (unsigned j = 0; j < di; j++)
		if (strcmp(c->spec->datasets[j].name, d->name) == 0)
			check_error(c, yamlpos_line(c->pos, "datasets[%u].name", di),
				    "datasets[%u]: the name '%s' is already used by datasets[%u]", di, d->name, j);
}

/* An output's shape: 2 to 4 dimensions, each positive in the dataset, whose product is
 * its size (count). Returns false after reporting the first problem. */
static bool check_shape(struct checker *c, const struct spec_buffer *b, int64_t count,
			const char *field, unsigned i)
{
	unsigned line = yamlpos_line(c->pos, "%s[%u].shape", field, i);
	if (strcmp(field, "outputs") != 0) {
		check_error(c, line, "%s[%u]: 'shape' describes an output's mismatches; inputs have none", field, i);
		return false;
	}
	if (b->shape_count < 2 || b->shape_count > SPEC_SHAPE_DIMS) {
		check_error(c, line, "%s[%u].shape: %u dimensions; give 2 to %d, outermost first, e.g. shape: [height, width]",
			    field, i, b->shape_count, SPEC_SHAPE_DIMS);
		return false;
	}
	int64_t product = 1;
	for (unsigned k = 0; k < b->shape_count; k++) {
		int64_t v;
		char err[200];
		if (expr_eval(b->shape[k], lookup_param, c, &v, err, sizeof(err)) < 0 || v <= 0) {
			check_error(c, line, "%s[%u].shape[%u]: '%s': %s (in dataset '%s')", field, i, k,
				    b->shape[k], v <= 0 ? "must be at least 1" : err, c->dataset->name);
			return false;
		}
		product = v > (INT64_C(1) << 31) / product ? -1 : product * v;
		if (product < 0)
			break;
	}
	if (product != count) {
		check_error(c, line, "%s[%u].shape: the dimensions' product is %lld but size '%s' is %lld in dataset '%s'",
			    field, i, (long long)product, b->size, (long long)count, c->dataset->name);
		return false;
	}
	return true;
}

/* Each buffer's size must evaluate, in every dataset, to a count the grader can hold. */
static void check_sizes(struct checker *c, const struct spec_buffer *b, unsigned n, const char *field)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned di = 0; di < c->spec->datasets_count; di++) {
			c->dataset = &c->spec->datasets[di];
			int64_t count;
			char err[200];
			unsigned line = yamlpos_line(c->pos, "%s[%u].size", field, i);
			if (expr_eval(b[i].size, lookup_param, c, &count, err, sizeof(err)) < 0) {
				check_error(c, line, "%s[%u].size: '%s': %s (in dataset '%s')", field, i,
					    b[i].size, err, c->dataset->name);
				break;
			}
			if (count < 0 || count > (INT64_C(1) << 31)) {
				check_error(c, line, "%s[%u].size: '%s' is %lld in dataset '%s'; sizes must be 0..2^31 elements",
					    field, i, b[i].size, (long long)count, c->dataset->name);
				break;
			}
			if (b[i].shape_count && !check_shape(c, &b[i], count, field, i))
				break;
		}
}

static void check_buffers(struct checker *c)
{
	struct lab_spec *s = c->spec;
	for (unsigned i = 0; i < s->inputs_count; i++) {
		const struct spec_generator *g = s->inputs[i].generate;
		unsigned line = yamlpos_line(c->pos, "inputs[%u]", i);
		if (!g)
			check_error(c, line, "inputs[%u] ('%s'): no 'generate'; say how the grader fills it, e.g. generate: {kind: uniform, min: -1, max: 1}",
				    i, s->inputs[i].name);
		else if ((g->kind == SPEC_GEN_UNIFORM) && g->min > g->max)
			check_error(c, yamlpos_line(c->pos, "inputs[%u].generate", i),
				    "inputs[%u].generate: min (%g) is greater than max (%g)", i, g->min, g->max);
		if (s->inputs[i].provenance != SPEC_PROV_DEVICE)
			check_error(c, yamlpos_line(c->pos, "inputs[%u].provenance", i),
				    "inputs[%u]: 'provenance' says who computes an output; inputs come from the grader", i);
	}
	for (unsigned i = 0; i < s->outputs_count; i++) {
		const struct spec_tolerance *t = s->outputs[i].tolerance;
		unsigned line = yamlpos_line(c->pos, "outputs[%u]", i);
		if (s->outputs[i].generate)
			check_error(c, yamlpos_line(c->pos, "outputs[%u].generate", i),
				    "outputs[%u]: outputs are produced by the student's code; 'generate' belongs to inputs", i);
		if (t && (t->abs < 0 || t->rel < 0))
			check_error(c, yamlpos_line(c->pos, "outputs[%u].tolerance", i),
				    "outputs[%u].tolerance: abs and rel must be >= 0", i);
		if (t && t->exact && (t->abs > 0 || t->rel > 0))
			check_error(c, yamlpos_line(c->pos, "outputs[%u].tolerance", i),
				    "outputs[%u].tolerance: 'exact: true' cannot have abs or rel too", i);
		if (!t && (s->outputs[i].type == SPEC_F32 || s->outputs[i].type == SPEC_F64))
			check_error(c, line, "outputs[%u] ('%s'): floating-point outputs need a tolerance, e.g. tolerance: {rel: 1e-5, abs: 1e-6}",
				    i, s->outputs[i].name);
	}
	check_sizes(c, s->inputs, s->inputs_count, "inputs");
	check_sizes(c, s->outputs, s->outputs_count, "outputs");
}

/* pmpplab perf (issue 8): a performance check's fields must fit its metric, and its
 * expressions must evaluate in every dataset (the check may name any). */
static void check_perf_expr(struct checker *c, unsigned i, const char *field, const char *expr)
{
	for (unsigned di = 0; expr && di < c->spec->datasets_count; di++) {
		c->dataset = &c->spec->datasets[di];
		int64_t v = 0;
		char err[200] = "must be positive";
		if (expr_eval(expr, lookup_param, c, &v, err, sizeof(err)) < 0 || v <= 0) {
			check_error(c, yamlpos_line(c->pos, "checks[%u].%s", i, field),
				    "checks[%u].%s: '%s': %s (in dataset '%s')", i, field, expr, err,
				    c->dataset->name);
			return;
		}
	}
}

const struct spec_dataset *spec_dataset_named(const struct lab_spec *s, const char *name)
{
	for (unsigned d = 0; name && d < s->datasets_count; d++)
		if (strcmp(s->datasets[d].name, name) == 0)
			return &s->datasets[d];
	return NULL;
}

/* Whether the spec has a dataset called NAME (NULL: nothing to find). */
static bool has_dataset(const struct lab_spec *s, const char *name)
{
	return !name || spec_dataset_named(s, name);
}

/* A check's `datasets` list: memcheck's only, each one a dataset of the lab. */
static void check_dataset_list(struct checker *c, unsigned i)
{
	const struct spec_check *k = &c->spec->checks[i];
	if (k->datasets_count && k->kind != SPEC_CHECK_MEMCHECK)
		check_error(c, yamlpos_line(c->pos, "checks[%u].datasets", i),
			    "checks[%u].datasets: only a memcheck check runs several datasets; give this one `dataset`", i);
	if (k->datasets_count && k->dataset)
		check_error(c, yamlpos_line(c->pos, "checks[%u].datasets", i),
			    "checks[%u]: both dataset and datasets: keep one", i);
	for (unsigned d = 0; d < k->datasets_count; d++)
		if (!has_dataset(c->spec, k->datasets[d]))
			check_error(c, yamlpos_line(c->pos, "checks[%u].datasets[%u]", i, d),
				    "checks[%u].datasets[%u]: no dataset is named '%s'", i, d, k->datasets[d]);
}

/* Optimisation checks: recognisers that can recognise something, regexes that compile,
 * datasets that exist; their fields belong to kind optimisations only. */
static void check_optimisations(struct checker *c, unsigned i)
{
	const struct spec_check *k = &c->spec->checks[i];
	unsigned line = yamlpos_line(c->pos, "checks[%u]", i);
	if (k->kind != SPEC_CHECK_OPTIMISATIONS) {
		if (k->recognisers || k->baseline || k->emu_baseline || k->min_used || k->leaderboard)
			check_error(c, line, "checks[%u]: recognisers, baseline, emu_baseline, min_used and leaderboard belong to kind: optimisations", i);
		return;
	}
	if (!k->recognisers_count)
		check_error(c, line, "checks[%u]: an optimisations check needs recognisers: a list of {name, ptx, max_kernels, min_streams}", i);
	if (k->min_used > k->recognisers_count)
		check_error(c, line, "checks[%u]: min_used (%u) is more than the %u recognisers", i, k->min_used, k->recognisers_count);
	const char *names[] = { "emu_dataset", "baseline", "emu_baseline" };
	const char *values[] = { k->emu_dataset, k->baseline, k->emu_baseline };
	for (unsigned f = 0; f < 3; f++)
		if (!has_dataset(c->spec, values[f]))
			check_error(c, yamlpos_line(c->pos, "checks[%u].%s", i, names[f]),
				    "checks[%u].%s: no dataset is named '%s'", i, names[f], values[f]);
	for (unsigned r = 0; r < k->recognisers_count; r++) {
		const struct spec_recogniser *g = &k->recognisers[r];
		unsigned rl = yamlpos_line(c->pos, "checks[%u].recognisers[%u]", i, r);
		if (!g->ptx && !g->max_kernels && !g->min_streams && !g->min_fma_per_load)
			check_error(c, rl, "checks[%u].recognisers[%u] ('%s'): no condition: give ptx, max_kernels, min_streams or min_fma_per_load", i, r, g->name);
		regex_t re;
		int rc = g->ptx ? regcomp(&re, g->ptx, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) : 0;
		if (rc != 0) {
			char err[160];
			regerror(rc, &re, err, sizeof(err));
			check_error(c, rl, "checks[%u].recognisers[%u].ptx: '%s' is not an extended regular expression: %s", i, r, g->ptx, err);
		} else if (g->ptx) {
			regfree(&re);
		}
	}
}

/* Barrier analysis (issue 6): its fields belong to kind barriers only. */
static void check_barriers(struct checker *c, unsigned i)
{
	const struct spec_check *k = &c->spec->checks[i];
	if (k->kind != SPEC_CHECK_BARRIERS && (k->kernel || k->min_barriers || k->forbid_divergent))
		check_error(c, yamlpos_line(c->pos, "checks[%u]", i),
			    "checks[%u]: kernel, min_barriers and forbid_divergent belong to kind: barriers", i);
}

/* The vendor line's program: a file that exists, a function and args that fit the lab,
 * and work in the check's unit (a rate in another unit compares nothing). */
static void check_vendor(struct checker *c, unsigned i)
{
	const struct spec_check *k = &c->spec->checks[i];
	const struct spec_vendor *v = k->vendor;
	char field[64];
	snprintf(field, sizeof(field), "checks[%u].vendor.file", i);
	check_file(c, v->file, field);
	unsigned line = yamlpos_line(c->pos, "checks[%u].vendor", i);
	if (v->function && !valid_identifier(v->function))
		check_error(c, line, "checks[%u].vendor.function: '%s' is not a C function name", i, v->function);
	struct named names[64];
	unsigned n = collect_names(c->spec, names, 64);
	for (unsigned a = 0; a < v->args_count; a++) {
		unsigned j = 0;
		while (j < n && strcmp(names[j].name, v->args[a]) != 0)
			j++;
		if (j == n)
			check_error(c, line, "checks[%u].vendor.args[%u]: '%s' is not a param, input or output of this lab",
				    i, a, v->args[a]);
	}
	if (v->bytes && v->flops)
		check_error(c, line, "checks[%u].vendor: bytes or flops, not both: the work it does, in the unit of its rate", i);
	snprintf(field, sizeof(field), "vendor.%s", v->bytes ? "bytes" : "flops");
	check_perf_expr(c, i, field, v->bytes ? v->bytes : v->flops);
}

static void check_perf(struct checker *c, unsigned i)
{
	const struct spec_check *k = &c->spec->checks[i];
	unsigned line = yamlpos_line(c->pos, "checks[%u]", i);
	if (k->kind != SPEC_CHECK_PERFORMANCE) {
		if (k->bytes || k->flops || k->max_ratio || k->min_peak || k->metric ||
		    (k->emu_dataset && k->kind != SPEC_CHECK_OPTIMISATIONS) ||
		    k->max_traffic_ratio || k->min_coalescing || k->max_bank_conflicts ||
		    k->min_lane_efficiency || k->max_insn_ratio || k->max_store_ratio || k->vendor || k->traffic ||
		    k->elements || k->max_atomics_per_element)
			check_error(c, line, "checks[%u]: metric, bytes, flops, max_ratio, min_peak, vendor and the emulator's thresholds belong to kind: performance", i);
		return;
	}
	if (k->max_insn_ratio < 0)
		check_error(c, line, "checks[%u]: max_insn_ratio must be > 0 (warp instructions against the solution's)", i);
	if (k->max_store_ratio < 0)
		check_error(c, line, "checks[%u]: max_store_ratio must be > 0 (global bytes stored against the solution's)", i);
	if (k->max_atomics_per_element < 0)
		check_error(c, line, "checks[%u]: max_atomics_per_element must be > 0 (global atomics per element)", i);
	if (k->max_traffic_ratio < 0 || k->max_bank_conflicts < 0 ||
	    (k->max_bank_conflicts > 0 && k->max_bank_conflicts < 1) ||
	    k->min_coalescing < 0 || k->min_coalescing > 1 || k->min_lane_efficiency < 0 ||
	    k->min_lane_efficiency > 1)
		check_error(c, line, "checks[%u]: max_traffic_ratio must be > 0, max_bank_conflicts >= 1, min_coalescing and min_lane_efficiency in 0..1", i);
	bool found = !k->emu_dataset;
	for (unsigned d = 0; k->emu_dataset && d < c->spec->datasets_count; d++)
		found |= strcmp(c->spec->datasets[d].name, k->emu_dataset) == 0;
	if (!found)
		check_error(c, yamlpos_line(c->pos, "checks[%u].emu_dataset", i),
			    "checks[%u].emu_dataset: no dataset is named '%s'", i, k->emu_dataset);
	if (k->metric == SPEC_PERF_BANDWIDTH && !k->bytes)
		check_error(c, line, "checks[%u]: metric bandwidth needs 'bytes', e.g. bytes: 3 * n * 4", i);
	if (k->metric == SPEC_PERF_FLOPS && !k->flops)
		check_error(c, line, "checks[%u]: metric flops needs 'flops', e.g. flops: 2 * n * n * n", i);
	if (k->max_ratio < 0 || k->min_peak < 0 || k->min_peak > 1)
		check_error(c, line, "checks[%u]: max_ratio must be > 0 and min_peak in 0..1 (a fraction of the peak)", i);
	if (k->max_ratio == 0 && k->min_peak == 0)
		check_error(c, line, "checks[%u]: a performance check needs a threshold: max_ratio (time against the solution) and/or min_peak", i);
	if (k->min_peak > 0 && k->metric == SPEC_PERF_TIME)
		check_error(c, line, "checks[%u]: min_peak needs metric bandwidth or flops", i);
	check_perf_expr(c, i, "bytes", k->bytes);
	check_perf_expr(c, i, "flops", k->flops);
	check_perf_expr(c, i, "elements", k->elements);
	if (k->vendor)
		check_vendor(c, i);
}

static void check_top(struct checker *c)
{
	struct lab_spec *s = c->spec;
	const char *base = strrchr(s->dir, '/');
	base = base ? base + 1 : s->dir;
	if (strcmp(s->id, base) != 0)
		check_error(c, yamlpos_line(c->pos, "id"),
			    "id: '%s' differs from its folder name '%s'; rename one so they match", s->id, base);
	if (s->chapter < 1 || s->chapter > 30)
		check_error(c, yamlpos_line(c->pos, "chapter"),
			    "chapter: %u is not a chapter of PMPP (1..30)", s->chapter);
	if (s->timeout > 600)
		check_error(c, yamlpos_line(c->pos, "timeout"),
			    "timeout: %u s is more than the 600 s a run may take", s->timeout);
	if (s->datasets_count == 0)
		check_error(c, yamlpos_line(c->pos, "datasets"),
			    "datasets: a lab needs at least one dataset");
	if (s->outputs_count == 0)
		check_error(c, yamlpos_line(c->pos, "outputs"),
			    "outputs: a lab needs at least one output to check");
	check_file(c, s->student, "student");
	check_file(c, s->solution, "solution");
	check_file(c, s->reference.file, "reference.file");
	for (unsigned i = 0; i < s->checks_count; i++) {
		const char *ds = s->checks[i].dataset;
		bool found = !ds;
		for (unsigned d = 0; ds && d < s->datasets_count; d++)
			found |= strcmp(s->datasets[d].name, ds) == 0;
		if (!found)
			check_error(c, yamlpos_line(c->pos, "checks[%u].dataset", i),
				    "checks[%u].dataset: no dataset is named '%s'", i, ds);
	}
}

int spec_load(const char *dir, struct lab_spec **out, struct diag_list *diags)
{
	*out = NULL;
	char *path = NULL;
	char absdir[PATH_MAX];
	if (!realpath(dir, absdir)) {
		diag_add(diags, DIAG_ERROR, dir, 0, 0, "cannot open lab folder: %s", strerror(errno));
		return -errno;
	}
	if (asprintf(&path, "%s/lab.yaml", absdir) < 0)
		return -ENOMEM;
	struct stat st = { 0 }; /* a folder passes access() */
	if (access(path, R_OK) != 0 || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
		diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot read the lab spec: %s", strerror(err));
		free(path);
		return -err;
	}
	struct cyaml_log log = { 0 };
	cyaml_config_t config = {
		.log_fn = cyaml_log_collect,
		.log_ctx = &log,
		.mem_fn = cyaml_mem,
		.log_level = CYAML_LOG_WARNING,
		.flags = CYAML_CFG_DEFAULT,
	};
	struct lab_spec *s = NULL;
	cyaml_err_t err = cyaml_load_file(path, &config, &spec_schema_top, (cyaml_data_t **)&s, NULL);
	if (err != CYAML_OK) {
		report_cyaml_error(diags, path, err, &log);
		free(path);
		return -EINVAL;
	}
	if (!s) { /* an empty document (or only comments) loads as nothing */
		diag_add(diags, DIAG_ERROR, path, 1, 0,
			 "the lab spec is empty: it needs id, title, chapter, student, entry, outputs and datasets at least (labs/README.md lists every field)");
		free(path);
		return -EINVAL;
	}
	s->path = path;
	s->dir = strdup(absdir);
	struct checker c = { s, yamlpos_scan(path), diags, NULL, 0 };
	check_top(&c);
	check_names(&c);
	check_entry(&c);
	for (unsigned d = 0; d < s->datasets_count; d++)
		check_dataset_values(&c, d);
	if (c.errors == 0)
		check_buffers(&c);
	for (unsigned i = 0; c.errors == 0 && i < s->checks_count; i++)
		check_perf(&c, i); /* pmpplab perf (issue 8) */
	for (unsigned i = 0; c.errors == 0 && i < s->checks_count; i++)
		check_barriers(&c, i); /* issue 6 */
	for (unsigned i = 0; c.errors == 0 && i < s->checks_count; i++) {
		check_optimisations(&c, i);
		check_dataset_list(&c, i);
	}
	yamlpos_free(c.pos);
	if (c.errors) {
		spec_free(s);
		return -EINVAL;
	}
	*out = s;
	return 0;
}

void spec_free(struct lab_spec *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->dir);
	for (unsigned d = 0; d < s->datasets_count; d++) {
		for (unsigned v = 0; v < s->datasets[d].n_vals; v++)
			free(s->datasets[d].vals[v].name);
		free(s->datasets[d].vals);
	}
	cyaml_config_t config = { .mem_fn = cyaml_mem, .log_level = CYAML_LOG_ERROR };
	cyaml_free(&config, &spec_schema_top, s, 0);
}

char *spec_path(const struct lab_spec *spec, const char *rel)
{
	char *out = NULL;
	if (rel[0] == '/')
		return strdup(rel);
	if (asprintf(&out, "%s/%s", spec->dir, rel) < 0)
		return NULL;
	char resolved[PATH_MAX];
	if (realpath(out, resolved)) {
		free(out);
		return strdup(resolved);
	}
	return out;
}

int spec_vendor_view(const struct lab_spec *spec, const struct spec_vendor *v,
		     struct lab_spec *view)
{
	*view = *spec;
	view->checks = NULL;
	view->checks_count = 0;
	if (v->function)
		view->entry.function = v->function;
	if (v->args) {
		view->reference.args = spec->entry.args;
		view->reference.args_count = spec->entry.args_count;
		view->entry.args = v->args;
		view->entry.args_count = v->args_count;
	}
	view->nvcc_flags_count = spec->nvcc_flags_count + v->nvcc_flags_count;
	view->nvcc_flags = calloc(view->nvcc_flags_count + 1, sizeof(char *));
	if (!view->nvcc_flags)
		return -ENOMEM;
	for (unsigned i = 0; i < spec->nvcc_flags_count; i++)
		view->nvcc_flags[i] = spec->nvcc_flags[i];
	for (unsigned i = 0; i < v->nvcc_flags_count; i++)
		view->nvcc_flags[spec->nvcc_flags_count + i] = v->nvcc_flags[i];
	return 0;
}

void spec_vendor_view_release(struct lab_spec *view)
{
	free(view->nvcc_flags);
	view->nvcc_flags = NULL;
}

size_t spec_dtype_size(enum spec_dtype t)
{
	switch (t) {
	case SPEC_F32: case SPEC_I32: case SPEC_U32: return 4;
	case SPEC_F64: return 8;
	case SPEC_U8: return 1;
	}
	return 0;
}

const char *spec_dtype_name(enum spec_dtype t)
{
	static const char *names[] = { "float32", "float64", "int32", "uint32", "uint8" };
	return (unsigned)t < 5 ? names[t] : "?";
}

bool spec_dataset_value(const struct spec_dataset *d, const char *name, int64_t *out)
{
	for (unsigned i = 0; i < d->n_vals; i++)
		if (strcmp(d->vals[i].name, name) == 0) {
			*out = d->vals[i].value;
			return true;
		}
	return false;
}

const struct spec_generator *spec_dataset_generator(const struct spec_dataset *d,
						    const struct spec_buffer *b)
{
	for (unsigned i = 0; i < d->gens_count; i++)
		if (strcmp(d->gens[i].input, b->name) == 0)
			return &d->gens[i].gen;
	return b->generate;
}

int spec_dataset_eval(const struct lab_spec *spec, const struct spec_dataset *d,
		      const char *expr, int64_t *out)
{
	struct checker c = { (struct lab_spec *)spec, NULL, NULL, d, 0 };
	char err[128];
	return expr_eval(expr, lookup_param, &c, out, err, sizeof(err)) < 0 ? -EINVAL : 0;
}

void spec_buffer_shape(const struct lab_spec *spec, const struct spec_buffer *b,
		       const struct spec_dataset *d, uint64_t count, struct spec_shape *out)
{
	struct checker c = { (struct lab_spec *)spec, NULL, NULL, d, 0 };
	char err[128];
	uint64_t product = 1;
	out->n = 0;
	if (b->shape_count < 2 || b->shape_count > SPEC_SHAPE_DIMS)
		return;
	for (unsigned k = 0; k < b->shape_count; k++) {
		int64_t v;
		if (expr_eval(b->shape[k], lookup_param, &c, &v, err, sizeof(err)) < 0 || v <= 0 ||
		    (uint64_t)v > count)
			return;
		out->dim[k] = (uint64_t)v;
		product *= (uint64_t)v;
	}
	if (product == count) /* lab check reports any other */
		out->n = b->shape_count;
}

int spec_buffer_count(const struct lab_spec *spec, const struct spec_buffer *b,
		      const struct spec_dataset *d, uint64_t *count)
{
	struct checker c = { (struct lab_spec *)spec, NULL, NULL, d, 0 };
	int64_t v;
	char err[128];
	int rc = expr_eval(b->size, lookup_param, &c, &v, err, sizeof(err));
	if (rc < 0 || v < 0)
		return -EINVAL;
	*count = (uint64_t)v;
	return 0;
}
