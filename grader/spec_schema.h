/* spec_schema: the libcyaml schema of lab.yaml (documented field by field in
 * labs/README.md). Kept apart from spec.c so the schema reads as one table. */
#ifndef PMPPLAB_SPEC_SCHEMA_H
#define PMPPLAB_SPEC_SCHEMA_H

#include <cyaml/cyaml.h>

extern const cyaml_schema_value_t spec_schema_top;

#endif
