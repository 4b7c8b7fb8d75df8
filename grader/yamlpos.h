/* yamlpos: where each field of a YAML document is, so checks done after libcyaml has
 * loaded a spec (names that must resolve, expressions, files) can still name the line.
 * Paths look like "inputs[2].size" (keys joined by '.', sequence entries as [i]). */
#ifndef PMPPLAB_YAMLPOS_H
#define PMPPLAB_YAMLPOS_H

struct yamlpos;

/* Scans the YAML file at PATH. Returns NULL when it cannot be read or parsed (libcyaml
 * reports those errors itself). */
struct yamlpos *yamlpos_scan(const char *path);
void yamlpos_free(struct yamlpos *p);
/* The 1-based line of PATH's key (or entry), or of its nearest recorded parent; 0 when
 * nothing matches. printf-style path. */
unsigned yamlpos_line(const struct yamlpos *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
