/* spec_schema: see spec_schema.h. */
#include "spec_schema.h"

#include "spec.h"

#define OPT CYAML_FLAG_OPTIONAL
#define STR(key, flags, type, member) \
	CYAML_FIELD_STRING_PTR(key, (flags) | CYAML_FLAG_POINTER, type, member, 1, CYAML_UNLIMITED)
#define SEQ(key, flags, type, member, entry) \
	CYAML_FIELD_SEQUENCE(key, (flags) | CYAML_FLAG_POINTER, type, member, entry, 0, CYAML_UNLIMITED)

static const cyaml_strval_t dtype_names[] = {
	{ "float32", SPEC_F32 }, { "float64", SPEC_F64 }, { "int32", SPEC_I32 },
	{ "uint32", SPEC_U32 },  { "uint8", SPEC_U8 },
};

static const cyaml_strval_t gen_names[] = {
	{ "uniform", SPEC_GEN_UNIFORM },
	{ "const", SPEC_GEN_CONST },
	{ "iota", SPEC_GEN_IOTA },
	{ "bits", SPEC_GEN_BITS },
};

static const cyaml_strval_t check_names[] = {
	{ "memcheck", SPEC_CHECK_MEMCHECK },
	{ "performance", SPEC_CHECK_PERFORMANCE },
	{ "barriers", SPEC_CHECK_BARRIERS }, /* issue 6 */
	{ "optimisations", SPEC_CHECK_OPTIMISATIONS },
};

static const cyaml_strval_t provenance_names[] = {
	{ "device", SPEC_PROV_DEVICE },
	{ "host-combines", SPEC_PROV_HOST_COMBINES },
	{ "host", SPEC_PROV_HOST },
};

static const cyaml_strval_t perf_traffic_names[] = {
	{ "all", SPEC_TRAFFIC_ALL },
	{ "loads", SPEC_TRAFFIC_LOADS },
};

static const cyaml_strval_t perf_metric_names[] = {
	{ "time", SPEC_PERF_TIME },
	{ "bandwidth", SPEC_PERF_BANDWIDTH },
	{ "flops", SPEC_PERF_FLOPS },
};

static const cyaml_schema_value_t string_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED),
};

static const cyaml_schema_field_t generator_fields[] = {
	CYAML_FIELD_ENUM("kind", CYAML_FLAG_STRICT, struct spec_generator, kind, gen_names,
			 CYAML_ARRAY_LEN(gen_names)),
	CYAML_FIELD_FLOAT("min", OPT, struct spec_generator, min),
	CYAML_FIELD_FLOAT("max", OPT, struct spec_generator, max),
	CYAML_FIELD_FLOAT("value", OPT, struct spec_generator, value),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t tolerance_fields[] = {
	CYAML_FIELD_BOOL("exact", OPT, struct spec_tolerance, exact),
	CYAML_FIELD_FLOAT("abs", OPT, struct spec_tolerance, abs),
	CYAML_FIELD_FLOAT("rel", OPT, struct spec_tolerance, rel),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t param_fields[] = {
	STR("name", 0, struct spec_param, name),
	CYAML_FIELD_ENUM("type", CYAML_FLAG_STRICT, struct spec_param, type, dtype_names,
			 CYAML_ARRAY_LEN(dtype_names)),
	STR("doc", OPT, struct spec_param, doc),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t buffer_fields[] = {
	STR("name", 0, struct spec_buffer, name),
	CYAML_FIELD_ENUM("type", CYAML_FLAG_STRICT, struct spec_buffer, type, dtype_names,
			 CYAML_ARRAY_LEN(dtype_names)),
	STR("size", 0, struct spec_buffer, size),
	SEQ("shape", OPT, struct spec_buffer, shape, &string_entry),
	CYAML_FIELD_MAPPING_PTR("generate", OPT, struct spec_buffer, generate, generator_fields),
	CYAML_FIELD_MAPPING_PTR("tolerance", OPT, struct spec_buffer, tolerance,
				tolerance_fields),
	CYAML_FIELD_ENUM("provenance", OPT | CYAML_FLAG_STRICT, struct spec_buffer, provenance,
			 provenance_names, CYAML_ARRAY_LEN(provenance_names)),
	STR("doc", OPT, struct spec_buffer, doc),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t dataset_gen_fields[] = {
	STR("input", 0, struct spec_dataset_gen, input),
	CYAML_FIELD_ENUM("kind", CYAML_FLAG_STRICT, struct spec_dataset_gen, gen.kind, gen_names,
			 CYAML_ARRAY_LEN(gen_names)),
	CYAML_FIELD_FLOAT("min", OPT, struct spec_dataset_gen, gen.min),
	CYAML_FIELD_FLOAT("max", OPT, struct spec_dataset_gen, gen.max),
	CYAML_FIELD_FLOAT("value", OPT, struct spec_dataset_gen, gen.value),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t dataset_gen_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct spec_dataset_gen, dataset_gen_fields),
};
static const cyaml_schema_field_t dataset_fields[] = {
	STR("name", 0, struct spec_dataset, name),
	SEQ("values", 0, struct spec_dataset, values, &string_entry),
	CYAML_FIELD_UINT("points", 0, struct spec_dataset, points),
	CYAML_FIELD_BOOL("perf", OPT, struct spec_dataset, perf),
	CYAML_FIELD_UINT("min_launches", OPT, struct spec_dataset, min_launches),
	SEQ("generate", OPT, struct spec_dataset, gens, &dataset_gen_entry),
	STR("doc", OPT, struct spec_dataset, doc),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t vendor_fields[] = {
	STR("name", 0, struct spec_vendor, name),
	STR("file", 0, struct spec_vendor, file),
	STR("function", OPT, struct spec_vendor, function),
	SEQ("args", OPT, struct spec_vendor, args, &string_entry),
	STR("bytes", OPT, struct spec_vendor, bytes),
	STR("flops", OPT, struct spec_vendor, flops),
	SEQ("nvcc_flags", OPT, struct spec_vendor, nvcc_flags, &string_entry),
	CYAML_FIELD_BOOL("checked", OPT, struct spec_vendor, checked),
	STR("doc", OPT, struct spec_vendor, doc),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t recogniser_fields[] = {
	STR("name", 0, struct spec_recogniser, name),
	STR("ptx", OPT, struct spec_recogniser, ptx),
	CYAML_FIELD_UINT("max_kernels", OPT, struct spec_recogniser, max_kernels),
	CYAML_FIELD_UINT("min_streams", OPT, struct spec_recogniser, min_streams),
	CYAML_FIELD_UINT("min_fma_per_load", OPT, struct spec_recogniser, min_fma_per_load),
	STR("doc", OPT, struct spec_recogniser, doc),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t recogniser_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct spec_recogniser, recogniser_fields),
};

static const cyaml_schema_field_t check_fields[] = {
	CYAML_FIELD_ENUM("kind", CYAML_FLAG_STRICT, struct spec_check, kind, check_names,
			 CYAML_ARRAY_LEN(check_names)),
	CYAML_FIELD_UINT("points", 0, struct spec_check, points),
	STR("dataset", OPT, struct spec_check, dataset),
	SEQ("datasets", OPT, struct spec_check, datasets, &string_entry),
	/* kind performance (pmpplab perf, issue 8) */
	CYAML_FIELD_ENUM("metric", OPT | CYAML_FLAG_STRICT, struct spec_check, metric,
			 perf_metric_names, CYAML_ARRAY_LEN(perf_metric_names)),
	STR("bytes", OPT, struct spec_check, bytes),
	STR("flops", OPT, struct spec_check, flops),
	CYAML_FIELD_FLOAT("max_ratio", OPT, struct spec_check, max_ratio),
	CYAML_FIELD_FLOAT("min_peak", OPT, struct spec_check, min_peak),
	STR("emu_dataset", OPT, struct spec_check, emu_dataset),
	CYAML_FIELD_FLOAT("max_traffic_ratio", OPT, struct spec_check, max_traffic_ratio),
	CYAML_FIELD_FLOAT("min_coalescing", OPT, struct spec_check, min_coalescing),
	CYAML_FIELD_FLOAT("max_bank_conflicts", OPT, struct spec_check, max_bank_conflicts),
	CYAML_FIELD_FLOAT("min_lane_efficiency", OPT, struct spec_check, min_lane_efficiency),
	CYAML_FIELD_FLOAT("max_insn_ratio", OPT, struct spec_check, max_insn_ratio),
	CYAML_FIELD_FLOAT("max_store_ratio", OPT, struct spec_check, max_store_ratio),
	/* issue 14 */
	CYAML_FIELD_ENUM("traffic", OPT | CYAML_FLAG_STRICT, struct spec_check, traffic,
			 perf_traffic_names, CYAML_ARRAY_LEN(perf_traffic_names)),
	STR("elements", OPT, struct spec_check, elements),
	CYAML_FIELD_FLOAT("max_atomics_per_element", OPT, struct spec_check, max_atomics_per_element),
	CYAML_FIELD_MAPPING_PTR("vendor", OPT, struct spec_check, vendor, vendor_fields),
	/* kind barriers (issue 6) */
	STR("kernel", OPT, struct spec_check, kernel),
	CYAML_FIELD_UINT("min_barriers", OPT, struct spec_check, min_barriers),
	CYAML_FIELD_BOOL_PTR("forbid_divergent", OPT, struct spec_check, forbid_divergent),
	/* kind optimisations */
	SEQ("recognisers", OPT, struct spec_check, recognisers, &recogniser_entry),
	STR("baseline", OPT, struct spec_check, baseline),
	STR("emu_baseline", OPT, struct spec_check, emu_baseline),
	CYAML_FIELD_UINT("min_used", OPT, struct spec_check, min_used),
	CYAML_FIELD_BOOL("leaderboard", OPT, struct spec_check, leaderboard),
	STR("doc", OPT, struct spec_check, doc),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t entry_fields[] = {
	STR("function", 0, struct spec_entry, function),
	SEQ("args", 0, struct spec_entry, args, &string_entry),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t reference_fields[] = {
	STR("file", 0, struct spec_reference, file),
	STR("function", 0, struct spec_reference, function),
	CYAML_FIELD_END
};

#define ENTRY(fields, type) { CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, type, fields) }
static const cyaml_schema_value_t param_entry = ENTRY(param_fields, struct spec_param);
static const cyaml_schema_value_t buffer_entry = ENTRY(buffer_fields, struct spec_buffer);
static const cyaml_schema_value_t dataset_entry = ENTRY(dataset_fields, struct spec_dataset);
static const cyaml_schema_value_t check_entry = ENTRY(check_fields, struct spec_check);

static const cyaml_schema_field_t top_fields[] = {
	STR("id", 0, struct lab_spec, id),
	STR("title", 0, struct lab_spec, title),
	CYAML_FIELD_UINT("chapter", 0, struct lab_spec, chapter),
	STR("summary", 0, struct lab_spec, summary),
	STR("student", 0, struct lab_spec, student),
	CYAML_FIELD_MAPPING("entry", 0, struct lab_spec, entry, entry_fields),
	STR("solution", 0, struct lab_spec, solution),
	CYAML_FIELD_MAPPING("reference", 0, struct lab_spec, reference, reference_fields),
	STR("wrong", OPT, struct lab_spec, wrong),
	STR("right", OPT, struct lab_spec, right),
	SEQ("params", OPT, struct lab_spec, params, &param_entry),
	SEQ("inputs", OPT, struct lab_spec, inputs, &buffer_entry),
	SEQ("outputs", 0, struct lab_spec, outputs, &buffer_entry),
	SEQ("datasets", 0, struct lab_spec, datasets, &dataset_entry),
	SEQ("checks", OPT, struct lab_spec, checks, &check_entry),
	SEQ("hints", OPT, struct lab_spec, hints, &string_entry),
	CYAML_FIELD_UINT("timeout", OPT, struct lab_spec, timeout),
	SEQ("nvcc_flags", OPT, struct lab_spec, nvcc_flags, &string_entry),
	CYAML_FIELD_END
};

const cyaml_schema_value_t spec_schema_top = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct lab_spec, top_fields),
};
