/* The gradebook (grader/gradebook.h) over a batch folder written here: columns, identical
 * submissions, no kernel launched, findings grouped once per student, grades.csv; and
 * the class report and JUnit writers on it. */
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "batch.h"
#include "classreport.h"
#include "fsutil.h"
#include "gradebook.h"
#include "junit.h"

static void test_locate(void **state)
{
	(void)state;
	char *file, *msg;
	unsigned line;
	assert_true(gradebook_locate("The program exited with status 1.\nbob.cu:11: error: read past the end\nmore",
				     &file, &line, &msg));
	assert_string_equal(file, "bob.cu");
	assert_int_equal(line, 11);
	assert_string_equal(msg, "read past the end");
	free(file), free(msg);
	assert_true(gradebook_locate("x.cu:3:14: warning: unused", &file, &line, &msg));
	assert_int_equal(line, 3);
	assert_string_equal(msg, "warning: unused");
	free(file), free(msg);
	assert_false(gradebook_locate("\nC: 3 of 70001 elements wrong: index 69888\n", &file, &line, &msg));
	assert_null(file);
	assert_string_equal(msg, "C: 3 of 70001 elements wrong: index 69888");
	free(msg);
	assert_false(gradebook_locate("time: 12:30 is not a location", &file, &line, &msg));
	free(msg);
	assert_false(gradebook_locate("The program crashed: SEGV.\nThe host code crashed.\nerror: host code dereferenced 0x10\nerror: later", &file, &line, &msg));
	assert_string_equal(msg, "host code dereferenced 0x10");
	free(msg);
}

static void test_signature(void **state)
{
	(void)state;
	char *s = gradebook_signature("thread (1,0,0) read 4 bytes at 0x7f92ab, 0 past a 4-byte allocation; got -1.5e-3, sm_90");
	assert_string_equal(s, "thread (N,N,N) read N bytes at 0xN, N past a N-byte allocation; got N, sm_90");
	free(s);
}

struct fixture {
	char subs[64], out[80];
	struct batch b;
};

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(fs_write_atomic(path, text, strlen(text)), 0);
}

/* A results.json as the batch writes it. */
static void result(struct fixture *fx, unsigned i, double score, int launches, const char *fail_output)
{
	const struct batch_student *s = &fx->b.students[i];
	json_t *tests = json_pack("[{s:s, s:f, s:f, s:s, s:s}, {s:s, s:f, s:f, s:s, s:s}]",
				  "name", "build", "score", 0.0, "max_score", 0.0, "status", "passed", "output", "",
				  "name", "memcheck", "score", score, "max_score", 2.0, "status",
				  score == 2 ? "passed" : "failed", "output", fail_output);
	json_t *root = json_pack("{s:f, s:f, s:o, s:{s:[{s:s, s:i}], s:{s:s, s:s, s:I, s:s, s:f}}}",
				 "score", score, "max_score", 2.0, "tests", tests, "extra_data", "pmpplab",
				 "lab", "01-x", "launches", launches, "batch", "student", s->name,
				 "hash", s->hash, "seed", (json_int_t)fx->b.seed, "status", "graded", "seconds", 1.0);
	char dir[200], *text = json_dumps(root, 0);
	snprintf(dir, sizeof(dir), "%s/students", fx->out);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/students/%s", fx->out, s->name);
	mkdir(dir, 0755);
	put(dir, "results.json", text);
	free(text);
	json_decref(root);
}

static void test_gradebook(void **state)
{
	(void)state;
	struct fixture fx;
	snprintf(fx.subs, sizeof(fx.subs), "/tmp/pmpplab-gb-XXXXXX");
	assert_non_null(mkdtemp(fx.subs));
	snprintf(fx.out, sizeof(fx.out), "%s.out", fx.subs);
	put(fx.subs, "ann.cu", "same");
	put(fx.subs, "bea.cu", "same");
	put(fx.subs, "cy,d.cu", "other");
	put(fx.subs, "dee.cu", "third");
	put(fx.subs, "notes.txt", "ignored");
	struct batch_params p = { .lab = "01-x", .labs_dir = "/tmp", .submissions = fx.subs,
				  .backend = BACKEND_EMU, .seed = 5 };
	struct diag_list d;
	diag_list_init(&d);
	assert_int_equal(batch_open(&fx.b, fx.out, &p, &d), 0);
	assert_int_equal(fx.b.n, 4);
	assert_string_equal(fx.b.students[2].name, "cy,d");
	assert_string_equal(fx.b.students[0].hash, fx.b.students[1].hash);
	result(&fx, 0, 2, 1, "");
	result(&fx, 1, 2, 1, "");
	result(&fx, 2, 0, 0, "The program exited with status 1.\nc.cu:11: error: read 4 bytes at 0x10\nc.cu:11: note");
	result(&fx, 3, 0, 3, "d.cu:12: read 8 bytes at 0x7f00");
	unsigned *todo, n;
	assert_int_equal(batch_todo(&fx.b, &todo, &n), 0);
	assert_int_equal(n, 0);
	free(todo);

	struct gradebook gb;
	assert_int_equal(gradebook_load(&gb, &fx.b), 0);
	assert_int_equal(gb.n_columns, 2);
	assert_int_equal(gb.rows[1].same_as, 0);
	assert_true(gradebook_no_launch(&gb, 2));
	assert_false(gradebook_no_launch(&gb, 3));
	assert_int_equal(gradebook_failures(&gb, 1), 2);
	assert_int_equal(gb.n_findings, 1); /* the same read past the end, by two students */
	assert_int_equal(gb.findings[0].count, 2);
	assert_string_equal(gb.findings[0].file, "c.cu");
	assert_string_equal(gb.findings[0].signature, "read N bytes at 0xN");

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(gradebook_write_csv(&gb, f), 0);
	fclose(f);
	assert_string_equal(text,
			    "student,score,max_score,build,memcheck,status,notes\n"
			    "ann,2,2,pass,2,graded,identical to bea\n"
			    "bea,2,2,pass,2,graded,identical to ann\n"
			    "\"cy,d\",0,2,pass,0,graded,builds but never launches a kernel\n"
			    "dee,0,2,pass,0,graded,\n");
	free(text);

	f = open_memstream(&text, &len);
	assert_int_equal(classreport_write_html(&gb, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "c.cu:11: read 4 bytes at 0x10"));
	assert_null(strstr(text, "<script"));
	free(text);

	json_t *docs[] = { gb.rows[2].doc };
	const char *names[] = { "a<b>&\"c\"" };
	f = open_memstream(&text, &len);
	assert_int_equal(junit_write(f, docs, names, 1), 0);
	fclose(f);
	assert_non_null(strstr(text, "<testsuite name=\"a&lt;b&gt;&amp;&quot;c&quot;\" tests=\"2\" failures=\"1\""));
	assert_non_null(strstr(text, "<failure type=\"points\" message=\"The program exited with status 1. (0/2)\">"));
	free(text);
	gradebook_release(&gb);

	/* new content is graded again */
	put(fx.subs, "dee.cu", "changed");
	batch_release(&fx.b);
	assert_int_equal(batch_open(&fx.b, fx.out, &p, &d), 0);
	assert_int_equal(batch_state(&fx.b, &fx.b.students[3]), BATCH_LEFT);
	assert_int_equal(batch_state(&fx.b, &fx.b.students[0]), BATCH_GRADED);
	batch_release(&fx.b);
	/* another lab into the same folder is refused */
	p.lab = "02-y";
	assert_int_equal(batch_open(&fx.b, fx.out, &p, &d), -EEXIST);
	assert_non_null(strstr(d.items[d.n - 1].message, "lab 01-x, not 02-y"));
	batch_release(&fx.b);
	/* an output folder inside the submissions is not a student */
	char inner[120];
	snprintf(inner, sizeof(inner), "%s/grades", fx.subs);
	p.lab = "01-x";
	assert_int_equal(batch_open(&fx.b, inner, &p, &d), 0);
	assert_int_equal(fx.b.n, 4);
	batch_release(&fx.b);
	diag_list_release(&d);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", fx.subs, fx.out);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_gradebook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
