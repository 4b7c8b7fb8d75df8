/* fuzz_expr: the integer expressions of lab specs (grader/expr.c), evaluated and as
 * "name = expr" assignments, with a lookup that knows n, rows and cols. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "fuzz.h"

static bool lookup(void *userdata, const char *name, size_t len, int64_t *out)
{
	(void)userdata;
	static const struct { const char *name; int64_t value; } vars[] = {
		{ "n", 70001 }, { "rows", 1080 }, { "cols", 1920 }, { "big", INT64_MAX },
		{ "neg", INT64_MIN }, { "zero", 0 },
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strlen(vars[i].name) == len && memcmp(vars[i].name, name, len) == 0) {
			*out = vars[i].value;
			return true;
		}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char err[128];
	int64_t v;
	expr_eval(text, lookup, NULL, &v, err, sizeof(err));
	char *name = NULL;
	if (expr_assignment(text, lookup, NULL, &name, &v, err, sizeof(err)) == 0)
		free(name);
	/* a tiny error buffer: messages are cut, never overrun */
	expr_eval(text, lookup, NULL, &v, err, 3);
	free(text);
	return 0;
}
