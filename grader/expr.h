/* expr: the integer expressions of lab specs ("n", "rows*cols*3", "(n+255)/256").
 * Grammar: sum := term (('+'|'-') term)*; term := unary (('*'|'/'|'%') unary)*;
 * unary := '-' unary | NUMBER | NAME | '(' sum ')'. 64-bit signed arithmetic. */
#ifndef PMPPLAB_EXPR_H
#define PMPPLAB_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Looks NAME (LEN bytes, not NUL-terminated) up; false when unknown. */
typedef bool (*expr_lookup_fn)(void *userdata, const char *name, size_t len, int64_t *out);

/* Evaluates TEXT. Returns 0 and *out, or -EINVAL with a reason in err (e.g. "unknown
 * name 'm'", "division by zero", "unexpected ')' at column 4"). */
int expr_eval(const char *text, expr_lookup_fn lookup, void *userdata, int64_t *out,
	      char *err, size_t errlen);

/* Splits "name = expr" into the name (malloc'd) and evaluates expr. */
int expr_assignment(const char *text, expr_lookup_fn lookup, void *userdata, char **name,
		    int64_t *out, char *err, size_t errlen);

#endif
