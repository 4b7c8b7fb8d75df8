/* batch: see batch.h. */
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "datagen.h"
#include "fsutil.h"
#include "grade.h"
#include "report.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* mkdir -p. 0 or -errno. */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ---- the students ------------------------------------------------------------ */

struct found { char *paths[16]; unsigned n; };

/* Collects the .cu files under DIR, DEPTH levels deep, skipping hidden entries (.git). */
static void find_cu(const char *dir, unsigned depth, struct found *f, unsigned *total)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth > 1)
			find_cu(path, depth - 1, f, total);
		else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".cu")) {
			if (f->n < 16)
				f->paths[f->n++] = strdup(path);
			(*total)++;
		}
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *batch_find_source(const char *dir, const char *student_file, char **problem)
{
	struct found f = { .n = 0 };
	unsigned total = 0;
	*problem = NULL;
	find_cu(dir, 2, &f, &total);
	qsort(f.paths, f.n, sizeof(char *), cmp_str);
	char *pick = NULL;
	unsigned named = 0;
	for (unsigned i = 0; i < f.n; i++)
		if (student_file && strcmp(fs_base_name(f.paths[i]), student_file) == 0 && !named++)
			pick = f.paths[i];
	if (total == 1)
		pick = f.paths[0];
	else if (named != 1)
		pick = NULL;
	if (!pick && total == 0)
		asprintf(problem, "no .cu file in %s/: the submission is missing", fs_base_name(dir));
	else if (!pick) {
		char *list = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&list, &len);
		for (unsigned i = 0; m && i < f.n && i < 4; i++)
			fprintf(m, "%s%s", i ? ", " : "", f.paths[i] + strlen(dir) + 1);
		if (m)
			fclose(m);
		asprintf(problem, "%u .cu files in %s/ (%s%s): keep only the one to grade%s%s", total,
			 fs_base_name(dir), list ? list : "", total > 4 ? ", ..." : "",
			 student_file ? ", or name it " : "", student_file ? student_file : "");
		free(list);
	}
	char *out = pick ? realpath(pick, NULL) : NULL;
	for (unsigned i = 0; i < f.n; i++)
		free(f.paths[i]);
	return out;
}

static int cmp_student(const void *a, const void *b)
{
	return strcmp(((const struct batch_student *)a)->name, ((const struct batch_student *)b)->name);
}

/* Lists the submissions folder: one student per .cu file or per folder. */
static int scan(struct batch *b, const char *student_file, struct diag_list *diags)
{
	DIR *d = opendir(b->submissions);
	if (!d) {
		int err = errno;
		diag_add(diags, DIAG_ERROR, b->submissions, 0, 0, "cannot read the submissions folder: %s", strerror(err));
		return -err;
	}
	struct dirent *e;
	unsigned cap = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", b->submissions, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0 || !(S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && ends_with(e->d_name, ".cu"))))
			continue; /* a README or an archive beside the submissions */
		char *real = S_ISDIR(st.st_mode) ? realpath(path, NULL) : NULL;
		bool is_out = real && strcmp(real, b->out) == 0; /* the output folder inside DIR */
		free(real);
		if (is_out)
			continue;
		if (b->n == cap) {
			cap = cap ? 2 * cap : 64;
			struct batch_student *s = realloc(b->students, cap * sizeof(*s));
			if (!s) {
				closedir(d);
				return -ENOMEM;
			}
			b->students = s;
		}
		struct batch_student *s = &b->students[b->n++];
		memset(s, 0, sizeof(*s));
		s->name = S_ISDIR(st.st_mode) ? strdup(e->d_name) : strndup(e->d_name, strlen(e->d_name) - 3);
		s->source = S_ISDIR(st.st_mode) ? batch_find_source(path, student_file, &s->problem)
						: realpath(path, NULL);
	}
	closedir(d);
	qsort(b->students, b->n, sizeof(*b->students), cmp_student);
	for (unsigned i = 0; i < b->n; i++) {
		struct batch_student *s = &b->students[i];
		if (i && strcmp(s->name, b->students[i - 1].name) == 0 && !s->problem) {
			free(s->source);
			s->source = NULL;
			asprintf(&s->problem, "both %s.cu and a folder %s/ are in the submissions: keep one", s->name, s->name);
		}
		/* the content alone (fs_hash_file hashes the path too): copies match */
		size_t len = 0;
		char *data = s->source ? fs_read(s->source, &len) : NULL;
		struct fs_hash h;
		fs_hash_init(&h);
		if (data)
			fs_hash_add(&h, data, len);
		else
			fs_hash_str(&h, s->problem ? s->problem : "unreadable");
		fs_hash_hex(&h, s->hash);
		free(data);
	}
	return 0;
}

/* ---- batch.json ---------------------------------------------------------------- */

static int save_config(const struct batch *b)
{
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:I, s:b}", "version", 1, "lab", b->lab,
			      "labs", b->labs_dir, "submissions", b->submissions, "backend",
			      backend_name(b->backend), "seed", (json_int_t)b->seed, "quick", b->quick);
	char *text = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
	json_decref(o);
	if (!text)
		return -ENOMEM;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/batch.json", b->out);
	int rc = fs_write_atomic(path, text, strlen(text));
	free(text);
	return rc;
}

static int load_config(struct batch *b, struct diag_list *diags)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/batch.json", b->out);
	json_error_t err;
	json_t *o = json_load_file(path, 0, &err);
	const char *lab = NULL, *labs = NULL, *subs = NULL, *backend = NULL;
	json_int_t seed = 0;
	int quick = 0;
	if (!o || json_unpack(o, "{s:s, s:s, s:s, s:s, s:I, s?b}", "lab", &lab, "labs", &labs,
			      "submissions", &subs, "backend", &backend, "seed", &seed, "quick", &quick) != 0) {
		diag_add(diags, DIAG_ERROR, path, o ? 0 : (unsigned)err.line, 0,
			 "%s: not a pmpplab batch (start one with pmpplab --grade LAB --submissions DIR --output-dir %s)",
			 o ? "unexpected content" : err.text, b->out);
		json_decref(o);
		return -EINVAL;
	}
	b->lab = strdup(lab);
	b->labs_dir = strdup(labs);
	b->submissions = strdup(subs);
	backend_parse(backend, &b->backend);
	b->seed = (uint64_t)seed;
	b->quick = quick;
	json_decref(o);
	return 0;
}

/* An existing batch must be the same one: say what differs and what to do. */
static int check_same(const struct batch *b, const struct batch_params *p, const char *subs,
		      struct diag_list *diags)
{
	char what[PATH_MAX * 2 + 64] = "";
	if (strcmp(b->lab, p->lab) != 0)
		snprintf(what, sizeof(what), "lab %s, not %s", b->lab, p->lab);
	else if (strcmp(b->submissions, subs) != 0)
		snprintf(what, sizeof(what), "the submissions in %s, not %s", b->submissions, subs);
	else if (b->backend != p->backend)
		snprintf(what, sizeof(what), "backend %s, not %s", backend_name(b->backend), backend_name(p->backend));
	else if (p->seed && p->seed != b->seed)
		snprintf(what, sizeof(what), "seed %llu, not %llu", (unsigned long long)b->seed, (unsigned long long)p->seed);
	else if (b->quick != p->quick)
		snprintf(what, sizeof(what), "%s", b->quick ? "--quick" : "every dataset (no --quick)");
	if (!what[0])
		return 0;
	diag_add(diags, DIAG_ERROR, b->out, 0, 0,
		 "this output folder holds a batch graded with %s; resume it with the same options, or grade into another --output-dir",
		 what);
	return -EEXIST;
}

int batch_open(struct batch *b, const char *out, const struct batch_params *p,
	       struct diag_list *diags)
{
	memset(b, 0, sizeof(*b));
	int rc = p ? make_dirs(out) : 0;
	if (rc < 0) {
		diag_add(diags, DIAG_ERROR, out, 0, 0, "cannot make the output folder: %s", strerror(-rc));
		return rc;
	}
	b->out = realpath(out, NULL);
	if (!b->out) {
		rc = -errno;
		diag_add(diags, DIAG_ERROR, out, 0, 0, "no such batch folder: %s", strerror(errno));
		return rc;
	}
	char cfg[PATH_MAX];
	snprintf(cfg, sizeof(cfg), "%s/batch.json", b->out);
	bool exists = access(cfg, F_OK) == 0;
	if (!p || exists)
		rc = load_config(b, diags);
	char *subs = p ? realpath(p->submissions, NULL) : NULL;
	if (p && !subs) {
		rc = -errno;
		diag_add(diags, DIAG_ERROR, p->submissions, 0, 0, "cannot open the submissions folder: %s", strerror(errno));
	} else if (rc == 0 && p && exists) {
		rc = check_same(b, p, subs, diags);
	} else if (rc == 0 && p) {
		b->lab = strdup(p->lab);
		b->labs_dir = realpath(p->labs_dir, NULL);
		b->submissions = strdup(subs);
		b->backend = p->backend;
		b->seed = p->seed ? p->seed : datagen_fresh_seed();
		b->quick = p->quick;
		if (!b->labs_dir)
			rc = -errno;
		else if ((rc = save_config(b)) < 0)
			diag_add(diags, DIAG_ERROR, cfg, 0, 0, "cannot write: %s", strerror(-rc));
	}
	free(subs);
	if (rc == 0) {
		char *student_file = NULL;
		struct lab_spec *spec = NULL;
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/%s", b->labs_dir, b->lab);
		struct diag_list ignored;
		diag_list_init(&ignored);
		if (spec_load(dir, &spec, &ignored) == 0 && spec)
			student_file = spec->student;
		rc = scan(b, student_file, diags);
		spec_free(spec);
		diag_list_release(&ignored);
	}
	return rc;
}

void batch_release(struct batch *b)
{
	for (unsigned i = 0; i < b->n; i++) {
		free(b->students[i].name);
		free(b->students[i].source);
		free(b->students[i].problem);
	}
	free(b->students);
	free(b->out);
	free(b->lab);
	free(b->labs_dir);
	free(b->submissions);
	memset(b, 0, sizeof(*b));
}

/* ---- one student ----------------------------------------------------------------- */

char *batch_results_path(const struct batch *b, const struct batch_student *s)
{
	char *path = NULL;
	if (asprintf(&path, "%s/students/%s/results.json", b->out, s->name) < 0)
		return NULL;
	return path;
}

enum batch_state batch_state(const struct batch *b, const struct batch_student *s)
{
	char *path = batch_results_path(b, s);
	json_t *o = path ? json_load_file(path, 0, NULL) : NULL;
	free(path);
	const char *hash = "", *status = "";
	json_int_t seed = 0;
	enum batch_state st = BATCH_LEFT;
	if (o && json_unpack(o, "{s:{s:{s:s, s:s, s:I}}}", "extra_data", "batch", "hash", &hash,
			     "status", &status, "seed", &seed) == 0 &&
	    strcmp(hash, s->hash) == 0 && (uint64_t)seed == b->seed)
		st = strcmp(status, "graded") == 0 ? BATCH_GRADED
		     : strcmp(status, "invalid") == 0 ? BATCH_INVALID : BATCH_ERROR;
	json_decref(o);
	return st;
}

/* Adds the batch's record to ROOT's extra_data and writes it atomically. */
static int write_results(const struct batch *b, const struct batch_student *s, json_t *root,
			 const char *status, double seconds)
{
	json_t *extra = json_object_get(root, "extra_data");
	if (!extra) {
		extra = json_object();
		json_object_set_new(root, "extra_data", extra);
	}
	json_object_set_new(extra, "batch", json_pack("{s:s, s:s, s:I, s:s, s:f}", "student", s->name,
						       "hash", s->hash, "seed", (json_int_t)b->seed,
						       "status", status, "seconds", seconds));
	char *text = json_dumps(root, JSON_INDENT(2));
	char *path = batch_results_path(b, s);
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/students/%s", b->out, s->name);
	int rc = !text || !path ? -ENOMEM : make_dirs(dir);
	if (rc == 0)
		rc = fs_write_atomic(path, text, strlen(text));
	free(text);
	free(path);
	return rc;
}

/* A results.json with no score and one failed test saying why. */
static int write_unscored(const struct batch *b, const struct batch_student *s,
			  const char *status, const char *test, const char *why)
{
	json_t *root = json_pack("{s:f, s:f, s:s, s:[{s:s, s:f, s:f, s:s, s:s}]}", "score", 0.0,
				 "max_score", 0.0, "output", why, "tests", "name", test, "score", 0.0,
				 "max_score", 0.0, "status", "failed", "output", why);
	if (!root)
		return -ENOMEM;
	int rc = write_results(b, s, root, status, 0);
	json_decref(root);
	return rc;
}

int batch_record_error(const struct batch *b, const struct batch_student *s, const char *why)
{
	return write_unscored(b, s, "error", "grading", why);
}

/* The file to grade for S. A student who is one .cu file beside the others' is graded
 * from a copy in a folder of its own (OUT/students/NAME/src/): a build copies the source
 * files of the submission's folder into its sandbox (incl.c), which would hand it every
 * other student's file to read or #include, and past 256 files leave its own out.
 * Returns the path (caller frees), or NULL with errno set. */
static char *own_copy(const struct batch *b, const struct batch_student *s)
{
	char *subs = realpath(b->submissions, NULL);
	const char *slash = strrchr(s->source, '/');
	bool shared = subs && slash && (size_t)(slash - s->source) == strlen(subs) &&
		      strncmp(s->source, subs, strlen(subs)) == 0;
	free(subs);
	if (!shared)
		return strdup(s->source);
	char *dir = NULL, *copy = NULL;
	if (asprintf(&dir, "%s/students/%s/src", b->out, s->name) < 0)
		return NULL;
	int rc = asprintf(&copy, "%s%s", dir, slash) < 0 ? -ENOMEM : make_dirs(dir);
	if (rc == 0) {
		unlink(copy); /* left by a grading that was stopped: the source may have changed */
		rc = fs_copy_new(s->source, copy);
	}
	free(dir);
	if (rc < 0) {
		free(copy);
		errno = -rc;
		return NULL;
	}
	return copy;
}

int batch_grade_one(const struct batch *b, const struct lab_spec *spec,
		    const struct batch_student *s)
{
	if (s->problem)
		return write_unscored(b, s, "invalid", "submission", s->problem);
	double t0 = now_s();
	char *source = own_copy(b, s);
	if (!source) {
		char why[PATH_MAX + 128];
		snprintf(why, sizeof(why), "cannot copy %s into %s/students/%s/src: %s", s->source,
			 b->out, s->name, strerror(errno));
		return write_unscored(b, s, "error", "grading", why);
	}
	struct grade_opts o = { .backend = b->backend, .submission = source, .seed = b->seed,
				.quick = b->quick };
	struct report *r = NULL;
	struct diag_list diags;
	diag_list_init(&diags);
	int rc = grade_lab(spec, &o, &r, &diags);
	if (rc < 0) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		if (f) {
			diag_print(f, &diags);
			fclose(f);
		}
		batch_record_error(b, s, text && *text ? text : strerror(-rc));
		free(text);
	} else {
		json_t *root = report_json(&r, 1);
		rc = root ? write_results(b, s, root, "graded", now_s() - t0) : -ENOMEM;
		json_decref(root);
	}
	report_free(r);
	diag_list_release(&diags);
	free(source);
	return rc;
}

int batch_todo(const struct batch *b, unsigned **todo, unsigned *n)
{
	*n = 0;
	*todo = calloc(b->n ? b->n : 1, sizeof(unsigned));
	if (!*todo)
		return -ENOMEM;
	for (unsigned i = 0; i < b->n; i++) {
		enum batch_state st = batch_state(b, &b->students[i]);
		if (st != BATCH_GRADED && st != BATCH_INVALID)
			(*todo)[(*n)++] = i;
	}
	return 0;
}

/* ---- the workers ------------------------------------------------------------------ */

/* The child: grades one student and exits; it dies with the batch. */
static void worker(const struct batch *b, const struct lab_spec *spec,
		   const struct batch_student *s, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGPIPE, SIG_DFL);
	_exit(batch_grade_one(b, spec, s) == 0 ? 0 : 3);
}

/* After a worker ended: its student's score, or an error record when it died. */
static bool finished(const struct batch *b, const struct batch_student *s, int status,
		     struct batch_progress *p)
{
	/* exit 0 or 3: the worker wrote the results (an error record says why) */
	bool wrote = WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3);
	if (!wrote || batch_state(b, s) == BATCH_LEFT) {
		char why[200];
		if (WIFSIGNALED(status))
			snprintf(why, sizeof(why), "the grader stopped with signal %d (%s) while grading this submission; it is graded again at the next start of the batch",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(why, sizeof(why), "the grader exited with status %d without a result; it is graded again at the next start of the batch",
				 WEXITSTATUS(status));
		batch_record_error(b, s, why);
	}
	char *path = batch_results_path(b, s);
	json_t *o = path ? json_load_file(path, 0, NULL) : NULL;
	free(path);
	const char *st = "error";
	double score = 0, max = 0, secs = 0;
	json_unpack(o, "{s:F, s:F, s:{s:{s:s, s:F}}}", "score", &score, "max_score", &max,
		    "extra_data", "batch", "status", &st, "seconds", &secs);
	bool ok = strcmp(st, "graded") == 0;
	json_decref(o);
	p->last = s;
	p->last_failed = !ok;
	p->last_score = score;
	p->last_max = max;
	p->last_s = secs;
	return ok;
}

int batch_run(const struct batch *b, const struct lab_spec *spec, const unsigned *todo,
	      unsigned n, unsigned jobs, batch_progress_fn fn, void *userdata)
{
	struct batch_progress p = { .total = b->n, .left = n };
	for (unsigned i = 0, k = 0; i < b->n; i++) {
		if (k < n && todo[k] == i) {
			k++;
			continue;
		}
		enum batch_state st = batch_state(b, &b->students[i]);
		p.done += st == BATCH_GRADED;
		p.failed += st == BATCH_INVALID; /* others left out of TODO: another Slurm task's */
	}
	p.total = p.done + p.failed + n;
	pid_t *pids = calloc(jobs ? jobs : 1, sizeof(pid_t));
	unsigned *who = calloc(jobs ? jobs : 1, sizeof(unsigned));
	if (!pids || !who) {
		free(pids);
		free(who);
		return -ENOMEM;
	}
	double t0 = now_s();
	if (fn)
		fn(userdata, &p);
	unsigned next = 0;
	int rc = 0;
	pid_t parent = getpid();
	while (p.running || (next < n && rc == 0)) {
		while (next < n && p.running < jobs && rc == 0) {
			fflush(NULL);
			pid_t pid = fork();
			if (pid == 0)
				worker(b, spec, &b->students[todo[next]], parent);
			if (pid < 0) {
				rc = p.running ? 0 : -errno;
				break;
			}
			unsigned slot = 0;
			while (pids[slot])
				slot++;
			pids[slot] = pid;
			who[slot] = todo[next++];
			p.running++;
		}
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		if (pid == 0) { /* all busy: a tick a second keeps the rate and ETA moving */
			struct timespec nap = { 0, 100 * 1000 * 1000 };
			nanosleep(&nap, NULL);
			if (fn && now_s() - t0 - p.elapsed_s >= 1) {
				p.elapsed_s = now_s() - t0;
				p.last = NULL;
				fn(userdata, &p);
			}
			continue;
		}
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		unsigned slot = 0;
		while (slot < jobs && pids[slot] != pid)
			slot++;
		if (slot == jobs)
			continue; /* not one of ours */
		pids[slot] = 0;
		p.running--;
		p.left--;
		if (finished(b, &b->students[who[slot]], status, &p))
			p.done++, p.done_now++;
		else
			p.failed++;
		p.elapsed_s = now_s() - t0;
		if (fn)
			fn(userdata, &p);
	}
	free(pids);
	free(who);
	return rc;
}
