/* cudart_report — see cudart_report.h. */
#include "cudart_report.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudart_errors.h"
#include "devmem.h"
#include "initcheck.h"

static pthread_once_t rt_report_once = PTHREAD_ONCE_INIT;
static int rt_events_fd = -1;

/* ---- events file ------------------------------------------------------------- */

/* One write(2) per line on an O_APPEND descriptor: lines from several processes or
 * threads never interleave. */
static void rt_event_write(const char *line, size_t len)
{
	if (rt_events_fd < 0)
		return;
	ssize_t n = write(rt_events_fd, line, len);
	(void)n; /* nothing useful to do when the events file is full */
}

/* Appends s to out as the body of a JSON string. */
static size_t rt_json_escape(char *out, size_t cap, const char *s)
{
	size_t n = 0;
	for (; s && *s && n + 7 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c < 0x20) {
			n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
		} else {
			out[n++] = (char)c;
		}
	}
	out[n < cap ? n : cap - 1] = '\0';
	return n;
}

/* ---- host dereference of device pointers ------------------------------------- */

/* Append-only chunks, never freed or moved, so the signal handler can read them
 * without a lock (a racing entry is at worst missing from the message). */
#define RT_TRACK_CHUNK 1024
struct rt_track_chunk {
	struct rt_track_chunk *_Atomic next;
	atomic_uint count;
	struct {
		uint64_t base;
		size_t size;
		atomic_int live;
	} e[RT_TRACK_CHUNK];
};
static struct rt_track_chunk rt_track_head;
static pthread_mutex_t rt_track_lock = PTHREAD_MUTEX_INITIALIZER;

void rt_report_track_alloc(uint64_t base, size_t size)
{
	pthread_mutex_lock(&rt_track_lock);
	struct rt_track_chunk *c = &rt_track_head;
	while (atomic_load(&c->next))
		c = atomic_load(&c->next);
	if (atomic_load(&c->count) == RT_TRACK_CHUNK) {
		struct rt_track_chunk *n = calloc(1, sizeof *n);
		if (!n)
			goto out_unlock;
		atomic_store(&c->next, n);
		c = n;
	}
	unsigned i = atomic_load(&c->count);
	c->e[i].base = base;
	c->e[i].size = size;
	atomic_store(&c->e[i].live, 1);
	atomic_store(&c->count, i + 1);
out_unlock:
	pthread_mutex_unlock(&rt_track_lock);
}

void rt_report_untrack_alloc(uint64_t base)
{
	pthread_mutex_lock(&rt_track_lock);
	for (struct rt_track_chunk *c = &rt_track_head; c; c = atomic_load(&c->next))
		for (unsigned i = 0; i < atomic_load(&c->count); i++)
			if (c->e[i].base == base && atomic_load(&c->e[i].live))
				atomic_store(&c->e[i].live, 0);
	pthread_mutex_unlock(&rt_track_lock);
}

/* Async-signal-safe string building: no stdio in a SIGSEGV handler. */
static size_t rt_put(char *buf, size_t len, size_t at, const char *s)
{
	while (*s && at + 1 < len)
		buf[at++] = *s++;
	buf[at < len ? at : len - 1] = '\0';
	return at;
}

static size_t rt_put_u64(char *buf, size_t len, size_t at, uint64_t v, int hex)
{
	char tmp[24];
	int n = 0;
	unsigned base = hex ? 16 : 10;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	char s[28];
	int k = 0;
	if (hex) {
		s[k++] = '0';
		s[k++] = 'x';
	}
	while (n)
		s[k++] = tmp[--n];
	s[k] = '\0';
	return rt_put(buf, len, at, s);
}

size_t rt_report_hostderef_message(uint64_t addr, char *buf, size_t len)
{
	uint64_t base = 0;
	size_t size = 0;
	int found = 0, live = 0;
	for (struct rt_track_chunk *c = &rt_track_head; c && !found; c = atomic_load(&c->next))
		for (unsigned i = 0; i < atomic_load(&c->count); i++)
			if (addr >= c->e[i].base && addr < c->e[i].base + (c->e[i].size ? c->e[i].size : 1)) {
				base = c->e[i].base;
				size = c->e[i].size;
				live = atomic_load(&c->e[i].live);
				found = 1;
				/* a later entry may be the live one (freed ranges are not
				 * reused by devmem, but be safe) */
				if (live)
					break;
			}
	size_t at = rt_put(buf, len, 0, "error: host code dereferenced device pointer ");
	at = rt_put_u64(buf, len, at, addr, 1);
	if (found) {
		at = rt_put(buf, len, at, " (inside a ");
		at = rt_put_u64(buf, len, at, size, 0);
		at = rt_put(buf, len, at, "-byte cudaMalloc allocation");
		if (live) {
			at = rt_put(buf, len, at, ", ");
			at = rt_put_u64(buf, len, at, addr - base, 0);
			at = rt_put(buf, len, at, " bytes from its start)");
		} else {
			at = rt_put(buf, len, at, " that was already freed)");
		}
	} else {
		at = rt_put(buf, len, at, " (in device memory, outside any cudaMalloc allocation)");
	}
	at = rt_put(buf, len, at,
		    ": device memory can only be read by kernels; copy it back with "
		    "cudaMemcpy(..., cudaMemcpyDeviceToHost) first\n");
	return at;
}

static void rt_segv_handler(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	uint64_t addr = (uint64_t)(uintptr_t)si->si_addr;
	if (devmem_in_device_range(addr)) {
		char msg[512];
		size_t n = rt_report_hostderef_message(addr, msg, sizeof msg);
		ssize_t w = write(STDERR_FILENO, msg, n);
		if (rt_events_fd >= 0) {
			/* the same sentence, without "error: " and the newline (it holds no
			 * character JSON would need escaped) */
			msg[n > 0 ? n - 1 : 0] = '\0';
			char ev[1024];
			size_t k = rt_put(ev, sizeof ev, 0,
					  "{\"event\":\"fault\",\"kind\":\"host-deref\",\"address\":\"");
			k = rt_put_u64(ev, sizeof ev, k, addr, 1);
			k = rt_put(ev, sizeof ev, k, "\",\"message\":\"");
			k = rt_put(ev, sizeof ev, k, msg + strlen("error: "));
			k = rt_put(ev, sizeof ev, k, "\"}\n");
			w = write(rt_events_fd, ev, k);
		}
		(void)w;
	}
	/* Die of the same signal: the default action, re-raised on return when the
	 * faulting instruction runs again. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0) /* sent by kill(), not a fault: re-send it */
		raise(sig);
}

static void rt_install_segv_handler(void)
{
	static char altstack[64 * 1024];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
	sigaltstack(&ss, NULL);

	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = rt_segv_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	/* Leave a handler the program (or a sanitizer) installed alone. */
	if (sigaction(SIGSEGV, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
		sigaction(SIGSEGV, &sa, NULL);
}

static void rt_report_init_once(void)
{
	const char *path = getenv("PMPPLAB_EVENTS");
	if (path && *path)
		rt_events_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	rt_install_segv_handler();
}

void rt_report_init(void)
{
	pthread_once(&rt_report_once, rt_report_init_once);
}

/* ---- messages ---------------------------------------------------------------- */

void rt_report_api(const char *call, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fflush(stdout); /* keep the program's own output before the diagnostic */
	fprintf(stderr, "pmpplab-emu: %s: %s\n", call, msg);

	rt_report_init();
	char esc[1200], line[1400];
	rt_json_escape(esc, sizeof esc, msg);
	int n = snprintf(line, sizeof line,
			 "{\"event\":\"fault\",\"kind\":\"api\",\"call\":\"%s\",\"message\":\"%s\"}\n",
			 call, esc);
	if (n > 0)
		rt_event_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void rt_report_warning(const char *call, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fflush(stdout);
	fprintf(stderr, "pmpplab-emu: %s: warning: ", call);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void rt_report_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fflush(stdout);
	fputs("pmpplab-emu: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

const char *rt_report_fault_kind(enum emu_fault_kind k)
{
	switch (k) {
	case EMU_FAULT_OOB: return "out-of-bounds";
	case EMU_FAULT_MISALIGNED: return "misaligned";
	case EMU_FAULT_UNSUPPORTED: return "unsupported";
	case EMU_FAULT_BARRIER: return "barrier";
	case EMU_FAULT_TRAP: return "trap";
	case EMU_FAULT_LIMIT: return "limit";
	case EMU_FAULT_PC: return "invalid-pc";
	case EMU_OK: break;
	}
	return "unknown";
}

/* Only the file's last component: messages name "vecadd.cu", as the student knows it. */
static const char *rt_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

void rt_report_kernel_fault(const char *kernel, const struct emu_fault *f, cudaError_t err,
			    const char *note)
{
	char where[600];
	if (f->file)
		snprintf(where, sizeof where, "%s:%u: ", rt_basename(f->file), f->line);
	else
		snprintf(where, sizeof where, "%s: ", kernel);

	/* The interpreter's sentence may already say who faulted; say it if not (printed
	 * whole: a template kernel's name can be longer than any buffer). */
	fflush(stdout);
	if (strstr(f->message, "block"))
		fprintf(stderr, "%serror: %s\n", where, f->message);
	else
		fprintf(stderr, "%serror: thread (%u,%u,%u) of block (%u,%u,%u) of %s: %s\n", where,
			f->thread.x, f->thread.y, f->thread.z, f->block.x, f->block.y, f->block.z,
			kernel, f->message);
	if (note && note[0])
		fprintf(stderr, "%snote: %s\n", where, note);
	if (f->kind == EMU_FAULT_UNSUPPORTED)
		fprintf(stderr, "%snote: run this program with --backend gpu\n", where);
	fprintf(stderr,
		"%snote: kernel %s stopped; from the next CUDA call on, every call returns %s "
		"(\"%s\"), as on a GPU\n",
		where, kernel, rt_error_name(err), rt_error_string(err));

	rt_report_init();
	if (rt_events_fd < 0)
		return;
	char esc_msg[1100], esc_file[600], esc_kernel[600], line[2600];
	rt_json_escape(esc_msg, sizeof esc_msg, f->message);
	rt_json_escape(esc_file, sizeof esc_file, f->file ? rt_basename(f->file) : "");
	rt_json_escape(esc_kernel, sizeof esc_kernel, kernel);
	int n = snprintf(line, sizeof line,
			 "{\"event\":\"fault\",\"kind\":\"%s\",\"kernel\":\"%s\","
			 "\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"file\":%s%s%s,"
			 "\"line\":%u,\"address\":\"0x%llx\",\"status\":\"%s\",\"message\":\"%s\"}\n",
			 rt_report_fault_kind(f->kind), esc_kernel, f->block.x, f->block.y,
			 f->block.z, f->thread.x, f->thread.y, f->thread.z, f->file ? "\"" : "",
			 f->file ? esc_file : "null", f->file ? "\"" : "", f->line,
			 (unsigned long long)f->addr, rt_error_name(err), esc_msg);
	if (n > 0)
		rt_event_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void rt_report_initcheck(const struct initcheck_finding *f)
{
	char kernel[256], msg[1024], where[600];
	rt_report_kernel_name(f->kernel, kernel, sizeof kernel);
	initcheck_message(f, kernel, msg, sizeof msg);
	if (f->file)
		snprintf(where, sizeof where, "%s:%u: ", rt_basename(f->file), f->line);
	else
		snprintf(where, sizeof where, "%s: ", kernel);
	fflush(stdout);
	fprintf(stderr, "%serror: %s\n", where, msg);
	rt_report_init();
	if (rt_events_fd < 0)
		return;
	char esc_msg[2100], esc_file[600], esc_kernel[600], line[3600];
	rt_json_escape(esc_msg, sizeof esc_msg, msg);
	rt_json_escape(esc_file, sizeof esc_file, f->file ? rt_basename(f->file) : "");
	rt_json_escape(esc_kernel, sizeof esc_kernel, kernel);
	int n = snprintf(line, sizeof line,
			 "{\"event\":\"finding\",\"check\":\"initcheck\",\"kind\":\"uninitialized\","
			 "\"kernel\":\"%s\",\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"file\":%s%s%s,"
			 "\"line\":%u,\"address\":\"0x%llx\",\"size\":%u,\"message\":\"%s\"}\n",
			 esc_kernel, f->block.x, f->block.y, f->block.z, f->thread.x, f->thread.y,
			 f->thread.z, f->file ? "\"" : "", f->file ? esc_file : "null",
			 f->file ? "\"" : "", f->line, (unsigned long long)f->addr, f->size, esc_msg);
	if (n > 0)
		rt_event_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* Per kernel (its name, the registry's string, which lives until exit): launches, time,
 * thread-instructions. Kernels past the table's end are counted in the total only. */
static struct rt_kernel_stat {
	const char *name;
	unsigned launches;
	struct rt_launch_cost cost;
} rt_stats[64];
static struct rt_kernel_stat rt_stats_total;
static pthread_mutex_t rt_stats_lock = PTHREAD_MUTEX_INITIALIZER;

static void rt_stats_add(const char *kernel, const struct rt_launch_cost *c)
{
	pthread_mutex_lock(&rt_stats_lock);
	struct rt_kernel_stat *s = NULL;
	for (size_t i = 0; i < sizeof rt_stats / sizeof rt_stats[0] && !s; i++)
		if (!rt_stats[i].name || rt_stats[i].name == kernel)
			s = &rt_stats[i];
	struct rt_kernel_stat *add[2] = {&rt_stats_total, s};
	for (int i = 0; i < 2 && add[i]; i++) {
		add[i]->name = kernel;
		add[i]->launches++;
		add[i]->cost.ms += c->ms;
		add[i]->cost.cpu_ms += c->cpu_ms;
		add[i]->cost.insns += c->insns;
	}
	pthread_mutex_unlock(&rt_stats_lock);
}

static int rt_stats_by_time(const void *a, const void *b)
{
	const struct rt_kernel_stat *x = a, *y = b;
	return (x->cost.ms < y->cost.ms) - (x->cost.ms > y->cost.ms);
}

void rt_report_stats(void)
{
	const char *e = getenv("PMPPLAB_EMU_STATS");
	if (!e || !*e || strcmp(e, "0") == 0)
		return;
	pthread_mutex_lock(&rt_stats_lock);
	const struct rt_kernel_stat *t = &rt_stats_total;
	fflush(stdout);
	fprintf(stderr, "pmpplab emu: %llu thread-instructions in %u launches, %.3f s in kernels, "
		"%.3f s CPU\n", (unsigned long long)t->cost.insns, t->launches, t->cost.ms / 1e3,
		t->cost.cpu_ms / 1e3);
	size_t n = 0;
	while (n < sizeof rt_stats / sizeof rt_stats[0] && rt_stats[n].name)
		n++;
	qsort(rt_stats, n, sizeof rt_stats[0], rt_stats_by_time);
	for (size_t i = 0; i < n && i < 5; i++) {
		const struct rt_kernel_stat *s = &rt_stats[i];
		const struct rt_launch_cost *c = &s->cost;
		fprintf(stderr, "pmpplab emu:   %-40.40s %6u launches %10.3f s %10.3f s CPU %14llu insns "
			"%8.2f M/CPU s\n", s->name, s->launches, c->ms / 1e3, c->cpu_ms / 1e3,
			(unsigned long long)c->insns, c->cpu_ms > 0 ? (double)c->insns / c->cpu_ms / 1e3 : 0.0);
	}
	pthread_mutex_unlock(&rt_stats_lock);
}

void rt_report_launch(const char *kernel, const char *entry, dim3 grid, dim3 block,
		      size_t shmem, cudaError_t status, const struct rt_launch_cost *cost)
{
	static const struct rt_launch_cost none;
	if (!cost)
		cost = &none;
	rt_stats_add(kernel, cost);
	rt_report_init();
	if (rt_events_fd < 0)
		return;
	char esc_kernel[600], esc_entry[600], line[1600];
	rt_json_escape(esc_kernel, sizeof esc_kernel, kernel);
	rt_json_escape(esc_entry, sizeof esc_entry, entry ? entry : kernel);
	int n = snprintf(line, sizeof line,
			 "{\"event\":\"launch\",\"kernel\":\"%s\",\"entry\":\"%s\","
			 "\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"shmem\":%zu,\"status\":\"%s\","
			 "\"ms\":%.3f,\"insns\":%llu}\n",
			 esc_kernel, esc_entry, grid.x, grid.y, grid.z, block.x, block.y, block.z, shmem,
			 status == cudaSuccess ? "ok" : rt_error_name(status), cost->ms,
			 (unsigned long long)cost->insns);
	if (n > 0)
		rt_event_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* ---- kernel names ------------------------------------------------------------ */

/* The host program is C++, so libstdc++'s demangler is normally loaded already. */
typedef char *(*rt_demangle_fn)(const char *, char *, size_t *, int *);

/* Strips the parameter list: the parenthesis matching the final ')'. */
static void rt_strip_params(char *s)
{
	size_t n = strlen(s);
	if (n == 0 || s[n - 1] != ')')
		return;
	int depth = 0;
	for (size_t i = n; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0) {
			s[i] = '\0';
			return;
		}
	}
}

/* Template functions demangle with their return type ("void reduce<256>"): skip to
 * after the last space outside any <...> or (...). */
static const char *rt_skip_return_type(const char *s)
{
	const char *start = s;
	int depth = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth > 0)
			depth--;
		else if (*p == ' ' && depth == 0)
			start = p + 1;
	}
	return start;
}

/* Copies n bytes of s into out[len]; a name too long for it is cut visibly, with "...". */
static void rt_name_copy(char *out, size_t len, const char *s, size_t n)
{
	if (n >= len && len > 4)
		snprintf(out, len, "%.*s...", (int)(len - 4), s);
	else
		snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

char *rt_report_kernel_name(const char *mangled, char *out, size_t len)
{
	if (!len)
		return out;
	const char *m = mangled ? mangled : "?";
	rt_name_copy(out, len, m, strlen(m));
	if (!mangled || strncmp(mangled, "_Z", 2) != 0)
		return out; /* extern "C" kernels keep their name */

	rt_demangle_fn demangle = (rt_demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (demangle) {
		int status = -1;
		char *d = demangle(mangled, NULL, NULL, &status);
		if (d && status == 0) {
			rt_strip_params(d);
			const char *name = rt_skip_return_type(d);
			rt_name_copy(out, len, name, strlen(name));
			free(d);
			return out;
		}
		free(d);
	}
	/* No demangler: a plain _Z<len><name> is still readable. */
	const char *p = mangled + 2;
	char *end;
	unsigned long n = strtoul(p, &end, 10);
	if (end != p && n > 0 && strlen(end) >= n)
		rt_name_copy(out, len, end, n);
	return out;
}

/* At load: the events file and the SIGSEGV handler must be ready before main(). */
__attribute__((constructor)) static void rt_report_constructor(void)
{
	rt_report_init();
}
