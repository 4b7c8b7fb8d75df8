/* junit: see junit.h. */
#include "junit.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <string.h>

/* XML text: the five entities escaped, and the control characters XML 1.0 forbids
 * (a program's output may hold any byte) written as U+FFFD. */
static void xml_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
				fputs("\xef\xbf\xbd", f);
			else
				fputc(*p, f);
		}
	}
}

static void first_line(FILE *f, const char *s)
{
	char line[200];
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(s, "\n"), s);
	xml_text(f, line);
}

static void testcase(FILE *f, const char *lab, json_t *t)
{
	const char *name = "?", *status = "failed", *output = "";
	double score = 0, max = 0;
	json_unpack(t, "{s?s, s?s, s?s, s?F, s?F}", "name", &name, "status", &status, "output",
		    &output, "score", &score, "max_score", &max);
	bool passed = strcmp(status, "passed") == 0;
	fputs("    <testcase classname=\"pmpplab.", f);
	xml_text(f, lab);
	fputs("\" name=\"", f);
	xml_text(f, name);
	fputs("\" time=\"0\">\n", f);
	if (!passed) {
		fprintf(f, "      <failure type=\"%s\" message=\"", max > 0 ? "points" : "check");
		first_line(f, *output ? output : "failed");
		fprintf(f, " (%g/%g)\">", score, max);
		xml_text(f, output);
		fputs("</failure>\n", f);
	} else if (*output) {
		fputs("      <system-out>", f);
		xml_text(f, output);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

int junit_write(FILE *f, json_t *const *docs, const char *const *names, unsigned n)
{
	unsigned tests = 0, failures = 0;
	for (unsigned i = 0; i < n; i++) {
		json_t *ts = json_object_get(docs[i], "tests"), *t;
		size_t k;
		json_array_foreach(ts, k, t) {
			tests++;
			failures += strcmp(json_string_value(json_object_get(t, "status")) ?: "", "passed") != 0;
		}
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pmpplab\" tests=\"%u\" failures=\"%u\">\n",
		tests, failures);
	for (unsigned i = 0; i < n; i++) {
		json_t *ts = json_object_get(docs[i], "tests"), *t;
		json_t *lab0 = json_array_get(json_object_get(json_object_get(docs[i], "extra_data"), "pmpplab"), 0);
		const char *lab = json_string_value(json_object_get(lab0, "lab")) ?: "lab";
		unsigned fails = 0;
		size_t k;
		json_array_foreach(ts, k, t)
			fails += strcmp(json_string_value(json_object_get(t, "status")) ?: "", "passed") != 0;
		double score = json_number_value(json_object_get(docs[i], "score"));
		double max = json_number_value(json_object_get(docs[i], "max_score"));
		fputs("  <testsuite name=\"", f);
		xml_text(f, names[i]);
		fprintf(f, "\" tests=\"%zu\" failures=\"%u\" errors=\"0\">\n", json_array_size(ts), fails);
		fprintf(f, "    <properties><property name=\"score\" value=\"%g\"/><property name=\"max_score\" value=\"%g\"/></properties>\n",
			score, max);
		json_array_foreach(ts, k, t)
			testcase(f, lab, t);
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	return ferror(f) ? -EIO : 0;
}
